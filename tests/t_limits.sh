#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_limits.sh - big and odd inputs give a clear error or a well-formed SVG,
# never a crash, a hang (timeout 60) or unbounded memory (ulimit -v, not
# under SANITIZE=1: ASan reserves terabytes of address space).
# Cases: 1M lines (also from standard input, and from a file cut short
# while it is parsed), a 100,000-frame stack, 10 MB lines, counts near and
# above 2^64, fractional counts, widths 1/20/21/100000, empty input, NUL
# bytes, CRLF.
. "$(dirname "$0")/lib.sh"
MEM_KB=${LIMITS_MEM_KB:-3000000}	# 3 GB of address space
ASAN=0
asan_build && ASAN=1

svgcheck limits || exit 0
if ! command -v python3 > /dev/null; then
	skip limits "needs python3 to generate inputs"
	exit 0
fi

# run NAME INPUT [RENDER ARGS...]: render INPUT within the limits and judge.
#   exit 0        -> the SVG must pass svgcheck
#   exit 2        -> the error SVG ("no stack counts") must pass svgcheck -e
#   exit 1 / 255  -> a message on stderr (a clear error)
#   124 (timeout), >= 128 (signal) or anything else -> FAIL
# EXPECT=ok|error|any narrows what is accepted (default any).
run() {
	local name=$1 in=$2; shift 2
	local out=$TMPD/$name.svg err=$TMPD/$name.err st t0 t1
	t0=$(date +%s)
	(
		[ "$ASAN" = 1 ] || ulimit -v "$MEM_KB"
		exec timeout 60 "$OFFWAKE" render "$@" "$in" > "$out" 2> "$err"
	)
	st=$?
	t1=$(date +%s)
	case $st in
	0)
		if [ "${EXPECT:-any}" = error ]; then
			fail "$name" "expected a clear error, got exit 0"
		elif "$SVGCHECK" "$out" 2> "$TMPD/$name.chk"; then
			pass "$name"
		else
			fail "$name" "exit 0 but $(cat "$TMPD/$name.chk")"
		fi ;;
	2)
		if [ "${EXPECT:-any}" = ok ]; then
			fail "$name" "expected an SVG, got exit 2: $(head -c 200 "$err")"
		elif "$SVGCHECK" -e "$out" 2> "$TMPD/$name.chk"; then
			pass "$name"
		else
			fail "$name" "exit 2 but $(cat "$TMPD/$name.chk")"
		fi ;;
	1|255)
		if [ "${EXPECT:-any}" = ok ]; then
			fail "$name" "expected an SVG, got exit $st: $(head -c 200 "$err")"
		elif [ -s "$err" ]; then
			pass "$name"
		else
			fail "$name" "exit $st without a message"
		fi ;;
	124)	fail "$name" "hung (killed after 60 s)" ;;
	*)	fail "$name" "exit $st after $((t1 - t0)) s (crash or out of memory?): $(tail -c 300 "$err")" ;;
	esac
	rm -f "$out"
}

gen() { python3 -c "$1" > "$2"; }
cd "$TMPD" || exit 1	# --cp writes palette.map in the current directory

# ---- size ---------------------------------------------------------------
# 1,000,000 lines: 50,000 distinct stacks of depth 3-20, shuffled order
gen '
import random, sys
r = random.Random(1)
w = sys.stdout.write
fr = ["fn%d" % i for i in range(3000)]
st = [";".join(r.choice(fr) for _ in range(r.randint(3, 20))) for _ in range(50000)]
w("".join("%s %d\n" % (r.choice(st), r.randint(1, 1000)) for _ in range(1000000)))
' "$TMPD/1m.folded"
EXPECT=ok run lines_1m "$TMPD/1m.folded"
EXPECT=ok run lines_1m_flamechart "$TMPD/1m.folded" --flamechart --minwidth=0.5
# a named file is parsed from a mapping, standard input as a stream: the
# same SVG either way
"$OFFWAKE" render "$TMPD/1m.folded" > "$TMPD/map.svg" 2> /dev/null
"$OFFWAKE" render < "$TMPD/1m.folded" > "$TMPD/stream.svg" 2> /dev/null
if [ -s "$TMPD/map.svg" ] && cmp -s "$TMPD/map.svg" "$TMPD/stream.svg"; then
	pass lines_1m_mapped_as_streamed
else
	fail lines_1m_mapped_as_streamed "the SVGs of the file and of standard input differ"
fi
rm -f "$TMPD/map.svg" "$TMPD/stream.svg"
# a mapped file cut short while it is parsed: a clear error, not SIGBUS.
# The render is stopped once the file shows in its mappings, the file
# truncated, and the render let go on.
shrunk=
for try in 1 2 3; do
	cp "$TMPD/1m.folded" "$TMPD/shrink.folded"
	"$OFFWAKE" render "$TMPD/shrink.folded" > /dev/null 2> "$TMPD/shrink.err" &
	pid=$!
	for ((i = 0; i < 3000; i++)); do
		grep -q shrink.folded "/proc/$pid/maps" 2> /dev/null && break
		sleep 0.001
	done
	kill -STOP "$pid" 2> /dev/null
	truncate -s 100 "$TMPD/shrink.folded"
	kill -CONT "$pid" 2> /dev/null
	wait "$pid"
	st=$?
	if [ "$st" = 1 ] && grep -q 'shrink.folded: the file shrank while it was read' "$TMPD/shrink.err"; then
		shrunk=1
		break
	fi
	if [ "$st" != 0 ]; then
		shrunk="exit $st: $(head -c 200 "$TMPD/shrink.err")"
		break
	fi	# exit 0: the parse was over before the cut; try again
done
rm -f "$TMPD/shrink.folded"
case $shrunk in
1)	pass file_shrinks_while_mapped ;;
"")	skip file_shrinks_while_mapped "the parse ended before the file could be cut (3 tries)" ;;
*)	fail file_shrinks_while_mapped "$shrunk" ;;
esac
# a 100,000-frame stack (and a second one sharing half of it)
gen '
import sys
f = ["f%d" % i for i in range(100000)]
sys.stdout.write(";".join(f) + " 5\n" + ";".join(f[:50000] + ["x"]) + " 3\n")
' "$TMPD/deep.folded"
EXPECT=ok run deep_100k "$TMPD/deep.folded"
EXPECT=ok run deep_100k_inverted "$TMPD/deep.folded" --inverted --reverse
EXPECT=ok run deep_100k_chain "$TMPD/deep.folded" --colors=chain --flamechart
# the same frame 100,000 times (recursion)
gen 'import sys; sys.stdout.write(";".join(["rec"] * 100000) + " 1\n")' "$TMPD/rec.folded"
EXPECT=ok run deep_100k_recursion "$TMPD/rec.folded"
# 10 MB lines: one 10 MB frame name; 10 MB of short frames; no newline at all
gen 'import sys; sys.stdout.write("main;" + "A" * (10 << 20) + " 7\n")' "$TMPD/bigname.folded"
EXPECT=ok run line_10mb_name "$TMPD/bigname.folded"
gen 'import sys; sys.stdout.write(";".join(["ab"] * (10 << 20 // 3)) + " 7\n")' "$TMPD/bigline.folded"
EXPECT=ok run line_10mb_frames "$TMPD/bigline.folded"
gen 'import sys; sys.stdout.write("x" * (10 << 20))' "$TMPD/nonl.folded"
run line_10mb_no_count "$TMPD/nonl.folded"
gen 'import sys; sys.stdout.write(";" * (10 << 20) + " 1\n")' "$TMPD/semis.folded"
run line_10mb_semicolons "$TMPD/semis.folded"

# ---- counts -------------------------------------------------------------
printf 'a;b 18446744073709551615\na;c 1\n' > "$TMPD/c1.folded"
run count_u64_max "$TMPD/c1.folded"
printf 'a;b 18446744073709551616\na;c 18446744073709551617\n' > "$TMPD/c2.folded"
run count_above_u64 "$TMPD/c2.folded"
printf 'a;b 9223372036854775808\na;c 9223372036854775808\na;d 9223372036854775808\n' > "$TMPD/c3.folded"
run count_sum_overflows_u64 "$TMPD/c3.folded"
printf 'a;b 99999999999999999999999999999999999999999\na;c 1\n' > "$TMPD/c4.folded"
run count_huge_digits "$TMPD/c4.folded"
python3 -c 'print("a;b " + "9" * 100000)' > "$TMPD/c5.folded"
run count_100k_digits "$TMPD/c5.folded"
printf 'a;b 0.5\na;c 1.25\na;d 0.001\ne 3.999999999\n' > "$TMPD/f1.folded"
EXPECT=ok run count_fractional "$TMPD/f1.folded"
printf 'a;b 1e3\na;c 1E-2\nd 1e400\ne -5\nf +3\ng 0x10\nh 1_000\ni inf\nj nan\n' > "$TMPD/f2.folded"
run count_odd_numbers "$TMPD/f2.folded"
printf 'a;b 0\na;c 0\n' > "$TMPD/zero.folded"
run count_all_zero "$TMPD/zero.folded"
printf 'a;b 18446744073709551615 1\na;c 1 18446744073709551615\n' > "$TMPD/d1.folded"
run count_differential_u64 "$TMPD/d1.folded"
run count_total_huge "$TMPD/c1.folded" --total=1e308
run count_factor_tiny "$TMPD/f1.folded" --factor=1e-300
run count_factor_huge "$TMPD/c1.folded" --factor=1e300

# ---- widths -------------------------------------------------------------
printf 'main;a;b 5\nmain;c 3\nother 1\n' > "$TMPD/w.folded"
EXPECT=error run width_1 "$TMPD/w.folded" --width=1
EXPECT=error run width_0 "$TMPD/w.folded" --width=0
EXPECT=error run width_negative "$TMPD/w.folded" --width=-100
run width_20 "$TMPD/w.folded" --width=20
EXPECT=ok run width_21 "$TMPD/w.folded" --width=21
EXPECT=ok run width_100000 "$TMPD/w.folded" --width=100000
EXPECT=ok run width_100000_1m "$TMPD/1m.folded" --width=100000
run width_huge "$TMPD/w.folded" --width=99999999999999999999
run height_huge "$TMPD/w.folded" --height=100000000
run fontsize_huge "$TMPD/w.folded" --fontsize=1e300
run fontsize_tiny "$TMPD/w.folded" --fontsize=1e-300
run minwidth_zero_1m "$TMPD/1m.folded" --minwidth=0

# ---- odd bytes ----------------------------------------------------------
: > "$TMPD/empty.folded"
EXPECT=error run empty "$TMPD/empty.folded"
printf '\n\n\n' > "$TMPD/blank.folded"
EXPECT=error run blank_lines "$TMPD/blank.folded"
printf 'a\0b;c 3\n\0\0\0 2\nmain;x\0 1\n\0' > "$TMPD/nul.folded"
run nul_bytes "$TMPD/nul.folded"
head -c 1000000 /dev/zero > "$TMPD/zeros.folded"
run nul_1mb "$TMPD/zeros.folded"
printf 'main;a 3\r\nmain;b 2\r\n\r\nmain;a;c 1\r\n' > "$TMPD/crlf.folded"
EXPECT=ok run crlf "$TMPD/crlf.folded"
# CRLF gives the same SVG as LF (spec 15.3)
tr -d '\r' < "$TMPD/crlf.folded" > "$TMPD/lf.folded"
if "$OFFWAKE" render "$TMPD/crlf.folded" > "$TMPD/crlf.svg" 2>/dev/null &&
   "$OFFWAKE" render "$TMPD/lf.folded" > "$TMPD/lf.svg" 2>/dev/null &&
   cmp -s "$TMPD/crlf.svg" "$TMPD/lf.svg"; then
	pass crlf_same_as_lf
else
	fail crlf_same_as_lf "CRLF input renders differently from LF input"
fi
printf 'main;a 3\rmain;b 2\r' > "$TMPD/cr.folded"
run cr_only "$TMPD/cr.folded"
head -c 3000000 /dev/urandom > "$TMPD/random.folded"
run random_3mb "$TMPD/random.folded"
run random_3mb_chain "$TMPD/random.folded" --colors=chain --cp --hash
