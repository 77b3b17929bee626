#!/bin/sh
# hold-host-lock.sh COMMAND [ARG...] - runs COMMAND under the test suite's
# host lock (/run/swaptune-tests/host.lock, root's alone: see
# tests/host-lock-lib.sh), waiting for it as long as it takes. Live tests
# and anything that changes the host are run by hand this way, e.g.
#   sh tests/hold-host-lock.sh tests/run-tests.sh t0006 t0203
# .ci/run runs the whole suite through it. Exits with COMMAND's status, or 1
# (one line on stderr) when not root or the lock's directory or file is not
# root's alone.
. "$(dirname "$0")/host-lock-lib.sh"
[ $# -gt 0 ] || { echo "usage: hold-host-lock.sh COMMAND [ARG...]" >&2; exit 2; }
command -v flock >/dev/null 2>&1 || { echo "host lock: needs flock(1)" >&2; exit 1; }
host_lock_prepare || exit 1
exec flock "$host_lock_file" "$@"
