#!/bin/sh
# The HTML report renders in headless Chromium: for --run and --change on
# the fixture store, the page holds its charts (svg, bars, whiskers, trial
# dots; series paths and the change marker), and the screenshot is a real
# picture (large enough, many colours, not one flat colour). Skips without
# chromium (optional test tool: make deps) or python3.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to inspect the screenshot"
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip "chromium not installed (apt-get install chromium): HTML rendering not checked"
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$SWAPTUNE" "$db" || { echo "FAIL: make-store.sh"; exit 1; }
rep() { "$SWAPTUNE" --db "$db" --sysroot "$FIXTURES/vm-v1" report "$@"; }

shot() {	# shot HTML PNG
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$scratch/chrome.XXXXXX")" --screenshot="$2" \
		--window-size=1200,2000 "file://$1" >"$scratch/chrome.log" 2>&1
}

check_png() {	# check_png PNG: python3 decodes the PNG (zlib) and counts colours
	python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw = zlib.decompress(idat)
stride = w * bpp
colours, prev, i = set(), bytearray(stride), 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 2):
            colours.add(bytes(line[x:x + 3]))
    prev = line
nonwhite = sum(1 for c in colours if c != b"\xff\xff\xff")
print(f"{w}x{h}, {len(colours)} colours sampled")
assert w >= 1000 and h >= 1000, "screenshot too small"
assert nonwhite >= 20, "screenshot is (nearly) one colour: the page did not render"
PY
}

rep --run 1 -o "$scratch/run.html" || fail "report --run 1 -o run.html: exit $?"
for el in '<svg ' '<rect class="bar"' '<g class="whisker"' '<circle class="trial"' '<g class="axes">' '<g class="legend">'; do
	grep -qF "$el" "$scratch/run.html" || fail "run.html lacks $el"
done
rep --change 3 -o "$scratch/change.html" || fail "report --change 3 -o change.html: exit $?"
for el in '<svg ' '<path class="series"' '<line class="marker"' '<g class="legend">'; do
	grep -qF "$el" "$scratch/change.html" || fail "change.html lacks $el"
done
for n in run change; do
	shot "$scratch/$n.html" "$scratch/$n.png" || { fail "chromium failed on $n.html: $(tail -3 "$scratch/chrome.log")"; continue; }
	[ -s "$scratch/$n.png" ] || { fail "no screenshot of $n.html"; continue; }
	[ "$(wc -c <"$scratch/$n.png")" -gt 20000 ] || fail "$n.png is tiny ($(wc -c <"$scratch/$n.png") bytes)"
	check_png "$scratch/$n.png" || fail "$n.png does not look like a rendered page"
	[ -n "$KEEP_SHOTS" ] && cp "$scratch/$n.png" "$scratch/$n.html" "$KEEP_SHOTS/"
done
done_testing
