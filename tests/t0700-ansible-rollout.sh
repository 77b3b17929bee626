#!/bin/sh
# share/ansible's rollout playbook, for real, against five inventory aliases
# of this machine (local connection): canary c1 and fleet f1..f4, each with a
# store of its own (swaptune_db) and, for the apply stages, a private copy of
# the vm-v1 fixture (swaptune_sysroot); probe and verify run on the live
# host. Three runs:
#   1. --check: nothing changes (no sysroot touched, no probe), and the
#      decision says nothing was probed;
#   2. the canaries' own verdict: when it is "change", f1 (stage 1) gets it
#      and confirms it, f2 (stage 2, whose gate demands an impossible
#      --min-effect 100000) gets exit 10 from verify, is rolled back, and the
#      rollout stops before f3 and f4; when it is not, the decision says so
#      and no sysroot changes;
#   3. only when the canary said no change: the decision forced
#      (swaptune_force_settings=["page-cluster=0"], arm pc0) for the same
#      staged path, so the rollback path always runs once.
# The exports land in one fleet store (import counts checked). The live
# host is left as found. Run it under the host lock; it never takes it.
. "$(dirname "$0")/lib.sh"

command -v ansible-playbook >/dev/null 2>&1 || skip "needs ansible-playbook (Debian package ansible-core)"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the documents"
[ "$(id -u)" -eq 0 ] || skip "needs root: the canary probes and the verify gates run on this host"

PLAYBOOK=$TOP/share/ansible/playbooks/rollout.yml
fleet=$scratch/fleet
work=$scratch/work
mkdir -p "$fleet" "$work"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 \
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
# confirm-within watchdogs of applies a failed run left unconfirmed
stop_watchdogs() {
	for p in $(pgrep -f -- "--db $scratch/" 2>/dev/null); do kill "$p" 2>/dev/null; done
}
cleanup_hooks="stop_watchdogs"

# fresh stores and sysroots for the fleet
fresh_fleet() {
	for h in f1 f2 f3 f4; do
		rm -rf "$scratch/root-$h" "$scratch/$h.db" "$scratch/$h.db-wal" "$scratch/$h.db-shm"
		mkdir -p "$scratch/root-$h"
		cp -a "$FIXTURES/vm-v1/." "$scratch/root-$h/"
	done
}
fresh_fleet
pc0=$(cat "$scratch/root-f1/proc/sys/vm/page-cluster")
cat >"$scratch/inventory.ini" <<INV
[canary]
c1 swaptune_db=$scratch/c1.db

[fleet]
f1 swaptune_db=$scratch/f1.db swaptune_sysroot=$scratch/root-f1
f2 swaptune_db=$scratch/f2.db swaptune_sysroot=$scratch/root-f2 swaptune_verify_args="--min-effect 100000"
f3 swaptune_db=$scratch/f3.db swaptune_sysroot=$scratch/root-f3
f4 swaptune_db=$scratch/f4.db swaptune_sysroot=$scratch/root-f4

[all:vars]
ansible_connection=local
ansible_python_interpreter=$(command -v python3)
swaptune_work_dir=$work
swaptune_probe_args="$probe_args"
swaptune_confirm_within=10m
INV

# play NAME ARGS...: run the playbook. The probe play is serial 1 and the
# test's rollout stops after stage 2 (one host each), so probes and verify
# gates never overlap on this one machine.
play() {
	name=$1
	shift
	ansible-playbook -i "$scratch/inventory.ini" -e swaptune_bin="$SWAPTUNE" \
		-e swaptune_fleet_dir="$fleet" "$@" "$PLAYBOOK" >"$scratch/$name.log" 2>&1
}
pc() { cat "$scratch/root-$1/proc/sys/vm/page-cluster"; }
st() { h=$1; shift; "$SWAPTUNE" --db "$scratch/$h.db" --sysroot "$scratch/root-$h" "$@"; }
# staged H SETTING: the stage-1 host confirmed SETTING, f2 was rolled back
# after verify said 10, f3 and f4 never ran
staged() {
	log=$1 want=$2
	[ "$(pc f1)" = "$want" ] || fail "$log: f1 page-cluster $(pc f1), want $want"
	[ "$(sqlite3 "$scratch/f1.db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] &&
	[ "$(sqlite3 "$scratch/f1.db" "SELECT count(*) FROM changes WHERE name = 'page-cluster'
		AND state = 'committed' AND temporary = 0")" -ge 1 ] || fail "$log: f1's change is not confirmed"
	grep -A2 'TASK \[swaptune : confirm the change' "$scratch/$log.log" | grep -q 'changed: \[f1\]' ||
		fail "$log: f1 was not confirmed"
	grep -q 'verify on f2: the benefit no longer holds; rolled back' "$scratch/$log.log" ||
		fail "$log: f2's gate did not report exit 10 ($(grep -A3 'gate on verify' "$scratch/$log.log" | grep f2 | head -3))"
	[ "$(pc f2)" = "$pc0" ] || fail "$log: f2 page-cluster $(pc f2), want $pc0 (rolled back)"
	[ "$(sqlite3 "$scratch/f2.db" "SELECT count(*) FROM runs WHERE kind = 'rollback'")" -ge 1 ] ||
		fail "$log: no rollback run in f2's store"
	for h in f3 f4; do
		[ "$(pc $h)" = "$pc0" ] || fail "$log: $h page-cluster $(pc $h), want $pc0 (stage not run)"
		[ -e "$scratch/$h.db" ] && [ "$(sqlite3 "$scratch/$h.db" "SELECT count(*) FROM runs WHERE kind = 'apply'")" != 0 ] &&
			fail "$log: $h has an apply run: the stage after the regression ran"
	done
	grep -q 'swaptune apply with a confirmation deadline' "$scratch/$log.log" || fail "$log: no apply task ran"
	grep -Eq 'apply.yml for (f3|f4)' "$scratch/$log.log" && fail "$log: the stage after the regression ran"
	grep -q 'NO MORE HOSTS LEFT' "$scratch/$log.log" || fail "$log: the rollout did not stop"
}

t0=$(date +%s)
# 1. check mode: nothing changes
play check --check || { fail "check mode: exit $? ($(tail -20 "$scratch/check.log"))"; done_testing; }
for h in f1 f2 f3 f4; do
	[ "$(pc $h)" = "$pc0" ] || fail "check mode changed $h's page-cluster to $(pc $h)"
done
grep -q 'no change: no canary was probed' "$scratch/check.log" || fail "check mode: no decision message"
[ -e "$scratch/c1.db" ] && [ "$(sqlite3 "$scratch/c1.db" "SELECT count(*) FROM runs WHERE kind = 'probe'")" != 0 ] &&
	fail "check mode ran a probe"

# 2. the canary decides
play natural
rc=$?
"$SWAPTUNE" --db "$scratch/c1.db" recommend --json >"$scratch/rec.json" 2>/dev/null
kind=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["kind"])' "$scratch/rec.json" 2>/dev/null)
echo "canary verdict: ${kind:-none}"
[ -n "$kind" ] || fail "no canary verdict ($(tail -30 "$scratch/natural.log"))"
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE kind = 'imported'")" = 1 ] ||
	fail "fleet store: want 1 imported run after the first rollout"
if [ "$kind" = change ]; then
	# f2's gate always fails: this run is the staged path and its rollback
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["settings"]["page-cluster"])' "$scratch/rec.json")
	[ $rc -ne 0 ] || fail "natural: the regression at stage 2 did not fail the playbook"
	staged natural "$want"
	imported=1
else
	[ $rc -eq 0 ] || fail "natural: exit $rc ($(tail -30 "$scratch/natural.log"))"
	grep -q 'no change: the canaries do not all recommend the same change' "$scratch/natural.log" ||
		fail "natural: the decision does not say why nothing is applied"
	grep -q 'swaptune apply with a confirmation deadline' "$scratch/natural.log" &&
		fail "natural: apply ran without a change verdict"
	for h in f1 f2 f3 f4; do
		[ "$(pc $h)" = "$pc0" ] || fail "natural: $h page-cluster $(pc $h) without a change verdict"
	done
	# 3. when the canary said no change: the decision forced, for the staged
	# path and its rollback, deterministically
	fresh_fleet
	play forced -e '{"swaptune_force_settings": ["page-cluster=0"], "swaptune_force_arm": "pc0"}'
	rc=$?
	[ $rc -ne 0 ] || fail "forced: the regression at stage 2 did not fail the playbook"
	grep -q 'forced by swaptune_force_settings' "$scratch/forced.log" || fail "forced: decision not forced"
	staged forced 0
	imported=2
fi
"$SWAPTUNE" --db "$fleet/fleet.db" import --json "$fleet"/exports/*.json >"$scratch/import.json" ||
	fail "re-import failed"
python3 - "$scratch/import.json" <<'PY' || fail "fleet store: $(cat "$scratch/import.json")"
import json, sys
d = json.load(open(sys.argv[1]))
# importing the canary's export again adds nothing
assert sum(f["runs_added"] for f in d["files"]) == 0, d
assert sum(f["runs_present"] for f in d["files"]) == 1, d
PY
[ "$(sqlite3 "$fleet/fleet.db" "SELECT count(*) FROM runs WHERE kind = 'imported'")" = "$imported" ] ||
	fail "fleet store: want $imported imported run(s), one per rollout"
"$SWAPTUNE" --db "$fleet/fleet.db" fleet-report >/dev/null 2>&1 || fail "fleet-report on the fleet store"
echo "elapsed $(( $(date +%s) - t0 )) s"

host_state >"$scratch/host1"
same "$scratch/host1" "$scratch/host0"
[ $failures -eq 0 ] || for l in natural forced; do echo "== $l"; tail -40 "$scratch/$l.log"; done
done_testing
