#!/bin/sh
# share/ansible's rollout entry point with the verify-live gate, for real,
# on this machine (local connection, root): the change (page-cluster=0) goes
# on with a confirm-within deadline, `swaptune verify --live` switches the
# previous and the applied value under a running workload whose speed
# depends on page-cluster by construction (a counter file, its rate 30 %
# higher, or lower, at page-cluster 0), and the gate acts on its verdict:
#   1. faster at 0: the gate holds (a change to "applied" is shown, exact
#      p 1/64 at 6 blocks) -> confirmed; page-cluster stays 0; the apply and
#      the switchback reach the fleet store by export/import;
#   2. slower at 0: the gate fails (no gain: kept "before") -> rolled back,
#      the host fails the play; page-cluster is back.
# Short windows (4 s, washout 2 s, 6 blocks: 48 s a gate). The host is left
# as found. It takes the host lock (tests/host-lock.sh).
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"

command -v ansible-playbook >/dev/null 2>&1 || skip "needs ansible-playbook (Debian package ansible-core)"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 for the workload"
[ "$(id -u)" -eq 0 ] || skip "needs root: the gate switches this host's page-cluster"
pc() { cat /proc/sys/vm/page-cluster; }
pc_before=$(pc)
[ "$pc_before" != 0 ] || skip "page-cluster is 0 here: the test rolls out 0"

fleet=$scratch/fleet work=$scratch/work
mkdir -p "$fleet" "$work"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_PIPELINING=1 \
	ANSIBLE_LOCAL_TEMP=$scratch/ansible-local ANSIBLE_REMOTE_TEMP=$scratch/ansible-remote \
	ANSIBLE_CONFIG=$scratch/ansible.cfg ANSIBLE_FORCE_COLOR=0 ANSIBLE_STDOUT_CALLBACK=default \
	ANSIBLE_ROLES_PATH=$TOP/share/ansible/roles
: >"$scratch/ansible.cfg"
wl_pid=""
stop_all() {
	[ -n "$wl_pid" ] && { kill "$wl_pid" 2>/dev/null; wait "$wl_pid" 2>/dev/null; }
	# a confirm-within watchdog a failed run left: the owner of its pending rows, by its id
	[ -s "$scratch/live.db" ] && for p in $(sqlite3 "$scratch/live.db" \
		"SELECT DISTINCT pid FROM changes WHERE state = 'pending' AND pid > 0" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	"$SWAPTUNE" --db "$scratch/live.db" repair >/dev/null 2>&1
	[ "$(pc)" = "$pc_before" ] || echo "$pc_before" >/proc/sys/vm/page-cluster
}
cleanup_hooks="stop_all"

# the workload: a counter that grows FACTOR times faster while page-cluster is 0
workload() {
	python3 -c '
import os, sys, time
out, factor = sys.argv[1], float(sys.argv[2])
total, last = 0.0, time.monotonic()
while True:
    time.sleep(0.05)
    now = time.monotonic()
    pc = open("/proc/sys/vm/page-cluster").read().strip()
    total += (now - last) * 1000.0 * (factor if pc == "0" else 1.0)
    last = now
    with open(out + ".tmp", "w") as f:
        f.write("%.1f\n" % total)
    os.replace(out + ".tmp", out)
' "$scratch/counter" "$1" &
	wl_pid=$!
	i=0
	while [ ! -s "$scratch/counter" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
cat >"$scratch/inventory.ini" <<INV
[fleet]
live1 swaptune_db=$scratch/live.db

[all:vars]
ansible_connection=local
ansible_python_interpreter=$(command -v /usr/bin/python3 || command -v python3)
swaptune_work_dir=$work
swaptune_gate=verify-live
swaptune_verify_live_args="--metric-file $scratch/counter --higher-better --window 4s --washout 2s --blocks 6 --progress none"
swaptune_confirm_within=10m
swaptune_persist=false
swaptune_gate_inconclusive=stop
INV
cat >"$scratch/play.yml" <<'PLAY'
- name: Roll out page-cluster=0 with the verify-live gate
  hosts: fleet
  gather_facts: false
  tasks:
    - name: Apply, gate, confirm or roll back
      ansible.builtin.include_role:
        name: swaptune
        tasks_from: rollout
      vars:
        swaptune_settings: ["page-cluster=0"]
PLAY
play() {
	name=$1
	t=$(date +%s)
	ansible-playbook -i "$scratch/inventory.ini" -e swaptune_bin="$SWAPTUNE" -e swaptune_fleet_dir="$fleet" \
		"$scratch/play.yml" >"$scratch/$name.log" 2>&1
	rc=$?
	echo "$name: exit $rc, $(( $(date +%s) - t )) s; $(grep -o 'gate on live1: [a-z]* -> [a-z ]*' "$scratch/$name.log" | head -n 1)"
	return $rc
}
q() { sqlite3 "$scratch/live.db" "$1"; }

# 1. faster at page-cluster 0: holds, confirmed
workload 1.3
play holds || fail "holds: the play failed: $(grep -E 'fatal|FAILED|msg' "$scratch/holds.log" | head -n 5)"
grep -q 'gate on live1: holds -> keep' "$scratch/holds.log" || fail "holds: no 'holds -> keep' line"
[ "$(pc)" = 0 ] || fail "holds: page-cluster is $(pc), want 0 (confirmed)"
[ "$(q "SELECT status FROM runs WHERE kind = 'apply' ORDER BY id DESC LIMIT 1")" = ok ] ||
	fail "holds: the apply is not confirmed"
[ "$(q "SELECT json_extract(summary, '\$.decision') FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1")" = change ] ||
	fail "holds: the switchback did not decide a change"
[ "$(q "SELECT json_extract(params, '\$.verify_of') = (SELECT max(id) FROM runs WHERE kind = 'apply') FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1")" = 1 ] ||
	fail "holds: the switchback does not name the apply it verified"
[ "$(q "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] || fail "holds: journal rows pending"
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE origin_kind = 'switchback'")" -ge 1 ] ||
	fail "holds: the switchback did not reach the fleet store"
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM windows")" -ge 12 ] || fail "holds: its windows did not reach the fleet store"
"$SWAPTUNE" --db "$scratch/live.db" rollback --yes >/dev/null 2>&1 || fail "rollback after run 1: exit $?"
[ "$(pc)" = "$pc_before" ] || fail "rollback after run 1: page-cluster is $(pc)"
kill "$wl_pid"
wait "$wl_pid" 2>/dev/null
wl_pid=""

# 2. slower at page-cluster 0: fails, rolled back, the host fails
workload 0.7
play fails && fail "fails: the play succeeded"
grep -q 'gate on live1: fails -> roll back' "$scratch/fails.log" || fail "fails: no 'fails -> roll back' line"
[ "$(pc)" = "$pc_before" ] || fail "fails: page-cluster is $(pc), want $pc_before (rolled back)"
[ "$(q "SELECT json_extract(summary, '\$.decision') FROM runs WHERE kind = 'switchback' ORDER BY id DESC LIMIT 1")" = keep ] ||
	fail "fails: the switchback did not keep the previous value"
[ "$(q "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] || fail "fails: journal rows pending"
done_testing
