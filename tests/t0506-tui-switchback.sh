#!/bin/sh
# The Switchback panel (8) at 80x24 on a captured cgroup v1 host: key 8
# reaches it; the form shows the command's defaults; a wrong value is marked
# under its field in the words `swaptune switchback` uses (the same
# parsers), and so is a washout not shorter than the window; a missing
# cgroup stops the plan; s shows the plan as --dry-run prints it (schedule,
# looks, host changes: the same lines as the command's for the same
# options), with the budget of --max-time applied; y on a sysroot starts
# nothing; the lines fit 80 columns; q leaves with exit 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"

sr=$scratch/sr
db=$scratch/db
cp -a "$FIXTURES/vm-v1" "$sr" || fail "copying the fixture"
mkdir "$sr/sys/fs/cgroup/memory/web" || fail "making the workload's cgroup"
new_store "$db" || fail "creating the store"
# the command's words for the same options, to compare with the screen
cli() { "$SWAPTUNE" --db "$db" --sysroot "$sr" switchback --dry-run "$@" 2>&1; }

tui_start 80 24 --db "$db" --sysroot "$sr" --interval 200ms
expect "Readahead" "status did not draw"
head -1 "$scratch/screen" | grep -q "8 Switch" || fail "no Switch tab in the header"
grep -q "sysroot rw" "$scratch/screen" || fail "the header lost the rights beside eight tabs"
keys 8
expect "New switchback" "key 8: no switchback form" && snap form
for f in "Arms +pc3,pc0" "Baseline +auto" "Metric +psi-some" "Cgroup +none" "Window +30s" \
	"Washout +half" "Blocks +15" "Max time +none"; do
	grep -qE "$f" "$scratch/screen" || fail "form: no default /$f/"
done
grep -q "read-only: a sysroot is not a live host" "$scratch/screen" || fail "form: no sysroot note"
fits 80 "form"

# a value the command refuses: marked under its field, in the command's words
form_edit 4 "1x"
expect '! --window: "1x" is not a duration of 2 s to a day' "window 1x not refused" && snap bad-window
cli --window 1x | grep -q -- '--window: "1x" is not a duration of 2 s to a day' ||
	fail "the command does not say what the form says"
grep -q "1 value to fix" "$scratch/screen" || fail "no count of values to fix"
fits 80 "bad window"
form_edit 2 "nope"
expect '! --metric nope: give psi-some, psi-full' "metric nope not refused"
grep -q "2 values to fix" "$scratch/screen" || fail "two wrong values not counted"
keys s
expect "2 values to fix" "s with wrong values must not show a plan"
grep -q "Switchback plan" "$scratch/screen" && fail "a plan shown for a wrong form"
keys d
expect "Window +30s" "d: defaults back"
grep -q "^ *!" "$scratch/screen" && fail "d left an error mark"

# checks across fields: washout against window, the baseline among the arms, the cgroup
form_edit 4 "10s"
form_edit 5 "10s"
expect "the washout \(10 s\) must be shorter than the window \(10 s\)" "washout = window not refused" &&
	snap bad-washout
form_edit 5 "half"
form_edit 1 "pc1"
expect '! --baseline pc1 is not one of the arms' "a baseline outside the arms not refused"
form_edit 1 "pc0"
form_edit 3 "nope"
expect "cannot plan: --cgroup nope: no such cgroup" "a missing cgroup not refused"
form_edit 3 "web"
form_edit 2 "majfault"
form_edit 7 "2min"
expect "plan: 6 blocks x 2 windows of 10 s, washout 5 s: 2 min 00 s in all" "the budget of --max-time not in the plan's summary" &&
	snap planned
fits 80 "planned"

# s: the plan as --dry-run prints it, then refused on a sysroot
keys s
expect "Switchback plan" "s: no plan" && snap plan
grep -qE "pc0 +page-cluster=0 +\(baseline\)" "$scratch/screen" || fail "plan: the baseline chosen is not first"
want=$(cli --window 10s --blocks 15 --max-time 2min --baseline pc0 --cgroup web --metric majfault)
for k in "Metric" "Workload cgroup" "Schedule"; do
	line=$(printf '%s\n' "$want" | grep "^$k" | cut -c1-60)
	[ -n "$line" ] || fail "the command printed no $k line"
	grep -qF "$line" "$scratch/screen" || fail "plan: the $k line differs from the command's: $line"
done
grep -q "read-only: a sysroot is not a live host" "$scratch/screen" || fail "plan: no refusal on a sysroot"
fits 80 "plan"
keys NPage NPage
expect "page-cluster +now 3" "plan: the host changes (PgDn)" && snap plan-changes
grep -q "Host changes" "$scratch/screen" || fail "plan: no Host changes heading"
keys y
expect "not started: read-only: a sysroot" "y on a sysroot must start nothing" && snap refused
grep -q "New switchback" "$scratch/screen" || fail "y refused: not back on the form"
quit_ok
rm -f "$db"*
[ -z "$(find "$sr/sys/fs/cgroup/memory" -mindepth 1 -type d ! -name web)" ] || fail "the sysroot gained cgroups"
done_testing
