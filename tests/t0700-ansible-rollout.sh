#!/bin/sh
# share/ansible's rollout playbook, for real, against six inventory aliases
# of this machine (local connection, become through su): canary c1 (probes
# the live host, store c1.db) and fleet f1..f5, each with a store of its own
# (swaptune_db) and a private copy of the vm-v1 fixture with a machine id of
# its own (swaptune_sysroot). Two runs:
#   1. --check, settings forced: nothing changes anywhere (trees, stores'
#      runs), no probe; every fleet host shows its would-change diff from
#      apply --dry-run --json (page-cluster 3 -> 0, the sysctl.d file);
#   2. for real, the canary probed for real, its verdict reported, settings
#      forced (page-cluster=0) so that the stages always run, in batches of
#      1, 1, 2 and the rest (swaptune_serial):
#        stage 1, f1: the gate holds (a static tree: nothing gets worse) ->
#          confirmed, then persisted;
#        stage 2, f2: one-tick recordings, the report cannot test ->
#          inconclusive; f2's policy is skip -> rolled back, the rollout
#          goes on;
#        stage 3, f3 and f4 together: f3's memory stalls rise once its
#          page-cluster changed (a writer raises its PSI totals) -> the gate
#          fails -> rolled back, the host fails; f4, in the same batch,
#          holds -> kept;
#        stage 4, f5: never starts (max_fail_percentage 0).
#   3. again on f1 alone (already converged): no task reports a change.
#   (The natural decision - every canary recommends the same change - is
#   what the decide step takes without swaptune_force_settings.)
# Results reach one fleet store by export/import only (never a store file).
# The live host is left as found. It takes the host lock (tests/host-lock.sh).
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"

command -v ansible-playbook >/dev/null 2>&1 || skip "needs ansible-playbook (Debian package ansible-core)"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the documents"
[ "$(id -u)" -eq 0 ] || skip "needs root: the canary probes this host"
command -v su >/dev/null 2>&1 || skip "needs su (the playbook's become)"

PLAYBOOK=$TOP/share/ansible/playbooks/rollout.yml
fleet=$scratch/fleet
work=$scratch/work
mkdir -p "$fleet" "$work"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_PIPELINING=1 \
	ANSIBLE_LOCAL_TEMP=$scratch/ansible-local ANSIBLE_REMOTE_TEMP=$scratch/ansible-remote \
	ANSIBLE_CONFIG=$scratch/ansible.cfg ANSIBLE_FORCE_COLOR=0 ANSIBLE_STDOUT_CALLBACK=default
: >"$scratch/ansible.cfg"
# the canary's probe, small: the test needs a real probe run and its verdict
# (any kind: the settings are forced), not a decisive one; 2 rounds after
# the warm-up (6 trials; 5 rounds took 12 trials, 39 s here)
probe_args="--workload anon-runs --arms pc3,pc0 --working-set 64M --memcg-limit 32M --reps 2"

host_state() {
	cat /proc/sys/vm/page-cluster /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null
	cat /sys/module/zswap/parameters/enabled 2>/dev/null
	tail -n +2 /proc/swaps
	losetup -a 2>/dev/null
	find /sys/fs/cgroup -maxdepth 3 -name 'swaptune-*' 2>/dev/null
}
host_state >"$scratch/host0"
writer_pid=""
# confirm-within watchdogs of applies a failed run left unconfirmed, and the writer
stop_helpers() {
	for p in $(pgrep -f -- "--db $scratch/" 2>/dev/null); do kill "$p" 2>/dev/null; done
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
	return 0
}
cleanup_hooks="stop_helpers"

# fresh stores and sysroots for the fleet, each tree a machine of its own
fresh() {
	for h in "$@"; do
		rm -rf "$scratch/root-$h" "$scratch/$h.db" "$scratch/$h.db-wal" "$scratch/$h.db-shm"
		mkdir -p "$scratch/root-$h/etc"
		cp -a "$FIXTURES/vm-v1/." "$scratch/root-$h/"
		printf '%s\n' "$(printf '%-32s' "0f1ee7$h" | tr ' ' 0)" >"$scratch/root-$h/etc/machine-id"
	done
}
fresh f1 f2 f3 f4 f5
pc0=$(cat "$scratch/root-f1/proc/sys/vm/page-cluster")
cat >"$scratch/inventory.ini" <<INV
[canary]
c1 swaptune_db=$scratch/c1.db

[fleet]
f1 swaptune_db=$scratch/f1.db swaptune_sysroot=$scratch/root-f1
f2 swaptune_db=$scratch/f2.db swaptune_sysroot=$scratch/root-f2 swaptune_gate_duration=1s swaptune_gate_inconclusive=skip
f3 swaptune_db=$scratch/f3.db swaptune_sysroot=$scratch/root-f3
f4 swaptune_db=$scratch/f4.db swaptune_sysroot=$scratch/root-f4
f5 swaptune_db=$scratch/f5.db swaptune_sysroot=$scratch/root-f5

[all:vars]
ansible_connection=local
ansible_python_interpreter=$(command -v /usr/bin/python3 || command -v python3)
ansible_become_method=su
swaptune_work_dir=$work
swaptune_probe_args="$probe_args"
swaptune_confirm_within=10m
swaptune_gate_duration=4s
swaptune_gate_interval=1s
swaptune_gate_settle=0
INV

# play NAME ARGS...: run the playbook. One probe only (the canary's, serial
# 1); the gates of one batch run side by side, each on its own tree and store.
play() {
	name=$1
	shift
	t=$(date +%s)
	ansible-playbook -i "$scratch/inventory.ini" -e swaptune_bin="$SWAPTUNE" \
		-e swaptune_fleet_dir="$fleet" "$@" "$PLAYBOOK" >"$scratch/$name.log" 2>&1
	rc=$?
	echo "$name: exit $rc, $(( $(date +%s) - t )) s"
	return $rc
}
pc() { cat "$scratch/root-$1/proc/sys/vm/page-cluster"; }
runs() {	# runs H KIND: how many runs of KIND H's store holds (0 without a store)
	if [ -s "$scratch/$1.db" ]; then sqlite3 "$scratch/$1.db" "SELECT count(*) FROM runs WHERE kind = '$2'"; else echo 0; fi
}
tree_sum() {
	(cd "$1" && find . -type f -print | LC_ALL=C sort | while read -r f; do echo "$f $(cksum <"$f")"; done) | cksum
}
# the gate's verdict and action for host H in log L, and its first reason
gate_line() { grep -o "gate on $2: [a-z]* -> [a-z ]*" "$scratch/$1.log" | head -n 1; }
gate_why() { grep -A1 "\"gate on $2: [a-z]* -> " "$scratch/$1.log" | sed -n '2s/^ *"\(.*\)",*$/\1/p'; }
# the lines of a task's debug output for host H in log L
task_out() { awk -v t="TASK [swaptune : $2]" -v h="[$3]" 'index($0, t) { on = 1; next } /^TASK / { on = 0 } on && index($0, h) { p = 1 } on && p' "$scratch/$1.log"; }

# f3's workload gets worse after the change: once f3's page-cluster is no
# longer the one found, memory stalls grow with the clock (PSI some by
# 45-55 % of the time that passed, full by 10-20 %), until it is back
psi_writer() {
	f=$scratch/root-f3/proc/pressure/memory
	some=$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' "$f") full=$(sed -n 's/^full .*total=\([0-9]*\).*/\1/p' "$f")
	last=$(date +%s%N)
	i=0
	while [ $i -lt 3000 ]; do
		i=$((i + 1))
		now=$(date +%s%N)
		if [ "$(cat "$scratch/root-f3/proc/sys/vm/page-cluster")" != "$pc0" ]; then
			us=$(( (now - last) / 1000 )) r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
			some=$((some + us * (45 + r % 11) / 100)) full=$((full + us * (10 + r % 11) / 100))
			printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%s\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%s\n' \
				"$some" "$full" >"$f.new" && mv -f "$f.new" "$f"
		fi
		last=$now
		sleep 0.2
	done
}

t0=$(date +%s)
# ---- 1. check mode: the diffs, and nothing changes ----
for h in f1 f2 f3 f4 f5; do tree_sum "$scratch/root-$h" >"$scratch/sum-$h"; done
play check --check -e '{"swaptune_force_settings": ["page-cluster=0"]}' ||
	{ fail "check mode: exit $? ($(tail -20 "$scratch/check.log"))"; done_testing; }
for h in f1 f2 f3 f4 f5; do
	[ "$(tree_sum "$scratch/root-$h")" = "$(cat "$scratch/sum-$h")" ] || fail "check mode changed $h's tree"
	task_out check 'Show it' $h | grep -qF "page-cluster: $pc0 -> 0 ($scratch/root-$h/proc/sys/vm/page-cluster)" ||
		fail "check mode: no page-cluster diff for $h: $(task_out check 'Show it' $h | head -5)"
	task_out check 'Show it' $h | grep -qF "boot-time file $scratch/root-$h/etc/sysctl.d/90-swaptune.conf: write" ||
		fail "check mode: no boot-time file in $h's diff"
	[ "$(runs $h apply)" = 0 ] || fail "check mode applied on $h"
done
[ "$(runs c1 probe)" = 0 ] || fail "check mode ran a probe"
grep -q 'rolling out page-cluster=0, forced by swaptune_force_settings' "$scratch/check.log" ||
	fail "check mode: no decision message"
grep -q 'gate on ' "$scratch/check.log" && fail "check mode ran a gate"
sed -n '/TASK \[swaptune : Show it\]/,/^$/p' "$scratch/check.log" | head -12

# ---- 2. for real: hold, inconclusive (skip), fail (stop) ----
psi_writer &
writer_pid=$!
play rollout -e '{"swaptune_force_settings": ["page-cluster=0"], "swaptune_serial": ["1", "1", "2", "100%"]}'
rc=$?
kill "$writer_pid" 2>/dev/null
writer_pid=""
[ $rc -ne 0 ] || fail "f3's failed gate did not fail the playbook"
"$SWAPTUNE" --db "$scratch/c1.db" recommend --json >"$scratch/rec.json" 2>/dev/null
kind=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["kind"])' "$scratch/rec.json" 2>/dev/null)
echo "canary verdict: ${kind:-none}"
[ -n "$kind" ] || fail "no canary verdict ($(tail -30 "$scratch/rollout.log"))"
grep -q "rolling out page-cluster=0, forced by swaptune_force_settings (canary verdicts: $kind)" "$scratch/rollout.log" ||
	fail "the decision does not name the canary's verdict ($kind)"
n=0
for h in f1 f2 f3 f4; do
	n=$((n + 1))
	[ $h = f4 ] && n=3
	echo "stage $n, $h: $(gate_line rollout $h)"
	echo "    $(gate_why rollout $h)"
done
persisted() { grep -qx 'vm.page-cluster = 0' "$scratch/root-$1/etc/sysctl.d/90-swaptune.conf" 2>/dev/null; }
for h in f1 f4; do
	gate_line rollout $h | grep -q 'holds -> keep' || fail "$h's gate: '$(gate_line rollout $h)'"
	[ "$(pc $h)" = 0 ] || fail "$h page-cluster $(pc $h), want 0"
	[ "$(sqlite3 "$scratch/$h.db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] &&
	[ "$(sqlite3 "$scratch/$h.db" "SELECT count(*) FROM changes WHERE name = 'page-cluster'
		AND state = 'committed' AND temporary = 0")" -ge 1 ] || fail "$h's change is not confirmed"
	persisted $h || fail "$h's change is not persisted"
done
gate_line rollout f2 | grep -q 'inconclusive -> roll back' || fail "f2's gate: '$(gate_line rollout f2)'"
gate_why rollout f2 | grep -q 'too few ticks' || fail "f2: the inconclusive gate does not say why"
gate_line rollout f3 | grep -q 'fails -> roll back' || fail "f3's gate: '$(gate_line rollout f3)'"
gate_why rollout f3 | grep -q '^PSI memory some rose from 0 to ' || fail "f3: the failure does not say why"
for h in f2 f3; do
	[ "$(pc $h)" = "$pc0" ] || fail "$h page-cluster $(pc $h), want $pc0 (rolled back)"
	[ "$(runs $h rollback)" -ge 1 ] || fail "no rollback run in $h's store"
	persisted $h && fail "$h's change was persisted"
done
grep -q 'gate on f3: fails (' "$scratch/rollout.log" || fail "f3 did not fail the host"
grep -q 'gate on f2: inconclusive (' "$scratch/rollout.log" && fail "f2's inconclusive gate failed the host (policy skip)"
[ "$(pc f5)" = "$pc0" ] && [ "$(runs f5 apply)" = 0 ] || fail "f5 was changed: the stage after the failure ran"
grep -q 'NO MORE HOSTS LEFT' "$scratch/rollout.log" || fail "the rollout did not stop"
# the fleet store: c1's probe run and f1..f4's rollout runs, by export only
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE origin_kind = 'probe'")" = 1 ] ||
	fail "fleet store: want c1's probe run"
for h in f1 f2 f3 f4; do
	mid=$(cat "$scratch/root-$h/etc/machine-id")
	[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE origin_machine_id = '$mid'")" -ge 4 ] ||
		fail "fleet store: $h's recordings, apply and confirm/rollback runs are not there"
done
ls "$fleet"/exports/*.db "$fleet"/stores 2>/dev/null && fail "a store file was fetched"
"$SWAPTUNE" --db "$fleet/fleet.db" fleet-report >/dev/null 2>&1 || fail "fleet-report on the fleet store"
"$SWAPTUNE" --db "$fleet/fleet.db" history --all --limit 1000 >"$scratch/fleet-history" 2>&1 || fail "fleet history"
echo "fleet store: $(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs") runs from $(sqlite3 "$fleet/fleet.db" "SELECT count(DISTINCT origin_machine_id) FROM runs") machines"

# ---- 3. a re-run on a converged host (f1: applied, confirmed, persisted) changes nothing ----
play rerun --limit 'f1,localhost' -e '{"swaptune_force_settings": ["page-cluster=0"]}' ||
	fail "re-run on f1: exit $? ($(tail -20 "$scratch/rerun.log"))"
grep -Eq '^f1 +: ok=[0-9]+ +changed=0 ' "$scratch/rerun.log" ||
	fail "a re-run on converged f1 reports a change: $(grep -E '^f1 +: ' "$scratch/rerun.log")
$(grep -B1 -A1 'changed: \[f1\]' "$scratch/rerun.log" | head -12)"
[ "$(pc f1)" = 0 ] && persisted f1 || fail "the re-run undid f1's change"
echo "elapsed $(( $(date +%s) - t0 )) s"

host_state >"$scratch/host1"
same "$scratch/host1" "$scratch/host0"
[ $failures -eq 0 ] || for l in check rollout rerun; do echo "== $l"; tail -60 "$scratch/$l.log"; done
done_testing
