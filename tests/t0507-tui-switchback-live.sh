#!/bin/sh
# A switchback from the screen on the live host (root), short: 5 s windows,
# 2 blocks, pc3 against pc0, PSI memory some, over a trivial workload
# (stress-ng --vm 1 --vm-bytes 64M) in a swaptune-* memory cgroup of this
# test's own (no limit). The plan, y, the timeline (a bar per window, the
# window counted, the current one); Esc stops it mid-run and the host is as
# before, the run stored as stopped/interrupted; the same run to its end
# shows the verdict; q restores the terminal.
# Changes host state: runs under the host lock (tests/host-lock.sh: taken here
# unless an ancestor, e.g. tests/hold-host-lock.sh, holds it already).
[ "$(id -u)" -eq 0 ] || { echo "needs root to switch page-cluster"; exit 77; }
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
# a tmux server of this test's own: another test's last kill-session must not take ours down
TMUX_TMPDIR=$scratch
export TMUX_TMPDIR
. "$(dirname "$0")/tui-lib.sh"
need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v stress-ng >/dev/null 2>&1 || skip "needs stress-ng for the workload"
[ "$CG" = /sys/fs/cgroup/memory ] || skip "the test makes a cgroup v1 memory group"
[ "$(cat "$PC")" = 3 ] || skip "page-cluster is $(cat "$PC"), not 3: the test switches 0 against 3"
wait_no_probe
db=$scratch/db
cgn=swaptune-tuisb-$$
wl_pid=
wl_cleanup() {
	[ -n "$wl_pid" ] && kill "$wl_pid" 2>/dev/null
	i=0
	while [ -n "$(cat "$CG/$cgn/cgroup.procs" 2>/dev/null)" ] && [ $i -lt 50 ]; do
		for p in $(cat "$CG/$cgn/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done
		sleep 0.2
		i=$((i + 1))
	done
	i=0
	while [ -d "$CG/$cgn" ] && ! rmdir "$CG/$cgn" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	return 0
}
cleanup_hooks="$cleanup_hooks wl_cleanup"

# the host as found, the workload's own cgroup left out
hs() { host_state | sed "s# *$CG/$cgn##"; }
hs >"$scratch/before"
mkdir "$CG/$cgn" || fail "making the workload's cgroup"
# the workload alone goes into the group: the shell that moves it becomes stress-ng at once
sh -c "echo \$\$ >$CG/$cgn/cgroup.procs && exec stress-ng --vm 1 --vm-bytes 64M --timeout 300s -q" &
wl_pid=$!
i=0
# (cgroup files have no size: read them)
while [ -z "$(cat "$CG/$cgn/cgroup.procs")" ] && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
[ -n "$(cat "$CG/$cgn/cgroup.procs")" ] || { fail "the workload is not in its cgroup ($(kill -0 $wl_pid 2>&1 && echo alive))"; done_testing; }
st_of() { sqlite3 "$db" "SELECT status FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1" 2>/dev/null; }

tui_start 80 24 --db "$db" --panel switchback --interval 500ms
expect "New switchback" "switchback form"
grep -q "read-only" "$scratch/screen" && fail "root on the live host is shown read-only"
form_edit 0 pc3,pc0
form_edit 3 "$cgn"
form_edit 4 5s
form_edit 6 2
keys s
expect "Switchback plan" "s: no plan"
grep -q "y: switch page-cluster under the running workload for up to 20 s" "$scratch/screen" ||
	fail "plan: no confirmation line"
keys y
expect "Switchback running" "y did not start the switchback" 10
expect "window 2 of 4" "the timeline did not reach window 2" 20 && snap running
grep -qE "^  block  1 +[aAbB]+[.]* +[aAbB]" "$scratch/screen" || fail "no bar per window in block 1"
grep -q "A pc3 (baseline)  B pc0" "$scratch/screen" || fail "no legend of the arms' letters"
grep -q "1 done" "$scratch/screen" || fail "no windows done"
grep -qE "window 1 \(pc[03]\): " "$scratch/screen" || fail "no value of the window measured"
fits 80 "running"
keys Escape
expect "Switchback run [0-9]+ (stopped|interrupted)" "Esc: no result" 30 && snap stopped
hs >"$scratch/after-stop"
cmp -s "$scratch/before" "$scratch/after-stop" ||
	fail "a stopped switchback left the host changed: $(diff "$scratch/before" "$scratch/after-stop")"
case $(st_of) in stopped|interrupted) ;; *) fail "the stopped run is stored as \"$(st_of)\"" ;; esac

# the same run to its end: the verdict in the line a probe's verdict has, under the run's line
keys n
expect "New switchback" "n does not return to the form"
grep -qE "Window +5s" "$scratch/screen" || fail "the form forgot its values"
keys s
expect "Switchback plan" "s: no plan (second run)"
keys y
expect "Switchback run [0-9]+ ok" "the run did not end" 60 && snap verdict
expect "Verdict: (CHANGE to pc[03]|KEEP pc[03]|INCONCLUSIVE)" "no verdict after the run" 5
grep -qE "Switchback run [0-9]+: [0-9]+ of [0-9]+ blocks" "$scratch/screen" || fail "no run line above the verdict"
grep -qE "^  windows +[AB]{2} [AB]{2}" "$scratch/screen" || fail "no letter per window after the run"
fits 80 "verdict"
[ "$(st_of)" = ok ] || fail "the finished run is stored as \"$(st_of)\""
quit_ok
wl_cleanup
hs >"$scratch/after-run"
[ -d "$CG/$cgn" ] && fail "the workload's cgroup was not removed"
cmp -s "$scratch/before" "$scratch/after-run" ||
	fail "the switchback left the host changed: $(diff "$scratch/before" "$scratch/after-run")"
done_testing
