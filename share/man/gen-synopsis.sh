#!/bin/sh
# gen-synopsis.sh [SWAPTUNE] - rewrite the SYNOPSIS block (.nf ... .fi) of
# share/man/swaptune.8 from the command table: one line per command of
# `swaptune --help`, in its order, with the usage line of `swaptune CMD
# --help`. Run it after adding or changing a command, then write or update
# the command's paragraph under COMMANDS (tests/t0001-man-synopsis.sh checks both).
set -eu
bin=${1:-./swaptune}
man=$(dirname "$0")/swaptune.8
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.syn"' EXIT

"$bin" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' |
while read -r cmd; do
	rest=$("$bin" "$cmd" --help | sed -n "1s/^usage: swaptune $cmd//p")
	printf '\\fBswaptune %s\\fR%s\n' "$cmd" "$(printf '%s' "$rest" | sed 's/\\/\\e/g; s/-/\\-/g')"
done >"$tmp.syn"
[ -s "$tmp.syn" ] || { echo "gen-synopsis: no commands from $bin --help" >&2; exit 1; }

awk -v syn="$tmp.syn" '
	/^\.SH SYNOPSIS/ { insyn = 1 }
	insyn && /^\.nf/ { print; while ((getline l < syn) > 0) print l; skip = 1; next }
	skip && /^\.fi/ { skip = 0; insyn = 0 }
	!skip { print }
' "$man" >"$tmp"
cat "$tmp" >"$man"

# OPTIONS: every command's options as its --help lists them
"$bin" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' |
while read -r cmd; do
	"$bin" "$cmd" --help | sed -n '/^Options:/,/^$/p' | grep -q '^  -' || continue
	printf '.SS "%s options"\n' "$cmd"
	"$bin" "$cmd" --help | sed -n '/^Options:/,/^$/p' | sed -n 's/^  \(-.*\)$/\1/p' |
	while IFS= read -r line; do
		spell=$(printf '%s' "$line" | sed 's/  .*//')
		help=$(printf '%s' "$line" | sed 's/^[^ ]*\( [^ ][^ ]*\)*  *//')
		[ "$spell" = "$line" ] && help=""
		printf '.TP\n.B %s\n%s\n' "$(printf '%s' "$spell" | sed 's/\\/\\e/g; s/-/\\-/g')" \
			"$(printf '%s' "$help" | sed 's/\\/\\e/g; s/^\./\\\&./; s/^'"'"'/\\\&'"'"'/')"
	done
done >"$tmp.opt"
awk -v opt="$tmp.opt" '
	/^\.\\" BEGIN GENERATED OPTIONS/ { print; print ".SH OPTIONS"; while ((getline l < opt) > 0) print l; skip = 1; next }
	/^\.\\" END GENERATED OPTIONS/ { skip = 0 }
	!skip { print }
' "$man" >"$tmp"
cat "$tmp" >"$man"
rm -f "$tmp.opt"
echo "gen-synopsis: $(wc -l <"$tmp.syn") commands in $man"
