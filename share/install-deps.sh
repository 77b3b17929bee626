#!/bin/sh
# Installs the Debian packages swaptune needs to build and test, if missing.
# Idempotent and silent when everything is present. The last three lines are
# the tools the test suite drives: fuzzing, packaging, Ansible, promtool,
# chromium for the HTML report's rendering test, zsh and fish for their
# completion scripts, and real services with their own load generators for
# the switchback tests (PostgreSQL with pgbench, memcached with memcaslap)
# (tests skip with a reason without them). NO_TEST_TOOLS=1 installs only what
# the build needs.
set -e
pkgs="build-essential pkg-config libcgroup-dev libsqlite3-dev libncurses-dev libpfm4-dev libcjson-dev libcurl4-openssl-dev libcmocka-dev
sqlite3 python3 tmux stress-ng util-linux clang libclang-rt-14-dev zsh fish
dpkg-dev debhelper lintian fakeroot ansible ansible-lint prometheus chromium
postgresql postgresql-contrib memcached libmemcached-tools"
# make check-kernels: QEMU for the Debian 12 kernel guest (docs/kernels.md)
[ "${KERNELS:-0}" = 1 ] && pkgs="$pkgs qemu-system-x86"
[ "${NO_TEST_TOOLS:-0}" = 1 ] && pkgs="build-essential pkg-config libcgroup-dev libsqlite3-dev libncurses-dev libpfm4-dev libcjson-dev libcurl4-openssl-dev libcmocka-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing (run as root: apt-get install$missing)" >&2
	exit 3
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq $missing >/dev/null
