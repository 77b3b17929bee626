#!/bin/sh
# Opening the store: never through a symlink (a dangling one does not make
# a store at its target: exit 3), a new store is 0600 in a new 0700
# directory, a usage error drops only a store this process created and no
# other process uses, a damaged store is exit 1 "is damaged", a store
# locked beyond the busy timeout exit 1 "is busy", and read-only commands
# run as nobody without a writable store.
. "$(dirname "$0")/lib.sh"

fx=$FIXTURES/vm-v1
# expect STATUS REGEX ARGS...: exit status and stderr
expect() {
	want=$1 pat=$2
	shift 2
	"$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" = "$want" ] || fail "swaptune $*: exit $got, want $want ($(cat "$scratch/err"))"
	grep -q -- "$pat" "$scratch/err" || fail "swaptune $*: stderr lacks /$pat/: $(cat "$scratch/err")"
}

# a dangling symlink: no store at its target
ln -s "$scratch/target.db" "$scratch/link.db"
expect 3 'is a symbolic link' status --sysroot "$fx" --db "$scratch/link.db"
[ -e "$scratch/target.db" ] && fail "a store was created through a dangling symlink"
# a symlink to a victim file: the victim is untouched
echo precious >"$scratch/victim"
ln -s "$scratch/victim" "$scratch/link2.db"
expect 3 'is a symbolic link' status --sysroot "$fx" --db "$scratch/link2.db"
[ "$(cat "$scratch/victim")" = precious ] || fail "the symlink's target was written"

# new store: 0600 in a 0700 directory this run made; an existing directory is left alone
rec() { "$SWAPTUNE" sample --record --count 1 --no-cpu --sysroot "$fx" --db "$1" >/dev/null 2>&1; }
rec "$scratch/new/sub/s.db" || fail "sample --record on a new store"
[ "$(stat -c %a "$scratch/new/sub/s.db")" = 600 ] || fail "new store is not mode 0600"
[ "$(stat -c %a "$scratch/new/sub")" = 700 ] || fail "new store directory is not mode 0700"
mkdir -m 0755 "$scratch/pub"
rec "$scratch/pub/s.db" || fail "sample --record on a new store"
[ "$(stat -c %a "$scratch/pub")" = 755 ] || fail "an existing directory's mode changed"

# a usage error drops only a store it made itself, never one another process uses
for i in $(seq 1 15); do
	db=$scratch/race-$i.db
	"$SWAPTUNE" sample --sysroot "$fx" --db "$db" --record --count 2 --interval 200ms --no-cpu \
		>/dev/null 2>"$scratch/rec.err" &
	a=$!
	"$SWAPTUNE" status --sysroot "$fx" --db "$db" --no-such-option >/dev/null 2>&1
	wait "$a" || { fail "round $i: sample --record failed: $(cat "$scratch/rec.err")"; continue; }
	[ -f "$db" ] || { fail "round $i: a usage error removed the store another process recorded into"; continue; }
	if command -v sqlite3 >/dev/null 2>&1; then
		[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'sample'")" = 1 ] ||
			fail "round $i: the recorded run is lost"
	fi
done
expect 2 'no-such-option' status --sysroot "$fx" --db "$scratch/fresh.db" --no-such-option
[ -e "$scratch/fresh.db" ] && fail "a usage error left the store it created"

# damaged content: exit 1, not 3
head -c 8192 /dev/urandom >"$scratch/junk.db"
expect 1 "database $scratch/junk.db is damaged" status --sysroot "$fx" --db "$scratch/junk.db"

# held locked beyond the busy timeout: exit 1 "is busy"
if command -v sqlite3 >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	db=$scratch/busy.db
	new_store "$db" || fail "cannot make a store"
	sqlite3 "$db" "PRAGMA user_version = 0" 2>/dev/null	# makes the next open migrate
	python3 -c "
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN EXCLUSIVE')
print('locked', flush=True)
time.sleep(9)
" "$db" >"$scratch/lock.out" &
	holder=$!
	while ! grep -q locked "$scratch/lock.out"; do sleep 0.05; done
	expect 1 "database $db is busy" status --sysroot "$fx" --db "$db"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
fi

# least privilege: read-only commands as nobody, without a writable store
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	ro=$scratch/ro
	mkdir -m 0755 "$ro"
	cp -a "$SWAPTUNE" "$ro/swaptune"
	chmod 0755 "$scratch" "$ro"
	cp -a "$fx" "$ro/fx" && chmod -R a+rX "$ro/fx"
	new_store "$ro/root.db" || fail "cannot make root's store"
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent "$ro/swaptune" "$@"; }
	for c in status doctor "sample --count 1 --no-cpu" "recommend --state"; do
		# shellcheck disable=SC2086
		as_nobody $c --sysroot "$ro/fx" >/dev/null 2>"$scratch/nb.err" ||
			fail "$c as nobody without a store failed: $(cat "$scratch/nb.err")"
		# shellcheck disable=SC2086
		as_nobody $c --sysroot "$ro/fx" --db "$ro/root.db" >/dev/null 2>"$scratch/nb.err" ||
			fail "$c as nobody with root's store failed: $(cat "$scratch/nb.err")"
	done
	as_nobody sample --count 1 --no-cpu --record --sysroot "$ro/fx" --db "$ro/root.db" \
		>/dev/null 2>"$scratch/nb.err" && fail "sample --record as nobody into root's store succeeded"
	[ -e "$ro/root.db" ] || fail "root's store is gone"
else
	echo "# not run as nobody: needs root, setpriv and a nobody user"
fi
done_testing
