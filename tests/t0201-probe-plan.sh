#!/bin/sh
# probe --dry-run on fixture trees: the plan names the arms, the settings
# they write with today's values, every host change and effect in words
# (settings, zswap, swap, cgroups, page cache, memory pressure, time, and
# --drop-host-caches when given), the trials and the time estimate; the JSON plan validates against probe.schema.json;
# while another swaptune command holds the host-change lock, a note that the "now" values may be its;
# while a command changes a tree, a change through another store is refused (the tree's flock); bad
# options and impossible configurations exit 2 (usage) or 3 (denied) with a
# message naming the problem; nothing under the fixture is changed.
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
db=$scratch/db
v1=$FIXTURES/vm-v1
v2=$FIXTURES/v2-zswap-on

# expect STATUS PATTERN ARGS...: exit status and a stderr line matching PATTERN
expect() {
	want=$1 pat=$2
	shift 2
	"$SWAPTUNE" probe --db "$db" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "probe $*: exit $rc, want $want ($(cat "$scratch/err"))"
	grep -q -- "$pat" "$scratch/err" || fail "probe $*: stderr lacks '$pat': $(cat "$scratch/err")"
}

snap_before=$(cd "$v1" && find . -type f | sort | xargs md5sum | md5sum)

"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v1" --db "$db" >"$scratch/plan.txt" 2>&1 || fail "dry-run on vm-v1: exit $?"
same "$scratch/plan.txt" "$EXPECTED/probe-plan-vm-v1.txt"

"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v2" --db "$db" --arms pc0,pc3,bypass --limit-mode high \
	--workload anon-seq --working-set 512M >"$scratch/plan2.txt" 2>&1 || fail "dry-run on v2: exit $?"
same "$scratch/plan2.txt" "$EXPECTED/probe-plan-v2.txt"

for fx in vm-v1 v2-zswap-on; do
	"$SWAPTUNE" probe --dry-run --json --sysroot "$FIXTURES/$fx" --db "$db" --arms pc3,pc1 \
		--arm 'novma:page-cluster=2,vma_ra_enabled=false' >"$scratch/plan-$fx.json" || fail "dry-run --json on $fx: exit $?"
	"$check" "$SCHEMAS/probe.schema.json" "$scratch/plan-$fx.json" >"$scratch/v.out" 2>&1 ||
		fail "dry-run --json on $fx does not validate: $(head -5 "$scratch/v.out")"
done
j=$scratch/plan-vm-v1.json
[ "$(jq -r .status "$j")" = planned ] || fail "status is not planned"
[ "$(jq -r .plan.baseline "$j")" = pc3 ] || fail "baseline is not pc3 (the host's page-cluster is 3)"
[ "$(jq -r '.plan.arms[2].settings.vma_ra_enabled' "$j")" = false ] || fail "custom arm: vma_ra_enabled"
[ "$(jq -r '.plan.settings_now["vma_ra_enabled"]' "$j")" = true ] || fail "settings_now: vma_ra_enabled"
[ "$(jq -r '.plan.settings_now["page-cluster"]' "$j")" = 3 ] || fail "settings_now: page-cluster"
# the default sequential design: (first look 5 + warm-up) x 3 arms
[ "$(jq -r .plan.trials "$j")" = 18 ] || fail "trials: $(jq -r .plan.trials "$j"), want 18"
# a fresh random seed per run, unless --seed: two dry runs differ
s1=$("$SWAPTUNE" probe --dry-run --sysroot "$v1" --db "$db" | sed -n 's/^Seed *//p')
s2=$("$SWAPTUNE" probe --dry-run --sysroot "$v1" --db "$db" | sed -n 's/^Seed *//p')
[ -n "$s1" ] && [ "$s1" != "$s2" ] || fail "the seed is not fresh per run: '$s1' then '$s2'"
[ "$("$SWAPTUNE" probe --dry-run --seed 42 --sysroot "$v1" --db "$db" | sed -n 's/^Seed *//p')" = \
  "$("$SWAPTUNE" probe --dry-run --seed 42 --sysroot "$v1" --db "$db" | sed -n 's/^Seed *//p')" ] ||
	fail "--seed 42 does not give the same seeds twice"
# every host change, in words: the kinds the plan must name
kinds=$(jq -r '[.plan.host_changes[].kind] | unique | join(",")' "$j")
[ "$kinds" = "cgroups,host-swap,memory-pressure,page-cache,setting,time,zswap" ] || fail "host_changes kinds: $kinds"
jq -r '.plan.host_changes[] | select(.kind == "setting") | .text' "$j" | grep -q "vma_ra_enabled (host-wide): now true" ||
	fail "the plan does not name vma_ra_enabled with its value now"
[ "$(jq -r .plan.drop_host_caches "$j")" = false ] || fail "drop_host_caches by default"
"$SWAPTUNE" probe --dry-run --json --sysroot "$v1" --db "$db" --drop-host-caches --max-time 0 >"$scratch/drop.json" ||
	fail "dry-run --drop-host-caches: exit $?"
jq -r '.plan.host_changes[] | select(.kind == "page-cache") | .text' "$scratch/drop.json" | grep -q "drop the whole host's page cache" ||
	fail "--drop-host-caches is not named in the plan"
jq -r '.plan.host_changes[] | select(.kind == "time") | .text' "$scratch/drop.json" | grep -q "no time limit" ||
	fail "--max-time 0 is not named in the plan"
[ "$(jq -r .plan.enable_zswap "$j")" = true ] || fail "vm-v1 has zswap off: enable_zswap"
[ "$(jq -r .plan.enable_zswap "$scratch/plan-v2-zswap-on.json")" = false ] || fail "v2: zswap is on already"
[ "$(jq -r .plan.memcg_version "$scratch/plan-v2-zswap-on.json")" = 2 ] || fail "v2: memcg version"

# cmd: the command is listed, the time is unknown until it ran
"$SWAPTUNE" probe --dry-run --json --sysroot "$v1" --db "$db" --workload cmd --duration 10s -- true >"$scratch/cmd.json" ||
	fail "dry-run cmd: exit $?"
[ "$(jq -r .plan.estimated_s "$scratch/cmd.json")" = null ] || fail "cmd: estimated_s should be null"
[ "$(jq -r .plan.estimated_max_s "$scratch/cmd.json")" -gt 0 ] || fail "cmd: no upper bound"

# bad input: exit 2
expect 2 'unknown arm "pc7"' --dry-run --sysroot "$v1" --arms pc3,pc7
expect 2 'unknown setting "bogus"' --dry-run --sysroot "$v1" --arm 'x:bogus=1'
expect 2 'not a number from 0 to 31' --dry-run --sysroot "$v1" --arm 'x:page-cluster=40'
expect 2 'arm pc3 is given twice' --dry-run --sysroot "$v1" --arms pc3,pc0 --arm 'pc3:page-cluster=2'
expect 2 'unknown workload "nope"' --dry-run --sysroot "$v1" --workload nope
expect 2 'must exceed the memcg limit' --dry-run --sysroot "$v1" --working-set 64M --memcg-limit 128M
expect 2 'needs the memory controller on cgroup v2' --dry-run --sysroot "$v1" --limit-mode high
expect 2 'needs a command after --' --dry-run --sysroot "$v1" --workload cmd
expect 2 'go with --workload cmd' --dry-run --sysroot "$v1" --metric-regex 'x(1)'
expect 2 'go with --workload cmd' --dry-run --sysroot "$v1" --user nobody
expect 2 '\-\-reps needs a whole number from 1 to' --dry-run --sysroot "$v1" --reps 0
expect 2 'not a size' --dry-run --sysroot "$v1" --working-set lots
expect 2 '\-\-baseline pc9 is not one of the arms' --dry-run --sysroot "$v1" --baseline pc9
expect 2 'live host only' --sysroot "$v1" --yes
# not enough memory: exit 3 unless --force
expect 3 'not enough free memory' --dry-run --sysroot "$v1" --working-set 40G --memcg-limit 20G
"$SWAPTUNE" probe --dry-run --sysroot "$v1" --db "$db" --working-set 40G --memcg-limit 20G --force >/dev/null 2>&1 ||
	fail "--force should pass the memory check"
# no zswap: exit 3
expect 3 'has no zswap' --dry-run --sysroot "$FIXTURES/no-zswap"

# a line left by a holder killed with -9 whose pid now belongs to another process (here this
# shell's, which holds no lock) names no holder: the flock decides, not the pid (issue 33,
# finding 10: it said "another swaptune probe (pid N) is changing this host")
printf '%d probe\n' $$ >"$db.probe.lock"
"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v1" --db "$db" >"$scratch/reused.txt" 2>&1
same "$scratch/reused.txt" "$EXPECTED/probe-plan-vm-v1.txt"
# a lock file another user owns is not read (no holder named), and a probe refuses it
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$db.probe.lock"
	"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v1" --db "$db" >"$scratch/foreign.txt" 2>&1
	same "$scratch/foreign.txt" "$EXPECTED/probe-plan-vm-v1.txt"
	mkdir -p "$scratch/v1copy" && cp -a "$v1/." "$scratch/v1copy/"
	"$SWAPTUNE" apply --yes --sysroot "$scratch/v1copy" --db "$db" page-cluster=0 >"$scratch/foreign.out" 2>"$scratch/foreign.err"
	rc=$?
	[ $rc = 3 ] || fail "apply with a lock file of uid 65534: exit $rc, not 3"
	[ "$(wc -l <"$scratch/foreign.err")" = 1 ] && grep -q "^swaptune: refusing lock .*: it belongs to uid 65534, not to root or you" "$scratch/foreign.err" ||
		fail "apply with a lock file of uid 65534: $(cat "$scratch/foreign.err")"
	[ "$(cat "$scratch/v1copy/proc/sys/vm/page-cluster")" = "$(cat "$v1/proc/sys/vm/page-cluster")" ] ||
		fail "apply with a lock file of uid 65534 changed page-cluster"
	rm -rf "$db.probe.lock" "$scratch/v1copy"
fi
# while another swaptune command holds the host-change lock (an flock on its lock file, which
# names it), the dry run says its "now" values may be that command's temporary ones; a holder
# that died is not named
exec 8>>"$db.probe.lock"
flock 8
printf '%d probe\n' $$ >"$db.probe.lock"
"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v1" --db "$db" >"$scratch/held.txt" 2>&1 || fail "dry-run while held: exit $?"
unfold "$scratch/held.txt" |
	grep -q "^Note              another swaptune probe (pid $$) is changing this host now: the settings shown as now may be its temporary ones" ||
	fail "dry-run while held: no note: $(head -2 "$scratch/held.txt")"
"$SWAPTUNE" probe --dry-run --json --seed 1 --sysroot "$v1" --db "$db" >"$scratch/held.json" || fail "dry-run --json while held: exit $?"
[ "$(jq -r '.host_changing.pid, .host_changing.command' "$scratch/held.json" | tr '\n' ' ')" = "$$ probe " ] ||
	fail "dry-run --json while held: host_changing is $(jq -c .host_changing "$scratch/held.json")"
"$check" "$SCHEMAS/probe.schema.json" "$scratch/held.json" >"$scratch/v.out" 2>&1 ||
	fail "dry-run --json while held does not validate: $(head -5 "$scratch/v.out")"
exec 8>&-
sh -c 'exit 0' & dead=$!
wait $dead
printf '%d probe\n' "$dead" >"$db.probe.lock"
"$SWAPTUNE" probe --dry-run --seed 1 --sysroot "$v1" --db "$db" >"$scratch/dead.txt" 2>&1
same "$scratch/dead.txt" "$EXPECTED/probe-plan-vm-v1.txt"
: >"$db.probe.lock"
"$SWAPTUNE" probe --dry-run --json --seed 1 --sysroot "$v1" --db "$db" | jq -e 'has("host_changing") | not' >/dev/null ||
	fail "dry-run --json with an empty lock file names a holder"
rm -f "$db.probe.lock"

# two stores, one tree: while a command changes a tree (an flock on the tree's directory, as
# swaptune takes it) a change through another store is refused, one line, exit 3, the tree
# untouched; through the holder's own store its lock file names it; let go of, the change
# goes through; nothing is written into the tree (issue 33, finding 10; fails before: the
# second took OTHER.probe.lock and changed the tree)
tree=$scratch/tree
mkdir -p "$tree" && cp -a "$v1/." "$tree/" || fail "cannot copy vm-v1"
real=$(cd "$tree" && pwd -P)
pc=$(cat "$v1/proc/sys/vm/page-cluster")
listing() { (cd "$tree" && find . | sort); }
list_before=$(listing)
exec 9<"$tree"
flock -n 9 || fail "cannot flock the tree"
"$SWAPTUNE" apply --yes --sysroot "$tree" --db "$scratch/other.db" page-cluster=0 >"$scratch/two.out" 2>"$scratch/two.err"
rc=$?
[ $rc = 3 ] || fail "apply through another store while the tree is held: exit $rc, not 3"
[ "$(cat "$scratch/two.err")" = "swaptune: another swaptune command is changing this tree ($real)" ] ||
	fail "apply through another store while the tree is held: $(cat "$scratch/two.err")"
[ "$(cat "$tree/proc/sys/vm/page-cluster")" = "$pc" ] ||
	fail "apply through another store while the tree is held changed page-cluster"
exec 8>>"$db.probe.lock"
flock 8
printf '%d apply\n' $$ >"$db.probe.lock"
"$SWAPTUNE" rollback --yes --sysroot "$tree" --db "$db" >"$scratch/own.out" 2>"$scratch/own.err"
rc=$?
[ $rc = 3 ] || fail "rollback through the holder's store while the tree is held: exit $rc, not 3"
grep -q "^swaptune: another swaptune apply (pid $$) is changing this host (lock $db.probe.lock)" "$scratch/own.err" ||
	fail "rollback through the holder's store: $(cat "$scratch/own.err")"
exec 8>&- 9<&-
rm -f "$db.probe.lock"
[ "$(listing)" = "$list_before" ] || fail "the refused commands wrote into the tree"
"$SWAPTUNE" apply --yes --sysroot "$tree" --db "$scratch/other.db" page-cluster=0 >"$scratch/free.out" 2>"$scratch/free.err" ||
	fail "apply once the tree is free: exit $? ($(cat "$scratch/free.err"))"
[ "$(cat "$tree/proc/sys/vm/page-cluster")" = 0 ] || fail "apply once the tree is free left page-cluster $(cat "$tree/proc/sys/vm/page-cluster")"
[ "$(listing)" = "$list_before" ] || fail "apply wrote a file into the tree"

snap_after=$(cd "$v1" && find . -type f | sort | xargs md5sum | md5sum)
[ "$snap_before" = "$snap_after" ] || fail "the dry runs changed the fixture"
# large-folio swap-in: a 6.18 host with 64 kB mTHP on, zswap off and nothing stored since boot: the
# plan says that enabling zswap turns large-folio swap-in off until reboot, and that it is not restored
mthp=$scratch/mthp
cp -a "$v1" "$mthp"
sed -i 's/^zswpout .*/zswpout 0/; s/^zswpin .*/zswpin 0/; s/^zswpwb .*/zswpwb 0/' "$mthp/proc/vmstat"
mkdir -p "$mthp/sys/kernel/mm/transparent_hugepage/hugepages-64kB" "$mthp/sys/kernel/mm/transparent_hugepage/hugepages-2048kB"
echo 'always [madvise] never' >"$mthp/sys/kernel/mm/transparent_hugepage/enabled"
echo 'always inherit madvise [never]' >"$mthp/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled"
echo '[always] inherit madvise never' >"$mthp/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled"
"$SWAPTUNE" probe --dry-run --json --sysroot "$mthp" --db "$db" >"$scratch/mthp.json" || fail "dry-run on the mTHP tree: exit $?"
"$check" "$SCHEMAS/probe.schema.json" "$scratch/mthp.json" >"$scratch/v.out" 2>&1 || fail "mTHP plan: $(head -3 "$scratch/v.out")"
jq -r '.plan.host_changes[].text' "$scratch/mthp.json" | grep -q "large-folio swap-in (host-wide, NOT restored): kernel 6.18[^:]*: an mTHP size is enabled and zswap was not enabled since boot.*zswap: no trace: off now.*enabling zswap turns it off until the next reboot" ||
	fail "the plan does not say that zswap turns large-folio swap-in off: $(jq -r '.plan.host_changes[].text' "$scratch/mthp.json")"
# zswap stored pages since boot: large-folio swap-in is off already, nothing lasting to say
cp "$v1/proc/vmstat" "$mthp/proc/vmstat"
"$SWAPTUNE" probe --dry-run --json --sysroot "$mthp" --db "$db" | jq -r '.plan.host_changes[].text' | grep -q 'large-folio' &&
	fail "a host whose zswap stored pages since boot got the large-folio warning"
done_testing
