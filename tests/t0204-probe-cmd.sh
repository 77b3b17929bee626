#!/bin/sh
# The cmd workload (live host, root): a real external program runs under the
# trial's memory cgroup, argv-exec'd, once per trial. With --metric-regex
# the number it prints is the primary metric; without, its wall time is.
# It swaps through zswap inside the cgroup (its memory exceeds the limit),
# a command that fails is a failed trial with its exit status, --user runs
# it as that user, and stress-ng (when installed) reports its wall time per
# arm. The host is as before afterwards.
. "$(dirname "$0")/lib.sh"

need_probe_host
hog=$BUILD/helpers/probe-memhog
[ -x "$hog" ] || { echo "FAIL: $hog not built (make check builds it)"; exit 1; }
check=$BUILD/helpers/schema-check
wait_no_probe
db=$scratch/db
settings() { cat /proc/sys/vm/page-cluster /sys/module/zswap/parameters/enabled /sys/kernel/mm/swap/vma_ra_enabled; }
cleanup_probe() { "$SWAPTUNE" repair --db "$db" >/dev/null 2>&1; }
cleanup_hooks="cleanup_probe"
for i in $(seq 1 20); do
	a=$(settings); sleep 0.3; b=$(settings)
	[ "$a" = "$b" ] && break
done
before=$(settings)
# Other tests on this host (t0006) flip page-cluster and zswap for moments:
# a setting counts as restored once it is back to its old value within 15 s
# (nobody else would restore a change of ours).
settled() {
	i=0
	while [ "$(settings)" != "$before" ] && [ $i -lt 50 ]; do sleep 0.3; i=$((i + 1)); done
	[ "$(settings)" = "$before" ]
}

probe() {	# probe OUT ARGS...
	out=$1
	shift
	for try in 1 2 3 4 5; do
		"$SWAPTUNE" probe --db "$db" --yes --json --workload cmd --no-warmup "$@" >"$out" 2>"$scratch/err"
		rc=$?
		grep -q "is changing this host" "$scratch/err" || return $rc
		wait_no_probe
	done
	return $rc
}

# 1: a program that needs 160 MiB in a 96 MiB cgroup, metric from its output
probe "$scratch/hog.json" --arms pc3,pc0 --reps 2 --memcg-limit 96M \
	--metric-regex 'memhog: ([0-9.]+) pages/s' -- "$hog" 160 2 || fail "memhog probe: exit $? $(cat "$scratch/err")"
j=$scratch/hog.json
"$check" "$SCHEMAS/probe.schema.json" "$j" >"$scratch/v.out" 2>&1 || fail "JSON: $(head -5 "$scratch/v.out")"
[ "$(jq -r .primary_metric.key "$j")" = metric ] || fail "primary metric is not the command's"
[ "$(jq -r .primary_metric.higher_is_better "$j")" = true ] || fail "metric direction"
[ "$(jq -r '.workload.argv[0]' "$j")" = "$hog" ] || fail "argv not recorded"
for k in 0 1; do
	[ "$(jq ".arms[$k].completed" "$j")" = 2 ] || fail "arm $k completed $(jq ".arms[$k].completed" "$j") of 2: $(jq -c '.trials[] | [.status, .note]' "$j")"
	m=$(jq ".arms[$k].primary.mean" "$j")
	w=$(jq ".arms[$k].metrics.wall_s.mean" "$j")
	zi=$(jq ".arms[$k].metrics.zswpin.mean" "$j")
	pk=$(jq ".arms[$k].metrics.memcg_peak_bytes.mean" "$j")
	echo "arm $(jq -r ".arms[$k].name" "$j"): $m pages/s, wall $w s, zswpin $zi, memcg peak $pk"
	awk -v m="$m" -v w="$w" 'BEGIN { exit !(m > 1000 && w > 0 && w < 60) }' || fail "arm $k: metric $m, wall $w"
	# it ran in the cgroup: it swapped, and the group's peak is at its limit
	awk -v z="$zi" -v p="$pk" 'BEGIN { exit !(z > 1000 && p > 64 * 1048576 && p <= 96 * 1048576) }' ||
		fail "arm $k: zswpin $zi, memcg peak $pk: the command did not run in its 96 MiB cgroup"
done
[ "$(jq '.arms[1].metrics.swap_ra.mean' "$j")" = 0 ] || fail "pc0 should read no readahead pages"

# 2: wall time when there is no regex; a failing command fails its trials
probe "$scratch/false.json" --arms pc3 --reps 1 -- false || fail "probe of false: exit $?"
[ "$(jq -r '.trials[0].status' "$scratch/false.json")" = failed ] || fail "false: trial status"
jq -r '.trials[0].note' "$scratch/false.json" | grep -q "status 1" || fail "false: note $(jq -r '.trials[0].note' "$scratch/false.json")"
# no regex: wall time is primary; on a busy host the command's CPU seconds
if [ "$(jq -r '.method.busy_host.per_cpu_second // false' "$scratch/false.json")" = true ]; then
	[ "$(jq -r .primary_metric.key "$scratch/false.json")" = cpu_s ] || fail "no regex, busy host: CPU time is primary"
else
	[ "$(jq -r .primary_metric.key "$scratch/false.json")" = wall_s ] || fail "no regex: wall time is primary"
fi

# 3: --user runs the command as that user (the metric is its uid)
if id nobody >/dev/null 2>&1; then
	probe "$scratch/user.json" --arms pc0 --reps 1 --user nobody --metric-regex '^([0-9]+)$' -- id -u ||
		fail "--user: exit $? $(cat "$scratch/err")"
	[ "$(jq '.arms[0].primary.mean' "$scratch/user.json")" = "$(id -u nobody)" ] ||
		fail "--user nobody: the command ran as uid $(jq '.arms[0].primary.mean' "$scratch/user.json")"
fi

# 4: stress-ng, wall time per arm
if command -v stress-ng >/dev/null 2>&1; then
	probe "$scratch/sng.json" --arms pc3,pc0 --reps 1 --memcg-limit 192M -- \
		stress-ng --vm 1 --vm-bytes 200M --timeout 3s || fail "stress-ng probe: exit $? $(cat "$scratch/err")"
	for k in 0 1; do
		w=$(jq ".arms[$k].primary.mean" "$scratch/sng.json")
		echo "stress-ng arm $(jq -r ".arms[$k].name" "$scratch/sng.json"): wall $w s, status $(jq -r "[.trials[] | select(.arm == \"$(jq -r ".arms[$k].name" "$scratch/sng.json")\") | .status] | join(\",\")" "$scratch/sng.json")"
		[ "$(jq ".arms[$k].oom_kills" "$scratch/sng.json")" -gt 0 ] && continue	# a result, reported
		awk -v w="$w" 'BEGIN { exit !(w >= 3 && w < 30) }' || fail "stress-ng arm $k: wall $w s"
	done
fi

settled || fail "settings not restored"
done_testing
