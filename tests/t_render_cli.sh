#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_render_cli.sh - the render command line: several files and stdin joined,
# a missing file warned about and skipped, exit statuses, quiet SIGPIPE, and
# the live progress line (only on a terminal).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
printf 'a;b 3\n' > "$TMPD/one"; printf 'a;c 4\n' > "$TMPD/two"
"$OFFWAKE" render --minwidth=0 "$TMPD/one" - "$TMPD/nosuch" "$TMPD/two" < "$TMPD/two" \
	> "$TMPD/out.svg" 2> "$TMPD/err"; st=$?
[ $st -eq 0 ] && grep -q '<title>a (11 samples, 100.00%)</title>' "$TMPD/out.svg" &&
	pass "files and - are joined" || fail "files and - are joined" "status $st"
grep -q "can't open $TMPD/nosuch" "$TMPD/err" && pass "missing file warned and skipped" ||
	fail "missing file warned and skipped" "$(cat "$TMPD/err")"
"$OFFWAKE" render --bogus < "$TMPD/one" > "$TMPD/out" 2> "$TMPD/err"; st=$?
[ $st -eq 255 ] && [ ! -s "$TMPD/out" ] && grep -q "unknown option: bogus" "$TMPD/err" &&
	pass "unknown option: 255, nothing on stdout" || fail "unknown option" "status $st"
"$OFFWAKE" render < /dev/null > "$TMPD/out" 2> "$TMPD/err"; st=$?
[ $st -eq 2 ] && grep -q "No valid input" "$TMPD/out" && pass "empty input: error SVG, 2" ||
	fail "empty input: error SVG, 2" "status $st"
# SIGPIPE/EPIPE: the reader goes away; no error message, non-zero status
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "f%d;g%d;h 1\n", i % 977, i }' > "$TMPD/big"
( "$OFFWAKE" render --minwidth=0 "$TMPD/big" 2> "$TMPD/err"; echo $? > "$TMPD/st" ) | head -c 100 > /dev/null
st=$(cat "$TMPD/st")
[ "$st" -ne 0 ] && ! grep -qv "^Stack count" "$TMPD/err" && pass "closed stdout: quiet, non-zero ($st)" ||
	fail "closed stdout: quiet, non-zero" "status $st, stderr: $(head -c 200 "$TMPD/err")"
# progress: on a terminal (script(1) gives one), never otherwise
if command -v script > /dev/null; then
	OFFWAKE_PROGRESS_DELAY=0 script -qec "'$OFFWAKE' render '$TMPD/big' > /dev/null" /dev/null > "$TMPD/tty" 2>&1
	grep -q "offwake-svg: \(reading\|rendering\)" "$TMPD/tty" && grep -q $'\033\\[K' "$TMPD/tty" &&
		pass "progress line on a terminal, cleared" || fail "progress line on a terminal" "$(head -c 200 "$TMPD/tty" | od -c | head -3)"
else
	skip "progress line on a terminal" "script(1) is not installed"
fi
OFFWAKE_PROGRESS_DELAY=0 "$OFFWAKE" render "$TMPD/big" > /dev/null 2> "$TMPD/err"; st=$?
[ $st -eq 0 ] && ! grep -q "reading" "$TMPD/err" && pass "no progress line when stderr is not a terminal" ||
	fail "no progress line when stderr is not a terminal" "$(head -c 200 "$TMPD/err")"
# the same lines in any order give the same SVG (the renderer sorts them),
# and a large file read by two threads gives what a pipe read by one gives
awk 'BEGIN { srand(7); for (i = 0; i < 60000; i++) {
	s = "t" int(rand() * 30); for (d = 0; d < 20 + int(rand() * 20); d++) s = s ";f" int(rand() * 400) "_" d;
	printf "%s %d\n", s, 1 + int(rand() * 1000) } }' > "$TMPD/gen"
sort "$TMPD/gen" > "$TMPD/sorted"
"$OFFWAKE" render "$TMPD/gen" > "$TMPD/a.svg" 2>/dev/null
"$OFFWAKE" render "$TMPD/sorted" > "$TMPD/b.svg" 2>/dev/null
cmp -s "$TMPD/a.svg" "$TMPD/b.svg" && pass "line order does not change the SVG" ||
	fail "line order does not change the SVG" "shuffled and sorted inputs differ"
cat "$TMPD/gen" "$TMPD/gen" "$TMPD/sorted" "$TMPD/gen" "$TMPD/sorted" "$TMPD/gen" "$TMPD/sorted" \
	"$TMPD/gen" "$TMPD/sorted" "$TMPD/gen" > "$TMPD/big2"
size=$(stat -c %s "$TMPD/big2")
"$OFFWAKE" render "$TMPD/big2" > "$TMPD/c.svg" 2>/dev/null
"$OFFWAKE" render < "$TMPD/big2" > "$TMPD/d.svg" 2>/dev/null
[ "$size" -gt $((16 << 20)) ] && cmp -s "$TMPD/c.svg" "$TMPD/d.svg" && grep -q '<g id="frames">' "$TMPD/c.svg" &&
	pass "large file ($((size >> 20)) MB, two reader threads) equals the same from a pipe" ||
	fail "large file equals the same from a pipe" "size $size or outputs differ"
"$OFFWAKE" render --flamechart "$TMPD/big2" > "$TMPD/e.svg" 2>/dev/null
"$OFFWAKE" render --flamechart < "$TMPD/big2" > "$TMPD/f.svg" 2>/dev/null
cmp -s "$TMPD/e.svg" "$TMPD/f.svg" && pass "flame chart keeps the file's line order with two readers" ||
	fail "flame chart keeps the file's line order with two readers" "outputs differ"
# -o FILE as for capture and convert: the same SVG as on standard output,
# written atomically (no temporary left; a failed render leaves FILE alone);
# a render option's value "-o" is the value
"$OFFWAKE" render "$TMPD/one" > "$TMPD/o.want" 2> /dev/null
ok=1
for args in "-o $TMPD/o1.svg" "--output $TMPD/o1.svg" "--output=$TMPD/o1.svg" "-o$TMPD/o1.svg"; do
	rm -f "$TMPD/o1.svg"
	# shellcheck disable=SC2086
	"$OFFWAKE" render $args "$TMPD/one" > "$TMPD/o.stdout" 2> /dev/null &&
		cmp -s "$TMPD/o.want" "$TMPD/o1.svg" && [ ! -s "$TMPD/o.stdout" ] || ok=0
done
echo keep > "$TMPD/o2.svg"
"$OFFWAKE" render --width=-5 -o "$TMPD/o2.svg" "$TMPD/one" 2> /dev/null && ok=0
[ "$(cat "$TMPD/o2.svg")" = keep ] || ok=0
"$OFFWAKE" render --title -o "$TMPD/one" 2> /dev/null | grep -q '<text id="title"[^>]*>-o<' || ok=0
[ "$(find "$TMPD" -name 'o[12].svg.*' | wc -l)" -eq 0 ] || ok=0
"$OFFWAKE" render "$TMPD/one" -o 2> "$TMPD/err" > /dev/null; st=$?
[ $st -eq 255 ] && grep -q "^offwake-svg: render: -o: a file name is expected$" "$TMPD/err" || ok=0
[ $ok -eq 1 ] && pass "render -o FILE" || fail "render -o FILE" "status $st: $(head -c 200 "$TMPD/err")"
# a mistyped command: a one-line suggestion, status 2; a word far from any
# command, or a number, is still the capture's DURATION
ok=1
for w in rendr:render unfld:unfold conver:convert dif:diff redner:render; do
	"$OFFWAKE" "${w%%:*}" x y > "$TMPD/out" 2> "$TMPD/err"; st=$?
	[ $st -eq 2 ] && [ ! -s "$TMPD/out" ] && [ "$(wc -l < "$TMPD/err")" -eq 1 ] &&
		grep -qx "offwake-svg: unknown command '${w%%:*}', did you mean '${w#*:}'?" "$TMPD/err" ||
		{ ok=0; echo "$w: status $st: $(cat "$TMPD/err")"; }
done
"$OFFWAKE" xyzzy 2>&1 | grep -q "did you mean" && ok=0
"$OFFWAKE" 5x 2>&1 | grep -q "did you mean" && ok=0
[ $ok -eq 1 ] && pass "mistyped command: did you mean" || fail "mistyped command: did you mean" "see above"
