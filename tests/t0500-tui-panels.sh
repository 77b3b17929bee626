#!/bin/sh
# The TUI under tmux: every panel draws, keys switch panels, q quits cleanly,
# and without a terminal it refuses with exit 2.
command -v tmux >/dev/null 2>&1 || { echo "tmux is not installed"; exit 77; }
scratch=$(mktemp -d /tmp/swaptune-t0500.XXXXXX)
sess=swaptune-t0500-$$
trap 'tmux kill-session -t "$sess" 2>/dev/null; rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; [ -f "$scratch/screen" ] && cat "$scratch/screen"; exit 1; }

# no terminal: a clear refusal
"$SWAPTUNE" tui --db "$scratch/db" </dev/null >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "tui without a terminal exited $rc, want 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "want one line on stderr"
grep -q "needs a terminal" "$scratch/err" || fail "stderr does not say why: $(cat "$scratch/err")"

tmux new-session -d -s "$sess" -x 110 -y 40 \
	"LANG=C.UTF-8 $SWAPTUNE tui --db $scratch/db --interval 200ms; echo exit=\$? >$scratch/rc; sleep 30"
# wait up to 10 s for the screen to show pattern (a loaded machine draws late)
expect() {
	for i in $(seq 50); do
		tmux capture-pane -t "$sess" -p >"$scratch/screen" 2>/dev/null
		grep -qE "$1" "$scratch/screen" && return 0
		sleep 0.2
	done
	fail "$2"
}
expect "Readahead" "status panel: no Readahead line"
expect "page-cluster" "status panel: no page-cluster line"
tmux send-keys -t "$sess" 2
expect "zswap loads +[0-9.k]+/s" "live panel: no zswap loads row with its unit"
tmux send-keys -t "$sess" 3
expect "no probe runs or recordings in|run +kind" "runs panel did not draw"
tmux send-keys -t "$sess" 4
expect "info |warn |no findings|skipped " "advice panel did not draw"
tmux send-keys -t "$sess" q
for i in $(seq 50); do [ -s "$scratch/rc" ] && break; sleep 0.2; done
[ "$(cat "$scratch/rc" 2>/dev/null)" = "exit=0" ] || fail "q did not exit 0: $(cat "$scratch/rc" 2>/dev/null)"
echo ok
