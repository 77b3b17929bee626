#!/bin/sh
# Scripts read swaptune's JSON, never its human text (issue 34, finding 10):
# - sample --record --json: every line names its recording (recorded_run,
#   valid against sample.schema.json), the id history --all --json lists;
#   the Ansible gate reads it there, no longer `recorded run ([0-9]+)`;
# - the Debian prerm finds the snapshots with history --json, not awk on
#   history's table, and still writes the purge plan from the oldest one;
# - the role's persist step reports changed only when apply wrote.
# Fixture trees only: the live host is not touched.
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check-build builds it)"; exit 1; }
fx=$scratch/fx
cp -r "$FIXTURES/vm-v1" "$fx"
mkdir -p "$fx/proc/sys/kernel"
[ -f "$fx/proc/sys/kernel/osrelease" ] || echo 6.18.44-fixture >"$fx/proc/sys/kernel/osrelease"
st() { "$SWAPTUNE" --sysroot "$fx" --db "$scratch/db" "$@"; }

# ---- sample --record --json names its run on every line ----
st sample --count 2 --interval 10ms --record --json --no-cpu >"$scratch/rec.json" 2>"$scratch/rec.err" ||
	fail "sample --record --json: exit $? ($(cat "$scratch/rec.err"))"
st history --all --json >"$scratch/h.json" || fail "history --all --json: exit $?"
"$check" "$SCHEMAS/history.schema.json" "$scratch/h.json" >"$scratch/v.out" 2>&1 || fail "history json: $(cat "$scratch/v.out")"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recordings"][0]["id"])' "$scratch/h.json")
n=0
while IFS= read -r line; do
	n=$((n + 1))
	printf '%s\n' "$line" >"$scratch/line.json"
	"$check" "$SCHEMAS/sample.schema.json" "$scratch/line.json" >"$scratch/v.out" 2>&1 ||
		fail "sample line $n: $(cat "$scratch/v.out")"
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("recorded_run"))' "$scratch/line.json")
	[ "$got" = "$want" ] || fail "sample line $n: recorded_run $got, want $want (history --all --json)"
done <"$scratch/rec.json"
[ $n -eq 2 ] || fail "sample --record --json: $n lines, want 2"
st sample --count 1 --interval 10ms --json --no-cpu >"$scratch/norec.json" 2>/dev/null || fail "sample --json: exit $?"
grep -q recorded_run "$scratch/norec.json" && fail "sample --json without --record names a recording"

# ---- the role reads JSON only ----
A=$TOP/share/ansible/roles/swaptune
grep -rn 'recorded run\|regex_findall' "$A" >"$scratch/scrape" && fail "the role scrapes text: $(cat "$scratch/scrape")"
grep -q "'sample', '--record', '--json'" "$A/tasks/gate-recordings.yml" || fail "the gate's recordings are not --json"
awk '/name: Persist it/ { on = 1 } on && /changed_when:/ { print; exit }' "$A/tasks/rollout.yml" >"$scratch/persist"
grep -q 'changed_when: true' "$scratch/persist" && fail "persist always reports changed: $(cat "$scratch/persist")"
grep -q 'run_id is not none' "$scratch/persist" || fail "persist: changed_when does not read apply's run_id: $(cat "$scratch/persist")"
# what that changed_when reads: a converged host's apply --persist writes nothing, run_id null
st apply --yes --json --persist page-cluster=0 >"$scratch/p1.json" 2>"$scratch/p1.err" || fail "apply --persist: $(cat "$scratch/p1.err")"
st apply --yes --json --persist page-cluster=0 >"$scratch/p2.json" 2>"$scratch/p2.err" || fail "apply --persist again: $(cat "$scratch/p2.err")"
python3 - "$scratch/p1.json" "$scratch/p2.json" <<'PY' || fail "apply --persist run_id: first a run, then null"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["run_id"] is not None and a["persist"]["files"], a
assert b["run_id"] is None and not b["persist"]["files"], b
PY

# ---- prerm: history --json, and the plan from the oldest snapshot ----
P=$TOP/debian/swaptune.prerm
grep -q 'history --json' "$P" || fail "prerm does not read history --json"
grep -q "\$1 == \"snapshot\"" "$P" && fail "prerm still reads history's human table with awk"
mkdir -p "$scratch/bin"
printf '#!/bin/sh\nexec "%s" --sysroot "%s" "$@"\n' "$SWAPTUNE" "$fx" >"$scratch/bin/swaptune"
chmod +x "$scratch/bin/swaptune"
sed -e "s|^PATH=.*|PATH=$scratch/bin:/usr/sbin:/usr/bin:/sbin:/bin|" \
	-e "s|^plan=.*|plan=$scratch/purge-plan.sh|" "$P" >"$scratch/prerm"
grep -q "^plan=$scratch/purge-plan.sh" "$scratch/prerm" || fail "prerm: the plan path line moved"
SWAPTUNE_DB=$scratch/db sh "$scratch/prerm" remove >"$scratch/prerm.out" 2>&1 || fail "prerm remove: exit $? ($(cat "$scratch/prerm.out"))"
[ -s "$scratch/purge-plan.sh" ] || fail "prerm wrote no purge plan ($(cat "$scratch/prerm.out"))"
grep -q '^# restore snapshot 1 ' "$scratch/purge-plan.sh" || fail "the plan is not from the oldest snapshot: $(head -3 "$scratch/purge-plan.sh")"
grep -q 'swaptune_did removed .*90-swaptune.conf' "$scratch/purge-plan.sh" ||
	fail "the plan does not remove the sysctl.d file: $(cat "$scratch/purge-plan.sh")"
done_testing
