#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unfold.sh - "offwake-svg unfold": round trips (render --minwidth=0 then
# unfold gives the input back after merging) for chain, deep, unicode,
# hostile and larger inputs, normal and inverted; exact with our SVGs' fg:x/fg:w
# extents (random sub-pixel inputs, a real off-wake profile, --factor),
# geometry-only reading warning about ambiguous frames; flamegraph.pl's SVGs read
# the same as ours (skipped without flamegraph.pl); the share lost to
# pruning reported; malformed, truncated and XML bomb inputs refused with
# one line, quickly and in bounded memory.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
FGPL=${FLAMEGRAPH_PL:-/work/ref/FlameGraph/flamegraph.pl}

# Folded text merged: trailing empty frames dropped, duplicates summed,
# zero counts left out, sorted bytewise.
norm() {
	awk '{
		if (!match($0, /[ \t]+[0-9]+$/)) next
		st = substr($0, 1, RSTART - 1); c = substr($0, RSTART) + 0
		sub(/;+$/, "", st); a[st] += c
	} END { for (k in a) if (a[k]) printf "%s %d\n", k, a[k] }' "$1" | LC_ALL=C sort
}

# Bounds for the hostile inputs; sanitizer builds reserve too much
# address space for ulimit -v.
limit() {
	if ldd "$OFFWAKE" 2> /dev/null | grep -q libasan; then
		timeout 10 "$@"
	else
		(ulimit -v 400000; timeout 10 "$@")
	fi
}

# ---- inputs --------------------------------------------------------------
mk() { cat > "$TMPD/$1.folded"; }
mk chain <<'EOF'
tar;vfs_write;pipe_write;schedule;--;gzip;pipe_read;wake_up 5000
tar;vfs_write;pipe_write;schedule;--;gzip;-;irq;wake_up 1200
tar;vfs_read;io_schedule;--;blk_done;end_bio 3000
gzip;pipe_read;schedule;--;tar;pipe_write;wake_up 4100
EOF
awk 'BEGIN { s = "root"; for (i = 1; i <= 300; i++) { s = s ";d" i; if (i % 50 == 0) print s, i * 10 } }' |
	mk deep
mk unicode <<'EOF'
日本語;関数;処理 700
main;emoji_😀;ünïcödé 300
main;combining_é;ß 250
Ω;Ж;ק 120
EOF
mk hostile <<'EOF'
</text><script>alert(1)</script>;x 500
a&b;&amp;;&lt; 400
"quoted";'apos';]]> 300
func (inlined);foo (1 samples, 50.00%);bar 250
all;all (5 samples, 100%) 200
 ;<!-- c -->;<![CDATA[x]]> 150
 90
q;b 60
q;b2 30
q;b;c 45
EOF
awk 'BEGIN { srand(7); for (i = 0; i < 400; i++) { d = 1 + int(rand() * 8); s = "fn_" int(rand() * 14)
	for (j = 1; j < d; j++) s = s ";fn_" int(rand() * 14); print s, 1 + int(rand() * 5000) } }' | mk mixed

for name in chain deep unicode hostile mixed; do
	opts="--minwidth=0"
	[ $name = chain ] && opts="$opts --colors=chain"
	norm "$TMPD/$name.folded" > "$TMPD/$name.want"
	for mode in normal inverted; do
		extra=; [ $mode = inverted ] && extra=--inverted
		"$OFFWAKE" render $opts $extra "$TMPD/$name.folded" > "$TMPD/$name.svg" 2> /dev/null
		"$OFFWAKE" unfold "$TMPD/$name.svg" > "$TMPD/$name.out" 2> "$TMPD/err"; st=$?
		norm "$TMPD/$name.out" > "$TMPD/$name.got"
		if [ $st -eq 0 ] && [ ! -s "$TMPD/err" ] && cmp -s "$TMPD/$name.want" "$TMPD/$name.got"; then
			pass "round trip: $name ($mode)"
		else
			fail "round trip: $name ($mode)" "status $st; $(head -c 200 "$TMPD/err") $(diff "$TMPD/$name.want" "$TMPD/$name.got" | head -5)"
		fi
	done
done

# unfold reads standard input; the order is deterministic
"$OFFWAKE" render --minwidth=0 "$TMPD/mixed.folded" 2> /dev/null > "$TMPD/m.svg"
"$OFFWAKE" unfold - < "$TMPD/m.svg" > "$TMPD/m1"; "$OFFWAKE" unfold "$TMPD/m.svg" > "$TMPD/m2"
cmp -s "$TMPD/m1" "$TMPD/m2" && [ -s "$TMPD/m1" ] && pass "stdin, same output twice" ||
	fail "stdin, same output twice" "outputs differ"

# a differential graph ("name (N unit, P%; +D%)") reads as its AFTER profile
printf 'a;b 5\na;c 3\n' > "$TMPD/before"; printf 'a;b 10\nd;e 4\n' > "$TMPD/after"
"$OFFWAKE" diff --minwidth=0 "$TMPD/before" "$TMPD/after" 2> /dev/null | "$OFFWAKE" unfold - > "$TMPD/d.out"
cmp -s <(norm "$TMPD/after") <(norm "$TMPD/d.out") && pass "differential SVG: the AFTER stacks" ||
	fail "differential SVG: the AFTER stacks" "$(cat "$TMPD/d.out" | tr '\n' '|')"

# the same stacks from flamegraph.pl's SVGs
if [ -f "$FGPL" ] && command -v perl > /dev/null; then
	for name in chain deep unicode hostile mixed; do
		opts="--minwidth=0"
		[ $name = chain ] && opts="$opts --colors=chain"
		perl "$FGPL" $opts "$TMPD/$name.folded" > "$TMPD/$name.pl.svg" 2> /dev/null
		"$OFFWAKE" unfold "$TMPD/$name.pl.svg" > "$TMPD/$name.pl.out" 2> "$TMPD/err"; st=$?
		# ours without the exact extents: geometry alone, as for theirs
		"$OFFWAKE" render $opts "$TMPD/$name.folded" 2> /dev/null | sed 's/ fg:[xw]="[0-9]*"//g' |
			"$OFFWAKE" unfold - > "$TMPD/$name.our.out" 2> /dev/null
		if [ $st -eq 0 ] && cmp -s <(norm "$TMPD/$name.pl.out") <(norm "$TMPD/$name.our.out"); then
			pass "flamegraph.pl SVG reads as ours: $name"
		else
			fail "flamegraph.pl SVG reads as ours: $name" "status $st $(head -c 200 "$TMPD/err")"
		fi
	done
else
	skip "flamegraph.pl SVGs" "no flamegraph.pl (set FLAMEGRAPH_PL)"
fi

# ---- exact extents (fg:x, fg:w) against geometry -----------------------------
# 200 random inputs whose many one-count frames are far below 0.1 px (about
# 170 of them put some sub-pixel frame on a shared edge, which geometry alone
# cannot place): our SVGs unfold exactly; the same SVGs without the
# extents, which is what flamegraph.pl draws, never come back wrong without a
# warning.
exact_ok=0 geo_warned=0 silent_wrong=0
for seed in $(seq 1 200); do
	awk -v seed=$seed 'BEGIN { srand(seed); n = 50 + int(rand() * 1000); big = rand() < 0.5
		for (i = 0; i < n; i++) { d = 1 + int(rand() * 10); s = "f" int(rand() * 12)
			for (j = 1; j < d; j++) s = s ";f" int(rand() * 12)
			print s, (big && rand() < 0.02) ? int(rand() * 1e6) : 1 + int(rand() * 50) } }' > "$TMPD/r.folded"
	"$OFFWAKE" render --minwidth=0 "$TMPD/r.folded" > "$TMPD/r.svg" 2> /dev/null
	norm "$TMPD/r.folded" > "$TMPD/r.want"
	"$OFFWAKE" unfold "$TMPD/r.svg" 2> "$TMPD/r.err" | norm /dev/stdin > "$TMPD/r.got"
	cmp -s "$TMPD/r.want" "$TMPD/r.got" && [ ! -s "$TMPD/r.err" ] && exact_ok=$((exact_ok + 1))
	sed 's/ fg:[xw]="[0-9]*"//g' "$TMPD/r.svg" > "$TMPD/g.svg"
	"$OFFWAKE" unfold "$TMPD/g.svg" 2> "$TMPD/g.err" | norm /dev/stdin > "$TMPD/g.got"
	if grep -q 'warning: [0-9]* frames\? narrower than' "$TMPD/g.err"; then
		geo_warned=$((geo_warned + 1))
	elif ! cmp -s "$TMPD/r.want" "$TMPD/g.got"; then
		silent_wrong=$((silent_wrong + 1))
	fi
done
[ $exact_ok -eq 200 ] && pass "exact unfold: 200 random sub-pixel inputs" ||
	fail "exact unfold: 200 random sub-pixel inputs" "$exact_ok of 200 exact"
if [ $silent_wrong -eq 0 ] && [ $geo_warned -ge 100 ]; then
	pass "geometry only: ambiguous frames warned ($geo_warned of 200), none wrong silently"
else
	fail "geometry only: ambiguous frames warned" "warned $geo_warned, wrong silently $silent_wrong"
fi
# a real off-wake profile: every stack back, exactly
norm examples/offwake-tar-gzip.folded > "$TMPD/ex.want"
"$OFFWAKE" render --minwidth=0 --colors=chain examples/offwake-tar-gzip.folded 2> /dev/null |
	"$OFFWAKE" unfold - 2> "$TMPD/err" | norm /dev/stdin > "$TMPD/ex.got"
cmp -s "$TMPD/ex.want" "$TMPD/ex.got" && [ ! -s "$TMPD/err" ] &&
	pass "exact unfold: examples/offwake-tar-gzip ($(wc -l < "$TMPD/ex.want") stacks)" ||
	fail "exact unfold: examples/offwake-tar-gzip" "$(diff "$TMPD/ex.want" "$TMPD/ex.got" | grep -c '^[<>]') lines differ $(head -c 200 "$TMPD/err")"
# --factor scales the tooltips; the extents stay in input counts
printf 'a;b 3\na;c 1\nd 7\n' > "$TMPD/f.folded"
"$OFFWAKE" render --factor=0.5 --minwidth=0 "$TMPD/f.folded" 2> /dev/null | "$OFFWAKE" unfold - > "$TMPD/f.out"
cmp -s <(norm "$TMPD/f.folded") <(norm "$TMPD/f.out") && pass "exact unfold: counts before --factor" ||
	fail "exact unfold: counts before --factor" "$(tr '\n' '|' < "$TMPD/f.out")"
# extents that contradict each other, or bad numbers: one clear line
"$OFFWAKE" render --minwidth=0 "$TMPD/f.folded" > "$TMPD/f.svg" 2> /dev/null
sed '/<title>c (/s/fg:x="3"/fg:x="20"/' "$TMPD/f.svg" > "$TMPD/outside.svg"
grep -q 'fg:x="20"' "$TMPD/outside.svg" || fail "fixture: outside.svg" "no frame c at fg:x=\"3\" to move"
sed '/<title>all (/s/fg:x="0"/fg:x="1e3"/' "$TMPD/f.svg" > "$TMPD/badfg.svg"
"$OFFWAKE" render --factor=2 --minwidth=0 "$TMPD/f.folded" 2> /dev/null |
	sed 's/fg:w="11"/fg:w="99999999999999999999999"/' > "$TMPD/hugefg.svg"

# ---- pruning --------------------------------------------------------------
# 2000 one-sample stacks after a wide one: each is far below 0.1 px (those
# sorting before a parent's first drawn child would look like its own time)
awk 'BEGIN { print "big;work 2000000"; for (i = 0; i < 2000; i++) print "big;zz" i ";leaf 1" }' > "$TMPD/pruned.folded"
"$OFFWAKE" render "$TMPD/pruned.folded" > "$TMPD/pruned.svg" 2> /dev/null
"$OFFWAKE" unfold "$TMPD/pruned.svg" > "$TMPD/pruned.out" 2> "$TMPD/err"; st=$?
got=$(awk '{ s += $NF } END { print s + 0 }' "$TMPD/pruned.out")
lost=$(sed -n 's/.*: about \([0-9]*\) of 2002000 samples (\([0-9.]*\)%) were in frames pruned.*/\1/p' "$TMPD/err")
if [ $st -eq 0 ] && [ -n "$lost" ] && [ $((got + lost)) -eq 2002000 ] && [ "$lost" -ge 1000 ] && [ "$lost" -le 3000 ] &&
	grep -q '^big;work 2000000$' "$TMPD/pruned.out"; then
	pass "pruned frames: lost share reported ($lost of 2002000)"
else
	fail "pruned frames: lost share reported" "status $st, got $got, lost '$lost': $(cat "$TMPD/err")"
fi
"$OFFWAKE" render --minwidth=0 "$TMPD/pruned.folded" 2> /dev/null | "$OFFWAKE" unfold - > /dev/null 2> "$TMPD/err"
[ ! -s "$TMPD/err" ] && pass "nothing pruned: no report" || fail "nothing pruned: no report" "$(cat "$TMPD/err")"

# ---- refused inputs ---------------------------------------------------------
bad() {	# NAME FILE PATTERN: exit 1, one line naming the file, quickly
	local t0=$SECONDS st
	limit "$OFFWAKE" unfold "$2" > "$TMPD/out" 2> "$TMPD/err"; st=$?
	if [ $st -eq 1 ] && [ "$(wc -l < "$TMPD/err")" -eq 1 ] &&
		grep -q "^offwake-svg: unfold: $2: .*$3" "$TMPD/err" && [ $((SECONDS - t0)) -lt 5 ]; then
		pass "refused: $1"
	else
		fail "refused: $1" "status $st: $(head -c 300 "$TMPD/err")"
	fi
}
{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE svg ['
	echo '<!ENTITY l0 "lollollollollollollollollollol">'
	for i in $(seq 1 12); do
		printf '<!ENTITY l%d "' $i; for j in $(seq 10); do printf '&l%d;' $((i - 1)); done; echo '">'
	done
	echo ']>'
	echo '<svg xmlns="http://www.w3.org/2000/svg"><g><title>&l12;</title><rect x="10" y="1" width="5"/></g></svg>'
} > "$TMPD/laughs.svg"
bad "billion laughs" "$TMPD/laughs.svg" "entity declarations"
{
	echo '<?xml version="1.0"?>'
	printf '<!DOCTYPE svg [<!ENTITY big "%s">]>\n' "$(head -c 100000 /dev/zero | tr '\0' x)"
	printf '<svg><g><title>'; for i in $(seq 2000); do printf '&big;'; done; echo '</title><rect x="1" y="1" width="1"/></g></svg>'
} > "$TMPD/quadratic.svg"
bad "quadratic blowup" "$TMPD/quadratic.svg" "entity"
printf '<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<svg><g><title>&e;</title><rect x="1" y="1" width="1"/></g></svg>\n' > "$TMPD/xxe.svg"
bad "external entity" "$TMPD/xxe.svg" "entity"
printf '<?xml version="1.0"?>\n<!DOCTYPE svg SYSTEM "http://127.0.0.1:9/svg.dtd">\n<svg><g><title>all (1 samples, 100%%)</title><rect x="10.0" y="1" width="1180.0"/></g><text>&ent;</text></svg>\n' > "$TMPD/extdtd.svg"
bad "undeclared entity, DTD not fetched" "$TMPD/extdtd.svg" "ent"
head -c $(($(wc -c < "$TMPD/mixed.svg") / 2)) "$TMPD/mixed.svg" > "$TMPD/trunc.svg"
bad "truncated SVG" "$TMPD/trunc.svg" "line"
printf '<svg xmlns="http://www.w3.org/2000/svg"><rect x="0" y="0" width="5" height="5"/></svg>\n' > "$TMPD/plain.svg"
bad "SVG without frames" "$TMPD/plain.svg" "not a flame graph"
printf '<svg><g><title>hello</title><rect x="1" y="1" width="2"/></g></svg>\n' > "$TMPD/noroot.svg"
bad "SVG without a root frame" "$TMPD/noroot.svg" "no root frame"
printf '<svg><g><title>all (9 samples, 100%%)</title><rect x="10.0" y="50" width="100.0"/></g><g><title>f (x samples)</title><rect x="10.0" y="30" width="5.0"/></g></svg>\n' > "$TMPD/badtitle.svg"
bad "frame title without a count" "$TMPD/badtitle.svg" "is not"
: > "$TMPD/empty.svg"
bad "empty file" "$TMPD/empty.svg" "an empty file, not an SVG$"
printf 'a;b 5\n' > "$TMPD/folded.svg"
bad "folded text: not an SVG, says so" "$TMPD/folded.svg" "not an SVG but folded stacks, which need no unfolding$"
printf '\x89PNG\r\n\x1a\n' > "$TMPD/png.svg"
bad "not XML: not an SVG" "$TMPD/png.svg" 'not an SVG (a flame graph SVG starts with "<?xml" or "<svg")$'
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "<g>"; }' > "$TMPD/deep.svg"
bad "100000 nested elements" "$TMPD/deep.svg" "."
{ printf '<svg><g><title>'; head -c 3000000 /dev/zero | tr '\0' a; echo '</title><rect x="1" y="1" width="1"/></g></svg>'; } > "$TMPD/longtitle.svg"
bad "3 MB title" "$TMPD/longtitle.svg" "title"
bad "frame outside its parents' exact extents" "$TMPD/outside.svg" 'fg:x=20, fg:w=1) lies outside'
bad "fg:x not an integer" "$TMPD/badfg.svg" 'bad fg:x="1e3"'
bad "fg:w above 2^64" "$TMPD/hugefg.svg" 'bad fg:w="99999999999999999999'
"$OFFWAKE" unfold "$TMPD/nosuch.svg" 2> "$TMPD/err"; st=$?
[ $st -eq 1 ] && grep -q "unfold: $TMPD/nosuch.svg: No such file" "$TMPD/err" && pass "missing file" ||
	fail "missing file" "status $st"
"$OFFWAKE" unfold > /dev/null 2>&1; st=$?
[ $st -eq 2 ] && pass "no argument: usage, 2" || fail "no argument: usage, 2" "status $st"
"$OFFWAKE" unfold --help | grep -q "^Usage: offwake-svg unfold" && pass "--help" || fail "--help" "no usage"
