#!/bin/sh
# bash completion (`swaptune --completion bash`) is generated from the command
# and option tables: it offers every command of --help and, after a command,
# every long option its --help lists; it is valid bash and completes as a
# user types, through bash's own compgen: the values of an option with a
# fixed set (never option names after --progress, --panel, --format), files
# after import, -o and --db, setting names after apply, and the run and
# recording ids of the store named on the line (the same ids the store
# holds, newest first; no store is made for a completion).
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
# offers WANT WORDS...: the offer is exactly the words of WANT (any order)
offers() {
	want=$1; shift
	complete_words "$@" | sort >"$scratch/got"
	printf '%s\n' $want | sort >"$scratch/want"
	cmp -s "$scratch/got" "$scratch/want" ||
		fail "complete '$*': got '$(tr '\n' ' ' <"$scratch/got")', want '$want'"
}
"$SWAPTUNE" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' >"$scratch/cmds"
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
# the global options of swaptune --help, before a command
for o in --version --completion --json --db --sysroot --help; do
	grep -qx -- "$o" "$scratch/top" || fail "$o is not offered before a command"
done
[ "$(complete_words swaptune pro)" = probe ] || fail "'swaptune pro' does not complete to probe"
complete_words swaptune probe --workload anon-r >"$scratch/w"
grep -qx anon-runs "$scratch/w" || fail "--workload anon-r does not offer anon-runs"
complete_words swaptune --db x.db app | grep -qx apply || fail "a command after --db PATH is not completed"

# values of options with a fixed set
offers "auto tty plain none" swaptune probe --progress ""
offers "auto tty plain none" swaptune verify --progress ""
offers "status live runs advice probe history cgroups switchback" swaptune tui --panel ""
offers "text md json html" swaptune report --format ""
offers "bash zsh fish" swaptune --completion ""
offers "max high" swaptune probe --limit-mode ""
offers "adapt ignore per-cpu" swaptune probe --busy-host ""
offers "zram disk loop" swaptune fleet-advise --backend ""
offers "pc3 pc1 pc0 bypass" swaptune probe --arms ""
offers "pc3,pc1 pc3,pc0 pc3,pc3 pc3,bypass" swaptune probe --arms pc3,
offers "json" swaptune report --format j
offers "auto tty plain none" swaptune probe --progress = ""
# free text: nothing, and never option names
offers "" swaptune probe --seed ""
offers "" swaptune sample --cgroup ""
"$SWAPTUNE" --completion bash | grep -c 'COMPREPLY=()' >/dev/null || fail "no free-text options?"

# files after import, -o and --db; directories after --sysroot
mkdir -p "$scratch/d/sub"
: >"$scratch/d/export-1.json"
cd "$scratch/d" || exit 1
offers "export-1.json sub" swaptune import ""
offers "export-1.json sub" swaptune report -o ""
offers "export-1.json sub" swaptune --db ""
offers "sub" swaptune --sysroot ""
cd "$TOP" || exit 1
# apply: the settings of the registry, as NAME=
complete_words swaptune apply page >"$scratch/set"
grep -qx 'page-cluster=' "$scratch/set" || fail "apply page does not offer page-cluster=: $(cat "$scratch/set")"

# NAME=VALUE: the setting's values after the = (bash splits the word at it), and
# --metric's names (issue 34, finding 7)
pcs=$(seq 0 31 | tr '\n' ' ')
offers "$pcs" swaptune apply page-cluster = ""
offers "$pcs" swaptune apply page-cluster =
offers "3 30 31" swaptune apply page-cluster = 3
offers "true false" swaptune apply vma_ra_enabled = ""
offers "lz4 lz4hc" swaptune apply zswap.compressor = lz4
offers "" swaptune apply zswap.max_pool_percent = ""
offers "psi-some psi-full" swaptune switchback --metric psi

# run and recording ids from the store named on the line
if command -v sqlite3 >/dev/null 2>&1; then
	db=$scratch/report.db
	sh "$FIXTURES/report/make-store.sh" "$db" >/dev/null 2>&1 || fail "make-store.sh"
	# two switchback runs (recommend and apply judge them as probe runs)
	sqlite3 "$db" "INSERT INTO runs (host_id, kind, status, params) VALUES (1, 'switchback', 'ok', '{}');
		INSERT INTO runs (host_id, kind, status, params) VALUES (1, 'switchback', 'ok', '{}')"
	q() { sqlite3 "$db" "$1" | tr '\n' ' '; }
	probes=$(q "SELECT id FROM runs WHERE kind = 'probe' ORDER BY id DESC LIMIT 50")
	measured=$(q "SELECT id FROM runs WHERE kind IN ('probe', 'switchback') ORDER BY id DESC LIMIT 50")
	applies=$(q "SELECT id FROM runs WHERE kind = 'apply' ORDER BY id DESC LIMIT 50")
	recs=$(q "SELECT DISTINCT run_id FROM samples ORDER BY run_id DESC LIMIT 50")
	[ -n "$probes" ] && [ -n "$applies" ] && [ -n "$recs" ] || fail "the fixture store lacks runs"
	offers "$probes" "$SWAPTUNE" --db "$db" report --run ""
	offers "$probes" "$SWAPTUNE" report --db "$db" --run ""
	offers "$measured" "$SWAPTUNE" --db="$db" recommend --run ""
	offers "$measured" "$SWAPTUNE" --db "$db" apply --run ""
	offers "$applies" "$SWAPTUNE" --db "$db" report --change ""
	offers "$recs" "$SWAPTUNE" --db "$db" report --before ""
	offers "$recs" "$SWAPTUNE" --db "$db" sample --replay ""
	# rollback --to: the store's snapshots, newest first
	snaps=$(q "SELECT id FROM snapshots ORDER BY id DESC LIMIT 50")
	[ -n "$snaps" ] || fail "the fixture store has no snapshots"
	offers "$snaps" "$SWAPTUNE" --db "$db" rollback --to ""
	[ "$("$SWAPTUNE" --db "$db" --list-ids snapshot | tr '\n' ' ')" = "$snaps" ] ||
		fail "--list-ids snapshot: $("$SWAPTUNE" --db "$db" --list-ids snapshot | tr '\n' ' '), want $snaps"
	# newest first, as --list-ids prints them
	[ "$("$SWAPTUNE" --db "$db" --list-ids probe | tr '\n' ' ')" = "$probes" ] ||
		fail "--list-ids probe: $("$SWAPTUNE" --db "$db" --list-ids probe | tr '\n' ' '), want $probes"
	[ "$("$SWAPTUNE" --db "$db" --list-ids measured | tr '\n' ' ')" = "$measured" ] ||
		fail "--list-ids measured: $("$SWAPTUNE" --db "$db" --list-ids measured | tr '\n' ' '), want $measured"
	before=$(cksum <"$db")
	offers "" "$SWAPTUNE" --db "$scratch/none.db" report --run ""
	[ -e "$scratch/none.db" ] && fail "completing ids made a store"
	[ "$(cksum <"$db")" = "$before" ] || fail "completing ids changed the store"
else
	echo "# sqlite3 not installed: the id completion is not checked against the store"
fi
done_testing
