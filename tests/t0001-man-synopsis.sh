#!/bin/sh
# Dispatch, --help and the man page agree, all made from the command and
# option tables: the man page's SYNOPSIS lists exactly the commands of
# `swaptune --help`, in the same order, each with the usage of `swaptune
# COMMAND --help`; its generated SYNOPSIS and OPTIONS are byte for byte what
# the binary generates (share/man/gen-man.sh); OPTIONS documents every
# option of every command's --help, COMMON OPTIONS every common and global
# option of `swaptune --help`; every option --help lists is one the command
# parses (a bad value is a usage error about that option, never "unknown
# option"); the page names both environment variables and every exit
# status, renders without warnings, and no rendered line is wider than 80
# bytes at MANWIDTH=80.
. "$(dirname "$0")/lib.sh"

man=$TOP/share/man/swaptune.8
[ -f "$man" ] || { echo "FAIL: $man missing"; exit 1; }

# the commands of --help: "  NAME  summary" lines (options start with "-")
"$SWAPTUNE" --help >"$scratch/help" 2>&1 || fail "swaptune --help: exit $?"
sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' "$scratch/help" >"$scratch/help.cmds"
[ -s "$scratch/help.cmds" ] || fail "no commands found in swaptune --help"

# the generated parts are what the binary generates now
between() {	# between NAME: the lines between the BEGIN and END GENERATED NAME markers
	sed -n "/^\.\\\\\" BEGIN GENERATED $1/,/^\.\\\\\" END GENERATED $1/p" "$man" | sed '1d;$d'
}
between SYNOPSIS >"$scratch/man.syn"
between OPTIONS >"$scratch/man.opt"
"$SWAPTUNE" --man-section synopsis >"$scratch/gen.syn" || fail "--man-section synopsis: exit $?"
"$SWAPTUNE" --man-section options >"$scratch/gen.opt" || fail "--man-section options: exit $?"
same "$scratch/man.syn" "$scratch/gen.syn" || fail "SYNOPSIS is stale: run sh share/man/gen-man.sh"
same "$scratch/man.opt" "$scratch/gen.opt" || fail "OPTIONS is stale: run sh share/man/gen-man.sh"
# --metric's names are the counter table's WINDOW rows, which grow: --help lists them, the man
# page sends there (a new counter changes no page)
awk '/^\.B \\-\\-metric NAME$/ { getline; print }' "$scratch/gen.opt" >"$scratch/metric.man"
[ "$(grep -c 'the names swaptune [a-z]* \\-\\-help lists$' "$scratch/metric.man")" = 2 ] ||
	fail "--metric in the man page: $(cat "$scratch/metric.man")"
grep -q zswpin "$scratch/metric.man" && fail "the man page lists --metric's names"
for cmd in switchback verify; do	# (a WINDOW row added before cpu keeps these)
	"$SWAPTUNE" $cmd --help | tr '\n' ' ' | tr -s ' ' >"$scratch/$cmd.help"
	grep -q 'below: psi-some, psi-full, .* swap-ra-hit, zswpin, .* or cpu-per-work' "$scratch/$cmd.help" ||
		fail "$cmd --help does not list --metric's names"
done

# SYNOPSIS: ".SY "swaptune NAME"" then the usage (roff escapes undone) until .YS
awk '/^\.SY / { if (name) print line; name = $0; sub(/^\.SY "/, "", name); sub(/"$/, "", name);
		line = name; next }
	/^\.YS/ { print line; name = ""; next }
	name { line = line " " $0 }' "$scratch/man.syn" |
	sed -e 's/\\f[BIRP]//g' -e 's/\\ / /g' -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$scratch/man.lines"
cut -d' ' -f2 "$scratch/man.lines" >"$scratch/man.cmds"
same "$scratch/man.cmds" "$scratch/help.cmds"

while read -r cmd; do
	# the usage of --help, its wrapped lines joined
	usage=$("$SWAPTUNE" "$cmd" --help | awk 'NR == 1 { sub(/^usage: /, ""); u = $0; next }
		/^ / && !done { sub(/^ +/, ""); u = u " " $0; next } { done = 1 } END { print u }')
	line=$(grep "^swaptune $cmd\( \|\$\)" "$scratch/man.lines")
	[ "$line" = "$usage" ] || fail "SYNOPSIS of $cmd is '$line', --help says '$usage'"
	grep -q "^\.B $cmd\$" "$man" || fail "COMMANDS has no entry for $cmd"
	"$SWAPTUNE" "$cmd" --help | awk 'length > 80' | grep -q . && fail "$cmd --help has lines over 80 columns"
done <"$scratch/help.cmds"
awk 'length > 80' "$scratch/help" | grep -q . && fail "swaptune --help has lines over 80 columns"

# OPTIONS documents every option of every command, as --help spells it
# ("  -y, --yes  ..." lines before "Common options:")
opts_of() { "$SWAPTUNE" "$1" --help | sed '/^Common options:/,$d' | sed -n 's/^  \(-[^ ]*\).*/\1/p'; }
while read -r cmd; do
	opts_of "$cmd" | while read -r o; do
		grep -q "^\.B $(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$man" ||
			echo "$cmd: option $o is not in the man page's OPTIONS"
	done
done <"$scratch/help.cmds" >"$scratch/missing"
[ -s "$scratch/missing" ] && fail "$(cat "$scratch/missing")"

# COMMON OPTIONS documents every option of swaptune --help (common and global)
sed -n '/^Common options/,$p' "$scratch/help" | sed -n 's/^  .*\(--[a-z][a-z-]*\).*/\1/p' |
	sed 's/  .*//' | while read -r o; do
	sed -n '/^\.SH COMMON OPTIONS/,/^\.SH /p' "$man" |
		grep -q "^\.B[IR]* .*$(printf '%s' "$o" | sed 's/-/\\\\-/g')" ||
		echo "option $o of swaptune --help is not in COMMON OPTIONS"
done >"$scratch/missing"
[ -s "$scratch/missing" ] && fail "$(cat "$scratch/missing")"
grep -q -- '--version' "$scratch/help" || fail "swaptune --help lacks --version"
grep -q -- '--completion SHELL' "$scratch/help" || fail "swaptune --help lacks --completion"

# dispatch: every option --help lists is parsed by its command. A value
# option given "" and a flag given "=x" are usage errors about that option
# (exit 2, no store left); "unknown option" would mean --help lies.
S="--sysroot $FIXTURES/vm-v1"
while read -r cmd; do
	"$SWAPTUNE" "$cmd" --help | sed '/^Common options:/,$d' | sed -n 's/^  \(-[^ ].*\)$/\1/p' |
		sed 's/  .*//; s/^-., //' | grep '^--' >"$scratch/rows.$cmd"
	while read -r name arg; do
		if [ -n "$arg" ]; then set -- "$name" ""; else set -- "$name=x"; fi
		"$SWAPTUNE" --db "$scratch/d.db" $S "$cmd" "$@" >/dev/null 2>"$scratch/err" </dev/null
		rc=$?
		[ $rc -eq 2 ] || fail "$cmd $*: exit $rc, want 2 ($(cat "$scratch/err"))"
		grep -q "unknown option" "$scratch/err" && fail "$cmd does not parse $name, which its --help lists"
		grep -q -- "$name" "$scratch/err" || fail "$cmd $*: the error does not name $name: $(cat "$scratch/err")"
		[ -e "$scratch/d.db" ] && { fail "$cmd $*: a usage error left a store"; rm -f "$scratch/d.db"; }
	done <"$scratch/rows.$cmd"
done <"$scratch/help.cmds"

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
if command -v man >/dev/null 2>&1; then
	# bytes, as mawk counts them: a typographic quote is three
	MANWIDTH=80 man -l "$man" 2>/dev/null | LC_ALL=C awk 'length > 80' >"$scratch/wide"
	[ -s "$scratch/wide" ] && fail "$(wc -l <"$scratch/wide") lines of the page are wider than 80 at MANWIDTH=80: $(head -3 "$scratch/wide")"
fi
done_testing
