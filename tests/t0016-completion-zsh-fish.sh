#!/bin/sh
# zsh and fish completion (`swaptune --completion zsh|fish`), made from the
# same tables as bash's (t0011), complete as a user types: through an
# interactive zsh in a zpty (what its completion lists on Tab) and fish's
# `complete -C`. Commands, the choices of --progress, --format and
# --completion, a comma list of --arms (zsh), files after import, nothing
# after a free-text option, and run ids from the store named on the line.
# Skips a shell that is not installed (apt-get install zsh fish).
. "$(dirname "$0")/lib.sh"
command -v zsh >/dev/null 2>&1 || command -v fish >/dev/null 2>&1 ||
	skip "neither zsh nor fish is installed (apt-get install zsh fish)"
# the scripts call the binary by the name on the line: swaptune in PATH
mkdir -p "$scratch/bin" "$scratch/fp" "$scratch/d"
ln -s "$SWAPTUNE" "$scratch/bin/swaptune"
PATH=$scratch/bin:$PATH
export PATH
: >"$scratch/d/export-1.json"
db=
if command -v sqlite3 >/dev/null 2>&1; then
	db=$scratch/report.db
	sh "$FIXTURES/report/make-store.sh" "$db" >/dev/null 2>&1 || fail "make-store.sh"
	# a switchback run: recommend and apply --run offer it beside the probe runs
	sqlite3 "$db" "INSERT INTO runs (host_id, kind, status, params) VALUES (1, 'switchback', 'ok', '{}')"
	probes=$(sqlite3 "$db" "SELECT id FROM runs WHERE kind = 'probe' ORDER BY id DESC" | tr '\n' ' ')
	measured=$(sqlite3 "$db" "SELECT id FROM runs WHERE kind IN ('probe', 'switchback') ORDER BY id DESC" | tr '\n' ' ')
	snaps=$(sqlite3 "$db" "SELECT id FROM snapshots ORDER BY id DESC LIMIT 50" | tr '\n' ' ')
fi

# has WORD FILE: WORD is one of the words of FILE
has() { tr -s ' \t' '\n\n' <"$2" | grep -qx -- "$1"; }

if command -v zsh >/dev/null 2>&1; then
	swaptune --completion zsh >"$scratch/fp/_swaptune" || fail "--completion zsh: exit $?"
	zsh -n "$scratch/fp/_swaptune" || fail "the zsh script does not parse"
	cat >"$scratch/list.zsh" <<'EOF'
# list.zsh FPATH_DIR LINE: what zsh's completion lists for LINE (as typed),
# from an interactive zsh in a zpty. The shell may drop typeahead while it
# starts: the setup is sent until it reports the swaptune completion
# loaded. zsh does not list while input is pending: the tab is sent alone,
# and the output read until it is quiet.
zmodload zsh/zpty
zpty z zsh -f -i
for try in {1..20}; do
	zpty -w z "PROMPT='%% ' RPROMPT=; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D -d $1/zcompdump"
	zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" format ""; bindkey "^I" list-choices; LISTMAX=0'
	zpty -w z 'echo READY-$(( ${+_comps[swaptune]} + 41 ))'
	zpty -r z out '*READY-4[12]*' || exit 2
	[[ $out == *READY-42* ]] && break
	sleep 0.2
done
[[ $out == *READY-42* ]] || { print "zsh: the completion system did not load"; exit 2 }
zpty -n -w z "$2"
sleep 0.3
zpty -n -w z $'\t'
out= quiet=0
for i in {1..150}; do
	if zpty -r -t z chunk; then out+=$chunk; quiet=0; else (( quiet++ )); fi
	(( quiet >= 10 && ${#out} > ${#2} )) && break
	sleep 0.1
done
zpty -d z
print -r -- "$out"
EOF
	zlist() {	# zlist LINE: the listing, escapes and the typed line removed
		(cd "$scratch/d" && timeout 60 zsh -f "$scratch/list.zsh" "$scratch/fp" "$1") |
			tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/.\x08//g' | tail -n +3 |
			sed "s|$(printf '%s' "$1" | sed 's/ *$//; s/[][\.*^$|]/\\&/g')\$||" >"$scratch/z.out"
	}
	zlist "swaptune st"
	has status "$scratch/z.out" || fail "zsh: 'swaptune st' does not offer status: $(cat "$scratch/z.out")"
	zlist "swaptune probe --progress "
	for w in auto tty plain none; do has $w "$scratch/z.out" || fail "zsh: --progress lacks $w: $(cat "$scratch/z.out")"; done
	has --json "$scratch/z.out" && fail "zsh: --progress offers option names"
	zlist "swaptune report --format "
	for w in text md json html; do has $w "$scratch/z.out" || fail "zsh: --format lacks $w"; done
	zlist "swaptune --completion "
	for w in bash zsh fish; do has $w "$scratch/z.out" || fail "zsh: --completion lacks $w: $(cat "$scratch/z.out")"; done
	zlist "swaptune probe --arms pc3,"
	for w in pc1 pc0 bypass; do has $w "$scratch/z.out" || fail "zsh: --arms pc3, lacks $w: $(cat "$scratch/z.out")"; done
	zlist "swaptune apply page-cluster="
	for w in 0 3 31; do has $w "$scratch/z.out" || fail "zsh: apply page-cluster= lacks $w: $(cat "$scratch/z.out")"; done
	zlist "swaptune apply vma"
	has vma_ra_enabled= "$scratch/z.out" || fail "zsh: apply vma lacks vma_ra_enabled=: $(cat "$scratch/z.out")"
	zlist "swaptune import "
	has export-1.json "$scratch/z.out" || fail "zsh: import does not offer files: $(cat "$scratch/z.out")"
	zlist "swaptune probe --seed "
	has export-1.json "$scratch/z.out" && fail "zsh: --seed offers files"
	if [ -n "$db" ]; then
		zlist "swaptune --db $db report --run "
		for id in $probes; do has "$id" "$scratch/z.out" || fail "zsh: report --run lacks probe run $id: $(cat "$scratch/z.out")"; done
		zlist "swaptune --db $db rollback --to "
		for id in $snaps; do has "$id" "$scratch/z.out" || fail "zsh: rollback --to lacks snapshot $id: $(cat "$scratch/z.out")"; done
		zlist "swaptune --db $db recommend --run "
		for id in $measured; do has "$id" "$scratch/z.out" || fail "zsh: recommend --run lacks run $id: $(cat "$scratch/z.out")"; done
	fi
else
	echo "# zsh is not installed: its completion is not checked"
fi

if command -v fish >/dev/null 2>&1; then
	swaptune --completion fish >"$scratch/swaptune.fish" || fail "--completion fish: exit $?"
	fish -n "$scratch/swaptune.fish" || fail "the fish script does not parse"
	flist() {	# flist LINE: the candidates of fish's complete -C, words only
		(cd "$scratch/d" && fish -c "source '$scratch/swaptune.fish'; complete -C '$1'") |
			cut -f1 >"$scratch/f.out"
	}
	flist "swaptune st"
	has status "$scratch/f.out" || fail "fish: 'swaptune st' does not offer status"
	flist "swaptune probe --progress "
	[ "$(sort "$scratch/f.out" | tr '\n' ' ')" = "auto none plain tty " ] ||
		fail "fish: --progress offers $(tr '\n' ' ' <"$scratch/f.out")"
	flist "swaptune report --format "
	[ "$(sort "$scratch/f.out" | tr '\n' ' ')" = "html json md text " ] || fail "fish: --format"
	flist "swaptune probe --busy-host "
	[ "$(sort "$scratch/f.out" | tr '\n' ' ')" = "adapt ignore per-cpu " ] ||
		fail "fish: --busy-host offers $(tr '\n' ' ' <"$scratch/f.out")"
	flist "swaptune --completion "
	[ "$(sort "$scratch/f.out" | tr '\n' ' ')" = "bash fish zsh " ] || fail "fish: --completion"
	flist "swaptune import "
	has export-1.json "$scratch/f.out" || fail "fish: import does not offer files"
	flist "swaptune probe --seed "
	[ -s "$scratch/f.out" ] && fail "fish: --seed offers $(head -3 "$scratch/f.out")"
	flist "swaptune apply page-cluster="
	for w in page-cluster=0 page-cluster=31; do has $w "$scratch/f.out" || fail "fish: apply page-cluster= lacks $w: $(tr '\n' ' ' <"$scratch/f.out")"; done
	flist "swaptune probe --"
	has --working-set "$scratch/f.out" || fail "fish: probe -- lacks --working-set (a workload option)"
	has --json "$scratch/f.out" || fail "fish: probe -- lacks the common --json"
	if [ -n "$db" ]; then
		flist "swaptune --db $db report --run "
		[ "$(sort -n "$scratch/f.out" | tr '\n' ' ')" = "$(printf '%s\n' $probes | sort -n | tr '\n' ' ')" ] ||
			fail "fish: report --run offers '$(tr '\n' ' ' <"$scratch/f.out")', want '$probes'"
		flist "swaptune --db $db rollback --to "
		[ "$(sort -n "$scratch/f.out" | tr '\n' ' ')" = "$(printf '%s\n' $snaps | sort -n | tr '\n' ' ')" ] ||
			fail "fish: rollback --to offers '$(tr '\n' ' ' <"$scratch/f.out")', want '$snaps'"
		flist "swaptune --db $db apply --run "
		[ "$(sort -n "$scratch/f.out" | tr '\n' ' ')" = "$(printf '%s\n' $measured | sort -n | tr '\n' ' ')" ] ||
			fail "fish: apply --run offers '$(tr '\n' ' ' <"$scratch/f.out")', want '$measured'"
	fi
else
	echo "# fish is not installed: its completion is not checked"
fi
done_testing
