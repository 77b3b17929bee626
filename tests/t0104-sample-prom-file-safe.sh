#!/bin/sh
# sample --prom-file never writes through a planted name: the temporary file
# is created O_EXCL|O_NOFOLLOW under a random name (the old PATH.<pid>.tmp,
# predictable, was opened O_TRUNC and followed a symlink to a file the
# attacker could not write), then fsynced, made 0644 and renamed over PATH;
# a symlink at PATH itself is replaced, not followed.
. "$(dirname "$0")/lib.sh"

fx=$scratch/fx
mkdir -p "$fx"
cp -a "$FIXTURES/vm-v1/." "$fx/"
dir=$scratch/textfile
mkdir -p "$dir"
echo "root-only secret" >"$scratch/victim"
chmod 600 "$scratch/victim"
cp "$scratch/victim" "$scratch/victim.orig"
echo "other" >"$scratch/victim2"
cp "$scratch/victim2" "$scratch/victim2.orig"
out=$dir/swaptune.prom
ln -s "$scratch/victim2" "$out"
# exec keeps the shell's pid: plant the name the old code would have used,
# and a few neighbours in case a helper process is in between
sh -c 'for d in 0 1 2 3; do ln -s "$1" "$2.$(($$ + d)).tmp"; done
	exec "$3" --db "$4" --sysroot "$5" sample --count 2 --interval 10ms --prom --prom-file "$2"' \
	sh "$scratch/victim" "$out" "$SWAPTUNE" "$scratch/db" "$fx" >"$scratch/out" 2>"$scratch/err" ||
	fail "sample --prom-file: exit $?: $(cat "$scratch/err")"
cmp -s "$scratch/victim" "$scratch/victim.orig" || fail "a planted PATH.<pid>.tmp symlink was written through"
cmp -s "$scratch/victim2" "$scratch/victim2.orig" || fail "a symlink at PATH was written through"
[ -L "$out" ] && fail "$out is still a symlink, not the new file"
[ -f "$out" ] || fail "$out not written"
grep -qx 'swaptune_sample_ticks_total 2' "$out" || fail "$out does not hold the last tick"
[ "$(stat -c %a "$out")" = 644 ] || fail "$out mode $(stat -c %a "$out"), want 644"
# only the planted links and the result remain: no temporary file left behind
left=$(cd "$dir" && ls | grep -v '^swaptune\.prom$' | grep -v '^swaptune\.prom\.[0-9]*\.tmp$')
[ -z "$left" ] || fail "temporary files left behind: $left"
done_testing
