#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_diff.sh - "offwake-svg diff": the two-column merge of difffolded.pl on
# hand-computed cases (-n, -s, option forms), SVG and standard input
# profiles, the rendered SVG (well-formed, every frame's inclusive delta in
# its tooltip, counts in the profiles' unit, --negate, render options),
# errors; and the same merge as difffolded.pl when it is
# at hand (skipped otherwise).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
DFPL=${DIFFFOLDED_PL:-$(dirname "${FLAMEGRAPH_PL:-/work/ref/FlameGraph/flamegraph.pl}")/difffolded.pl}

same() {	# NAME EXPECTED-FILE GOT-FILE
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(diff "$2" "$3" | head -6 | tr '\n' '|')"; fi
}

cat > "$TMPD/before" <<'EOF'
a;b 5
a;c 3
d 2
a;b 1
EOF
cat > "$TMPD/after" <<'EOF'
a;b 10
a;e 4
d 2
lib@0x7f00a;0xDEADbeef 3
EOF
# AFTER's stacks in its order, then those only in BEFORE; repeated lines summed
cat > "$TMPD/want" <<'EOF'
a;b 6 10
a;e 0 4
d 2 2
lib@0x7f00a;0xDEADbeef 0 3
a;c 3 0
EOF
"$OFFWAKE" diff -f "$TMPD/before" "$TMPD/after" > "$TMPD/got"
same "two columns, 0 when absent" "$TMPD/want" "$TMPD/got"

# -n: BEFORE total 11 scaled to AFTER's 19, int() of each: 6*19/11 = 10.36
cat > "$TMPD/want" <<'EOF'
a;b 10 10
a;e 0 4
d 3 2
lib@0x7f00a;0xDEADbeef 0 3
a;c 5 0
EOF
"$OFFWAKE" diff -f -n "$TMPD/before" "$TMPD/after" > "$TMPD/got"
same "-n normalises BEFORE" "$TMPD/want" "$TMPD/got"
"$OFFWAKE" diff --normalize --folded "$TMPD/before" "$TMPD/after" > "$TMPD/got2"
same "--normalize --folded" "$TMPD/got" "$TMPD/got2"

# -s: hex addresses become 0x... and merge
printf 'x;0x1234;y 4\nx;0xabc;y 1\n' > "$TMPD/hb"
printf 'x;0xffff;y 7\nx;0x;z 2\n' > "$TMPD/ha"
printf 'x;0x...;y 5 7\nx;0x;z 0 2\n' > "$TMPD/want"
"$OFFWAKE" diff -fs "$TMPD/hb" "$TMPD/ha" > "$TMPD/got"
same "-s strips hex (bundled -fs)" "$TMPD/want" "$TMPD/got"
printf 'x;0xffff;y 0 7\nx;0x;z 0 2\nx;0x1234;y 4 0\nx;0xabc;y 1 0\n' > "$TMPD/want"
"$OFFWAKE" diff -f "$TMPD/hb" "$TMPD/ha" > "$TMPD/got"
same "without -s addresses differ" "$TMPD/want" "$TMPD/got"

# fractional counts and a two-count line (read as its AFTER column)
printf 'p;q 1.5\nr 2 3\n' > "$TMPD/fb"; printf 'p;q 2.25\n' > "$TMPD/fa"
printf 'p;q 1.5 2.25\nr 3 0\n' > "$TMPD/want"
"$OFFWAKE" diff -f "$TMPD/fb" "$TMPD/fa" > "$TMPD/got"
same "fractional counts, two-count input lines" "$TMPD/want" "$TMPD/got"

# standard input, either side
"$OFFWAKE" diff -f - "$TMPD/after" < "$TMPD/before" > "$TMPD/got"
"$OFFWAKE" diff -f "$TMPD/before" "$TMPD/after" > "$TMPD/want"
same "BEFORE from standard input" "$TMPD/want" "$TMPD/got"
"$OFFWAKE" diff -f "$TMPD/before" - < "$TMPD/after" > "$TMPD/got"
same "AFTER from standard input" "$TMPD/want" "$TMPD/got"

# SVG profiles (ours, unpruned) give the same merge as their folded text
"$OFFWAKE" render --minwidth=0 "$TMPD/before" > "$TMPD/before.svg" 2> /dev/null
"$OFFWAKE" render --minwidth=0 --inverted "$TMPD/after" > "$TMPD/after.svg" 2> /dev/null
"$OFFWAKE" diff -f "$TMPD/before.svg" "$TMPD/after.svg" | LC_ALL=C sort > "$TMPD/got"
"$OFFWAKE" diff -f "$TMPD/before" "$TMPD/after" | LC_ALL=C sort > "$TMPD/want"
same "SVG profiles (normal and icicle)" "$TMPD/want" "$TMPD/got"
"$OFFWAKE" diff -f - "$TMPD/after" < "$TMPD/before.svg" | LC_ALL=C sort > "$TMPD/got"
same "SVG profile on standard input" "$TMPD/want" "$TMPD/got"
printf '<svg><rect x="1" y="1" width="1"/></svg>\n' > "$TMPD/plain.svg"
"$OFFWAKE" diff -f "$TMPD/plain.svg" "$TMPD/after" > /dev/null 2> "$TMPD/err"; st=$?
[ $st -eq 1 ] && grep -q "^offwake-svg: diff: $TMPD/plain.svg: .*not a flame graph" "$TMPD/err" &&
	pass "non-flame-graph SVG refused" || fail "non-flame-graph SVG refused" "status $st: $(cat "$TMPD/err")"

# ---- the SVG --------------------------------------------------------------
if ! command -v xmllint > /dev/null; then
	sh tests/deps.sh libxml2-utils > /dev/null 2>&1
fi
"$OFFWAKE" diff "$TMPD/before" "$TMPD/after" > "$TMPD/d.svg" 2> /dev/null; st=$?
if command -v xmllint > /dev/null; then
	[ $st -eq 0 ] && xmllint --noout "$TMPD/d.svg" && pass "SVG is well-formed" ||
		fail "SVG is well-formed" "status $st"
else
	skip "SVG is well-formed" "xmllint not installed (libxml2-utils)"
fi
# widths from AFTER (19), deltas of the leaves: b +4, e +4, c -3 (zero
# width: drawn with --minwidth=0 only)
"$OFFWAKE" diff --minwidth=0 "$TMPD/before" "$TMPD/after" > "$TMPD/d0.svg" 2> /dev/null
grep -q '<title>all (19 samples, 100%)</title>' "$TMPD/d.svg" &&
	grep -q '<title>b (10 samples, 52.63%; +21.05%)</title>' "$TMPD/d.svg" &&
	grep -q '<title>c (0 samples, 0.00%; -15.79%)</title>' "$TMPD/d0.svg" &&
	! grep -q '<title>c ' "$TMPD/d.svg" && grep -q 'fill="rgb(255,0,0)"' "$TMPD/d.svg" &&
	pass "AFTER widths, per-stack deltas, red for growth" || fail "AFTER widths and deltas" "titles differ"
# every frame shows its own change, the change of its whole width (not only
# the leaves', as flamegraph.pl gives a two-column file): a 9 -> 14 (+5 of
# 19), lib@0x7f00a 0 -> 3, d unchanged
grep -q '<title>a (14 samples, 73.68%; +26.32%)</title>' "$TMPD/d.svg" &&
	grep -q '<title>lib@0x7f00a (3 samples, 15.79%; +15.79%)</title>' "$TMPD/d.svg" &&
	grep -q '<title>d (2 samples, 10.53%; 0.00%)</title>' "$TMPD/d.svg" &&
	pass "inclusive deltas on every frame" ||
	fail "inclusive deltas on every frame" "$(grep -o '<title>[ad][^<]*' "$TMPD/d.svg" | tr '\n' ' ')"
# an off-wake profile's change: fdatasync lost 2.8 s, its leaves too; counts
# in the profiles' unit: microseconds for off-wake folded text (its "--"
# frames), an SVG's own --countname, --countname over both
printf '%s\n' 'pg;main;fdatasync;io_schedule;--;irq 3000000' 'pg;main;fdatasync;io_schedule;--;kw 1000000' \
	'pg;main;read;--;writer 500000' > "$TMPD/ow_before"
printf '%s\n' 'pg;main;fdatasync;io_schedule;--;irq 1000000' 'pg;main;fdatasync;io_schedule;--;kw 200000' \
	'pg;main;read;--;writer 700000' > "$TMPD/ow_after"
"$OFFWAKE" diff "$TMPD/ow_before" "$TMPD/ow_after" > "$TMPD/ow.svg" 2> /dev/null
"$OFFWAKE" render --countname=ms "$TMPD/before" > "$TMPD/b_ms.svg" 2> /dev/null
"$OFFWAKE" render --countname=ms "$TMPD/after" > "$TMPD/a_ms.svg" 2> /dev/null
"$OFFWAKE" diff "$TMPD/b_ms.svg" "$TMPD/a_ms.svg" > "$TMPD/ms.svg" 2> /dev/null
"$OFFWAKE" diff --countname=bytes "$TMPD/b_ms.svg" "$TMPD/a_ms.svg" > "$TMPD/bytes.svg" 2> /dev/null
grep -q '<title>fdatasync (1,200,000 us, 63.16%; -147.37%)</title>' "$TMPD/ow.svg" &&
	grep -q '<title>all (1,900,000 us, 100%)</title>' "$TMPD/ow.svg" && ! grep -q '<title>[^<]* samples, ' "$TMPD/ow.svg" &&
	grep -q '<title>all (19 ms, 100%)</title>' "$TMPD/ms.svg" &&
	grep -q '<title>all (19 bytes, 100%)</title>' "$TMPD/bytes.svg" &&
	pass "off-wake change of a non-leaf frame, counts in the profiles' unit" ||
	fail "off-wake change of a non-leaf frame, counts in the profiles' unit" \
		"$(grep -o '<title>\(all\|fdatasync\)[^<]*' "$TMPD/ow.svg" "$TMPD/ms.svg" | tr '\n' ' ')"
"$OFFWAKE" diff --negate "$TMPD/before" "$TMPD/after" > "$TMPD/n.svg" 2> /dev/null
grep -q '<title>b (10 samples, 52.63%; -21.05%)</title>' "$TMPD/n.svg" && grep -q 'fill="rgb(0,0,255)"' "$TMPD/n.svg" &&
	pass "--negate swaps the hues" || fail "--negate swaps the hues" "no negated delta"
"$OFFWAKE" diff --title="Before/after" --countname=us --inverted -n "$TMPD/before" "$TMPD/after" > "$TMPD/o.svg" 2> /dev/null
grep -q '>Before/after</text>' "$TMPD/o.svg" && grep -q '<title>all (19 us, 100%)</title>' "$TMPD/o.svg" &&
	pass "render options apply" || fail "render options apply" "title or countname missing"
# diff -f | render is flamegraph.pl's (deltas on the leaves only): the
# same frames and widths as diff's SVG, and the same deltas on the leaves
"$OFFWAKE" diff -f "$TMPD/before" "$TMPD/after" | "$OFFWAKE" render > "$TMPD/r.svg" 2> /dev/null
frames_of() { sed -E -e 's/; [-+]?[0-9.]+%\)/)/' -e 's/ fill="[^"]*"//' "$1"; }
if cmp -s <(frames_of "$TMPD/d.svg") <(frames_of "$TMPD/r.svg") &&
   grep -q '<title>a (14 samples, 73.68%; 0.00%)</title>' "$TMPD/r.svg" &&
   grep -q '<title>b (10 samples, 52.63%; +21.05%)</title>' "$TMPD/r.svg"; then
	pass "diff = diff -f | render, but for the inclusive deltas"
else
	fail "diff = diff -f | render, but for the inclusive deltas" "$(diff <(frames_of "$TMPD/d.svg") <(frames_of "$TMPD/r.svg") | head -5)"
fi

# ---- errors ---------------------------------------------------------------
"$OFFWAKE" diff "$TMPD/before" > "$TMPD/out" 2> "$TMPD/err"; st=$?
[ $st -eq 255 ] && [ ! -s "$TMPD/out" ] && grep -q "two profiles expected" "$TMPD/err" &&
	pass "one profile: 255" || fail "one profile: 255" "status $st"
"$OFFWAKE" diff - - < "$TMPD/before" > /dev/null 2>&1; st=$?
[ $st -eq 255 ] && pass "stdin twice: 255" || fail "stdin twice: 255" "status $st"
"$OFFWAKE" diff "$TMPD/nosuch" "$TMPD/after" > "$TMPD/out" 2> "$TMPD/err"; st=$?
[ $st -eq 1 ] && [ ! -s "$TMPD/out" ] && grep -q "diff: $TMPD/nosuch: No such file" "$TMPD/err" &&
	pass "missing profile: 1" || fail "missing profile: 1" "status $st"
"$OFFWAKE" diff --bogus "$TMPD/before" "$TMPD/after" > /dev/null 2>&1; st=$?
[ $st -eq 255 ] && pass "bad render option: 255" || fail "bad render option: 255" "status $st"
: > "$TMPD/empty"
"$OFFWAKE" diff -f -n "$TMPD/empty" "$TMPD/after" > /dev/null 2> "$TMPD/err"; st=$?
[ $st -eq 1 ] && grep -q "no counts to scale" "$TMPD/err" && pass "-n with an empty BEFORE: 1" ||
	fail "-n with an empty BEFORE: 1" "status $st"
"$OFFWAKE" diff --help | grep -q "^Usage: offwake-svg diff" && pass "--help" || fail "--help" "no usage"
# -o FILE, as render, capture and convert: the SVG or the -f text that
# standard output gets, written atomically; a failed diff leaves FILE alone
ok=1
"$OFFWAKE" diff "$TMPD/before" "$TMPD/after" > "$TMPD/o.want" 2> /dev/null
"$OFFWAKE" diff -o "$TMPD/o.svg" "$TMPD/before" "$TMPD/after" > "$TMPD/o.out" 2> /dev/null &&
	cmp -s "$TMPD/o.want" "$TMPD/o.svg" && [ ! -s "$TMPD/o.out" ] || ok=0
"$OFFWAKE" diff -f --output="$TMPD/o.folded" "$TMPD/before" "$TMPD/after" > "$TMPD/o.out" 2> /dev/null &&
	[ "$(cat "$TMPD/o.folded")" = "$("$OFFWAKE" diff -f "$TMPD/before" "$TMPD/after")" ] &&
	[ ! -s "$TMPD/o.out" ] || ok=0
echo keep > "$TMPD/o2.svg"
"$OFFWAKE" diff -o "$TMPD/o2.svg" "$TMPD/nosuch" "$TMPD/after" 2> /dev/null && ok=0
[ "$(cat "$TMPD/o2.svg")" = keep ] || ok=0
[ $ok -eq 1 ] && pass "-o FILE" || fail "-o FILE" "output differs from standard output's"

# ---- difffolded.pl --------------------------------------------------------
if [ -f "$DFPL" ] && command -v perl > /dev/null; then
	awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) { s = "f" int(rand() * 9)
		for (j = int(rand() * 5); j > 0; j--) s = s ";g" int(rand() * 7) (rand() < .2 ? "@0x" int(rand() * 99) : "")
		print s, int(rand() * 50) (rand() < .1 ? ".5" : "") } }' > "$TMPD/r1"
	awk 'BEGIN { srand(4); for (i = 0; i < 2500; i++) { s = "f" int(rand() * 9)
		for (j = int(rand() * 5); j > 0; j--) s = s ";g" int(rand() * 7) (rand() < .2 ? "@0x" int(rand() * 99) : "")
		print s, int(rand() * 60) } }' > "$TMPD/r2"
	for opt in "" -n -s -ns; do
		perl "$DFPL" $opt "$TMPD/r1" "$TMPD/r2" | LC_ALL=C sort > "$TMPD/want"
		"$OFFWAKE" diff -f $opt "$TMPD/r1" "$TMPD/r2" | LC_ALL=C sort > "$TMPD/got"
		same "as difffolded.pl ${opt:-(no option)}" "$TMPD/want" "$TMPD/got"
	done
else
	skip "as difffolded.pl" "no difffolded.pl (set DIFFFOLDED_PL)"
fi
