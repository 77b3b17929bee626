#!/bin/sh
# `make deb` builds a lintian-clean Debian package from the tracked files,
# holding the binary, man page, bash completion, schemas, the systemd unit
# where systemd looks, the tmpfiles.d entry, the license and (when present)
# the Ansible role; the packaged binary runs.
. "$(dirname "$0")/lib.sh"
for t in dpkg-buildpackage lintian dh git; do
	command -v $t >/dev/null 2>&1 || skip "$t is not installed (make deps installs it)"
done
cd "$TOP" || exit 1
git rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout: make deb packs the tracked files"
make --no-print-directory deb >"$scratch/deb.log" 2>&1 || { tail -40 "$scratch/deb.log"; fail "make deb failed"; done_testing; }
grep -E '^[EW]: ' "$scratch/deb.log" && fail "lintian errors or warnings"
deb=$(ls build-deb/swaptune_*_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { fail "no .deb in build-deb/"; done_testing; }
dpkg -c "$deb" | awk '{print $6}' >"$scratch/files"
for f in ./usr/bin/swaptune ./usr/share/man/man8/swaptune.8.gz \
	./usr/share/bash-completion/completions/swaptune \
	./usr/share/swaptune/schema/status.schema.json \
	./lib/systemd/system/swaptune-boot.service ./usr/lib/tmpfiles.d/swaptune.conf \
	./usr/share/doc/swaptune/LICENSE ./usr/share/doc/swaptune/copyright; do
	grep -qx "$f" "$scratch/files" || fail "package lacks $f"
done
if [ -d share/ansible ]; then
	grep -q '^./usr/share/swaptune/ansible/' "$scratch/files" || fail "package lacks the Ansible role"
fi
dpkg -x "$deb" "$scratch/root" || fail "dpkg -x failed"
"$scratch/root/usr/bin/swaptune" --version | grep -q "^swaptune $(cat VERSION)\$" || fail "packaged binary --version"
grep -q '^ExecStart=/usr/bin/swaptune ' "$scratch/root/lib/systemd/system/swaptune-boot.service" ||
	fail "unit's ExecStart does not name the packaged binary"
bash -n "$scratch/root/usr/share/bash-completion/completions/swaptune" || fail "packaged completion is not valid bash"
done_testing
