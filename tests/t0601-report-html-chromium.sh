#!/bin/sh
# The HTML report renders in headless Chromium: for --run and --change on
# the fixture store, the page holds its charts (svg, bars, whiskers, trial
# dots; series paths and the change marker), leads with the answer (the
# summary box before every other section, the first chart a metric that
# changed beyond noise), shades the rows beyond noise, and puts every table
# in a box that scrolls sideways should it still be too wide; screenshots at
# 800 and 1200 px are real pictures (large enough, many colours, not one flat
# colour); and at both widths every column of every table is in view
# (finding 6: at 800 px the arms table lost sd, its interval and the
# settings): the page has no script, so a copy of it without its
# Content-Security-Policy and with a measuring script appended is loaded
# with --dump-dom, and the script writes, per table, its box's scrollWidth
# against its clientWidth and how far any cell reaches past the box or the
# window. KEEP_SHOTS=DIR keeps the pictures. Skips without chromium
# (optional test tool: make deps) or python3.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to inspect the screenshot"
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip "chromium not installed (apt-get install chromium): HTML rendering not checked"
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$db" || { echo "FAIL: make-store.sh"; exit 1; }
rep() { "$SWAPTUNE" --db "$db" --sysroot "$FIXTURES/vm-v1" report "$@"; }

shot() {	# shot HTML PNG [WIDTH]
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$scratch/chrome.XXXXXX")" --screenshot="$2" \
		--window-size="${3:-1200},2000" "file://$1" >"$scratch/chrome.log" 2>&1
}

measure() {	# measure HTML WIDTH: "page SCROLLW CLIENTW" and "table I SCROLLW CLIENTW OVER" lines
	{ sed 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' "$1"; cat <<'JS'
<script>
(function () {
	var out = [], vw = document.documentElement.clientWidth;
	out.push("page " + document.documentElement.scrollWidth + " " + vw);
	document.querySelectorAll("table").forEach(function (t, i) {
		var box = t.parentElement, r = box.getBoundingClientRect(), over = 0;
		t.querySelectorAll("th,td").forEach(function (c) {
			over = Math.max(over, c.getBoundingClientRect().right - Math.min(r.right, vw));
		});
		out.push("table " + i + " " + box.scrollWidth + " " + box.clientWidth + " " + Math.ceil(over));
	});
	var p = document.createElement("pre");
	p.id = "measure"; p.textContent = out.join(" | ");
	document.body.appendChild(p);
})();
</script>
JS
	} >"$1.m.html"
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$scratch/chrome.XXXXXX")" --dump-dom \
		--window-size="$2,2000" "file://$1.m.html" 2>"$scratch/chrome.log" |
		sed -n 's|.*<pre id="measure">\([^<]*\)</pre>.*|\1|p' | tr '|' '\n' | sed 's/^ *//; s/ *$//'
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
# "Up" rows (most of Chromium's) are added to the row above bytewise modulo
# 256 in one big-integer operation (the low 7 bits added, the top bits
# XORed), the other filters byte by byte
lo = int.from_bytes(b"\x7f" * stride, "big"); hi = int.from_bytes(b"\x80" * stride, "big")
colours, prev, i = set(), bytearray(stride), 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    if f == 2:
        l, u = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
        line = bytearray((((l & lo) + (u & lo)) ^ ((l ^ u) & hi)).to_bytes(stride, "big"))
    elif f == 4:	# Paeth: the first pixel has no left neighbours, the predictor is the byte above
        for x in range(bpp):
            line[x] = (line[x] + prev[x]) & 255
        for x in range(bpp, stride):
            a = line[x - bpp]; b = prev[x]; c = prev[x - bpp]
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    elif f != 0:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 2):
            colours.add(bytes(line[x:x + 3]))
    prev = line
nonwhite = sum(1 for c in colours if c != b"\xff\xff\xff")
print(f"{w}x{h}, {len(colours)} colours sampled")
assert w >= 800 and h >= 1000, "screenshot too small"
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
# the answer first: the summary box is the first section, the first chart a change beyond noise
for n in run change; do
	first=$(grep -o '<section id="[^"]*"' "$scratch/$n.html" | head -1)
	[ "$first" = '<section id="summary"' ] || fail "$n.html does not lead with the summary: $first"
	grep -q '<div class="answer">' "$scratch/$n.html" || fail "$n.html: no answer box"
	grep -q '<tr class="beyond">' "$scratch/$n.html" || fail "$n.html: no row shaded as beyond noise"
	# every table scrolls in its own box (no table wider than the page clips)
	[ "$(grep -c '<table>' "$scratch/$n.html")" -eq "$(grep -c '<div class="wide"><table>' "$scratch/$n.html")" ] ||
		fail "$n.html: a table outside a scroll box"
	grep -q 'div.wide{overflow-x:auto' "$scratch/$n.html" || fail "$n.html: the table box does not scroll"
	grep -q 'svg.chart{[^}]*max-width:100%' "$scratch/$n.html" || fail "$n.html: charts do not shrink with the page"
done
grep -o '<section id="chart-[^"]*"><h2>[^<]*' "$scratch/change.html" | head -1 | grep -q 'beyond noise' ||
	fail "change.html: the first chart is not a change beyond noise"
# the verdict before the tables of a probe run
awk '/<section id="summary"/ { s = NR } /<section id="arms"/ { a = NR } END { exit !(s && a && s < a) }' \
	"$scratch/run.html" || fail "run.html: the verdict is not before the arms table"
for n in run change; do
	for w in 800 1200; do
		shot "$scratch/$n.html" "$scratch/$n-$w.png" "$w" ||
			{ fail "chromium failed on $n.html at $w px: $(tail -3 "$scratch/chrome.log")"; continue; }
		[ -s "$scratch/$n-$w.png" ] || { fail "no screenshot of $n.html at $w px"; continue; }
		[ "$(wc -c <"$scratch/$n-$w.png")" -gt 20000 ] || fail "$n-$w.png is tiny ($(wc -c <"$scratch/$n-$w.png") bytes)"
		check_png "$scratch/$n-$w.png" || fail "$n-$w.png does not look like a rendered page"
		[ -n "$KEEP_SHOTS" ] && cp "$scratch/$n-$w.png" "$scratch/$n.html" "$KEEP_SHOTS/"
		# every column in view: no box scrolls, no cell past the box or the window
		measure "$scratch/$n.html" "$w" >"$scratch/$n-$w.measure"
		grep -q '^page ' "$scratch/$n-$w.measure" ||
			{ fail "$n.html at $w px: the measuring page did not run: $(tail -3 "$scratch/chrome.log")"; continue; }
		[ "$(grep -c '^table ' "$scratch/$n-$w.measure")" -eq "$(grep -c '<table' "$scratch/$n.html")" ] ||
			fail "$n.html at $w px: measured $(grep -c '^table ' "$scratch/$n-$w.measure") tables of $(grep -c '<table' "$scratch/$n.html")"
		awk -v what="$n.html at $w px" '
			$1 == "page" && $2 > $3 { print "FAIL: " what ": the page scrolls sideways (" $2 " px wide in " $3 ")"; bad = 1 }
			$1 == "table" && ($3 > $4 || $5 > 1) {
				print "FAIL: " what ": table " $2 " does not show every column (" $3 " px in a box of " $4 ", a cell " $5 " px past it)"; bad = 1 }
			END { exit bad }' "$scratch/$n-$w.measure" || fail "$n.html at $w px: a column out of view"
	done
done
done_testing
