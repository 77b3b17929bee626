#!/bin/sh
# A probe touches only what it must (live host, root): a 64 MiB file cached
# by a process outside the probe is still cached after a probe (fincore),
# whereas --drop-host-caches, named in the plan, drops it - the control that
# shows this test can fail. Every stored trial carries its phases and the
# busy-host covariates (host CPU pressure, the run queue, the trial's CPU
# share of its wall time, CPU steal where the kernel counts it), and
# `report --run` shows them. No swaptune cgroup is left behind.
. "$(dirname "$0")/lib.sh"

need_probe_host
command -v fincore >/dev/null 2>&1 || skip "needs fincore (util-linux) to see what is cached"
command -v jq >/dev/null 2>&1 || skip "needs jq"
wait_no_probe
db=$scratch/db
# a file on a disk-backed file system: tmpfs pages are not page cache that
# drop_caches could drop
dir=$(mktemp -d /var/tmp/swaptune-pagecache.XXXXXX) || skip "cannot make a directory in /var/tmp"
cleanup_probe() {
	rm -rf "$dir"
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
}
cleanup_hooks="cleanup_probe"
f=$dir/cached.dat
dd if=/dev/urandom of="$f" bs=1M count=64 status=none || skip "cannot write 64 MiB in /var/tmp"
sync
resident() { fincore --bytes --noheadings --output RES "$f" | tr -d ' '; }
warm() {	# read by this shell's own process: charged to its cgroup, not the probe's
	cat "$f" >/dev/null
	[ "$(resident)" -ge $((60 * 1024 * 1024)) ] || skip "the file does not stay cached here ($(resident) bytes)"
}

probe() {	# probe OUT ARGS...: retry while another probe holds the host lock
	out=$1
	shift
	for try in 1 2 3 4 5; do
		"$SWAPTUNE" probe --db "$db" --yes --json "$@" </dev/null >"$out" 2>"$scratch/err"
		rc=$?
		grep -q "is changing this host" "$scratch/err" || return $rc
		wait_no_probe
	done
	return $rc
}
small="--workload anon-seq --working-set 64M --memcg-limit 32M --arms pc3,pc0 --min-trial 0"

# the plan says what happens to the page cache, either way
"$SWAPTUNE" probe --db "$db" --dry-run $small >"$scratch/plan.txt" || fail "dry-run: exit $?"
unfold "$scratch/plan.txt" | grep -q "page-cache *the host's page cache is left alone" || fail "plan: $(grep page-cache "$scratch/plan.txt")"
"$SWAPTUNE" probe --db "$db" --dry-run --json --drop-host-caches $small >"$scratch/plan.json" || fail "dry-run --json: exit $?"
jq -r '.plan.host_changes[] | select(.kind == "page-cache") | .text' "$scratch/plan.json" | grep -q "drop the whole host's page cache" ||
	fail "the plan of --drop-host-caches does not name the drop"

# 1: a probe leaves the file cached
warm
before=$(resident)
probe "$scratch/p.json" $small --reps 2 || fail "probe: exit $? $(cat "$scratch/err")"
after=$(resident)
echo "cached before the probe $before bytes, after $after"
[ "$after" -ge $((before * 9 / 10)) ] || fail "the probe evicted another process's page cache: $before -> $after bytes"

# 2: the control: --drop-host-caches drops it
warm
probe "$scratch/d.json" $small --reps 1 --no-warmup --drop-host-caches || fail "probe --drop-host-caches: exit $? $(cat "$scratch/err")"
dropped=$(resident)
echo "with --drop-host-caches: $dropped bytes still cached"
[ "$dropped" -le $((8 * 1024 * 1024)) ] || fail "--drop-host-caches left $dropped bytes of the file cached"
[ "$(jq -r .method.drop_host_caches "$scratch/d.json")" = true ] || fail "the run does not record --drop-host-caches"

# 3: the covariates and phases of every trial, stored and reported
j=$scratch/p.json
run=$(jq .run_id "$j")
for k in prepare_s process_s cleanup_s cpu_share procs_running cpu_psi_some_us cpu_pressure_pct; do
	case $k in cpu_psi_some_us|cpu_pressure_pct) [ -r /proc/pressure/cpu ] || continue ;; esac
	n=$(sqlite3 "$db" "SELECT count(*) FROM trials t WHERE t.run_id = $run AND t.status != 'interrupted' AND
		NOT EXISTS (SELECT 1 FROM metrics m WHERE m.trial_id = t.id AND m.key = '$k')")
	[ "$n" = 0 ] || fail "$n stored trials lack $k"
	[ "$(jq "[.trials[] | select(.metrics.$k == null)] | length" "$j")" = 0 ] || fail "trials in the JSON lack $k"
done
if awk '/^cpu / { exit !(NF >= 9) }' /proc/stat; then
	[ "$(jq '[.trials[] | select(.metrics.cpu_steal_ms == null)] | length' "$j")" = 0 ] || fail "trials lack cpu_steal_ms"
fi
share=$(jq '[.trials[].metrics.cpu_share] | max' "$j")
awk -v s="$share" 'BEGIN { exit !(s > 0 && s < 2.5) }' || fail "cpu_share $share: a one-thread workload uses at most one CPU"
"$SWAPTUNE" report --db "$db" --run "$run" >"$scratch/report.txt" || fail "report --run: exit $?"
for k in cpu_pressure_pct cpu_share procs_running; do
	grep -q "$k" "$scratch/report.txt" || fail "report --run does not show $k"
done
[ -z "$(ls -d "$CG"/swaptune-* 2>/dev/null)" ] || fail "cgroups left behind: $(ls -d "$CG"/swaptune-*)"
done_testing
