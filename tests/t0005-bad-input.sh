#!/bin/sh
# Bad input: each case prints exactly one line on stderr, nothing on stdout
# (with --json: only the error document),
# exits 2 (usage, bad input) or 3 (not permitted), and changes nothing: no
# store is created and the sysroot tree is left as it was.
. "$(dirname "$0")/lib.sh"

db=$scratch/db
# expect STATUS PATTERN ARGS...: run swaptune ARGS, check status, one stderr
# line matching the grep -E PATTERN, empty stdout, no store at $db
expect() {
	want=$1 pat=$2
	shift 2
	"$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "swaptune $*: exit $rc, want $want"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] ||
		fail "swaptune $*: want one line on stderr, got: $(cat "$scratch/err")"
	grep -Eq -- "$pat" "$scratch/err" || fail "swaptune $*: stderr '$(cat "$scratch/err")' does not match '$pat'"
	case " $* " in
	*" --json "*)	# the error document (share/schema/error.schema.json), nothing else
		"$BUILD/helpers/schema-check" "$SCHEMAS/error.schema.json" "$scratch/out" >/dev/null 2>&1 ||
			fail "swaptune $*: stdout is not an error document: $(head -3 "$scratch/out")" ;;
	*)	[ -s "$scratch/out" ] && fail "swaptune $*: wrote to stdout: $(head -3 "$scratch/out")" ;;
	esac
	if [ -e "$db" ]; then
		fail "swaptune $*: created the store $db"
		rm -f "$db" "$db-wal" "$db-shm"
	fi
}

# tree_sum DIR: a checksum of every file and link in a tree
tree_sum() {
	(cd "$1" && find . \( -type f -o -type l \) -print | LC_ALL=C sort |
		while read -r f; do
			if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(cksum <"$f")"; fi
		done) | cksum
}

expect 2 '^swaptune: unknown command "frobnicate" \(see swaptune --help\)$' frobnicate --db "$db"
expect 2 '^swaptune: status: unknown option --frob \(see swaptune status --help\)$' \
	status --frob --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: doctor: unknown option --frob \(see swaptune doctor --help\)$' \
	doctor --frob --db "$db" --sysroot "$FIXTURES/vm-v1"
# did you mean, for values too (issue 34, finding 7): workload and metric names, a choice
# typed with a letter left out or two swapped, and the option another command spells
# differently (rollback prints with --print; probe shows its plan with --dry-run)
expect 2 '^swaptune: probe: unknown workload "anon-rnd"; did you mean anon-random\? \(see swaptune probe --help\)$' \
	probe --workload anon-rnd --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: probe: unknown workload "zzz" \(see swaptune probe --help\)$' \
	probe --workload zzz --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: switchback: --metric psi-som: did you mean psi-some\? \(see swaptune switchback --help\)$' \
	switchback --metric psi-som --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: switchback: --metric cpu-per-wrok: did you mean cpu-per-work\? ' \
	switchback --metric cpu-per-wrok --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: tui: --panel is status, .*, not "histroy"; did you mean history\? ' \
	tui --panel histroy --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: rollback: unknown option --dry-run; did you mean --print\? \(see swaptune rollback --help\)$' \
	rollback --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: probe: unknown option --print; did you mean --dry-run\? ' \
	probe --print --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: status: unexpected argument "extra" \(see swaptune status --help\)$' \
	status extra --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '^swaptune: option --db needs a value$' status --db
expect 2 '--progress is auto, tty, plain or none' \
	probe --progress bogus --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '--working-set: "nan" is not a size' \
	probe --working-set nan --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 '--working-set: "18446744073575333888" is not a size' \
	probe --working-set 18446744073575333888 --dry-run --db "$db" --sysroot "$FIXTURES/vm-v1"
expect 2 "^swaptune: sysroot $scratch/nonexistent: No such file or directory" \
	status --db "$db" --sysroot "$scratch/nonexistent"
mkdir -p "$scratch/empty"
expect 2 "^swaptune: sysroot $scratch/empty does not look like a host tree" \
	status --db "$db" --sysroot "$scratch/empty"
: >"$scratch/plainfile"
expect 2 "^swaptune: sysroot $scratch/plainfile is not a directory" \
	doctor --db "$db" --sysroot "$scratch/plainfile"

# malformed kernel files: a command that acts on them exits 2, the file
# (under the sysroot) and line named, the tree untouched. status and doctor
# show that part as n/a instead and go on (tests/t0002, t0004).
for fx in broken-pagecluster truncated-vmstat; do
	before=$(tree_sum "$FIXTURES/$fx")
	case $fx in
	broken-pagecluster) pat="^swaptune: $FIXTURES/$fx/proc/sys/vm/page-cluster: line 1: expected a number 0\\.\\.31, found \"banana\"\$" ;;
	truncated-vmstat) pat="^swaptune: $FIXTURES/$fx/proc/vmstat: line [0-9]+: expected \"key value\", found \"nr_\"\$" ;;
	esac
	case $fx in
	broken-pagecluster)
		expect 2 "$pat" probe --dry-run --db "$db" --sysroot "$FIXTURES/$fx"
		expect 2 "$pat" probe --dry-run --json --db "$db" --sysroot "$FIXTURES/$fx"
		expect 2 "$pat" apply --dry-run page-cluster=0 --db "$db" --sysroot "$FIXTURES/$fx" ;;
	truncated-vmstat)
		expect 2 "$pat" recommend --state --db "$db" --sysroot "$FIXTURES/$fx"
		expect 2 "$pat" recommend --state --json --db "$db" --sysroot "$FIXTURES/$fx" ;;
	esac
	[ "$(tree_sum "$FIXTURES/$fx")" = "$before" ] || fail "$fx: the fixture tree changed"
done

# a store that cannot be written: under /proc, or below a regular file
expect 3 '^swaptune: cannot open database /proc/swaptune-test\.db: .*\(use --db PATH\)$' \
	status --sysroot "$FIXTURES/vm-v1" --db /proc/swaptune-test.db
[ -e /proc/swaptune-test.db ] && fail "a store appeared under /proc"
expect 3 "^swaptune: cannot open database $scratch/plainfile/s\\.db: Not a directory \\(use --db PATH\\)\$" \
	status --sysroot "$FIXTURES/vm-v1" --db "$scratch/plainfile/s.db"
expect 3 "^swaptune: cannot create database directory $scratch/plainfile/sub: Not a directory" \
	doctor --sysroot "$FIXTURES/vm-v1" --db "$scratch/plainfile/sub/s.db"
[ -s "$scratch/plainfile" ] && fail "plainfile was written to"
export SWAPTUNE_DB=/proc/swaptune-env.db
expect 3 '^swaptune: cannot open database /proc/swaptune-env\.db' status --sysroot "$FIXTURES/vm-v1"
unset SWAPTUNE_DB

# an existing store is kept after a usage error (only a new one is dropped)
new_store "$scratch/keep.db" || fail "cannot make a store"
"$SWAPTUNE" status --frob --sysroot "$FIXTURES/vm-v1" --db "$scratch/keep.db" >/dev/null 2>&1
[ -s "$scratch/keep.db" ] || fail "a usage error removed an existing store"

# no command at all: usage on stderr, exit 2
"$SWAPTUNE" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] || fail "no command: want exit 2"
grep -q '^usage: swaptune COMMAND' "$scratch/err" || fail "no command: no usage on stderr"
done_testing
