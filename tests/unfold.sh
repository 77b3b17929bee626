# unfold.sh - sourced by tests/lib.sh and tests/kernels/guest.sh
# unfold FILE: swaptune's human output with the lines its 100-column stream
# (src/fmt-wrap.c) folded joined again. A line continues the one before when
# it starts at that line's hanging column (after its last gap of two or more
# blanks at column <= 60, else two past its indent) and its first word would
# not have fitted on the line before.
unfold() {
	awk '
	function hang_of(s,    lead, col, best, n) {
		lead = match(s, /[^ ]/) - 1
		best = -1
		for (col = lead + 1; col <= length(s); col++) {
			if (substr(s, col, 2) != "  ")
				continue
			for (n = col; substr(s, n, 1) == " "; n++)
				;
			if (n <= length(s) && n - 1 <= 60)
				best = n - 1
			col = n
		}
		return best >= 0 ? best : lead + 2
	}
	function flush() { if (have) print prev; have = 0 }
	{
		ind = match($0, /[^ ]/) - 1
		if (have && NF > 0 && ind == hang && last + 1 + length($1) > 100) {
			line = $0; sub(/^ +/, "", line); prev = prev " " line; last = length($0); next
		}
		flush(); prev = $0; last = length($0); have = 1; hang = hang_of($0)
	}
	END { flush() }' "$@"
}
