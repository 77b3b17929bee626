#!/bin/sh
# No product function takes more than 6 parameters (issue 35): past that, a
# function is handed a struct that means something (the look being judged,
# the candidate against its baseline, a repair pass), not a longer list.
# Counts the parameters of every function definition in src/, advisor/,
# probes/ and tui/ (declarations and function-pointer parameters aside).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"

cat >"$scratch/count.py" <<'EOF'
import re, sys
MAX = 6
pat = re.compile(r'^(?:static\s+)?(?:inline\s+)?(?:const\s+)?(?:struct\s+|enum\s+|unsigned\s+)?'
                 r'[A-Za-z_][A-Za-z0-9_]*[\s*]+\**([a-z_][a-z0-9_]*)\(([^;{]*?)\)\s*\{',
                 re.M | re.S)
for f in sys.argv[1:]:
    for m in pat.finditer(open(f, encoding='utf-8', errors='replace').read()):
        args = re.sub(r'\([^)]*\)\s*\([^)]*\)', 'X', m.group(2))
        if args.strip() in ('void', ''):
            continue
        n = args.count(',') + 1
        if n > MAX:
            print('%s: %s takes %d parameters' % (f, m.group(1), n))
EOF

files=$(ls src/*.c advisor/*.c probes/*.c tui/*.c 2>/dev/null)
[ -n "$files" ] || fail "no source files found under $TOP"
# shellcheck disable=SC2086
over=$(python3 "$scratch/count.py" $files) || fail "the counter failed"
[ -z "$over" ] || fail "functions with more than 6 parameters (give them a struct):
$over"

# the test itself catches what it is meant to catch
printf 'static int seven(int a, int b, int c, int d, int e, int f,\n\t\t int g)\n{\n\treturn 0;\n}\n' \
	>"$scratch/seven.c"
printf 'int six(int a, int b, int c, int d, int e, void (*cb)(int, int))\n{\n\treturn 0;\n}\n' \
	>"$scratch/six.c"
python3 "$scratch/count.py" "$scratch/seven.c" | grep -q 'seven takes 7' ||
	fail "the counter misses a function of 7 parameters"
[ -z "$(python3 "$scratch/count.py" "$scratch/six.c")" ] ||
	fail "the counter counts a function pointer's own parameters"
done_testing
