#!/bin/sh
# The man page's SYNOPSIS lists exactly the commands of `swaptune --help`, in
# the same order, each with the usage line of `swaptune COMMAND --help`; the
# page names both environment variables and every exit status; it renders
# without warnings when groff is installed.
. "$(dirname "$0")/lib.sh"

man=$TOP/share/man/swaptune.8
[ -f "$man" ] || { echo "FAIL: $man missing"; exit 1; }

# SYNOPSIS lines "\fBswaptune NAME\fR USAGE" with the roff escapes undone
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man" | grep '^\\fBswaptune ' |
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' >"$scratch/man.lines"
cut -d' ' -f2 "$scratch/man.lines" >"$scratch/man.cmds"

"$SWAPTUNE" --help >"$scratch/help" 2>&1 || fail "swaptune --help: exit $?"
sed -n '/^Commands:/,/^$/p' "$scratch/help" | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' >"$scratch/help.cmds"
[ -s "$scratch/help.cmds" ] || fail "no commands found in swaptune --help"
same "$scratch/man.cmds" "$scratch/help.cmds"

while read -r cmd; do
	usage=$("$SWAPTUNE" "$cmd" --help | sed -n '1s/^usage: //p')
	line=$(grep "^swaptune $cmd\( \|\$\)" "$scratch/man.lines")
	[ "$line" = "$usage" ] || fail "SYNOPSIS of $cmd is '$line', --help says '$usage'"
	grep -q "^\.B $cmd\$" "$man" || fail "COMMANDS has no entry for $cmd"
done <"$scratch/help.cmds"

# OPTIONS documents every option of every command, as --help spells it
while read -r cmd; do
	"$SWAPTUNE" "$cmd" --help | sed -n '/^Options:/,/^$/p' | sed -n 's/^  \(-[^ ]*\).*/\1/p' |
	while read -r o; do
		grep -q "^\.B $(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$man" ||
			echo "$cmd: option $o is not in the man page's OPTIONS"
	done
done <"$scratch/help.cmds" >"$scratch/missing"
[ -s "$scratch/missing" ] && fail "$(cat "$scratch/missing")"
grep -q '^\.SH EXAMPLES' "$man" || fail "man page lacks EXAMPLES"
grep -q '^\.B \\-\\-version' "$man" || fail "man page lacks --version"
for s in SWAPTUNE_SYSROOT SWAPTUNE_DB '\.SH EXIT STATUS' '\.SH FILES' '\.SH COMMON OPTIONS' '\.SH NAME'; do
	grep -q "$s" "$man" || fail "man page lacks $s"
done
for st in 0 1 2 3; do
	sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$man" | grep -qx "\.B $st" || fail "EXIT STATUS lacks $st"
done
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$man" >"$scratch/groff.out" 2>&1
	[ -s "$scratch/groff.out" ] && fail "groff warnings: $(head -5 "$scratch/groff.out")"
fi
done_testing
