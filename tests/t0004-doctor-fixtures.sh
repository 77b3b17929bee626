#!/bin/sh
# doctor on every good fixture: --json matches tests/expected/doctor-<fixture>.json,
# the human table of vm-v1 matches doctor-vm-v1.txt, and the exit status is 0
# when probing can work, 3 when a required check fails (also on edited copies).
# UPDATE_EXPECTED=1 rewrites the expected files.
. "$(dirname "$0")/lib.sh"

want_exit() {	# want_exit FIXTURE STATUS
	case $1 in no-zswap) echo 3 ;; *) echo 0 ;; esac
}

for fx in $(good_fixtures); do
	"$SWAPTUNE" doctor --json --sysroot "$FIXTURES/$fx" --db "$scratch/db" \
		>"$scratch/$fx.json" 2>"$scratch/$fx.err"
	rc=$?
	[ "$rc" -eq "$(want_exit "$fx")" ] || fail "doctor on $fx: exit $rc, want $(want_exit "$fx")"
	[ -s "$scratch/$fx.err" ] && fail "doctor on $fx wrote to stderr: $(cat "$scratch/$fx.err")"
	if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
		cp "$scratch/$fx.json" "$EXPECTED/doctor-$fx.json"
	else
		same "$scratch/$fx.json" "$EXPECTED/doctor-$fx.json"
	fi
done

"$SWAPTUNE" doctor --sysroot "$FIXTURES/vm-v1" --db "$scratch/db" >"$scratch/vm-v1.txt" 2>&1 ||
	fail "doctor (human) on vm-v1: exit $?"
if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
	cp "$scratch/vm-v1.txt" "$EXPECTED/doctor-vm-v1.txt"
else
	same "$scratch/vm-v1.txt" "$EXPECTED/doctor-vm-v1.txt"
fi

# row NAME FILE: "status message" of one check in a human table
row() {
	awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }' "$2"
}

# no-zswap fails on zswap only, and says so
"$SWAPTUNE" doctor --sysroot "$FIXTURES/no-zswap" --db "$scratch/db" >"$scratch/nz.txt" 2>&1
[ $? -eq 3 ] || fail "doctor on no-zswap should exit 3"
grep -qx 'required checks failed: zswap' "$scratch/nz.txt" || fail "no-zswap: failed checks not listed"
case $(row zswap "$scratch/nz.txt") in
"fail "*"zswap is not in this kernel"*) ;;
*) fail "no-zswap: zswap row is '$(row zswap "$scratch/nz.txt")'" ;;
esac

# edited copies: v2 without +memory for children, and no memory controller at all
cp -a "$FIXTURES/v2-zswap-on" "$scratch/v2"
echo "cpu io pids" >"$scratch/v2/sys/fs/cgroup/cgroup.subtree_control"
"$SWAPTUNE" doctor --sysroot "$scratch/v2" --db "$scratch/db" >"$scratch/v2.txt" 2>&1
[ $? -eq 3 ] || fail "v2 without +memory: doctor should exit 3"
grep -q 'fix: echo +memory > /sys/fs/cgroup/cgroup.subtree_control' "$scratch/v2.txt" ||
	fail "v2 without +memory: no fix hint"

cp -a "$FIXTURES/vm-v1" "$scratch/nomem"
grep -v ' memory ' "$FIXTURES/vm-v1/proc/mounts" | grep -v 'cgroup/memory' >"$scratch/nomem/proc/mounts"
"$SWAPTUNE" doctor --json --sysroot "$scratch/nomem" --db "$scratch/db" >"$scratch/nomem.json" 2>&1
[ $? -eq 3 ] || fail "no memory controller: doctor should exit 3"
grep -q '"probe_ready":[[:space:]]*false' "$scratch/nomem.json" || fail "no memory controller: probe_ready should be false"

# no swap and no way to make one: swap fails; with loop-control it is fine
cp -a "$FIXTURES/no-zswap" "$scratch/noswap"
head -n 1 "$FIXTURES/no-zswap/proc/swaps" >"$scratch/noswap/proc/swaps"
rm -rf "$scratch/noswap/sys/class/misc/loop-control"
"$SWAPTUNE" doctor --sysroot "$scratch/noswap" --db "$scratch/db" >"$scratch/noswap.txt" 2>&1
case $(row swap "$scratch/noswap.txt") in
"warn "*"rotational sda1"*) ;;
*) fail "no swap, rotational root: swap row is '$(row swap "$scratch/noswap.txt")'" ;;
esac
mkdir -p "$scratch/noswap/sys/class/misc/loop-control"
"$SWAPTUNE" doctor --sysroot "$scratch/noswap" --db "$scratch/db" >"$scratch/noswap.txt" 2>&1
case $(row swap "$scratch/noswap.txt") in
"ok "*"loop device"*) ;;
*) fail "no swap, loop-control: swap row is '$(row swap "$scratch/noswap.txt")'" ;;
esac
done_testing
