#!/bin/sh
# The kernel fingerprint on every run, on fixture trees (no live host):
#  - a run stores the fingerprint of the kernel under --sysroot; export
#    carries it, import reads it as strictly as the store does (a crafted
#    one: exit 2, one line naming the field, nothing added);
#  - a verdict decided on 6.18 with cgroup v1 (vm-v1), exported and
#    imported into a store read on Debian 12's 6.1 with cgroup v2
#    (debian12-v2): recommend --run says "Kernel differs" with the
#    differences and verify --run; status says so for the newest verdict;
#    on its own kernel it says "decided on this kernel"; the imported
#    verdict is never applied (exit 2);
#  - a fingerprint that does not read back from the store: recommend exit
#    2 naming the run, status and the report say n/a and go on;
#  - the setting applied now against the running kernel: status and
#    sample --prom (swaptune_applied_setting_kernel_mismatch 0, then 1
#    once the tree's kernel changes; NaN for a run without one);
#    swaptune_kernel_info names the running kernel;
#  - swaptune's own journal is evidence that zswap was enabled this boot:
#    after apply zswap.enabled=Y and rollback, large-folio swap-in is no
#    longer possible (mthp-zram).
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to craft an export"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }

# a tree with an identity: machine id and boot id (apply keeps to this boot)
tree() {	# tree FIXTURE DIR MACHINE-ID
	mkdir -p "$2"
	cp -a "$FIXTURES/$1/." "$2/"
	mkdir -p "$2/etc" "$2/proc/sys/kernel/random"
	echo "$3" >"$2/etc/machine-id"
	echo 0b0e1d00-0000-4000-8000-00000000000$4 >"$2/proc/sys/kernel/random/boot_id"
}
tree vm-v1 "$scratch/v1" 0123456789abcdef0123456789abcdef 1
tree debian12-v2 "$scratch/deb" fedcba9876543210fedcba9876543210 2
tree mthp-zram "$scratch/mthp" 00112233445566778899aabbccddeeff 3

# ---- a run stores it; export carries it; import checks it ----
"$SWAPTUNE" --db "$scratch/v1.db" --sysroot "$scratch/v1" sample --record --count 1 --interval 0.1 \
	>/dev/null 2>"$scratch/err" || fail "sample --record: $(cat "$scratch/err")"
fp=$(sqlite3 "$scratch/v1.db" "SELECT kernel_fp FROM runs WHERE kind = 'sample'")
echo "$fp" | grep -q '"release":"6.18.44-fc-v657","cgroup":"hybrid","memory_cgroup_version":1,"readahead":"cluster"' ||
	fail "the recording does not store vm-v1's fingerprint: $fp"
"$SWAPTUNE" --db "$scratch/v1.db" --sysroot "$scratch/v1" export -o "$scratch/v1.json" 2>"$scratch/err" ||
	fail "export: $(cat "$scratch/err")"
"$check" "$SCHEMAS/export.schema.json" "$scratch/v1.json" >"$scratch/v.out" 2>&1 ||
	fail "export does not validate: $(head -3 "$scratch/v.out")"
grep -q '"kernel_fingerprint":{"release":"6.18.44-fc-v657"' "$scratch/v1.json" ||
	fail "the export lacks the run's fingerprint"

# the fleet fixture's probe run, as if it had run on vm-v1's kernel
python3 - "$FIXTURES/fleet/host-01.json" "$scratch/v1.json" "$scratch/probe.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
fp = json.load(open(sys.argv[2]))["runs"][0]["kernel_fingerprint"]
for r in doc["runs"]:
    r["kernel_fingerprint"] = fp
json.dump(doc, open(sys.argv[3], "w"))
bad = json.loads(json.dumps(doc))
bad["runs"][0]["kernel_fingerprint"]["readahead"] = "sideways"
json.dump(bad, open(sys.argv[3] + ".bad", "w"))
EOF
deb() { "$SWAPTUNE" --db "$scratch/deb.db" --sysroot "$scratch/deb" "$@"; }
deb import "$scratch/probe.json.bad" >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "import of a crafted fingerprint: exit $rc, want 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q 'kernel_fingerprint.*readahead is not vma, cluster or null' "$scratch/err" ||
	fail "import of a crafted fingerprint: want one line naming the field: $(cat "$scratch/err")"
[ "$(sqlite3 "$scratch/deb.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 0 ] ||
	fail "a refused import added runs"
deb import "$scratch/probe.json" >/dev/null 2>"$scratch/err" || fail "import: $(cat "$scratch/err")"
run=$(sqlite3 "$scratch/deb.db" "SELECT id FROM runs WHERE kind = 'imported' AND origin_kind = 'probe'")
[ -n "$run" ] || fail "no imported probe run"

# ---- decided on 6.18/v1, read on 6.1/v2 ----
deb recommend --run "$run" >"$scratch/rec.txt" 2>"$scratch/err" || fail "recommend --run $run: exit $? $(cat "$scratch/err")"
unfold "$scratch/rec.txt" | grep -q "^Kernel differs: decided on 6.18.44-fc-v657, cgroup v1, cluster readahead; this host runs 6.1.0-57-amd64, cgroup v2, cluster readahead: kernel 6.18.44-fc-v657 -> 6.1.0-57-amd64, cgroup v1 -> v2; the verdict may not hold here: check it with swaptune verify --run $run$" ||
	fail "recommend does not say the verdict was decided on another kernel: $(tail -3 "$scratch/rec.txt")"
grep -q "^To apply" "$scratch/rec.txt" && fail "recommend offers to apply an imported verdict"
deb recommend --run "$run" --json >"$scratch/rec.json" 2>"$scratch/err" || fail "recommend --json: $(cat "$scratch/err")"
"$check" "$SCHEMAS/recommend.schema.json" "$scratch/rec.json" >"$scratch/v.out" 2>&1 ||
	fail "recommend --json does not validate: $(head -3 "$scratch/v.out")"
python3 -c "
import json, sys
k = json.load(open(sys.argv[1]))['kernel']
assert k['mismatch'] is True and k['differences'] == ['release', 'cgroup'], k
assert k['decided_on']['memory_cgroup_version'] == 1 and k['now']['memory_cgroup_version'] == 2, k
" "$scratch/rec.json" || fail "recommend --json: kernel.mismatch/differences"
deb status >"$scratch/status.txt" 2>"$scratch/err" || fail "status: $(cat "$scratch/err")"
unfold "$scratch/status.txt" | grep -q "^Newest verdict    run $run (probe imported from node-01): decided on 6.18.44-fc-v657, cgroup v1, cluster readahead; .*cgroup v1 -> v2; the verdict may not hold here: check it with swaptune verify --run $run$" ||
	fail "status does not say the newest verdict was decided on another kernel: $(tail -2 "$scratch/status.txt")"
grep -q '^Large folios      no swap-in (this kernel predates large-folio swap-in (~6.13))$' "$scratch/status.txt" ||
	fail "status: large folios on 6.1"
deb apply --run "$run" --yes >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] || fail "apply --run of the imported verdict: not exit 2"

# on the kernel it was decided on: no difference
"$SWAPTUNE" --db "$scratch/deb.db" --sysroot "$scratch/v1" recommend --run "$run" >"$scratch/rec1.txt" 2>&1 ||
	fail "recommend on vm-v1: $(tail -2 "$scratch/rec1.txt")"
grep -q '^Kernel: decided on this kernel (6.18.44-fc-v657, cgroup v1, cluster readahead)$' "$scratch/rec1.txt" ||
	fail "recommend on its own kernel: $(tail -1 "$scratch/rec1.txt")"

# ---- a fingerprint that does not read back ----
cp "$scratch/deb.db" "$scratch/crafted.db"
sqlite3 "$scratch/crafted.db" "UPDATE runs SET kernel_fp = replace(kernel_fp, '\"cgroup\":\"hybrid\"', '\"cgroup\":\"v9\"') WHERE id = $run"
"$SWAPTUNE" --db "$scratch/crafted.db" --sysroot "$scratch/deb" recommend --run "$run" >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "recommend on a crafted stored fingerprint: exit $rc, want 2"
grep -q "run $run: kernel fingerprint: cgroup is not v1, v2, hybrid, none or null" "$scratch/err" ||
	fail "recommend on a crafted fingerprint does not name run and field: $(cat "$scratch/err")"
"$SWAPTUNE" --db "$scratch/crafted.db" --sysroot "$scratch/deb" status >"$scratch/st.txt" 2>"$scratch/err" ||
	fail "status on a crafted stored fingerprint: exit $?"
unfold_in_place "$scratch/st.txt"
grep -q "^Newest verdict    run $run: n/a: run $run: kernel fingerprint: cgroup is not" "$scratch/st.txt" ||
	fail "status does not say n/a for a crafted fingerprint: $(tail -1 "$scratch/st.txt")"

# ---- the setting applied now, against the running kernel ----
v1() { "$SWAPTUNE" --db "$scratch/apply.db" --sysroot "$scratch/v1" "$@"; }
v1 apply --yes page-cluster=1 >/dev/null 2>"$scratch/err" || fail "apply: $(cat "$scratch/err")"
v1 status >"$scratch/st.txt" 2>&1 || fail "status after apply"
unfold_in_place "$scratch/st.txt"
grep -q '^Applied setting   run 1 (set by hand): decided on this kernel (6.18.44-fc-v657, cgroup v1, cluster readahead)$' \
	"$scratch/st.txt" || fail "status: the applied setting: $(grep Applied "$scratch/st.txt")"
v1 sample --prom --count 1 --interval 0.1 >"$scratch/p0.prom" 2>/dev/null || fail "sample --prom"
grep -qx 'swaptune_applied_setting_kernel_mismatch{run="1"} 0' "$scratch/p0.prom" ||
	fail "prom: want mismatch 0: $(grep mismatch "$scratch/p0.prom")"
grep -qx 'swaptune_kernel_info{release="6.18.44-fc-v657",cgroup="hybrid",readahead="cluster",zswap_ever_enabled="yes",large_folio_swapin="no",mglru="unknown"} 1' \
	"$scratch/p0.prom" || fail "prom: kernel info: $(grep '^swaptune_kernel_info' "$scratch/p0.prom")"
[ "$(grep -c '^# TYPE swaptune_kernel_info gauge$' "$scratch/p0.prom")" = 1 ] || fail "prom: one TYPE per family"
# the same host after a kernel update (the setting persisted over the reboot)
echo 6.19.2-fc > "$scratch/v1/proc/sys/kernel/osrelease"
sqlite3 "$scratch/apply.db" "UPDATE runs SET params = json_set(params, '$.persist', json('true')) WHERE id = 1"
echo 0b0e1d00-0000-4000-8000-0000000000ff >"$scratch/v1/proc/sys/kernel/random/boot_id"
v1 status >"$scratch/st.txt" 2>&1 || fail "status after the kernel update"
unfold_in_place "$scratch/st.txt"
grep -q '^Applied setting   run 1 (set by hand, persisted): decided on 6.18.44-fc-v657, cgroup v1, cluster readahead; this host runs 6.19.2-fc, cgroup v1, cluster readahead: kernel 6.18.44-fc-v657 -> 6.19.2-fc; the verdict may not hold here: check it with swaptune verify (or verify --live)$' \
	"$scratch/st.txt" || fail "status after a kernel update: $(grep Applied "$scratch/st.txt")"
v1 status --json >"$scratch/st.json" 2>/dev/null || fail "status --json"
"$check" "$SCHEMAS/status.schema.json" "$scratch/st.json" >"$scratch/v.out" 2>&1 ||
	fail "status --json does not validate: $(head -3 "$scratch/v.out")"
python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))['verdicts']['applied']
assert a['mismatch'] is True and a['differences'] == ['release'] and a['apply_run'] == 1 and a['persisted'], a
" "$scratch/st.json" || fail "status --json: verdicts.applied"
v1 sample --prom --count 1 --interval 0.1 >"$scratch/p1.prom" 2>/dev/null || fail "sample --prom after the update"
grep -qx 'swaptune_applied_setting_kernel_mismatch{run="1"} 1' "$scratch/p1.prom" ||
	fail "prom: want mismatch 1: $(grep mismatch "$scratch/p1.prom")"
# a run that stored none cannot be compared: NaN, never a pass
sqlite3 "$scratch/apply.db" "UPDATE runs SET kernel_fp = NULL WHERE id = 1"
v1 sample --prom --count 1 --interval 0.1 >"$scratch/p2.prom" 2>/dev/null || fail "sample --prom, no fingerprint"
grep -qx 'swaptune_applied_setting_kernel_mismatch{run="1"} NaN' "$scratch/p2.prom" ||
	fail "prom: want NaN for a run without fingerprint: $(grep mismatch "$scratch/p2.prom")"
if command -v promtool >/dev/null 2>&1; then
	for f in p0 p1 p2; do
		promtool check metrics <"$scratch/$f.prom" >"$scratch/pt.out" 2>&1 ||
			fail "promtool on $f: $(head -3 "$scratch/pt.out")"
	done
fi

# ---- swaptune's journal as evidence that zswap was enabled in this boot ----
m() { "$SWAPTUNE" --db "$scratch/m.db" --sysroot "$scratch/mthp" "$@"; }
m status >"$scratch/m0.txt" 2>&1 || fail "status on mthp-zram"
grep -q '^Large folios      swap-in possible' "$scratch/m0.txt" || fail "mthp-zram: large folios not possible at first"
m apply --yes zswap.enabled=Y >/dev/null 2>"$scratch/err" || fail "apply zswap.enabled=Y: $(cat "$scratch/err")"
m rollback --yes >/dev/null 2>"$scratch/err" || fail "rollback: $(cat "$scratch/err")"
[ "$(cat "$scratch/mthp/sys/module/zswap/parameters/enabled")" = N ] || fail "rollback left zswap on"
m status >"$scratch/m1.txt" 2>&1 || fail "status after rollback"
unfold_in_place "$scratch/m1.txt"
grep -q "^zswap ever on     yes (swaptune's journal shows it enabled zswap during this boot)$" "$scratch/m1.txt" ||
	fail "the journal is not taken as evidence: $(grep 'zswap ever' "$scratch/m1.txt")"
grep -q '^Large folios      no swap-in (zswap was enabled since boot: swap-in falls back to order 0 until reboot)$' \
	"$scratch/m1.txt" || fail "large folios still possible after zswap was enabled"
# another boot: the journal of an earlier boot says nothing about this one
echo 0b0e1d00-0000-4000-8000-0000000000ee >"$scratch/mthp/proc/sys/kernel/random/boot_id"
m status >"$scratch/m2.txt" 2>&1 || fail "status in another boot"
grep -q '^Large folios      swap-in possible' "$scratch/m2.txt" || fail "an earlier boot's journal counted"

# ---- the report says what the run ran on ----
"$SWAPTUNE" --db "$scratch/deb.db" --sysroot "$scratch/deb" report --run "$run" >"$scratch/rep.txt" 2>"$scratch/err" ||
	fail "report --run: $(cat "$scratch/err")"
grep -q '^Kernel it ran on$' "$scratch/rep.txt" && grep -q '^  release  *6.18.44-fc-v657$' "$scratch/rep.txt" ||
	fail "report lacks the kernel it ran on"
"$SWAPTUNE" --db "$scratch/crafted.db" --sysroot "$scratch/deb" report --run "$run" >"$scratch/rep2.txt" 2>"$scratch/err" ||
	fail "report --run on a crafted fingerprint: exit $?"
grep -q '^  fingerprint  *n/a: run [0-9]*: kernel fingerprint: cgroup is not' "$scratch/rep2.txt" ||
	fail "report on a crafted fingerprint does not say n/a"
done_testing
