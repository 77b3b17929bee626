#!/bin/sh
# The Ansible role without a host: ansible-lint (or, without it, the
# playbook's --syntax-check) passes, every entry point the playbook uses
# (tasks_from) has an argument spec, no include_role is driven by a step
# variable; and the gate rule (filter_plugins/swaptune_gate.py) says holds,
# fails or inconclusive on report documents built for each case.
. "$(dirname "$0")/lib.sh"

command -v ansible-playbook >/dev/null 2>&1 || skip "needs ansible-playbook (Debian package ansible-core)"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
A=$TOP/share/ansible
export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$scratch/ansible-local ANSIBLE_CONFIG=$scratch/ansible.cfg
: >"$scratch/ansible.cfg"

if command -v ansible-lint >/dev/null 2>&1; then
	(cd "$A" && ansible-lint --nocolor playbooks/rollout.yml roles/swaptune) >"$scratch/lint.out" 2>&1 ||
		fail "ansible-lint: $(tail -20 "$scratch/lint.out")"
else
	echo "ansible-lint is not installed (Debian package ansible-lint): --syntax-check only"
fi
ansible-playbook --syntax-check -i localhost, "$A/playbooks/rollout.yml" >"$scratch/syntax.out" 2>&1 ||
	fail "syntax-check: $(tail -5 "$scratch/syntax.out")"
grep -q 'swaptune_step' -r "$A" && fail "a step variable still picks what the role does"
# issue 33 finding 5: root never installs a package from a path a local user can plant first
grep -rn '/tmp/' "$A/roles" "$A/playbooks" >"$scratch/tmp.out" &&
	fail "a task uses a predictable path under /tmp: $(head -3 "$scratch/tmp.out")"
grep -q 'state: directory' "$A/roles/swaptune/tasks/install.yml" &&
	grep -q 'ansible.builtin.tempfile' "$A/roles/swaptune/tasks/install.yml" ||
	fail "install.yml: the package is not copied into a private tempfile directory"
python3 - "$A" <<'PY' || fail "entry points and argument specs disagree"
import os, re, sys, yaml
a = sys.argv[1]
specs = yaml.safe_load(open(os.path.join(a, "roles/swaptune/meta/argument_specs.yml")))["argument_specs"]
play = open(os.path.join(a, "playbooks/rollout.yml")).read()
used = set(re.findall(r"tasks_from: (\S+)", play))
assert used, "the playbook uses no tasks_from"
for e in used:
    assert e in specs, "entry point %s has no argument spec" % e
    assert os.path.exists(os.path.join(a, "roles/swaptune/tasks", e + ".yml")), e
assert "include_role" in play and "swaptune_step" not in play
defaults = yaml.safe_load(open(os.path.join(a, "roles/swaptune/defaults/main.yml")))
for e, s in specs.items():
    for k, o in s.get("options", {}).items():
        assert o.get("description"), "%s.%s has no description" % (e, k)
        if "choices" in o and k in defaults:
            assert defaults[k] in o["choices"], (k, defaults[k])
PY

# the gate rule
python3 - "$A/roles/swaptune/filter_plugins" <<'PY' || fail "the gate rule"
import sys
sys.path.insert(0, sys.argv[1])
from swaptune_gate import swaptune_gate
COLS = ["metric", "unit", "before", "after", "change", "change %", "95% CI of change",
        "p (Welch, batch means)", "beyond noise"]
M = ["PSI memory some", "PSI memory full", "anon refaults", "pages scanned"]
def report(**rows):
    base = {m: [m, "%", 1.0, 1.0, 0.0, "+0.0%", None, 0.9, "no"] for m in M}
    for k, v in rows.items():
        base[k.replace("_", " ")] = [k.replace("_", " "), "%"] + v
    return {"sections": [{"id": "metrics", "columns": COLS, "rows": list(base.values())}]}
def gate(r, **kw):
    return swaptune_gate(r, M, kw.get("alpha", 0.01), kw.get("tol", 10.0))["verdict"]
cases = [
    ("nothing changes", report(), "holds"),
    ("identical recordings", report(PSI_memory_some=[0, 0, 0, None, None, None, "no (identical)"]), "holds"),
    ("better beyond noise", report(PSI_memory_some=[10.0, 5.0, -5.0, "-50.0%", None, 1e-9, "yes"]), "holds"),
    ("worse beyond noise and tolerance", report(PSI_memory_some=[10.0, 12.0, 2.0, "+20.0%", None, 1e-4, "yes"]), "fails"),
    ("worse beyond noise, within tolerance", report(PSI_memory_some=[10.0, 10.5, 0.5, "+5.0%", None, 1e-4, "yes"]), "holds"),
    ("worse, not beyond the gate's alpha", report(PSI_memory_some=[10.0, 12.0, 2.0, "+20.0%", None, 0.03, "yes"]), "holds"),
    ("PSI full: any rise beyond noise", report(PSI_memory_full=[1.0, 1.02, 0.02, "+2.0%", None, 1e-5, "yes"]), "fails"),
    ("a rise from 0", report(anon_refaults=[0, 3.0, 3.0, None, None, 1e-6, "yes"]), "fails"),
    ("constant, differ", report(pages_scanned=[0, 5.0, 5.0, None, None, None, "yes (constant, differ)"]), "fails"),
    ("too few ticks", report(PSI_memory_some=[1.0, 1.0, 0.0, "+0.0%", None, None, "too few ticks"]), "inconclusive"),
    ("not measured after", report(PSI_memory_full=[1.0, None, None, None, None, None, "not measured after"]), "inconclusive"),
    ("fails beats inconclusive", report(PSI_memory_full=[1.0, None, None, None, None, None, "not measured after"],
                                        PSI_memory_some=[10.0, 20.0, 10.0, "+100.0%", None, 1e-9, "yes"]), "fails"),
]
bad = 0
for what, r, want in cases:
    got = gate(r)
    if got != want:
        print("gate, %s: %s, want %s" % (what, got, want)); bad += 1
# a metric missing from the report, and no metrics section at all
r = report(); r["sections"][0]["rows"] = [x for x in r["sections"][0]["rows"] if x[0] != "pages scanned"]
if gate(r) != "inconclusive": print("missing metric"); bad += 1
if gate({"sections": []}) != "inconclusive": print("no recordings"); bad += 1
sys.exit(1 if bad else 0)
PY
done_testing
