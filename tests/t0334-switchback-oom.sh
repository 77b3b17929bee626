#!/bin/sh
# switchback ends its run when the workload's cgroup OOM-kills a process
# (live host, root): a service that lost a process to its own limit is no
# longer the one measured, and the settings go back before it can lose
# another. The workload: a keeper (sleep) and, 4 s in, a process that asks
# for more than the cgroup's memory+swap limit. The run must stop (exit 1,
# status stopped) naming the kill, the window and the arm, with
# page-cluster as before and nothing pending in the journal. (Seen in
# session 14's CI: PostgreSQL OOM-killed in t0330's cgroup, after which
# every window failed on a dead load generator and the run blamed the
# metric command.)
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sb-pg.sh"

need_probe_host
command -v jq >/dev/null || skip "needs jq to read the documents"
command -v sqlite3 >/dev/null || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null || skip "needs python3 for the allocating process"
[ -d /sys/fs/cgroup/memory ] || skip "the test drives a cgroup v1 memory controller"
CGW=swaptune-sboom-$$
CGP=/sys/fs/cgroup/memory/$CGW
[ -f /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes ] ||
	skip "no swap accounting (memory.memsw): a hog could swap instead of being OOM-killed"
db=$scratch/db
pc() { cat /proc/sys/vm/page-cluster; }
pc_before=$(pc)
[ "$pc_before" != 0 ] || skip "page-cluster is 0 on this host: the test switches 0 against it"
wl_pid=""

stop_all() {
	[ -d "$CGP" ] && sb_cgroup_remove "$CGP"
	[ -n "$wl_pid" ] && wait "$wl_pid" 2>/dev/null
	return 0
}
cleanup_hooks="stop_all"

mkdir "$CGP" || { fail "cannot make $CGP"; done_testing; }
echo $((48 << 20)) >"$CGP/memory.limit_in_bytes" && echo $((48 << 20)) >"$CGP/memory.memsw.limit_in_bytes" ||
	{ fail "cannot limit $CGP"; done_testing; }
# the keeper, and 4 s in a process asking for 128 MiB in a 48 MiB cgroup
sh -c 'echo $$ >"$0/cgroup.procs"; exec sleep 100000' "$CGP" &
wl_pid=$!
sh -c 'echo $$ >"$0/cgroup.procs"; sleep 4; exec python3 -c "b = bytearray(128 << 20); print(len(b))"' \
	"$CGP" >/dev/null 2>&1 &
i=0
while [ "$(wc -l <"$CGP/cgroup.procs")" -lt 2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
oom0=$(awk '$1 == "oom_kill" { print $2 }' "$CGP/memory.oom_control")

"$SWAPTUNE" --db "$db" switchback --yes --json --progress plain --arms pc3,pc0 --baseline pc3 --cgroup "$CGW" \
	--psi-full-max 0 --window 2s --washout 1s --blocks 6 --metric psi-some >"$scratch/sb.json" 2>"$scratch/sb.err"
rc=$?
oom1=$(awk '$1 == "oom_kill" { print $2 }' "$CGP/memory.oom_control")
[ "$oom1" -gt "$oom0" ] || { fail "the allocating process was not OOM-killed (oom_kill $oom0 -> $oom1): the test proves nothing"; done_testing; }
[ $rc -eq 1 ] || fail "exit $rc, want 1: $(tail -n 3 "$scratch/sb.err")"
[ "$(jq -r .status "$scratch/sb.json")" = stopped ] || fail "status $(jq -r .status "$scratch/sb.json")"
reason=$(jq -r .stop_reason "$scratch/sb.json")
echo "$reason" | grep -Eq "^the workload's cgroup $CGW OOM-killed 1 process in window [0-9]+ \(arm pc[03]\): the run ends with the settings restored$" ||
	fail "stop reason: $reason"
grep -q "OOM-killed 1 process" "$scratch/sb.err" || fail "the reason is not on stderr: $(tail -n 2 "$scratch/sb.err")"
[ "$(jq '.windows | length' "$scratch/sb.json")" -lt 12 ] || fail "every window ran"
[ "$(pc)" = "$pc_before" ] || fail "page-cluster is $(pc), was $pc_before"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] || fail "journal rows still pending"
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1")" = stopped ] ||
	fail "the stored run is not 'stopped'"
# the plan says so before the run (one word: human output folds at 100 columns)
"$SWAPTUNE" --db "$db" switchback --dry-run --arms pc3,pc0 --baseline pc3 --cgroup "$CGW" --metric psi-some \
	--window 2s --washout 1s --blocks 6 | grep -q "OOM-kills" || fail "the plan does not say an OOM kill ends the run"
done_testing
