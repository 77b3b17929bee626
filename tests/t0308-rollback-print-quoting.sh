#!/bin/sh
# rollback --print is inert shell whatever the store holds: a crafted store
# (edited with the sqlite3 tool) whose journal names a directory with
# $(...) and a quote (dropped: no such directory exists), and whose snapshot
# reason holds a newline, with a sysroot whose path holds
# quotes, $(...), backticks and a newline (paths in the script are the
# sysroot's path plus the journal's names), prints a
# script that passes sh -n, and that run for real inside the scratch
# sysroot runs nothing (X is not created) and writes the recorded content
# (swaptune's own, whose header holds backticks) back byte for byte. (The
# old output used unquoted paths and a fixed 'EOF' heredoc.) Recorded
# content that swaptune does not write (EOF lines and shell) is refused:
# exit 2 and no script.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
X=$scratch/X
# the sysroot's own path is the user's: quotes, $(...), backticks, a newline
root="$scratch/r'oot \$(touch $X) \`touch $X\` \"q\"
; touch $X #"
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
st apply --yes --persist page-cluster=0 >/dev/null 2>"$scratch/err" || fail "apply: $(cat "$scratch/err")"
st apply --yes --persist page-cluster=1 >/dev/null 2>"$scratch/err" || fail "apply 2: $(cat "$scratch/err")"
# the raw strings go into SQL as hex literals: no SQL quoting to get wrong
hex() { od -An -v -tx1 | tr -d ' \n'; }
dir=$(printf 'etc/d'"'"'ir$(touch %s)' "$X" | hex)
reason=$(printf 'before apply\ntouch %s' "$X" | hex)
sqlite3 "$db" "UPDATE changes SET name = CAST(X'$dir' AS TEXT) WHERE kind = 'persist-dir' AND name = 'etc/sysctl.d';
	UPDATE snapshots SET reason = CAST(X'$reason' AS TEXT);" || fail "cannot craft the store"
# the content swaptune wrote first (its header holds backticks) is what the second apply recorded
sqlite3 "$db" "SELECT old_value FROM changes WHERE kind = 'persist-file' AND old_value IS NOT NULL" \
	>"$scratch/want.tmp" || fail "sqlite3 read"
# sqlite3 adds one newline after the value
head -c -1 "$scratch/want.tmp" >"$scratch/want"
grep -q '`' "$scratch/want" || fail "recorded content missing"
snap=$(sqlite3 "$db" "SELECT s.id FROM snapshots s JOIN runs r ON r.id = s.run_id WHERE r.kind = 'apply'
	ORDER BY s.id DESC LIMIT 1 OFFSET 1")

# back to before the second apply: the file's recorded content is written back
st rollback --print --to "$snap" >"$scratch/script" 2>"$scratch/err" || fail "rollback --print: exit $?: $(cat "$scratch/err")"
sh -n "$scratch/script" || fail "the printed script does not parse: $(cat "$scratch/script")"
grep -q "<<" "$scratch/script" && fail "the printed script still uses a heredoc"
(cd "$scratch" && sh "$scratch/script" >/dev/null 2>&1)
[ -e "$X" ] && fail "running the printed script executed text from the store (X created)"
f=$root/etc/sysctl.d/90-swaptune.conf
[ -f "$f" ] || fail "the script did not write $f"
cmp -s "$f" "$scratch/want" || fail "content did not round-trip: $(od -c "$f" | head -5)"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 0 ] || fail "page-cluster not restored by the script"
# back to before the first: the file and the directory go (the crafted name quoted)
st rollback --print --to 1 >"$scratch/script1" 2>"$scratch/err" || fail "rollback --print --to 1: exit $?: $(cat "$scratch/err")"
sh -n "$scratch/script1" || fail "the printed script does not parse: $(cat "$scratch/script1")"
(cd "$scratch" && sh "$scratch/script1" >/dev/null 2>&1)
[ -e "$X" ] && fail "running the second script executed text from the store (X created)"
[ -e "$f" ] && fail "the second script did not remove $f"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 3 ] || fail "page-cluster not restored by the second script"
# --json: the commands are the same words
st rollback --print --to 1 --json >"$scratch/print.json" || fail "rollback --print --json: exit $?"

# recorded content that swaptune does not write (EOF lines, shell) is refused: no script at all
content=$(printf '# restored\nEOF\n'"'"'EOF'"'"'\n$(touch %s)\n`touch %s`\n'"'"'\\'"'"''"'"'\nx'"'"' ; touch %s ; '"'"'\n%%s %%d \\n\nlast line without newline' "$X" "$X" "$X" | hex)
sqlite3 "$db" "UPDATE changes SET old_value = CAST(X'$content' AS TEXT) WHERE kind = 'persist-file'" ||
	fail "cannot craft the content"
st rollback --print --to "$snap" >"$scratch/script2" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "rollback --print of crafted content: exit $rc, want 2"
[ -s "$scratch/script2" ] && fail "rollback --print printed a script for crafted content"
grep -q 'that swaptune does not write.*refused, nothing changed' "$scratch/err" ||
	fail "no refusal line: $(cat "$scratch/err")"
done_testing
