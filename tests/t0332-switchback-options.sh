#!/bin/sh
# switchback's and verify --live's options from their tables, without a live
# host (--dry-run on the vm-v1 fixture, nothing switched):
#   1. the design rows both commands share parse into the plan (--json):
#      window, washout, blocks, looks, seed, guardrails, max-failures;
#   2. --metric-prom takes two words, URL and NAME, wherever it stands;
#      without NAME it is a usage error (exit 2);
#   3. --higher-better with --lower-better, and --metric-counter with
#      --metric-gauge, are usage errors; --higher-better given before the
#      metric source still counts;
#   4. verify refuses the switchback rows without --live, and the probe's
#      --reps/--arm/--scratch-dir with --live; switchback --help and
#      verify --help list the shared rows;
#   5. the human plan writes numbers in the house style, never an exponent
#      (the budget's smallest p was 3.05e-05);
#   7. --help names every kernel figure --metric accepts (its refusal lists them; swap-ra-hit was
#      missing from the help; the man page sends to --help, t0001);
#   8. --cgroup through a symlink out of the sysroot is refused.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "needs jq to read the plan"
root=$scratch/root
cp -R "$FIXTURES/vm-v1" "$root"
sb() { "$SWAPTUNE" --sysroot "$root" --db "$scratch/db" switchback "$@"; }

# 1. the shared rows reach the plan
sb --json --dry-run --window 10s --washout 4s --blocks 6 --looks 4,6 --seed 7 \
	--psi-full-max 50 --max-failures 2 >"$scratch/plan.json" 2>"$scratch/err" ||
	fail "switchback --dry-run with the design rows: exit $?: $(cat "$scratch/err")"
jq -e '[.. | numbers] | length > 0' "$scratch/plan.json" >/dev/null ||
	fail "no plan document: $(head -c 300 "$scratch/plan.json")"
for want in 'window_s 10' 'washout_s 4' 'seed 7' 'max_failures 2' 'psi_full_max 50'; do
	k=${want% *}
	v=${want#* }
	jq -e --arg k "$k" --argjson v "$v" '[.. | objects | select(has($k)) | .[$k]] | any(. == $v)' \
		"$scratch/plan.json" >/dev/null || fail "the plan has no $k = $v"
done
jq -e '[.. | objects | select(has("looks")) | .looks] | any(. == [4,6])' "$scratch/plan.json" >/dev/null ||
	fail "the plan's looks are not 4,6"

# 2. --metric-prom URL NAME, before and after other options
for order in first last; do
	if [ $order = first ]; then
		sb --json --metric-prom http://127.0.0.1:9187/metrics pg_tps --higher-better --dry-run
	else
		sb --json --dry-run --higher-better --metric-prom http://127.0.0.1:9187/metrics pg_tps
	fi >"$scratch/prom.json" 2>"$scratch/err" || fail "--metric-prom ($order): exit $?: $(cat "$scratch/err")"
	jq -e '[.. | strings] | any(. == "pg_tps")' "$scratch/prom.json" >/dev/null ||
		fail "--metric-prom ($order): NAME pg_tps not in the plan"
done
sb --dry-run --metric-prom http://127.0.0.1:9187/metrics >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'needs a URL and a metric NAME' "$scratch/err" ||
	fail "--metric-prom without NAME: exit $rc: $(cat "$scratch/err")"

# 3. pairs that exclude each other; a direction given before the source
sb --dry-run --metric-cmd /bin/true --higher-better --lower-better >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--higher-better and --lower-better: give one' "$scratch/err" ||
	fail "both directions: exit $rc: $(cat "$scratch/err")"
sb --dry-run --metric-file /tmp/x --metric-counter --metric-gauge --lower-better >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--metric-counter and --metric-gauge: give one' "$scratch/err" ||
	fail "counter and gauge: exit $rc: $(cat "$scratch/err")"
sb --dry-run --higher-better --metric-cmd /bin/true >"$scratch/out" 2>"$scratch/err" ||
	fail "--higher-better before --metric-cmd: exit $?: $(cat "$scratch/err")"
grep -q 'higher is better' "$scratch/out" || fail "--higher-better before --metric-cmd was lost"

# 4. verify: the shared rows go with --live, the probe's do not
"$SWAPTUNE" --db "$scratch/db" verify --window 10s >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--window goes with --live' "$scratch/err" ||
	fail "verify --window without --live: exit $rc: $(cat "$scratch/err")"
for o in "--reps 3" "--arm pc0" "--scratch-dir /tmp"; do
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$scratch/db" verify --live $o >/dev/null 2>"$scratch/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q 'does not go with --live' "$scratch/err" ||
		fail "verify --live $o: exit $rc: $(cat "$scratch/err")"
done
# parsed, then the next failure: no apply to verify
"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" verify --live --dry-run --window 10s --blocks 4 \
	--metric majfault >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'nothing to verify' "$scratch/err" ||
	fail "verify --live with design rows: exit $rc: $(cat "$scratch/err")"
for c in switchback verify; do
	"$SWAPTUNE" $c --help >"$scratch/help" || fail "$c --help: exit $?"
	for o in --window --washout --blocks --looks --max-time --seed --metric --metric-cmd \
		--metric-file --metric-prom --metric-name --metric-counter --metric-gauge --higher-better \
		--lower-better --metric-timeout --cgroup --psi-full-max --psi-some-max --max-failures; do
		grep -q -- "^  $o " "$scratch/help" || fail "$c --help lacks $o"
	done
done
# 5. the house number style in the human plan
sb --dry-run >"$scratch/plan.txt" 2>&1 || fail "switchback --dry-run: exit $?"
grep -q '^Budget  *smallest p at each look:' "$scratch/plan.txt" || fail "no budget line in the plan"
grep -E '[0-9]e[-+]?[0-9]' "$scratch/plan.txt" && fail "the plan writes a number with an exponent"
# 6. --max-failures 0 is "never", said so in the plan and in --help, not "0 failed windows end the run"
sb --dry-run --max-failures 0 >"$scratch/plan0.txt" 2>&1 || fail "switchback --dry-run --max-failures 0: exit $?"
unfold "$scratch/plan0.txt" | grep -q 'failed windows never end the run (--max-failures 0)' &&
	! grep -q '0 failed windows end the run' "$scratch/plan0.txt" ||
	fail "--max-failures 0 is not said to mean never: $(grep -i 'failed windows' "$scratch/plan0.txt")"
"$SWAPTUNE" switchback --help | grep -A1 -- '--max-failures' | grep -q '0: never' || fail "switchback --help does not say what 0 means"

# 7. every --metric name the refusal lists is in --help (the man page sends there: t0001)
sb --metric bogus --arms pc3,pc0 --dry-run >/dev/null 2>"$scratch/err"
names=$(sed -n 's/.*--metric bogus: give \(.*\) or cpu-per-work.*/\1/p' "$scratch/err" | tr -d ',')
[ -n "$names" ] || fail "--metric's refusal lists no names: $(cat "$scratch/err")"
"$SWAPTUNE" switchback --help | tr -s ' \n' ' ' >"$scratch/help1"
for n in $names; do
	grep -qE -- " $n(,| or )" "$scratch/help1" || fail "switchback --help does not name --metric $n"
done

# 8. --cgroup through a symlink out of the sysroot is refused (one line, exit 2), one inside is
#    taken (issue 33, finding 10: it was accepted)
mkdir -p "$root/sys/fs/cgroup/memory/wl" "$scratch/outside"
ln -s "$scratch/outside" "$root/sys/fs/cgroup/memory/escape"
ln -s wl "$root/sys/fs/cgroup/memory/inside"
sb --dry-run --cgroup escape >/dev/null 2>"$scratch/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$scratch/err")" = 1 ] && grep -q -- "--cgroup escape: .* leads out of the sysroot" "$scratch/err" ||
	fail "8: --cgroup through a symlink out of the sysroot: exit $rc, $(cat "$scratch/err")"
sb --dry-run --cgroup inside >/dev/null 2>"$scratch/err" || fail "8: --cgroup through a symlink inside: exit $?, $(cat "$scratch/err")"
done_testing
