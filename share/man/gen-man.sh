#!/bin/sh
# gen-man.sh [SWAPTUNE] - rewrite the generated parts of share/man/swaptune.8
# from the command tables: the SYNOPSIS (`swaptune --man-section synopsis`,
# one .SY entry per command in the order of `swaptune --help`) and OPTIONS
# (`swaptune --man-section options`, every command's option rows). Run it
# after adding or changing a command or an option, then write or update the
# command's paragraph under COMMANDS. tests/t0001-man-synopsis.sh checks
# that the page holds exactly what the binary generates.
set -eu
bin=${1:-./swaptune}
man=$(dirname "$0")/swaptune.8
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.syn" "$tmp.opt"' EXIT

"$bin" --man-section synopsis >"$tmp.syn"
"$bin" --man-section options >"$tmp.opt"
[ -s "$tmp.syn" ] && [ -s "$tmp.opt" ] || { echo "gen-man: nothing from $bin" >&2; exit 1; }

# replace what lies between the markers, keeping the markers
awk -v syn="$tmp.syn" -v opt="$tmp.opt" '
	/^\.\\" BEGIN GENERATED SYNOPSIS/ { print; while ((getline l < syn) > 0) print l; skip = 1; next }
	/^\.\\" BEGIN GENERATED OPTIONS/ { print; while ((getline l < opt) > 0) print l; skip = 1; next }
	/^\.\\" END GENERATED/ { skip = 0 }
	!skip { print }
' "$man" >"$tmp"
grep -q 'BEGIN GENERATED SYNOPSIS' "$tmp" && grep -q 'BEGIN GENERATED OPTIONS' "$tmp" ||
	{ echo "gen-man: $man lacks the BEGIN/END GENERATED markers" >&2; exit 1; }
cat "$tmp" >"$man"
echo "gen-man: $(grep -c '^\.SY' "$tmp.syn") commands, $(grep -c '^\.TP' "$tmp.opt") options in $man"
