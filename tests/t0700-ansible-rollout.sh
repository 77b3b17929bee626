#!/bin/sh
# share/ansible's rollout playbook, for real, against five inventory aliases
# of this machine (local connection, become through su): canary c1 (probes
# the live host, store c1.db) and fleet f1..f4, each with a store of its own
# (swaptune_db) and a private copy of the vm-v1 fixture with a machine id of
# its own (swaptune_sysroot). Three runs:
#   1. --check, settings forced: nothing changes anywhere (trees, stores'
#      runs), no probe; every fleet host shows its would-change diff from
#      apply --dry-run --json (page-cluster 3 -> 0, the sysctl.d file);
#   2. for real, settings forced (page-cluster=0), the canary probed for
#      real: stage 1 f1's gate holds (static tree: nothing gets worse) ->
#      confirmed and persisted; stage 2 f2's gate fails (a writer raises
#      f2's PSI counters once its page-cluster changed) -> rolled back, the
#      host fails and the rollout stops before f3 and f4;
#   3. for real on f3 and f4 (probe reuse: c1's stored run, inconclusive
#      policy skip), decided by c1's own verdict when it is a change (else
#      forced as in 2): f3's recordings are one tick each (the report cannot
#      test: inconclusive) -> rolled back, the rollout goes on; f4 holds ->
#      changed and persisted.
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
probe_args="--workload anon-runs --arms pc3,pc0 --working-set 64M --memcg-limit 32M --reps 5"

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
fresh f1 f2 f3 f4
pc0=$(cat "$scratch/root-f1/proc/sys/vm/page-cluster")
cat >"$scratch/inventory.ini" <<INV
[canary]
c1 swaptune_db=$scratch/c1.db

[fleet]
f1 swaptune_db=$scratch/f1.db swaptune_sysroot=$scratch/root-f1
f2 swaptune_db=$scratch/f2.db swaptune_sysroot=$scratch/root-f2
f3 swaptune_db=$scratch/f3.db swaptune_sysroot=$scratch/root-f3 swaptune_gate_duration=1s
f4 swaptune_db=$scratch/f4.db swaptune_sysroot=$scratch/root-f4

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

# play NAME ARGS...: run the playbook. The probe play is serial 1 and the
# stages run one host at a time here, so no two probes overlap on this host.
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

# f2's workload gets worse after the change: once f2's page-cluster is no
# longer the one found, memory stalls grow (PSI some and full totals rise
# by 40-60 % and 10-20 % of the time), until it is back
psi_writer() {
	f=$scratch/root-f2/proc/pressure/memory
	some=$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' "$f") full=$(sed -n 's/^full .*total=\([0-9]*\).*/\1/p' "$f")
	i=0
	while [ $i -lt 3000 ]; do
		i=$((i + 1))
		if [ "$(cat "$scratch/root-f2/proc/sys/vm/page-cluster")" != "$pc0" ]; then
			r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
			some=$((some + 80000 + r % 40000)) full=$((full + 20000 + r % 20000))
			printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%s\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%s\n' \
				"$some" "$full" >"$f.new" && mv -f "$f.new" "$f"
		fi
		sleep 0.2
	done
}

t0=$(date +%s)
# ---- 1. check mode: the diffs, and nothing changes ----
for h in f1 f2 f3 f4; do tree_sum "$scratch/root-$h" >"$scratch/sum-$h"; done
play check --check -e '{"swaptune_force_settings": ["page-cluster=0"]}' ||
	{ fail "check mode: exit $? ($(tail -20 "$scratch/check.log"))"; done_testing; }
for h in f1 f2 f3 f4; do
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

# ---- 2. for real: f1 holds, f2 fails, the rollout stops ----
psi_writer &
writer_pid=$!
play forced -e '{"swaptune_force_settings": ["page-cluster=0"]}'
rc=$?
kill "$writer_pid" 2>/dev/null
writer_pid=""
[ $rc -ne 0 ] || fail "forced: f2's failed gate did not fail the playbook"
"$SWAPTUNE" --db "$scratch/c1.db" recommend --json >"$scratch/rec.json" 2>/dev/null
kind=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["kind"])' "$scratch/rec.json" 2>/dev/null)
echo "canary verdict: ${kind:-none}"
[ -n "$kind" ] || fail "no canary verdict ($(tail -30 "$scratch/forced.log"))"
echo "stage 1: $(gate_line forced f1)"
echo "         $(gate_why forced f1)"
echo "stage 2: $(gate_line forced f2)"
echo "         $(gate_why forced f2)"
gate_line forced f1 | grep -q 'holds -> keep' || fail "f1's gate: '$(gate_line forced f1)'"
[ "$(pc f1)" = 0 ] || fail "f1 page-cluster $(pc f1), want 0"
[ "$(sqlite3 "$scratch/f1.db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] &&
[ "$(sqlite3 "$scratch/f1.db" "SELECT count(*) FROM changes WHERE name = 'page-cluster'
	AND state = 'committed' AND temporary = 0")" -ge 1 ] || fail "f1's change is not confirmed"
head -n 1 "$scratch/root-f1/etc/sysctl.d/90-swaptune.conf" 2>/dev/null | grep -q '^# written by swaptune apply --persist' &&
	grep -qx 'vm.page-cluster = 0' "$scratch/root-f1/etc/sysctl.d/90-swaptune.conf" || fail "f1's change is not persisted"
gate_line forced f2 | grep -q 'fails -> roll back' || fail "f2's gate: '$(gate_line forced f2)'"
grep -q 'gate on f2: fails (PSI memory some rose from 0' "$scratch/forced.log" || fail "f2: the failure does not say why"
[ "$(pc f2)" = "$pc0" ] || fail "f2 page-cluster $(pc f2), want $pc0 (rolled back)"
[ "$(runs f2 rollback)" -ge 1 ] || fail "no rollback run in f2's store"
[ -e "$scratch/root-f2/etc/sysctl.d/90-swaptune.conf" ] && fail "f2's failed change was persisted"
for h in f3 f4; do
	[ "$(pc $h)" = "$pc0" ] || fail "$h page-cluster $(pc $h), want $pc0 (stage not run)"
	[ "$(runs $h apply)" = 0 ] || fail "$h has an apply run: the stage after the failure ran"
done
grep -q 'NO MORE HOSTS LEFT' "$scratch/forced.log" || fail "the rollout did not stop"
# the fleet store: c1's probe run, f1's and f2's rollout runs, by export only
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE origin_kind = 'probe'")" = 1 ] ||
	fail "fleet store: want c1's probe run"
for h in f1 f2; do
	mid=$(cat "$scratch/root-$h/etc/machine-id")
	[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE origin_machine_id = '$mid'")" -ge 4 ] ||
		fail "fleet store: $h's recordings, apply and confirm/rollback runs are not there"
done
ls "$fleet"/exports/*.db "$fleet"/stores 2>/dev/null && fail "a store file was fetched"

# ---- 3. for real on f3 and f4: inconclusive skipped, the rollout goes on ----
if [ "$kind" = change ]; then
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["settings"]["page-cluster"])' "$scratch/rec.json")
	set -- -e '{"swaptune_force_settings": []}'
else
	want=0
	set -- -e '{"swaptune_force_settings": ["page-cluster=0"]}'
fi
play skip --limit 'c1,f3,f4,localhost' -e swaptune_probe_reuse=true -e swaptune_gate_inconclusive=skip "$@" ||
	fail "skip: exit $? ($(tail -30 "$scratch/skip.log"))"
if [ "$kind" = change ]; then
	grep -q "rolling out page-cluster=$want, the verdict of c1 (canary verdicts: change)" "$scratch/skip.log" ||
		fail "skip: the decision is not c1's change verdict"
else
	grep -q 'rolling out page-cluster=0, forced by swaptune_force_settings (canary verdicts: '"$kind"')' "$scratch/skip.log" ||
		fail "skip: the decision does not name c1's verdict ($kind)"
fi
echo "stage 1: $(gate_line skip f3)"
echo "         $(gate_why skip f3)"
echo "stage 2: $(gate_line skip f4)"
echo "         $(gate_why skip f4)"
gate_line skip f3 | grep -q 'inconclusive -> roll back' || fail "f3's gate: '$(gate_line skip f3)'"
grep -q 'too few ticks' "$scratch/skip.log" || fail "f3: the inconclusive gate does not say why"
[ "$(pc f3)" = "$pc0" ] && [ "$(runs f3 rollback)" -ge 1 ] || fail "f3 was not rolled back"
gate_line skip f4 | grep -q 'holds -> keep' || fail "f4's gate: '$(gate_line skip f4)'"
[ "$(pc f4)" = "$want" ] && grep -qx "vm.page-cluster = $want" "$scratch/root-f4/etc/sysctl.d/90-swaptune.conf" ||
	fail "f4 was not changed to $want and persisted"
[ "$(runs c1 probe)" = 1 ] || fail "probe reuse probed again"
"$SWAPTUNE" --db "$fleet/fleet.db" fleet-report >/dev/null 2>&1 || fail "fleet-report on the fleet store"
"$SWAPTUNE" --db "$fleet/fleet.db" history --all --limit 1000 >"$scratch/fleet-history" 2>&1 || fail "fleet history"
echo "fleet store: $(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs") runs from $(sqlite3 "$fleet/fleet.db" "SELECT count(DISTINCT origin_machine_id) FROM runs") machines"
echo "elapsed $(( $(date +%s) - t0 )) s"

host_state >"$scratch/host1"
same "$scratch/host1" "$scratch/host0"
[ $failures -eq 0 ] || for l in check forced skip; do echo "== $l"; tail -60 "$scratch/$l.log"; done
done_testing
