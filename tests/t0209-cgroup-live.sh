#!/bin/sh
# The live path of cgroup.h (root, this host's memory controller, v1 or
# v2): memcg-ops creates a swaptune-* group through libcgroup with its
# limit, a child joins it, its pids and memory.stat are read, and
# memcg_destroy kills the child and removes the group; the limit file held
# what was asked while the group lived, and nothing swaptune-* is left.
# The captured-tree path (plain files) is test-probe's memcg case.
# Changes host state (a cgroup): runs under the host lock (sh tests/hold-host-lock.sh ...).
. "$(dirname "$0")/lib.sh"

need_probe_host
ops=$BUILD/helpers/memcg-ops
[ -x "$ops" ] || { echo "FAIL: $ops not built (make check builds it)"; exit 1; }
name=swaptune-t0209-$$
mkfifo "$scratch/fifo"
"$ops" "$name" 67108864 "$scratch/go" >"$scratch/fifo" 2>"$scratch/err" &
pid=$!
limit=""
: >"$scratch/out"
while IFS= read -r line; do
	echo "$line" >>"$scratch/out"
	case $line in
	joined*)	# the group exists now: what the kernel shows for it
		if [ -r "$CG/$name/memory.limit_in_bytes" ]; then
			limit=$(cat "$CG/$name/memory.limit_in_bytes")
		else
			limit=$(cat "$CG/$name/memory.max" 2>/dev/null)
		fi
		grep -qx "${line#joined }" "$CG/$name/cgroup.procs" ||
			fail "the child ${line#joined } is not in $CG/$name/cgroup.procs"
		: >"$scratch/go"
		;;
	esac
done <"$scratch/fifo"
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "memcg-ops exit $rc: $(cat "$scratch/err")"
grep -qx "backend libcgroup" "$scratch/out" || fail "the live host does not take libcgroup: $(cat "$scratch/out")"
grep -q "^created v[12] .*/$name\$" "$scratch/out" || fail "no created line: $(cat "$scratch/out")"
grep -q "^stat [1-9]" "$scratch/out" || fail "memory.stat not read: $(cat "$scratch/out")"
grep -qx "destroyed" "$scratch/out" || fail "not destroyed: $(cat "$scratch/out")"
[ "$limit" = 67108864 ] || fail "the group's limit was '$limit', want 67108864"
[ ! -e "$CG/$name" ] || { fail "$CG/$name is left"; rmdir "$CG/$name" 2>/dev/null; }
done_testing
