#!/bin/sh
# loop is a module nothing loaded (issue 32: a minimal Debian 12 guest had no
# /dev/loop-control, and a probe needing a scratch swap failed, exit 3, with
# "is the loop module loaded?"). On a copy of debian12-v2 with no swap active,
# no sys/class/misc/loop-control and lib/modules/<release>/.../loop.ko.xz:
# doctor's swap row says loop is a module not loaded and that a probe runs
# modprobe loop; probe --dry-run's plan says the module is loaded first.
# Built in (modules.builtin) or already loaded: nothing is said about it.
. "$(dirname "$0")/lib.sh"
root=$scratch/root
cp -R "$FIXTURES/debian12-v2" "$root"
rel=$(cat "$root/proc/sys/kernel/osrelease")
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$root/proc/swaps"
rm -rf "$root/sys/class/misc/loop-control" "$root/sys/module/loop"
mkdir -p "$root/lib/modules/$rel/kernel/drivers/block"
: >"$root/lib/modules/$rel/kernel/drivers/block/loop.ko.xz"
: >"$root/lib/modules/$rel/modules.builtin"

# row NAME FILE: "status message" of one check in a human table
row() {
	unfold "$2" | awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }'
}

"$SWAPTUNE" doctor --sysroot "$root" --db "$scratch/db" >"$scratch/doc.txt" 2>&1
case $(row swap "$scratch/doc.txt") in
"ok "*"loop is a module not loaded (/lib/modules/$rel/kernel/drivers/block/loop.ko.xz): a probe runs modprobe loop"*) ;;
*) fail "doctor: swap row is '$(row swap "$scratch/doc.txt")'" ;;
esac

"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" probe --dry-run >"$scratch/plan.txt" 2>&1 ||
	fail "probe --dry-run: exit $? ($(cat "$scratch/plan.txt"))"
unfold "$scratch/plan.txt" | grep -q 'the loop module loaded first (modprobe loop; it stays loaded), then a ' ||
	fail "probe --dry-run: the plan does not say the loop module is loaded: $(grep -A1 scratch-swap "$scratch/plan.txt")"

# built in: no module to load
echo "kernel/drivers/block/loop.ko" >"$root/lib/modules/$rel/modules.builtin"
"$SWAPTUNE" doctor --sysroot "$root" --db "$scratch/db" >"$scratch/doc2.txt" 2>&1
row swap "$scratch/doc2.txt" | grep -q 'modprobe loop, or modprobe zram\|loop is a module' &&
	case $(row swap "$scratch/doc2.txt") in *"loop is a module"*) fail "doctor: built-in loop called a module: $(row swap "$scratch/doc2.txt")" ;; esac
"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" probe --dry-run >"$scratch/plan2.txt" 2>&1 ||
	fail "probe --dry-run (built in): exit $?"
unfold "$scratch/plan2.txt" | grep -q 'loop module loaded first' && fail "probe --dry-run: built-in loop said to be loaded"

# loaded already (sys/module/loop/initstate): nothing to load
: >"$root/lib/modules/$rel/modules.builtin"
mkdir -p "$root/sys/module/loop" && echo live >"$root/sys/module/loop/initstate"
"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" probe --dry-run >"$scratch/plan3.txt" 2>&1 ||
	fail "probe --dry-run (loaded): exit $?"
unfold "$scratch/plan3.txt" | grep -q 'loop module loaded first' && fail "probe --dry-run: a loaded loop said to be loaded again"
done_testing
