#!/bin/sh
# Root, live host: a memory hog in a 64 MiB leaf cgroup swapping into zswap
# (scratch swap on a loop device) shows nonzero zswpout in a 3 s
# `sample --cgroup` run; the zswap pool columns work with debugfs and go n/a
# (sampling goes on) when debugfs is unmounted mid-run, which the sampler
# must not prevent; a cgroup removed mid-run gives nulls, and when it comes
# back its values return. Everything is restored on exit, also on failure.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (swap, zswap, cgroups)"
zs=/sys/module/zswap/parameters/enabled
[ -w "$zs" ] || skip "no zswap in this kernel"
memcg=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
[ -n "$memcg" ] || skip "needs the cgroup v1 memory controller (this test's set-up is v1)"
for t in losetup mkswap swapon swapoff python3; do
	command -v $t >/dev/null || skip "$t not installed"
done
hogbin=$BUILD/helpers/sample-hog
[ -x "$hogbin" ] || { echo "FAIL: $hogbin not built (make check builds it)"; exit 1; }

cg=swaptune-sampletest-$$
cgdir=$memcg/$cg
swapimg=$scratch/swap.img
loop="" hog="" set_zswap=0 mounted_debugfs=0

restore() {
	[ -n "$hog" ] && kill -9 "$hog" 2>/dev/null && wait "$hog" 2>/dev/null
	[ -d "$cgdir" ] && rmdir "$cgdir"
	[ "$mounted_debugfs" = 1 ] && umount /sys/kernel/debug 2>/dev/null
	if [ -n "$loop" ]; then
		swapoff "$loop" 2>/dev/null
		losetup -d "$loop"
	fi
	# only undo what this test changed (another run may own zswap=Y)
	[ "$set_zswap" = 1 ] && echo N >"$zs"
	rm -f "$swapimg"
}
cleanup_hooks=restore

# scratch swap: a loop device (non-rotational) over a file in the scratch dir
truncate -s 512M "$swapimg" || fail "truncate"
loop=$(losetup -f --show "$swapimg") || { loop=""; skip "no free loop device"; }
mkswap "$loop" >/dev/null || fail "mkswap $loop"
swapon "$loop" || fail "swapon $loop"
if [ "$(cat "$zs")" = N ]; then
	set_zswap=1
	echo Y >"$zs" || fail "cannot enable zswap"
fi

mkdir "$cgdir" || fail "mkdir $cgdir"
echo 64M >"$cgdir/memory.limit_in_bytes" || fail "memory limit"
# only the hog goes into the limited cgroup, never this shell
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 200' hog "$cgdir" "$hogbin" &
hog=$!
sleep 1
kill -0 "$hog" 2>/dev/null || fail "the hog died (OOM in its cgroup?)"

# --- 1: 3 s with --cgroup; debugfs as found (usually not mounted here)
debugfs_was=$(grep -c ' /sys/kernel/debug debugfs ' /proc/mounts)
"$SWAPTUNE" sample --db "$scratch/db" --cgroup "$cg" --duration 3s --interval 500ms --json \
	>"$scratch/p1" 2>"$scratch/p1.err" || fail "sample --cgroup: exit $?"
python3 - "$scratch/p1" "$debugfs_was" <<'PY' || fail "phase 1 values"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert 5 <= len(lines) <= 7, len(lines)
out = sum(l["vmstat"]["zswpout_pages_per_s"] for l in lines)
assert out > 0, "no zswpout while the hog swaps"
last = lines[-1]
cg = last["cgroup"]
assert cg["version"] == "v1" and cg["swap_bytes"] > 0 and cg["anon_bytes"] > 0, cg
assert cg["anon_bytes"] <= 64 << 20, cg
assert last["meminfo"]["zswap_bytes"] > 0 and last["meminfo"]["swap_used_bytes"] > 0
assert last["derived"]["zswap_compression_ratio"] > 1, last["derived"]
if sys.argv[2] == "0":  # debugfs not mounted: pool n/a, said why, meminfo fallback used
    assert last["zswap"]["stored_pages"] is None and "not mounted" in last["unavailable"]["zswap"]
c = last["cpu"]
if c["source"] != "none" and c["target"] == "system":
    assert "counting system-wide instead" in c["note"], c["note"]
print("zswpout pages/s per tick:", [round(l["vmstat"]["zswpout_pages_per_s"]) for l in lines])
PY

# --- 2: debugfs mounted for the pool columns, unmounted mid-run (only if
# this test mounted it: another run may be using it)
debugfs_was=$(grep -c ' /sys/kernel/debug debugfs ' /proc/mounts)
if [ "$debugfs_was" = 0 ]; then
	mount -t debugfs none /sys/kernel/debug && mounted_debugfs=1 || fail "mount debugfs"
fi
"$SWAPTUNE" sample --db "$scratch/db" --no-cpu --interval 250ms --count 10 --json \
	>"$scratch/p2" 2>"$scratch/p2.err" &
sp=$!
sleep 1.1
if [ "$mounted_debugfs" = 1 ]; then
	if ! umount /sys/kernel/debug 2>/dev/null; then
		# busy: by the sampler (a bug) or by someone else (then detach lazily)
		ls -l /proc/$sp/fd 2>/dev/null | grep -q /sys/kernel/debug &&
			fail "sample holds debugfs files open: it would block umount"
		umount -l /sys/kernel/debug || fail "umount debugfs"
	fi
	mounted_debugfs=0
fi
wait $sp || fail "sample during the unmount: exit $?"
python3 - "$scratch/p2" "$debugfs_was" <<'PY' || fail "phase 2 values"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 10, len(lines)
first = lines[0]["zswap"]
assert first["stored_pages"] is not None and first["pool_bytes"] is not None, first
# debugfs agrees with meminfo (another run may have emptied the pool meanwhile)
if lines[0]["meminfo"]["zswapped_bytes"] > 0:
    assert first["stored_pages"] > 0 and first["pool_bytes"] > 0, first
    assert lines[0]["derived"]["zswap_compression_ratio"] > 1
if sys.argv[2] == "0":
    assert lines[-1]["zswap"]["stored_pages"] is None, lines[-1]["zswap"]
    assert "not mounted" in lines[-1]["unavailable"]["zswap"]
    assert lines[-1]["vmstat"]["zswpout_pages_per_s"] is not None
PY

# --- 3: the cgroup goes away mid-run and comes back
kill -9 "$hog"; wait "$hog" 2>/dev/null; hog=""
"$SWAPTUNE" sample --db "$scratch/db" --no-cpu --cgroup "$cg" --interval 200ms --count 14 --json \
	>"$scratch/p3" 2>"$scratch/p3.err" &
sp=$!
sleep 0.7
rmdir "$cgdir" || fail "rmdir $cgdir"
sleep 1
mkdir "$cgdir" || fail "mkdir $cgdir again"
wait $sp || fail "sample while the cgroup vanished: exit $?"
python3 - "$scratch/p3" <<'PY' || fail "phase 3 values"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 14, len(lines)
state = ["ok" if l["cgroup"]["anon_bytes"] is not None else "na" for l in lines]
print(" ".join(state))
assert state[0] == "ok" and state[-1] == "ok", state
assert "na" in state, state
gone = next(l for l in lines if l["cgroup"]["anon_bytes"] is None)
assert "memory.stat" in gone["unavailable"]["cgroup"], gone["unavailable"]
PY
done_testing
