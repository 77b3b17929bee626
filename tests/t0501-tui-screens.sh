#!/bin/sh
# Every screen of the TUI at 80x24 and 200x60 on a captured host and a store
# with probe runs: human labels and units (no JSON keys, no raw byte counts),
# the key footer, the help overlay (?, h and F1), the verdict of a stored
# probe narrowed to 80 columns, a running probe's trials done / planned, a
# sample run's summary as a table; resize; NO_COLOR; q restores the terminal.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"

db=$scratch/db
sr=$FIXTURES/vm-v1
new_store "$db" || fail "creating the store"
sqlite3 "$db" <<'SQL' || fail "inserting runs"
INSERT INTO runs (id, kind, status, params, summary) VALUES (1, 'probe', 'ok',
 '{"workload":{"name":"anon-zipf","working_set_bytes":268435456},"baseline":"pc3"}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (1, 1, 'pc3', '{"page-cluster":"3"}'), (2, 1, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (1, 1, 0, 1, 1, 'ok', 500), (1, 2, 0, 2, 1, 'ok', 500),
 (1, 1, 1, 3, 0, 'ok', 1000), (1, 2, 1, 4, 0, 'ok', 1050), (1, 2, 2, 5, 0, 'ok', 1060),
 (1, 1, 2, 6, 0, 'ok', 1012), (1, 1, 3, 7, 0, 'ok', 995), (1, 2, 3, 8, 0, 'ok', 1041),
 (1, 2, 4, 9, 0, 'ok', 1052), (1, 1, 4, 10, 0, 'ok', 1003), (1, 1, 5, 11, 0, 'ok', 990),
 (1, 2, 5, 12, 0, 'ok', 1045), (1, 1, 6, 13, 0, 'ok', 1006), (1, 2, 6, 14, 0, 'ok', 1058),
 (1, 2, 7, 15, 0, 'ok', 1049), (1, 1, 7, 16, 0, 'ok', 998), (1, 1, 8, 17, 0, 'ok', 1009),
 (1, 2, 8, 18, 0, 'ok', 1057), (1, 2, 9, 19, 0, 'ok', 1040), (1, 1, 9, 20, 0, 'ok', 994),
 (1, 1, 10, 21, 0, 'ok', 1001), (1, 2, 10, 22, 0, 'ok', 1053);
INSERT INTO runs (id, kind, status, summary) VALUES (2, 'sample', 'ok',
 '{"ticks":12,"elapsed_s":12,"means":{"meminfo.swap_used_bytes":656109568}}');
INSERT INTO runs (id, kind, status, params) VALUES (3, 'probe', 'running',
 '{"method":{"reps":2,"warmup":true},"arm_names":["pc3","pc0"],"baseline":"pc3"}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (3, 3, 'pc3', '{"page-cluster":"3"}'), (4, 3, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (3, 3, 0, 1, 1, 'ok', 5), (3, 4, 0, 2, 1, 'ok', 6), (3, 3, 1, 3, 0, 'ok', 7);
SQL

for size in 80x24 200x60; do
	c=${size%x*} r=${size#*x}
	tui_start "$c" "$r" --db "$db" --sysroot "$sr" --interval 200ms
	expect "Readahead" "$size status: no Readahead line" && snap "$size-status"
	fits "$c" "$size status"
	# a long reason wraps under its value: the sentence ends on the screen
	grep -q "to cluster readahead" "$scratch/screen" || fail "$size status: the readahead reason is cut"
	grep -q "F1 help" "$scratch/screen" || fail "$size: no key footer"
	# the header says what a / y would do: write the captured tree, or nothing
	if [ -w "$sr" ]; then
		grep -q "sysroot rw" "$scratch/screen" || fail "$size: a writable sysroot is not marked 'sysroot rw'"
	else
		grep -q "read-only" "$scratch/screen" || fail "$size: a sysroot is not marked read-only"
	fi
	head -1 "$scratch/screen" | grep -q "Cgroups" || fail "$size: the header lost the last tab"
	keys 2
	expect "zswap loads" "$size live: no human label" && snap "$size-live"
	grep -q "_pages_per_s\|meminfo\.\|vmstat\." "$scratch/screen" && fail "$size live: a JSON key as a label"
	grep -qE "swap used +[0-9.]+ (B|KiB|MiB|GiB)" "$scratch/screen" || fail "$size live: swap used without a unit"
	fits "$c" "$size live"
	keys 3
	expect "run +kind" "$size runs: no list" && snap "$size-runs"
	grep -q "probe running: 3 of 6 trials done" "$scratch/screen" || fail "$size runs: running probe without trials done/planned"
	fits "$c" "$size runs"
	keys Down
	expect "meminfo" "$size runs: the recording's means" && snap "$size-runs-sample"
	grep -qE "meminfo.swap_used_bytes +626 MiB" "$scratch/screen" || fail "$size runs: mean bytes not shown as a size"
	grep -q '[{}]' "$scratch/screen" && fail "$size runs: JSON braces in the summary"
	keys Down
	expect "Verdict: CHANGE to pc0" "$size runs: the stored probe's verdict" && snap "$size-runs-verdict"
	grep -qE "^ +pc0 +better " "$scratch/screen" || fail "$size runs: the arm table"
	fits "$c" "$size runs verdict"
	keys 4
	expect "info |warn |no findings" "$size advice did not draw" && snap "$size-advice"
	fits "$c" "$size advice"
	keys 5
	expect "New probe" "$size probe form" && snap "$size-probe-form"
	grep -qE "Workload +anon-runs" "$scratch/screen" || fail "$size probe form: default workload"
	grep -qE "Arms +pc3,pc1,pc0" "$scratch/screen" || fail "$size probe form: default arms"
	grep -qE "Rounds +sequential" "$scratch/screen" || fail "$size probe form: default rounds"
	grep -q "read-only: a sysroot" "$scratch/screen" || fail "$size probe form: no sysroot note"
	keys s
	expect "not started: this screen reads a sysroot" "$size probe: a sysroot probe must be refused" &&
		snap "$size-probe-refused"
	for k in '?' h F1; do
		keys "$k"
		expect "swaptune tui - keys" "$size help overlay on $k" && snap "$size-help"
		# long key texts wrap in the box rather than being cut ("(F2 ne")
		grep -q "next one)" "$scratch/screen" || fail "$size help: a key's text is cut"
		keys Escape
		sleep 0.3
		tmux capture-pane -t "$sess" -p >"$scratch/screen"
		grep -q "swaptune tui - keys" "$scratch/screen" && fail "$size help: a key does not close it"
	done
	quit_ok
done

# resize: redrawn to the new size, footer on the new last row
tui_start 80 24 --db "$db" --sysroot "$sr" --interval 200ms
expect "Readahead" "resize: first draw"
tmux resize-window -t "$sess" -x 120 -y 40 2>/dev/null || tmux resize-pane -t "$sess" -x 120 -y 40
sleep 1
tmux capture-pane -t "$sess" -p >"$scratch/screen"
[ "$(sed -n 40p "$scratch/screen" | grep -c 'F1 help')" = 1 ] || fail "resize: the footer is not on row 40"
snap resized-120x40
tmux resize-window -t "$sess" -x 80 -y 24 2>/dev/null
sleep 1
tmux capture-pane -t "$sess" -p >"$scratch/screen"
[ "$(sed -n 24p "$scratch/screen" | grep -c 'F1 help')" = 1 ] || fail "resize back: the footer is not on row 24"
quit_ok

# colours: some with a colour terminal, none with NO_COLOR
tui_start 80 24 --db "$db" --sysroot "$sr"
expect "Readahead" "colour: first draw"
tmux capture-pane -e -t "$sess" -p | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" || fail "no colour without NO_COLOR"
quit_ok
TUI_ENV="NO_COLOR=1" tui_start 80 24 --db "$db" --sysroot "$sr"
expect "Readahead" "NO_COLOR: first draw"
tmux capture-pane -e -t "$sess" -p | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" && fail "colours despite NO_COLOR"
quit_ok

# not root on the live host: read-only, and the probe form refuses
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	nb=$scratch/nobody
	mkdir -p "$nb" && chmod 777 "$nb" "$scratch"
	TUI_ENV="HOME=$nb setpriv --reuid=65534 --regid=65534 --clear-groups" \
		tui_start 80 24 --db "$nb/db" --interval 200ms
	expect "read-only: probing \\(F5\\) and applying need root" "non-root: no read-only note on the status panel" &&
		snap nonroot-status
	keys 5
	expect "read-only: probing needs root" "non-root: the form does not say root is needed"
	keys s
	expect "not started: probing needs root" "non-root: the probe was not refused" && snap nonroot-refused
	[ -e "$nb/db" ] && [ "$(sqlite3 "$nb/db" "SELECT count(*) FROM runs WHERE kind = 'probe'")" != 0 ] &&
		fail "non-root: a probe run was stored"
	quit_ok
fi
done_testing
