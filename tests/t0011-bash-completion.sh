#!/bin/sh
# bash completion (`swaptune --completion bash`) is generated from the command
# table: it offers every command of --help and, after a command, every long
# option its --help lists; it is valid bash and completes as a user types.
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null 2>&1 || skip "bash is not installed"
comp=$scratch/swaptune.bash
"$SWAPTUNE" --completion bash >"$comp" || fail "--completion bash: exit $?"
bash -n "$comp" || fail "the completion script is not valid bash"

# complete WORDS...: what the function offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _swaptune; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$comp" "$@"
}
"$SWAPTUNE" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' >"$scratch/cmds"
[ -s "$scratch/cmds" ] || fail "no commands in --help"
complete_words swaptune "" >"$scratch/top"
while read -r c; do
	grep -qx "$c" "$scratch/top" || fail "command $c is not offered"
	# the option column of --help: "  SPELLING  help text"
	"$SWAPTUNE" "$c" --help | sed -n 's/^  \(-[^ ].*\)$/\1/p' | sed 's/  .*//' |
		grep -o -- '--[a-z][a-z-]*' | sort -u >"$scratch/opts.$c"
	complete_words swaptune "$c" -- >"$scratch/got.$c"
	while read -r o; do
		grep -qx -- "$o" "$scratch/got.$c" || fail "$c: option $o of --help is not offered"
	done <"$scratch/opts.$c"
done <"$scratch/cmds"
[ "$(complete_words swaptune pro)" = probe ] || fail "'swaptune pro' does not complete to probe"
complete_words swaptune probe --workload anon-r >"$scratch/w"
grep -qx anon-runs "$scratch/w" || fail "--workload anon-r does not offer anon-runs"
complete_words swaptune --db x.db app | grep -qx apply || fail "a command after --db PATH is not completed"
done_testing
