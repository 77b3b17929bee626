#!/bin/sh
# switchback's guardrails and endings on the live host (root), with
# workloads of the test's own in a memory cgroup (the service itself is
# t0330's): short windows, page-cluster 3 (the host's) against 0.
#   1. a window whose metric command fails is FAILED, the run goes on;
#   2. a metric command that always fails ends the run after 3 failed
#      windows (exit 1, status stopped), the settings restored;
#   3. the PSI guardrail: a memory hog swapping to zswap in a small cgroup
#      stalls the host; every candidate window trips the guardrail, is
#      switched back to page-cluster 3 within the window and fails; the
#      baseline's windows do not; page-cluster never stays 0 a whole window;
#   4. kill -9 during a candidate window: the next command that changes the host (repair) puts
#      page-cluster back and ends the run "interrupted";
#   5. the workload exits mid-run: the run stops (status stopped), restored;
#   6. SIGINT: exit 130, restored.
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sb-pg.sh"

need_probe_host
command -v jq >/dev/null || skip "needs jq to read the documents"
command -v sqlite3 >/dev/null || skip "needs the sqlite3 command-line tool"
[ -d /sys/fs/cgroup/memory ] || skip "the test drives a cgroup v1 memory controller"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }
pc() { cat /proc/sys/vm/page-cluster; }
pc_before=$(pc)
[ "$pc_before" != 0 ] || skip "page-cluster is 0 on this host: the test switches 0 against it"
CGW=swaptune-sbwl-$$
CGP=/sys/fs/cgroup/memory/$CGW
wl_pid="" sb_pid="" watch_pid=""

stop_all() {
	for p in $sb_pid $watch_pid; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [ -d "$CGP" ]; then
		for p in $(cat "$CGP/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done
		i=0
		while [ -n "$(cat "$CGP/cgroup.procs")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		rmdir "$CGP"
	fi
	[ -n "$wl_pid" ] && wait "$wl_pid" 2>/dev/null
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
	sb_swap_off
	rm -rf "$PG_DIR"
}
cleanup_hooks="stop_all"

# workload CMD...: CMD in the cgroup (a fresh one), in the background
workload() {
	[ -d "$CGP" ] || mkdir "$CGP" || { fail "cannot make $CGP"; return 1; }
	sh -c 'echo $$ >"$0/cgroup.procs"; shift; exec "$@"' "$CGP" x "$@" &
	wl_pid=$!
	i=0
	while [ -z "$(cat "$CGP/cgroup.procs")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
workload_stop() {
	for p in $(cat "$CGP/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	[ -n "$wl_pid" ] && wait "$wl_pid" 2>/dev/null
	wl_pid=""
}
restored() {
	i=0
	while [ "$(pc)" != "$pc_before" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(pc)" = "$pc_before" ] || fail "$1: page-cluster is $(pc), was $pc_before"
	[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] ||
		fail "$1: journal rows still pending"
}
# (the guardrail off unless a part asks: other load on this host must not trip it)
sb() { st switchback --yes --json --progress plain --arms pc3,pc0 --baseline pc3 --cgroup "$CGW" --psi-full-max 0 "$@"; }

workload sleep 100000
# 1. the metric command fails in window 2 only
sb --window 2s --washout 1s --blocks 3 --max-failures 3 \
	--metric-cmd "sh -c 'test \"\$SWAPTUNE_WINDOW\" = 2 && { echo broken >&2; exit 3; }; echo 100'" \
	--higher-better >"$scratch/1.json" 2>"$scratch/1.err"
rc=$?
[ $rc -eq 0 ] || fail "1: exit $rc: $(tail -n 3 "$scratch/1.err")"
[ "$(jq -r '.windows[2].outcome' "$scratch/1.json")" = failed ] || fail "1: window 2 did not fail"
jq -r '.windows[2].failure' "$scratch/1.json" | grep -q "exited 3: broken" ||
	fail "1: window 2's failure: $(jq -r '.windows[2].failure' "$scratch/1.json")"
[ "$(jq '[.windows[] | select(.outcome == "ok")] | length' "$scratch/1.json")" = 5 ] || fail "1: not 5 windows ok"
[ "$(jq -r .status "$scratch/1.json")" = ok ] || fail "1: status $(jq -r .status "$scratch/1.json")"
restored 1

# 2. always failing: three failed windows end the run
sb --window 2s --washout 1s --blocks 4 --metric-cmd "false" --higher-better >"$scratch/2.json" 2>"$scratch/2.err"
rc=$?
[ $rc -eq 1 ] || fail "2: exit $rc, want 1"
grep -q "3 windows failed" "$scratch/2.err" || fail "2: no reason on stderr: $(tail -n 2 "$scratch/2.err")"
[ "$(jq -r .status "$scratch/2.json")" = stopped ] || fail "2: status $(jq -r .status "$scratch/2.json")"
[ "$(jq '.windows | length' "$scratch/2.json")" = 3 ] || fail "2: $(jq '.windows | length' "$scratch/2.json") windows, want 3"
restored 2

# 4. kill -9 in a candidate window (before 3: no swapping needed); 8 s
# windows: the kill comes within a poll (0.1 s) of the switch to 0
# (the binary itself in the background, not a shell function: $! must be its pid)
"$SWAPTUNE" --db "$db" switchback --yes --progress none --arms pc3,pc0 --baseline pc3 --cgroup "$CGW" \
	--window 8s --washout 2s --blocks 2 --metric psi-some --psi-full-max 0 >"$scratch/4.out" 2>&1 &
sb_pid=$!
i=0
while [ "$(pc)" != 0 ] && [ $i -lt 500 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(pc)" = 0 ] || fail "4: no candidate window within 50 s"
kill -9 "$sb_pid"
wait "$sb_pid" 2>/dev/null
sb_pid=""
[ "$(pc)" = 0 ] || fail "4: page-cluster is not 0 right after kill -9 (nothing to repair)"
st repair >/dev/null 2>"$scratch/4.err" || fail "4: repair after kill -9: exit $?"
grep -q "restored page-cluster 0 -> $pc_before" "$scratch/4.err" || fail "4: repair not reported: $(cat "$scratch/4.err")"
restored 4
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1")" = interrupted ] ||
	fail "4: the killed run is not marked interrupted"

# 5. the workload exits mid-run
workload_stop
workload sleep 5
sb --window 3s --washout 1s --blocks 6 --metric psi-some >"$scratch/5.json" 2>"$scratch/5.err"
rc=$?
[ $rc -eq 1 ] || fail "5: exit $rc, want 1"
[ "$(jq -r .status "$scratch/5.json")" = stopped ] || fail "5: status $(jq -r .status "$scratch/5.json")"
jq -r .stop_reason "$scratch/5.json" | grep -q "no process left" || fail "5: reason $(jq -r .stop_reason "$scratch/5.json")"
[ "$(jq '.windows | length' "$scratch/5.json")" -lt 12 ] || fail "5: every window ran"
restored 5
wl_pid=""

# 6. SIGINT
workload sleep 100000
"$SWAPTUNE" --db "$db" switchback --yes --json --progress plain --arms pc3,pc0 --baseline pc3 --cgroup "$CGW" \
	--psi-full-max 0 --window 3s --washout 1s --blocks 6 --metric psi-some >"$scratch/6.json" 2>"$scratch/6.err" &
sb_pid=$!
sleep 4
kill -INT "$sb_pid"
wait "$sb_pid"
rc=$?
sb_pid=""
[ $rc -eq 130 ] || fail "6: exit $rc, want 130"
[ "$(jq -r .status "$scratch/6.json")" = interrupted ] || fail "6: status $(jq -r .status "$scratch/6.json")"
restored 6
workload_stop

# 3. the PSI guardrail: a hog swapping to zswap in a 64 MiB cgroup stalls the host.
# Its 160 MiB compress (each page its own text, not one repeated byte), read at
# random: incompressible pages (stress-ng --vm, any method) are kept whole in
# zswap and charged to the cgroup, so swapping frees nothing and the cgroup's
# OOM killer strikes every few seconds, which ends a switchback run
command -v python3 >/dev/null || { echo "3: skipped, no python3"; done_testing; }
sb_swap_on || { fail "3: cannot set up a scratch swap"; done_testing; }
mkdir -p "$CGP" 2>/dev/null
echo $((64 << 20)) >"$CGP/memory.limit_in_bytes"
cat >"$scratch/hog.py" <<'EOF'
import random
n = 160 << 20
b = bytearray(n)
for p in range(0, n, 4096):
    b[p:p + 4096] = (b"page %d " % p * 400)[:4096]
s = 0
while True:
    s += b[random.randrange(n)]
EOF
# The run names no --cgroup: on v1 the guardrail reads the host's PSI anyway, and the
# hog's cgroup OOM-kills it now and then (swap readahead charged into the full
# cgroup, seen at page-cluster 3), which ends a run that watches the cgroup (t0334);
# a shell in the cgroup starts the hog again when that happens
workload sh -c 'while :; do python3 "$0"; done' "$scratch/hog.py"
sleep 8
# page-cluster at 10 Hz while it runs
(while :; do echo "$(date +%s.%N) $(pc)"; sleep 0.1; done) >"$scratch/pc.log" &
watch_pid=$!
st switchback --yes --json --progress plain --arms pc3,pc0 --baseline pc3 --window 6s --washout 2s --blocks 3 \
	--max-failures 0 --psi-full-max 2 --psi-some-max 5 --metric psi-some >"$scratch/3.json" 2>"$scratch/3.err"
rc=$?
kill "$watch_pid"
wait "$watch_pid" 2>/dev/null
watch_pid=""
workload_stop
echo "3: OOM kills in the hog's cgroup so far: $(awk '$1 == "oom_kill" { print $2 }' "$CGP/memory.oom_control")"
[ $rc -eq 0 ] || fail "3: exit $rc: $(tail -n 3 "$scratch/3.err")"
echo "3: PSI some/full of the host in the baseline's windows:" \
	"$(jq -c '[.windows[] | select(.arm == "pc3") | [(.kernel.psi_some_pct * 10 | round / 10), (.kernel.psi_full_pct * 10 | round / 10)]]' "$scratch/3.json")"
cand=$(jq '[.windows[] | select(.arm == "pc0")] | length' "$scratch/3.json")
tripped=$(jq '[.windows[] | select(.arm == "pc0" and .outcome == "failed" and (.failure | test("^PSI memory")) and .failed_at_s < 6)] | length' "$scratch/3.json")
[ "$cand" -gt 0 ] && [ "$tripped" = "$cand" ] ||
	fail "3: $tripped of $cand candidate windows tripped the guardrail within the window: $(jq -c '[.windows[] | [.arm, .outcome, .failed_at_s]]' "$scratch/3.json")"
[ "$(jq '[.windows[] | select(.arm == "pc3" and .outcome == "failed")] | length' "$scratch/3.json")" = 0 ] ||
	fail "3: a baseline window failed"
echo "3: switched back after $(jq -c '[.windows[] | select(.arm == "pc0") | .failed_at_s * 10 | round / 10]' "$scratch/3.json") s"
# the longest stretch of page-cluster 0 is shorter than a window
longest=$(awk '$2 == 0 { if (!s) s = $1; l = $1 - s; if (l > m) m = l; next } { s = 0 } END { printf "%.1f", m }' "$scratch/pc.log")
awk -v l="$longest" 'BEGIN { exit !(l > 0 && l < 6) }' || fail "3: page-cluster stayed 0 for $longest s (a window is 6 s)"
echo "3: longest stretch at page-cluster 0: $longest s"
restored 3
done_testing
