#!/bin/sh
# apply, rollback and history on a private copy of the vm-v1 fixture: bad
# input is refused before anything changes; --dry-run prints exactly what it
# would write and changes nothing; apply --persist writes swaptune's own
# boot-time files (never the administrator's, whose values are reported);
# rollback puts every setting back and leaves no file or directory behind;
# --print gives the shell commands; --to picks an older snapshot; --run and
# --from take their settings from a probe run and from boot.conf. JSON
# documents validate against their schemas.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
validate() {	# validate SCHEMA DOC
	"$check" "$SCHEMAS/$1.schema.json" "$2" >"$scratch/v.out" 2>&1 || fail "$2 does not validate against $1: $(head -5 "$scratch/v.out")"
}
P=$root/proc/sys/vm/page-cluster
Z=$root/sys/module/zswap/parameters
values() { for f in "$P" "$root/sys/kernel/mm/swap/vma_ra_enabled" "$Z"/*; do printf '%s=%s\n' "${f#$root}" "$(cat "$f")"; done; }
tree() { (cd "$root" && find . -path ./proc/sys -prune -o -path ./sys/module -prune -o -path ./sys/kernel/mm -prune -o -print | sort); }
values >"$scratch/values0"
tree >"$scratch/tree0"
unchanged() {	# unchanged WHAT: settings and files as at the start
	values >"$scratch/values"
	tree >"$scratch/tree"
	cmp -s "$scratch/values" "$scratch/values0" || fail "$1: settings changed: $(diff "$scratch/values0" "$scratch/values" | tail -n +2 | tr '\n' ' ')"
	cmp -s "$scratch/tree" "$scratch/tree0" || fail "$1: files changed: $(diff "$scratch/tree0" "$scratch/tree" | tail -n +2 | tr '\n' ' ')"
}
expect_exit() {	# expect_exit STATUS MESSAGE-PATTERN ARGS...
	want=$1 pat=$2
	shift 2
	st "$@" </dev/null >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, want $want ($(cat "$scratch/err"))"
	grep -q -- "$pat" "$scratch/err" || fail "$*: message '$(cat "$scratch/err")' lacks '$pat'"
}

# ---- refused before anything changes ----
expect_exit 2 "not asking without a terminal: add --yes to apply these changes" apply page-cluster=0
expect_exit 2 'unknown setting "swappiness"' apply swappiness=10 --yes
expect_exit 2 'page-cluster: "32" is not a number from 0 to 31' apply page-cluster=32 --yes
expect_exit 2 'zswap.compressor: "lz4" is not offered by this kernel' apply zswap.compressor=lz4 --yes
expect_exit 2 '"page-cluster" is not setting=value' apply page-cluster --yes
expect_exit 2 'nothing to apply' apply --yes
expect_exit 2 'give either --run ID, --from FILE or setting=value pairs' apply --run 1 page-cluster=0
expect_exit 2 '--confirm-within needs a duration of at least 1s' apply page-cluster=0 --confirm-within 0.5s
expect_exit 2 '--confirm takes no settings' apply --confirm page-cluster=0
expect_exit 1 'nothing to roll back: no apply is in effect' rollback --yes
expect_exit 2 'no snapshot 7' rollback --to 7 --yes
expect_exit 1 'nothing to confirm: no apply --confirm-within is waiting' apply --confirm
unchanged "refused commands"

# ---- dry run: the exact writes, nothing changed ----
mkdir -p "$root/etc/sysctl.d"
printf '# the administrator\n\nvm.page-cluster = 2\n' >"$root/etc/sysctl.d/99-local.conf"
tree >"$scratch/tree0"
st apply page-cluster=0 zswap.enabled=on --persist --dry-run >"$scratch/dry" 2>&1 || fail "dry run: exit $?"
# as printed before the 100-column fold (how it folds depends on the scratch path's length)
unfold "$scratch/dry" | sed "s|$root|ROOT|g" >"$scratch/dry.txt"
cat >"$scratch/dry.want" <<'TXT'
page-cluster: 3 -> 0: would write "0" to ROOT/proc/sys/vm/page-cluster
zswap.enabled: N -> Y: would write "Y" to ROOT/sys/module/zswap/parameters/enabled
would write ROOT/etc/sysctl.d/90-swaptune.conf:
    | # written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back
    | vm.page-cluster = 0
would write ROOT/etc/swaptune/boot.conf:
    | # written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back
    | # applied at boot by swaptune-boot.service (swaptune apply --yes --from /etc/swaptune/boot.conf)
    | zswap.enabled=Y
warning: /etc/sysctl.d/99-local.conf:3 sets vm.page-cluster = 2 and is read after swaptune's file, so it wins at boot; swaptune does not edit it: change it yourself
note: settings without a sysctl are applied at boot by swaptune-boot.service: install share/systemd/swaptune-boot.service in /etc/systemd/system and run systemctl enable swaptune-boot.service
note: zswap is built into this kernel, so modprobe.d options do not apply (no /sys/module/zswap/initstate); for the value from the first moment of boot add to the kernel command line: zswap.enabled=1
Nothing changed (--dry-run).
TXT
same "$scratch/dry.txt" "$scratch/dry.want"
st apply page-cluster=0 --persist --dry-run --json >"$scratch/dry.json" || fail "dry run --json: exit $?"
validate apply "$scratch/dry.json"
grep -q '"action":[[:space:]]*"dry-run"' "$scratch/dry.json" || fail "dry run json: action"
grep -q '"wins_at_boot":[[:space:]]*true' "$scratch/dry.json" || fail "dry run json: the administrator's value wins"
unchanged "dry run"
[ -e "$db" ] && [ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" != 0 ] && fail "dry run recorded a run"

# ---- apply --persist, then rollback: all back, nothing left ----
st apply page-cluster=0 zswap.enabled=Y zswap.compressor=deflate --persist --yes --json >"$scratch/a1.json" ||
	fail "apply --persist: exit $?"
validate apply "$scratch/a1.json"
[ "$(cat "$P")" = 0 ] || fail "page-cluster is $(cat "$P") after apply"
[ "$(cat "$Z/enabled")" = Y ] || fail "zswap.enabled is $(cat "$Z/enabled") after apply"
[ "$(cat "$Z/compressor")" = deflate ] || fail "compressor is $(cat "$Z/compressor") after apply"
printf '%s\n%s\n' '# written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back' \
	'vm.page-cluster = 0' >"$scratch/sysctl.want"
same "$root/etc/sysctl.d/90-swaptune.conf" "$scratch/sysctl.want"
grep -qx 'zswap.compressor=deflate' "$root/etc/swaptune/boot.conf" || fail "boot.conf lacks the compressor"
printf '# the administrator\n\nvm.page-cluster = 2\n' | cmp -s - "$root/etc/sysctl.d/99-local.conf" ||
	fail "the administrator's file was changed"
grep -q '"run_id":[[:space:]]*1,' "$scratch/a1.json" || fail "apply json: run_id"
grep -q '"snapshot_id":[[:space:]]*1,' "$scratch/a1.json" || fail "apply json: snapshot_id"
[ "$(sqlite3 "$db" "SELECT group_concat(state) FROM changes")" = "committed,committed,committed,committed,committed,committed" ] ||
	fail "journal rows: $(sqlite3 "$db" "SELECT kind, name, state FROM changes")"

st apply page-cluster=1 --yes >"$scratch/a2" || fail "second apply: exit $?"
grep -qx 'page-cluster: 0 -> 1' "$scratch/a2" || fail "second apply output: $(cat "$scratch/a2")"
st apply page-cluster=1 --yes >"$scratch/a3" || fail "apply of the current value: exit $?"
grep -qx 'Nothing to change.' "$scratch/a3" || fail "apply of the current value: $(cat "$scratch/a3")"

st history >"$scratch/hist" || fail "history: exit $?"
# a run's line, then what it applied on a line of its own
unfold "$scratch/hist" | grep -A1 '^    2  .* apply  *ok$' | grep -qx '       page-cluster=1' || fail "history: run 2 lines"
unfold "$scratch/hist" | grep -A1 '^    1  .* apply  *ok$' |
	grep -qx '       page-cluster=0 zswap.enabled=Y zswap.compressor=deflate --persist' || fail "history: run 1 lines"
unfold "$scratch/hist" | grep -q 'change 1 .* committed  page-cluster 3 -> 0$' || fail "history: change 1"
unfold "$scratch/hist" | grep -q "change 4 .* committed  file $root/etc/sysctl.d/90-swaptune.conf (absent before)" || fail "history: file row"
unfold "$scratch/hist" | grep -q "directory $root/etc/swaptune created" || fail "history: dir row"
st history --json >"$scratch/hist.json" || fail "history --json: exit $?"
validate history "$scratch/hist.json"

# rollback (default: undo the latest apply, back to snapshot 3)
st rollback --print >"$scratch/print" || fail "rollback --print: exit $?"
sed "s|$root|ROOT|g" "$scratch/print" | sed 's/(before apply, .*)$/(before apply)/' >"$scratch/print.txt"
# every path and value is a single-quoted word (see t0308-rollback-print-quoting.sh)
printf '%s\n' '# restore snapshot 3 (before apply)' "printf '%s\\n' '0' > 'ROOT/proc/sys/vm/page-cluster'" >"$scratch/print.want"
same "$scratch/print.txt" "$scratch/print.want"
st rollback --yes >"$scratch/rb1" || fail "rollback: exit $?"
[ "$(cat "$P")" = 0 ] || fail "page-cluster is $(cat "$P") after the first rollback, want 0"
[ -f "$root/etc/sysctl.d/90-swaptune.conf" ] || fail "the first rollback removed a file of the first apply"
# again: now the first apply is undone, files and directory too
st rollback --print --json >"$scratch/print.json" || fail "rollback --print --json: exit $?"
validate rollback "$scratch/print.json"
st rollback --print >"$scratch/print2" || fail "rollback --print (2): exit $?"
sed "s|$root|ROOT|g" "$scratch/print2" | sed 's/(before apply, .*)$/(before apply)/' >"$scratch/print2.txt"
cat >"$scratch/print2.want" <<'TXT'
# restore snapshot 1 (before apply)
printf '%s\n' '3' > 'ROOT/proc/sys/vm/page-cluster'
printf '%s\n' 'N' > 'ROOT/sys/module/zswap/parameters/enabled'
printf '%s\n' 'lzo' > 'ROOT/sys/module/zswap/parameters/compressor'
rm -f -- 'ROOT/etc/sysctl.d/90-swaptune.conf'
rm -f -- 'ROOT/etc/swaptune/boot.conf'
rmdir -- 'ROOT/etc/swaptune'
TXT
same "$scratch/print2.txt" "$scratch/print2.want"
st rollback --yes --json >"$scratch/rb2.json" || fail "second rollback: exit $?"
validate rollback "$scratch/rb2.json"
unchanged "apply --persist + rollback"
expect_exit 1 'nothing to roll back' rollback --yes

# --to: back to the settings after the first apply (snapshot 2), files included
st rollback --to 2 --yes >/dev/null || fail "rollback --to 2: exit $?"
[ "$(cat "$P")" = 0 ] && [ "$(cat "$Z/enabled")" = Y ] || fail "rollback --to 2: settings"
same "$root/etc/sysctl.d/90-swaptune.conf" "$scratch/sysctl.want"
st rollback --to 1 --yes >/dev/null || fail "rollback --to 1: exit $?"
unchanged "rollback --to 2, then --to 1"

# ---- --from: boot.conf; --run: a probe's verdict ----
printf 'page-cluster=2\nvma_ra_enabled=false\n' >"$scratch/boot.conf"
cp "$scratch/boot.conf" "$root/boot.conf"
st apply --from /boot.conf --yes >/dev/null || fail "apply --from: exit $?"
[ "$(cat "$P")" = 2 ] && [ "$(cat "$root/sys/kernel/mm/swap/vma_ra_enabled")" = false ] || fail "apply --from: values"
st rollback --yes >/dev/null || fail "rollback after --from: exit $?"
rm "$root/boot.conf"
expect_exit 2 'cannot read' apply --from /nonexistent.conf --yes

sqlite3 "$db" <<'SQL' || fail "inserting the probe runs"
INSERT INTO runs (id, kind, status, params) VALUES (100, 'probe', 'ok', '{"workload":{"name":"anon-zipf"},"baseline":"pc3"}');
INSERT INTO arms (id, run_id, name, settings) VALUES (100, 100, 'pc3', '{"page-cluster":"3"}'), (101, 100, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, status, primary_value) VALUES
 (100, 100, 1, 1, 'ok', 100), (100, 101, 1, 2, 'ok', 130), (100, 101, 2, 3, 'ok', 131),
 (100, 100, 2, 4, 'ok', 101), (100, 100, 3, 5, 'ok', 99), (100, 101, 3, 6, 'ok', 129),
 (100, 101, 4, 7, 'ok', 130), (100, 100, 4, 8, 'ok', 100), (100, 100, 5, 9, 'ok', 102),
 (100, 101, 5, 10, 'ok', 132), (100, 101, 6, 11, 'ok', 128), (100, 100, 6, 12, 'ok', 98),
 (100, 100, 7, 13, 'ok', 101), (100, 101, 7, 14, 'ok', 131), (100, 101, 8, 15, 'ok', 129),
 (100, 100, 8, 16, 'ok', 99), (100, 100, 9, 17, 'ok', 100), (100, 101, 9, 18, 'ok', 130),
 (100, 101, 10, 19, 'ok', 130), (100, 100, 10, 20, 'ok', 100);
INSERT INTO runs (id, kind, status, params) VALUES (101, 'probe', 'ok', '{"workload":{"name":"anon-zipf"},"baseline":"pc3"}');
INSERT INTO arms (id, run_id, name, settings) VALUES (102, 101, 'pc3', '{"page-cluster":"3"}'), (103, 101, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, status, primary_value) VALUES
 (101, 102, 1, 1, 'ok', 100), (101, 103, 1, 2, 'ok', 100), (101, 103, 2, 3, 'ok', 101),
 (101, 102, 2, 4, 'ok', 101), (101, 102, 3, 5, 'ok', 99), (101, 103, 3, 6, 'ok', 99),
 (101, 103, 4, 7, 'ok', 100), (101, 102, 4, 8, 'ok', 100), (101, 102, 5, 9, 'ok', 102),
 (101, 103, 5, 10, 'ok', 102), (101, 103, 6, 11, 'ok', 98), (101, 102, 6, 12, 'ok', 98),
 (101, 102, 7, 13, 'ok', 101), (101, 103, 7, 14, 'ok', 101), (101, 103, 8, 15, 'ok', 99),
 (101, 102, 8, 16, 'ok', 99), (101, 102, 9, 17, 'ok', 100), (101, 103, 9, 18, 'ok', 100),
 (101, 103, 10, 19, 'ok', 100), (101, 102, 10, 20, 'ok', 100);
SQL
st apply --run 100 --yes >"$scratch/run100" || fail "apply --run 100: exit $?"
grep -q '^Probe run 100 recommends pc0: change to pc0: throughput +30.0 % \[' "$scratch/run100" ||
	fail "apply --run: source line: $(head -1 "$scratch/run100")"
[ "$(cat "$P")" = 0 ] || fail "apply --run 100: page-cluster $(cat "$P")"
grep -q '"source_run":100' "$db" 2>/dev/null || [ "$(sqlite3 "$db" "SELECT json_extract(params, '\$.source_run') FROM runs WHERE kind='apply' ORDER BY id DESC LIMIT 1")" = 100 ] ||
	fail "apply --run: source_run not recorded"
expect_exit 1 'probe run 101 recommends no change (keep)' apply --run 101 --yes
st rollback --yes >/dev/null || fail "rollback of apply --run: exit $?"
unchanged "everything rolled back"
done_testing
