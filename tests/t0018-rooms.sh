#!/bin/sh
# The rooms keep to their walls (DESIGN.md's module map, docs/layout.md):
# a command file (src/cmd-*.c) is a leaf: it has no header of its own and
# nothing includes one; the TUI calls no command and no store function
# (it reads through the module APIs the commands use: history.h, change.h,
# sbrun.h ...) and includes neither cmd.h nor store.h. A run's params JSON
# is parsed in one place, run-params.c, as the store reads the row: every
# other reader (advice, judge, recipe, the replication pool) takes the
# decoded struct run_params or its document.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1

heads=$(ls src/cmd-*.h include/swaptune/cmd-*.h 2>/dev/null)
[ -z "$heads" ] || fail "a command file has a header others could include: $heads"
inc=$(grep -nE '#include[[:space:]]+"(swaptune/)?cmd-[a-z-]+\.h"' src/*.c src/*.h include/swaptune/*.h \
	tui/*.c tui/*.h advisor/*.c probes/*.c 2>/dev/null)
[ -z "$inc" ] || fail "a command header included: $inc"

inc=$(grep -nE '#include[[:space:]]+"swaptune/(cmd|store)\.h"' tui/*.c tui/*.h)
[ -z "$inc" ] || fail "the TUI includes a command's or the store's header: $inc"
calls=$(grep -nE '\<(store|cmd)_[a-z0-9_]+[[:space:]]*\(' tui/*.c tui/*.h)
[ -z "$calls" ] || fail "the TUI calls the store or a command directly: $calls"

parses=$(grep -nE 'cJSON_Parse[A-Za-z]*\([^)]*param' src/*.c tui/*.c advisor/*.c probes/*.c |
	grep -vE '^src/run-params\.c:')
[ -z "$parses" ] || fail "a run's params parsed outside run-params.c: $parses"
# and decoded only at the store boundary, as a row is read
decodes=$(grep -nE '\<run_params_decode[[:space:]]*\(' src/*.c tui/*.c advisor/*.c probes/*.c |
	grep -vE '^src/(run-params|store-[a-z]+)\.c:')
[ -z "$decodes" ] || fail "a run's params decoded outside the store: $decodes"

# the test itself catches what it is meant to catch
printf '\tif (store_run_get(c->st, id, &ri, &e) == 0)\n' >"$scratch/stray.c"
grep -qE '\<(store|cmd)_[a-z0-9_]+[[:space:]]*\(' "$scratch/stray.c" ||
	fail "the call pattern misses a store call"
done_testing
