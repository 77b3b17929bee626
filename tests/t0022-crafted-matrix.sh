#!/bin/sh
# The crafted-input matrix (issue 33): every command and every option of the
# command tables (read from the fish completion script, so a new option is in
# the matrix the day it is added) given crafted values: bad numbers, hex,
# inf and nan, huge, negative, empty, control bytes, a newline, a long
# string, a path out of the tree, a FIFO, a dangling symlink; every
# flag given a value; junk and missing values on every command line; bad
# --db and --sysroot; and crafted stores (sqlite3) under every reader.
# Each run has a deadline. The matrix asserts 0 crashes (exit >= 128), 0
# hangs, and 0 silent acceptances: a bad input exits non-zero with exactly
# one line on stderr (no usage dump, no raw control bytes), and leaves no
# store behind. A crafted store's content is shown escaped and never crashes.
# Fixture-only: --sysroot copies and scratch stores, never the live host;
# the commands that would act run with --dry-run, --print or --count 1.
# It runs five directories deep in its scratch directory and never names a
# real system path: a relative path out of the working directory (an
# output path is the user's to choose) stays in scratch. Any failure fails.
# Long (more than 60 s): 2 577 inputs, 158 s of CPU, 10 min wall at a load
# average of 10 on 2 CPUs (session 14's 3 660 took 161 s wall on a quiet
# one); side_by_side in the suite.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "needs sqlite3 to craft stores"
SWAPTUNE=$(cd "$(dirname "$SWAPTUNE")" && pwd)/$(basename "$SWAPTUNE")
FIXTURES=$(cd "$FIXTURES" && pwd)
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
mkdir -p "$root/etc"
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
tree_sum() {
	(cd "$1" && find . \( -type f -o -type l \) -print | LC_ALL=C sort |
		while read -r f; do
			if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(cksum <"$f")"; fi
		done) | cksum
}
before=$(tree_sum "$root")
: >"$scratch/afile"
mkdir -p "$scratch/emptydir" "$scratch/dir.db"
echo "keep me" >"$scratch/victim"
mkfifo "$scratch/fifo"
ln -s "$scratch/victim" "$scratch/link"
ln -s "$scratch/nowhere/x" "$scratch/dangling"
db=$scratch/m.db
n=0 crashes=0 hangs=0 silent=0
esc=$(printf '\033')
long=$(printf '%05000d' 7 | tr 0 x)
# relative paths land in the scratch dir, never out of it (../../../../etc/shadow
# from a checkout is /etc/shadow: an accepted output path would overwrite it)
mkdir -p "$scratch/a/b/c/d/e"
cd "$scratch/a/b/c/d/e" || exit 1

# judge WHAT: the last run ($rc, $scratch/out, $scratch/err) was bad input
judge() {
	n=$((n + 1))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		hangs=$((hangs + 1)); fail "case $n ($1): hung (killed after 10 s)"; return
	fi
	if [ "$rc" -ge 128 ]; then
		crashes=$((crashes + 1)); fail "case $n ($1): crashed, exit $rc"; return
	fi
	if [ "$rc" -eq 0 ]; then
		rm -f "$db" "$db-wal" "$db-shm"
		silent=$((silent + 1)); fail "case $n ($1): accepted (exit 0)"; return
	fi
	lines=0
	while IFS= read -r l || [ -n "$l" ]; do
		lines=$((lines + 1))
		case $l in
		*usage:*|*Usage:*) fail "case $n ($1): printed the usage" ;;
		*"$esc"*) fail "case $n ($1): a raw escape byte on stderr" ;;
		esac
	done <"$scratch/err"
	[ "$lines" -eq 1 ] || fail "case $n ($1): $lines lines on stderr: $(head -c 300 "$scratch/err")"
	for f in "$db" "$db-wal" "$db-shm"; do
		[ -e "$f" ] && { fail "case $n ($1): left a store"; rm -f "$f"; }
	done
}
# bad ARGS...: one run that must be refused
bad() {
	timeout -s KILL 10 "$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	judge "$*"
}
# base CMD OPT: arguments that make CMD act harmlessly on the fixture copy
# (without the option under test, so it is never given twice)
base() {
	case $1 in
	sample) b="--count 1"; [ "$2" = count ] && b=""; [ "$2" = interval ] || b="$b --interval 10ms" ;;
	tui) b="--frames 1"; [ "$2" = frames ] && b="" ;;
	probe|switchback|verify) b="--dry-run" ;;
	apply) b="--dry-run"; case $2 in run|from) ;; *) b="$b page-cluster=1" ;; esac ;;
	rollback) b="--print" ;;
	*) b="" ;;
	esac
	echo "$b"
}
# the options of the command tables: "COMMAND OPTION x|r|-" (- a flag)
"$SWAPTUNE" --completion fish |
	sed -n "s/.*__fish_seen_subcommand_from \([a-z-]*\)' -l \([a-z-]*\)\( -s .\)*\( -\([rx]\)\)*.*/\1 \2 \5/p" |
	LC_ALL=C sort -u >"$scratch/opts"
[ "$(wc -l <"$scratch/opts")" -ge 140 ] || fail "the option list is short: $(wc -l <"$scratch/opts")"
commands=$(cut -d' ' -f1 "$scratch/opts" | LC_ALL=C sort -u)

# ---- every option that takes a value, given crafted values ----
# free text: any string but empty, control bytes, a newline or one too long
free_text() {
	case "$1 $2" in
	"probe metric"|"probe metric-regex"|"switchback metric-name"|"verify metric-name"|\
	"probe user"|"switchback metric-cmd"|"verify metric-cmd"|\
	"verify arm"|"probe arm"|"switchback arm") return 0 ;;
	esac
	return 1
}
while read -r cmd opt kind; do
	[ -n "$kind" ] || continue
	b=$(base "$cmd" "$opt")
	if free_text "$cmd" "$opt"; then
		set -- "" "a${esc}[2Jb" "$(printf 'a\nb')" "$long"
	elif [ "$kind" = r ]; then
		# a path: where nothing can be read or written (an output replaces a
		# symlink, never follows it: a dangling one is no bad output)
		set -- "" "$scratch/emptydir" "$scratch/fifo" "$scratch/nowhere/x" \
			"a${esc}[2Jb/x" "$long/x" ../../../../etc/shadow/x
		case $opt in output|prom-file) ;; *) set -- "$@" "$scratch/dangling" ;; esac
	else
		# one of each kind (more of a kind cost time and found nothing more)
		set -- "" nan inf -1 0x10 1e999 18446744073709551616 " 5" 5x "a${esc}[2Jb" \
			"$(printf 'a\nb')" "$long" ../../../../etc/shadow "$scratch/fifo"
	fi
	for v in "$@"; do
		# a path option: a plain readable path or /dev/null may be fine, these not
		bad "$cmd" --db "$db" --sysroot "$root" $b "--$opt" "$v"
	done
	# the value glued with '=' and the value missing at the end of the line
	# (free text and an output path may well be "nan")
	free_text "$cmd" "$opt" || case $kind:$opt in r:output|r:prom-file) ;; *) bad "$cmd" --db "$db" --sysroot "$root" $b "--$opt=nan" ;; esac
	bad "$cmd" --db "$db" --sysroot "$root" $b "--$opt"
done <"$scratch/opts"

# ---- every flag given a value, or given twice ----
while read -r cmd opt kind; do
	[ -z "$kind" ] || continue
	b=$(base "$cmd" "$opt")
	bad "$cmd" --db "$db" --sysroot "$root" $b "--$opt=1"
	bad "$cmd" --db "$db" --sysroot "$root" $b "--$opt=$long"
done <"$scratch/opts"

# ---- every command: junk on the line, bad --db and --sysroot ----
for cmd in $commands status doctor; do
	b=$(base "$cmd" "")
	for j in --frob -Z - "" "$long" "a${esc}[2Jb" --db= --sysroot= --json=1; do
		bad "$cmd" --db "$db" --sysroot "$root" $b "$j"
	done
	for s in "" "$scratch/afile" "$scratch/emptydir" "$scratch/fifo" "$scratch/nowhere" "a${esc}[2Jb"; do
		bad "$cmd" --db "$db" --sysroot "$s" $b
	done
	for d in "" "$scratch/dir.db" "$scratch/dangling" "$scratch/fifo"; do
		bad "$cmd" --db "$d" --sysroot "$root" $b
	done
done
[ -e "$scratch/nowhere/x" ] && fail "a store was made through a dangling symlink"
[ "$(cat "$scratch/victim")" = "keep me" ] || fail "the file behind a symlink was changed"

# ---- crafted stores under every reader ----
# a store with a recording, an apply and its snapshot, made on a tree of its own
mkdir -p "$scratch/own"
cp -a "$root/." "$scratch/own/"
"$SWAPTUNE" --db "$scratch/good.db" --sysroot "$scratch/own" sample --record --count 2 --interval 10ms >/dev/null 2>&1 ||
	fail "cannot record into good.db"
"$SWAPTUNE" --db "$scratch/good.db" --sysroot "$scratch/own" apply --yes page-cluster=1 >/dev/null 2>&1 ||
	fail "cannot apply into good.db"
readers="status history --list-ids recommend export fleet-report rollback report sample verify fleet-advise"
# damaged: refused by every reader with one line
damaged() {	# damaged WHAT SQL
	cp "$scratch/good.db" "$scratch/c.db"
	sqlite3 "$scratch/c.db" "$2" || { fail "cannot craft $1"; return; }
	cp "$scratch/c.db" "$scratch/c.orig"
	for r in $readers; do
		case $r in
		--list-ids) a="--list-ids run" ;;
		history) a="history --all" ;;
		recommend) a="recommend --run 1" ;;
		rollback) a="rollback --print" ;;
		report) a="report --run 1" ;;
		sample) a="sample --replay 1" ;;
		verify) a="verify --dry-run" ;;
		fleet-advise) a="fleet-advise --from $scratch/c.db --db $db" ;;
		*) a=$r ;;
		esac
		case $r in
		fleet-advise) timeout -s KILL 10 "$SWAPTUNE" --sysroot "$root" $a >"$scratch/out" 2>"$scratch/err" </dev/null ;;
		*) timeout -s KILL 10 "$SWAPTUNE" --db "$scratch/c.db" --sysroot "$root" $a >"$scratch/out" 2>"$scratch/err" </dev/null ;;
		esac
		rc=$?
		judge "$1: $a"
		cmp -s "$scratch/c.db" "$scratch/c.orig" || { fail "$1: $a changed the store"; cp "$scratch/c.orig" "$scratch/c.db"; }
	done
}
damaged "user_version -2147483648" "PRAGMA user_version=-2147483648"
damaged "user_version -1" "PRAGMA user_version=-1"
damaged "user_version 2147483647" "PRAGMA user_version=2147483647"
damaged "user_version 9999" "PRAGMA user_version=9999"
damaged "no runs table" "DROP TABLE runs"
damaged "no snapshots table" "DROP TABLE snapshots"
damaged "runs a view" "ALTER TABLE runs RENAME TO r0; CREATE VIEW runs AS SELECT * FROM r0"
damaged "not a store" "PRAGMA user_version=0; DROP TABLE runs; DROP TABLE snapshots"
for f in 0 100 1000 4096; do
	cp "$scratch/good.db" "$scratch/c.db"
	printf '\377\377\377\377\377\377\377\377' | dd of="$scratch/c.db" bs=1 seek=$f conv=notrunc 2>/dev/null
	cp "$scratch/c.db" "$scratch/c.orig"
	for r in history status "report --run 1" "--list-ids run"; do
		timeout -s KILL 10 "$SWAPTUNE" --db "$scratch/c.db" --sysroot "$root" $r >"$scratch/out" 2>"$scratch/err" </dev/null
		rc=$?
		# a flipped byte may land where SQLite never looks: then the store is fine
		[ "$rc" -eq 0 ] && { n=$((n + 1)); continue; }
		judge "bytes at $f: $r"
	done
done
# hostile content: shown escaped, never a crash or a hang, never raw bytes
hostile() {	# hostile WHAT SQL
	cp "$scratch/good.db" "$scratch/c.db"
	# SQLite's own constraints refuse some: no store can hold that
	sqlite3 "$scratch/c.db" "$2" 2>/dev/null || return 0
	for r in $readers; do
		case $r in
		--list-ids) a="--list-ids run" ;;
		history) a="history --all" ;;
		recommend) a="recommend --run 1" ;;
		rollback) a="rollback --print" ;;
		report) a="report --run 1" ;;
		sample) a="sample --replay 1" ;;
		verify) a="verify --dry-run" ;;
		*) a=$r ;;
		esac
		[ "$r" = fleet-advise ] && a="fleet-advise --from $scratch/c.db"
		n=$((n + 1))
		if [ "$r" = fleet-advise ]; then
			timeout -s KILL 10 "$SWAPTUNE" --db "$db" --sysroot "$root" $a >"$scratch/out" 2>"$scratch/err" </dev/null
		else
			timeout -s KILL 10 "$SWAPTUNE" --db "$scratch/c.db" --sysroot "$root" $a >"$scratch/out" 2>"$scratch/err" </dev/null
		fi
		rc=$?
		rm -f "$db" "$db-wal" "$db-shm"
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then hangs=$((hangs + 1)); fail "$1: $a hung"; continue; fi
		[ "$rc" -ge 128 ] && { crashes=$((crashes + 1)); fail "$1: $a crashed, exit $rc"; continue; }
		LC_ALL=C grep -q "$esc" "$scratch/out" "$scratch/err" && fail "$1: $a printed a raw escape byte"
		[ "$rc" -ne 0 ] && [ "$(wc -l <"$scratch/err")" -ne 1 ] &&
			fail "$1: $a failed with $(wc -l <"$scratch/err") lines on stderr"
	done
}
for col in $(sqlite3 "$scratch/good.db" "SELECT name FROM pragma_table_info('runs')"); do
	for v in "char(27)||'[2J'" "-9223372036854775808" "x'00ff'"; do
		hostile "runs.$col = $v" "UPDATE runs SET $col = $v"
	done
done
echo "$n crafted inputs: $crashes crashes, $hangs hangs, $silent silent acceptances"
[ "$n" -ge 2000 ] || fail "fewer than 2000 crafted inputs ($n)"
[ "$(tree_sum "$root")" = "$before" ] || fail "the sysroot tree changed"
[ -e "$scratch/a/etc" ] && fail "a path out of the working directory was written"
done_testing
