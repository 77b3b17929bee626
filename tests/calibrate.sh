#!/bin/sh
# calibrate.sh - does the advisor find differences that are there, and only
# those, on this machine? (`make calibrate`; tests/t0304 runs a small version.)
#
# A/A: AA_RUNS probes (seeds 1..AA_RUNS) of two arms with identical settings
# (a:AA_SETTING, b:AA_SETTING) at the shipped design (sequential looks,
# --min-trial, --max-time; DESIGN_ARGS adds options, e.g. "--reps 5").
# Each run's own verdict counts (runs 2..N of the recipe are its later
# stages, a stricter question: tests/sim -P). A run alone spends at most
# 2.0 % (the first run's share of the recipe's 2.5 %): pass when at most
# AA_MAX_CHANGE of them say CHANGE (3 of 60 by default; with a true rate of
# 2.0 % that fails 3.2 % of the time, with 2.5 % 6.3 %, with 10 % 86.3 %). An A/A run
# the judge calls invalid (every arm failed in half its trials or more)
# compared nothing: more than AA_MAX_INVALID of them fail the calibration.
# AA_SETTING is page-cluster=0: at page-cluster 3 the memcg v1 kernel here
# (6.18, 2026-12-02) OOM-killed every 2-second trial of 64M in 32M, in both
# arms, charging swap-in readahead to the cgroup, and 60 such "A/A" runs
# would pass while testing nothing.
# A/B: AB_RUNS probes of zswap against the same swap without zswap (every
# swapped page goes to the loop device), both arms at AA_SETTING (at the
# host's page-cluster 3 the zswap arm was OOM-killed: keep:disk, oom_failed,
# 2026-12-02): a large, real difference that must be found every time (the zswap arm's comparison crosses its bound; the
# verdict itself may be held back by a cost guardrail, which is printed).
#
# Known effect: KNOWN_RUNS probes (cmd workload tests/helpers/known-effect,
# which does 10 % more CPU work when vm.page-cluster is 3: pc0 is +10.0 %
# better than pc3 by construction; fixed design of KNOWN_REPS rounds). A run
# detects when its own verdict is CHANGE to pc0 (not the pooled verdict of
# the recipe's runs so far, which marks pc0 "better" once the pool crosses)
# and covers when its own interval holds +10 %. Neither is certain in
# one run: at the live runs' noise (sd of the per-round log-ratio about
# 0.03) the simulator gives this design 100.0 % power with verdict v4's
# randomisation test (`sim -K`; 99.9 % at sd 0.045; 95.7 % with v3's
# robust t), and 24 of 25 live runs detected with v3 (sessions 7-9). So
# the gate is stated as rates, like the A/A one: pass
# when at least KNOWN_MIN_DETECT runs detect, the fewest a method with 90 %
# power reaches 95 % of the time (16 of 20: a 90 % method fails it 4.3 % of
# the time, a 95.7 % one 0.1 %, a 60 % one passes 5.1 %), and at least
# KNOWN_MIN_COVER cover, the same for a 95 % interval (17 of 20: 1.6 %).
# (Until 2026-12-02 the gate was "all 5 detect": a method with 95.7 % power
# fails that 20 % of the time, and it did, 4 of 5, in session 9.)
# Verdicts are each run's own (recommend's replication.own_verdict): the runs
# of one recipe here are replications, and the pooled verdict of the k-th
# is a different, stricter question (tests/sim -P measures that one).
#
# Needs root; waits for another probe to finish. Prints one line per run and
# a summary, and exits 0 when both criteria hold, 1 when not, 77 to skip.
# Environment: SWAPTUNE (binary), AA_RUNS (60), AA_MAX_CHANGE (3), AA_MAX_INVALID
# (0), AA_SETTING (page-cluster=0), AB_RUNS (3),
# WS (64M working set), LIMIT (32M memcg limit), DESIGN_ARGS (""), AB_DESIGN_ARGS
# (DESIGN_ARGS; the A/B probes' design), WORKLOAD
# (anon-random), KEEP_DB (path: keep the store there), KNOWN_RUNS (20),
# KNOWN_REPS (10), KNOWN_EFFECT (the helper binary), KNOWN_MIN_DETECT and
# KNOWN_MIN_COVER (computed from KNOWN_RUNS as above).
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
SWAPTUNE=${SWAPTUNE:-$TOP/swaptune}
AA_RUNS=${AA_RUNS:-60}
AA_MAX_CHANGE=${AA_MAX_CHANGE:-3}
AA_MAX_INVALID=${AA_MAX_INVALID:-0}
AA_SETTING=${AA_SETTING:-page-cluster=0}
AB_RUNS=${AB_RUNS:-3}
WS=${WS:-64M}
LIMIT=${LIMIT:-32M}
DESIGN_ARGS=${DESIGN_ARGS:-}
AB_DESIGN_ARGS=${AB_DESIGN_ARGS:-$DESIGN_ARGS}
WORKLOAD=${WORKLOAD:-anon-random}
KNOWN_RUNS=${KNOWN_RUNS:-20}
KNOWN_REPS=${KNOWN_REPS:-10}
KNOWN_EFFECT=${KNOWN_EFFECT:-$TOP/build/helpers/known-effect}

[ "$(id -u)" -eq 0 ] || { echo "calibration needs root (it runs probes)"; exit 77; }
[ "$KNOWN_RUNS" -eq 0 ] || [ -x "$KNOWN_EFFECT" ] || { echo "calibration needs $KNOWN_EFFECT (make build/helpers/known-effect)"; exit 77; }
[ -d /sys/module/zswap/parameters ] || { echo "zswap is not in this kernel"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "calibration needs python3 to read the verdicts"; exit 77; }
# binom_need N P0: the fewest successes of N trials that a rate of P0
# reaches with probability >= 95 %, and the chance it falls short ("K PCT")
binom_need() {
	python3 - "$1" "$2" <<'PY'
import sys
from math import comb
n, p = int(sys.argv[1]), float(sys.argv[2])
cdf = lambda k: sum(comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k + 1))
k = next((k for k in range(n + 1) if cdf(k) > 0.05), n)
print(k, "%.1f" % (100 * cdf(k - 1)) if k else "0.0")
PY
}
set -- $(binom_need "$KNOWN_RUNS" 0.90)
KNOWN_MIN_DETECT=${KNOWN_MIN_DETECT:-$1} detect_risk=$2
set -- $(binom_need "$KNOWN_RUNS" 0.95)
KNOWN_MIN_COVER=${KNOWN_MIN_COVER:-$1} cover_risk=$2
case $KNOWN_MIN_DETECT$KNOWN_MIN_COVER in *[!0-9]*|'') echo "calibration: bad KNOWN_MIN_DETECT or KNOWN_MIN_COVER"; exit 2 ;; esac
dir=$(mktemp -d /tmp/swaptune-calibrate.XXXXXX)
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
db=${KEEP_DB:-$dir/db}

# probe ARGS...: run one probe, waiting while another holds the lock; prints the run id
probe() {
	probe_any --workload "$WORKLOAD" --working-set "$WS" --memcg-limit "$LIMIT" $DESIGN_ARGS "$@"
}
# probe_ab ARGS...: the same with the A/B design
probe_ab() {
	probe_any --workload "$WORKLOAD" --working-set "$WS" --memcg-limit "$LIMIT" $AB_DESIGN_ARGS "$@"
}
probe_any() {
	tries=0
	while :; do
		"$SWAPTUNE" --db "$db" probe --yes --json "$@" >"$dir/probe.json" 2>"$dir/probe.err"
		rc=$?
		if [ $rc -eq 3 ] && grep -q 'is changing this host' "$dir/probe.err"; then
			tries=$((tries + 1))
			[ $tries -lt 360 ] || { echo "another probe held the lock for 30 minutes" >&2; return 1; }
			sleep 5
			continue
		fi
		[ $rc -eq 0 ] || { echo "probe $*: exit $rc: $(cat "$dir/probe.err")" >&2; return 1; }
		sed -n 's/^[[:space:]]*"run_id":[[:space:]]*\([0-9]*\),.*/\1/p' "$dir/probe.json" | head -1
		return 0
	done
}

# judge RUN CANDIDATE: "p effect lo hi kind arm status decision" from recommend --json
judge() {
	"$SWAPTUNE" --db "$db" recommend --run "$1" --json >"$dir/rec.json" || return 1
	python3 - "$dir/rec.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
arm = {a["name"]: a for a in d["arms"]}[sys.argv[2]]
f = lambda x: "nan" if x is None else "%.4g" % x
own = d.get("replication", {}).get("own_verdict", d["verdict"]["kind"])
pooled = d.get("replication", {}).get("pooled", False)
# the run alone: its own verdict (its arm is the one it would change to)
print(f(arm["p_one_sided"]), f(arm["effect_pct"]), f(arm["ci_low_pct"]), f(arm["ci_high_pct"]),
      own, (d["verdict"]["arm"] or "-") if not pooled or own == d["verdict"]["kind"] else "-",
      arm["status"], d.get("judgement", {}).get("decision", "-"))
PY
}

echo "A/A: $AA_RUNS runs of $WORKLOAD, $WS in a $LIMIT memcg, design ${DESIGN_ARGS:-as shipped}, arms a and b both $AA_SETTING"
printf '%4s %5s %9s %9s %20s %14s %s\n' seed run p_one effect "CI" verdict status
aa_change=0 aa_invalid=0
for seed in $(seq 1 "$AA_RUNS"); do
	run=$(probe --arm "a:$AA_SETTING" --arm "b:$AA_SETTING" --baseline a --seed "$seed") || exit 1
	set -- $(judge "$run" b) || exit 1
	p=$1 eff=$2 lo=$3 hi=$4 kind=$5 arm=$6 status=$7
	[ "$kind" = change ] && aa_change=$((aa_change + 1))
	[ "$8" = invalid ] && { aa_invalid=$((aa_invalid + 1)); status="$status (invalid: compared nothing)"; }
	printf '%4s %5s %9s %8s%% %20s %14s %s\n' "$seed" "$run" "$p" "$eff" "[$lo, $hi]" "$kind" "$status"
done

echo "A/B: $AB_RUNS runs, zswap (zswap.enabled=Y) against the same swap without zswap (disk, baseline), both $AA_SETTING"
printf '%4s %5s %9s %9s %20s %14s %s\n' seed run p_one effect "CI" verdict status
ab_pass=0
for seed in $(seq 1 "$AB_RUNS"); do
	run=$(probe_ab --arm "disk:zswap.enabled=N,$AA_SETTING" --arm "zswap:zswap.enabled=Y,$AA_SETTING" \
		--baseline disk --seed "$seed") || exit 1
	set -- $(judge "$run" zswap) || exit 1
	p=$1 eff=$2 lo=$3 hi=$4 kind=$5 arm=$6 status=$7
	# detected: the comparison crossed its bound (the verdict may still be held
	# back by a cost guardrail: zswap's compression costs CPU per operation),
	# or zswap completed where the disk arm failed credibly more often (the
	# failure endpoint's status "completed": run 1 of session 8's calibration,
	# disk OOM-killed in 8 of 15 trials, zswap in 2, CHANGE to zswap)
	# The A/B runs are replications of one recipe: status is the pooled
	# view (runs 2 and 3), so a run whose own verdict is CHANGE to zswap
	# counts too (session 10's run 62: its own failure test changed to
	# zswap; the pool crossed on speed but its guardrail held it back)
	if [ "$kind" = change ]; then	# two arms: a change is to zswap
		ab_pass=$((ab_pass + 1))
	else
		case $status in better|vetoed|below_min_effect|completed) ab_pass=$((ab_pass + 1)) ;; esac
	fi
	printf '%4s %5s %9s %8s%% %20s %14s %s\n' "$seed" "$run" "$p" "$eff" "[$lo, $hi]" "$kind:$arm" "$status"
done

echo "Known effect: $KNOWN_RUNS runs of cmd $KNOWN_EFFECT (10 % more work at page-cluster 3: pc0 +10.0 % by construction), $KNOWN_REPS rounds"
printf '%4s %5s %9s %9s %20s %14s %s\n' seed run p_one effect "CI" verdict status
known_pass=0 known_cover=0
for seed in $(seq 1 "$KNOWN_RUNS"); do
	run=$(probe_any --workload cmd --metric-regex 'known-effect: ([0-9.]+) units' --arms pc3,pc0 \
		--baseline pc3 --reps "$KNOWN_REPS" --memcg-limit 64M --seed "$seed" -- "$KNOWN_EFFECT" 1500 3 10) || exit 1
	set -- $(judge "$run" pc0) || exit 1
	p=$1 eff=$2 lo=$3 hi=$4 kind=$5 arm=$6 status=$7
	# two arms: the run's own change is to pc0 (the arm column names the
	# pooled verdict's choice, "-" when the pool says otherwise)
	[ "$kind" = change ] && known_pass=$((known_pass + 1))
	python3 -c "import sys; lo, hi = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if lo <= 10 <= hi else 1)" \
		"$lo" "$hi" && known_cover=$((known_cover + 1))
	printf '%4s %5s %9s %8s%% %20s %14s %s\n' "$seed" "$run" "$p" "$eff" "[$lo, $hi]" "$kind:$arm" "$status"
done

echo "A/A: $aa_change of $AA_RUNS said CHANGE; at most $AA_MAX_CHANGE allowed; $aa_invalid invalid (compared nothing), at most $AA_MAX_INVALID allowed"
echo "A/B: $ab_pass of $AB_RUNS detected zswap as faster; need $AB_RUNS"
echo "Known effect: $known_pass of $KNOWN_RUNS changed to pc0 by their own verdict (need $KNOWN_MIN_DETECT: a method with 90 % power falls short $detect_risk % of the time); the interval covered +10 % in $known_cover (need $KNOWN_MIN_COVER: a 95 % interval falls short $cover_risk % of the time)"
[ "$aa_change" -le "$AA_MAX_CHANGE" ] && [ "$aa_invalid" -le "$AA_MAX_INVALID" ] && [ "$ab_pass" -eq "$AB_RUNS" ] &&
	[ "$known_pass" -ge "$KNOWN_MIN_DETECT" ] && [ "$known_cover" -ge "$KNOWN_MIN_COVER" ] &&
	{ echo "calibration: pass"; exit 0; }
echo "calibration: FAIL"
exit 1
