# tui-lib.sh - sourced by tests/t05xx-tui-*.sh after lib.sh: a tmux session
# running the real binary, waits on the screen's text, and screen captures
# kept under the scratch dir and copied to tests/artifacts/tui/.
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed"
sess=swaptune-$(basename "$0" .sh)-$$
ARTIFACTS=$TOP/tests/artifacts/tui
mkdir -p "$scratch/screens" "$ARTIFACTS"
tui_cleanup() {
	tmux kill-session -t "$sess" 2>/dev/null
	cp "$scratch"/screens/*.txt "$ARTIFACTS"/ 2>/dev/null
	return 0
}
cleanup_hooks="$cleanup_hooks tui_cleanup"

# tui_start COLS ROWS ARGS...: the screen in a fresh session; exit status into $scratch/rc
tui_start() {
	cols=$1 rows=$2
	shift 2
	tmux kill-session -t "$sess" 2>/dev/null
	rm -f "$scratch/rc"
	tmux new-session -d -s "$sess" -x "$cols" -y "$rows" \
		"LANG=C.UTF-8 ${TUI_ENV:-} $SWAPTUNE tui $*; echo exit=\$? >$scratch/rc; sleep 600"
}

# expect PATTERN WHAT [SECONDS]: wait for an extended regex on the screen
expect() {
	n=$(( ${3:-10} * 5 ))
	i=0
	while [ $i -lt $n ]; do
		tmux capture-pane -t "$sess" -p >"$scratch/screen" 2>/dev/null
		grep -qE "$1" "$scratch/screen" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	fail "$2 (no /$1/ on the screen)"
	sed 's/^/    | /' "$scratch/screen"
	return 1
}

# snap NAME: keep the screen as it is now
snap() {
	tmux capture-pane -t "$sess" -p >"$scratch/screens/$(basename "$0" .sh)-$1.txt"
}

keys() {
	tmux send-keys -t "$sess" "$@"
	sleep 0.3
}

# quit_ok: q leaves with exit 0 and the terminal out of the alternate screen
quit_ok() {
	tmux send-keys -t "$sess" q
	i=0
	while [ $i -lt 100 ] && [ ! -s "$scratch/rc" ]; do sleep 0.2; i=$((i + 1)); done
	[ "$(cat "$scratch/rc" 2>/dev/null)" = "exit=0" ] || fail "q did not exit 0: $(cat "$scratch/rc" 2>/dev/null)"
	[ "$(tmux display -p -t "$sess" '#{alternate_on}')" = 0 ] || fail "the terminal was left in the alternate screen"
}

# the screen fits: no line longer than the width, the footer on the last row
fits() {
	# display columns, not bytes: bars and CI whiskers are multi-byte UTF-8
	[ "$(LC_ALL=C.UTF-8 wc -L <"$scratch/screen")" -le "$1" ] ||
		fail "$2: a line is wider than $1 columns"
}

# choose PATTERN WHAT: press Down (at most 20 times) until PATTERN is on the screen
choose() {
	n=0
	tmux capture-pane -t "$sess" -p >"$scratch/screen"
	while ! grep -qE "$1" "$scratch/screen" && [ $n -lt 20 ]; do
		keys Down
		tmux capture-pane -t "$sess" -p >"$scratch/screen"
		n=$((n + 1))
	done
	expect "$1" "$2" 2
}

# tui_start_as USER COLS ROWS ARGS...: tui_start as another user (su), HOME in $scratch
tui_start_as() {
	user=$1 cols=$2 rows=$3
	shift 3
	tmux kill-session -t "$sess" 2>/dev/null
	rm -f "$scratch/rc"
	tmux new-session -d -s "$sess" -x "$cols" -y "$rows" \
		"su -s /bin/sh $user -c 'HOME=$scratch/home-$user LANG=C.UTF-8 $SWAPTUNE tui $*'; echo exit=\$? >$scratch/rc; sleep 600"
}

# form_edit FIELD-INDEX VALUE: from the first field of a form, edit a field and go back
form_edit() {
	i=0
	while [ $i -lt "$1" ]; do keys Down; i=$((i + 1)); done
	keys Enter C-u
	tmux send-keys -t "$sess" -l "$2"
	keys Enter
	i=0
	while [ $i -lt "$1" ]; do keys Up; i=$((i + 1)); done
}

# host_state: what a live probe or apply must leave as it found (after need_probe_host)
host_state() {
	echo "page-cluster $(cat "$PC")"
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
	echo "zswap $(cat "$ZS/enabled")"
	echo "swaps $(tail -n +2 /proc/swaps | awk '{print $1}' | tr '\n' ' ')"
	echo "cgroups $(find "$CG" -maxdepth 2 -name 'swaptune-*' | tr '\n' ' ')"
}
