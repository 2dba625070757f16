#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_hardening2.sh - regression tests of issue 17, "Hardening, round two",
# one section per item (the number in each test's name):
#   1  out of memory, on any thread: "<what>: out of memory", exit 1, no
#      crash and no stale errno (ulimit -v; under ASan its allocation limit);
#   2  -o FILE replaces only a regular file (or a new name) atomically: a
#      device, FIFO or socket is written directly, a symlink written through;
#   3  --cp's palette.map: never through a symlink, never blocking on a
#      FIFO, replaced atomically, its name in every error;
#   4  /tmp/perf-PID.map is used only when a regular file owned by the
#      process's user (root only for root's processes: issue 44);
#   5  tokens that differ only in bytes 16-23 cost no more than others (a
#      ratio to a normal input of the same size, never an absolute time);
#   6  no line order makes the sort quadratic (tests/bench/mkqs_adversary.c);
#   7  --nameattr loads in linear time and keeps values of any length;
#   12 non-finite or out-of-range numeric options: exit 255 naming them
#      (a --factor that makes the total infinite or 0 too);
#   13 diff's counts are plain decimals (1e-05 and 1.8e+19 were not read back);
#   14 diff reads UTF-16 SVGs; unfold takes totals up to 2^64 - 1 and says
#      why beyond; --encoding UTF-16 and the like are refused;
#   15 --notes inside its XML comment as given (as flamegraph.pl), but "--";
#   8  a capture's bad -o directory or render option fails before tracing;
#   9  SIGHUP ends a capture as SIGINT does; no signal (SIGKILL included)
#      leaves a temporary file (unnamed where the file system allows).
# The unit-level parts live in tests/unit/unit_hardening2.c.
. "$(dirname "$0")/lib.sh"
ASAN=0
asan_build && ASAN=1
cd "$TMPD" || exit 1
svgcheck hardening2 > /dev/null || SVGCHECK=
svg_ok() {	# svg_ok FILE: a complete, well-formed SVG
	if [ -n "$SVGCHECK" ]; then "$SVGCHECK" "$1" 2> /dev/null
	else tail -c 200 "$1" | grep -q '</svg>'; fi
}
have_py=1
command -v python3 > /dev/null || have_py=0

# ---- 1: out of memory -------------------------------------------------
# A frame in the second writer thread's chunk (--minwidth=0 draws all 24k
# frames) whose escaped name needs a buffer several times the name (3 MiB
# of '&' are 15 MiB of "&amp;"), followed by a plain run copied at once;
# the limits sweep through failing to read, failing to render, success.
oom_one() {	# oom_one LIMIT_KB: one run; prints "ok" or why not
	local st
	if [ "$ASAN" = 1 ]; then
		ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=$1:detect_leaks=0 \
			"$OFFWAKE" render --minwidth=0 amp.folded > amp.svg 2> amp.all
		st=$?
		grep -v '^==' amp.all > amp.err	# ASan's own warnings
	else
		(ulimit -v "$1"; exec env MALLOC_ARENA_MAX=1 "$OFFWAKE" render --minwidth=0 amp.folded) \
			> amp.svg 2> amp.err
		st=$?
	fi
	case $st in
	0) svg_ok amp.svg && echo ok || echo "exit 0 with a broken SVG" ;;
	1)
		if [ "$(wc -l < amp.err)" = 1 ] &&
		   grep -q '^offwake-svg: [a-z].*: out of memory$' amp.err; then
			echo ok
		else
			echo "exit 1, stderr: $(head -c 300 amp.err)"
		fi ;;
	*) echo "exit $st, stderr: $(head -c 300 amp.err)" ;;
	esac
}
if [ $have_py = 1 ]; then
	python3 -c '
import sys
w = sys.stdout.write
for i in range(12000): w("root;f%05d;leaf 1\n" % i)
w("root;f05000x" + "&" * (3 << 20) + "A" * (1 << 20) + " 1\n")' > amp.folded
	if [ "$ASAN" = 1 ]; then limits="8 12 16 20 24 40"
	else limits=$(seq 60000 4000 124000); fi
	bad= ; seen_oom=0; seen_ok=0
	for l in $limits; do
		r=$(oom_one "$l")
		[ "$r" = ok ] || { bad="limit $l: $r"; break; }
		grep -q 'out of memory' amp.err && seen_oom=1 || seen_ok=1
	done
	if [ -n "$bad" ]; then
		fail 1_oom_clear_error "$bad"
	elif [ $seen_oom = 0 ] || [ $seen_ok = 0 ]; then
		skip 1_oom_clear_error "the limits never ran out of memory, or never succeeded (oom $seen_oom, ok $seen_ok)"
	else
		pass 1_oom_clear_error
	fi
else
	skip 1_oom_clear_error "needs python3"
fi

# ---- 3: palette.map ---------------------------------------------------
# as_user CMD...: CMD as an unprivileged user when root (else as is)
as_user() {
	if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}
mkdir pal && cd pal || exit 1
printf 'main;a;b 3\nmain;c 2\n' > in.folded
echo "not a palette" > target
ln -s target palette.map
"$OFFWAKE" render --cp in.folded > out.svg 2> err; st=$?
if [ $st -ne 0 ] && [ "$(cat target)" = "not a palette" ] && [ -L palette.map ] &&
   grep -q '^offwake-svg: palette.map: .*symbolic link' err; then
	pass 3_palette_symlink_refused
else
	fail 3_palette_symlink_refused "status $st, target now: $(head -c 80 target), stderr: $(head -c 200 err)"
fi
rm -f palette.map
mkfifo palette.map
timeout 10 "$OFFWAKE" render --cp in.folded > out.svg 2> err; st=$?
if [ $st -ne 0 ] && [ $st -ne 124 ] && [ -p palette.map ] &&
   grep -q '^offwake-svg: palette.map: not a regular file' err; then
	pass 3_palette_fifo_refused
else
	fail 3_palette_fifo_refused "status $st (124: it hung), stderr: $(head -c 200 err)"
fi
rm -f palette.map
"$OFFWAKE" render --cp in.folded > out.svg 2> err
ino1=$(stat -c %i palette.map 2>/dev/null)
printf 'main;z 1\n' >> in.folded
"$OFFWAKE" render --cp in.folded > out.svg 2> err; st=$?
ino2=$(stat -c %i palette.map 2>/dev/null)
if [ $st -eq 0 ] && [ -n "$ino1" ] && [ "$ino1" != "$ino2" ] && grep -q '^z->rgb' palette.map &&
   grep -q '^main->rgb' palette.map && [ -z "$(ls palette.map.* 2>/dev/null)" ]; then
	pass 3_palette_replaced_atomically
else
	fail 3_palette_replaced_atomically "status $st, inodes $ino1 $ino2, files: $(ls), stderr: $(head -c 200 err)"
fi
mkdir ro && cp in.folded ro/ && chmod 555 ro
(cd ro && as_user "$OFFWAKE" render --cp in.folded > /dev/null 2> ../err); st=$?
if [ -w ro ] && [ "$(id -u)" -eq 0 ] && ! command -v setpriv > /dev/null; then
	skip 3_palette_unwritable_named "no unprivileged user to run as"
elif [ $st -eq 1 ] && grep -q '^offwake-svg: palette.map: Permission denied$' err &&
     ! grep -q 'SVG' err; then
	pass 3_palette_unwritable_named
else
	fail 3_palette_unwritable_named "status $st, stderr: $(head -c 300 err)"
fi
chmod 755 ro
cd "$TMPD" || exit 1

# ---- 12: non-finite or out-of-range numbers are usage errors ---------
printf 'main;a;b 3\nmain;c 2\n' > num.folded
bad=
for a in --fontsize=1e999 --fontsize=1e300 --fontsize=0 --fontwidth=1e999 --total=nan \
	 --total=inf --total=-inf --total=1e999 --factor=1e999 --height=0 --width=1e3 \
	 --minwidth=1$(printf '0%.0s' $(seq 400)) --factor=1e308 --factor=-1e308 --factor=0; do
	opt=${a%%=*}
	"$OFFWAKE" render "$a" num.folded > num.svg 2> num.err; st=$?
	if [ $st -ne 255 ] || [ -s num.svg ] || ! grep -q -- "$opt" num.err; then
		bad="$bad $a (status $st, $(wc -c < num.svg) bytes out, stderr: $(head -c 120 num.err));"
	fi
done
[ -z "$bad" ] && pass 12_numbers_refused || fail 12_numbers_refused "$bad"
bad=
for a in --total=1e300 --factor=1e300 --fontsize=100000 --fontwidth=1000 --total=0.5; do
	"$OFFWAKE" render "$a" num.folded > num.svg 2> num.err; st=$?
	if [ $st -ne 0 ] || grep -v '^var\|^\s' num.svg | grep -qi '"[^"]*\(nan\|inf\)'; then
		bad="$bad $a (status $st, $(head -c 120 num.err));"
	fi
done
[ -z "$bad" ] && pass 12_numbers_in_range_drawn || fail 12_numbers_in_range_drawn "$bad"
# a count of 301 digits (3 x 1e300) is printed whole, and its share read
# from it: 100.00%, not the share of its first 63 digits (0.00%)
"$OFFWAKE" render --factor=1e300 num.folded 2> /dev/null | grep -o '<title>main ([0-9,]* samples, [0-9.]*%)' > num.t
if grep -qE '^<title>main \(5(,[0-9]{3}){100} samples, 100\.00%\)$' num.t; then
	pass 12_factor_huge_counts_whole
else
	fail 12_factor_huge_counts_whole "$(head -c 200 num.t)"
fi

# ---- 13: diff prints counts as plain decimals ---------------------------
printf 'a;b 0.00001\na;c 18000000000000000000\na;c 1\n' > before.folded
printf 'a;b 0.00002\na;c 10000000000000000000\na;c 10000000000000000000\n' > after.folded
"$OFFWAKE" diff -f before.folded after.folded > diff.folded 2> diff.err; st=$?
if [ $st -eq 0 ] && grep -qx 'a;b 0.00001 0.00002' diff.folded &&
   grep -qx 'a;c 18000000000000000001 20000000000000000000' diff.folded; then
	pass 13_diff_plain_decimals
else
	fail 13_diff_plain_decimals "status $st, got: $(head -c 200 diff.folded) $(head -c 200 diff.err)"
fi
# and the SVG draws them (the folded grammar has no exponents)
"$OFFWAKE" diff before.folded after.folded > diff.svg 2> diff.err; st=$?
if [ $st -eq 0 ] && ! grep -q 'Ignored' diff.err && grep -q '<title>c (20,000,000,000,000,000,000 ' diff.svg; then
	pass 13_diff_svg_big_counts
else
	fail 13_diff_svg_big_counts "status $st, stderr: $(head -c 200 diff.err)"
fi

# ---- 15: --notes as given inside its comment, only "--" handled ------
"$OFFWAKE" render --notes='a & b <c> "d"' num.folded > notes.svg 2> notes.err; st=$?
if [ $st -eq 0 ] && grep -qxF '<!-- NOTES: a & b <c> "d" -->' notes.svg && svg_ok notes.svg; then
	pass 15_notes_as_given
else
	fail 15_notes_as_given "status $st, got: $(grep NOTES notes.svg | head -c 200)"
fi
"$OFFWAKE" render --notes='a--b---c -->-' num.folded > notes.svg 2> notes.err; st=$?
body=$(grep '^<!-- NOTES: ' notes.svg | sed 's/^<!-- NOTES: //; s/ -->$//')
case $body in
*--*) fail 15_notes_no_double_dash "status $st, comment body: $body" ;;
*) if [ $st -eq 0 ] && svg_ok notes.svg && [ "$(echo "$body" | tr -d ' ')" = 'a--b---c-->-' ]; then
	pass 15_notes_no_double_dash
   else
	fail 15_notes_no_double_dash "status $st, comment body: $body"
   fi ;;
esac

# ---- 5, 6, 7: adversarial inputs cost what normal ones of their size do -
# best_time FILE ARGS...: the best wall time of 3 renders, in ms
best_time() {
	local f=$1 best= t0 t1 ms; shift
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		timeout 120 "$OFFWAKE" render "$@" "$f" > /dev/null 2>&1
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}
# ratio_ok NAME ADVERSARIAL NORMAL MAX [ARGS...]: adversarial <= MAX x normal
# (plus 50 ms for the start-up both pay)
ratio_ok() {
	local name=$1 adv=$2 norm=$3 max=$4 ta tn; shift 4
	ta=$(best_time "$adv" "$@"); tn=$(best_time "$norm" "$@")
	if [ "$ta" -le $((max * tn + 50)) ]; then
		pass "$name"
	else
		fail "$name" "adversarial input ${ta} ms, normal input of the same size ${tn} ms (more than ${max}x)"
	fi
}
if [ $have_py = 1 ]; then
	# 5: tokens of 17-24 bytes that differ only in bytes 16-23
	python3 -c '
for i in range(50000): print("root;AAAAAAAAAAAAAAAA%07d;leaf 1" % i)' > tok_adv.folded
	python3 -c '
for i in range(50000): print("root;%07dAAAAAAAAAAAAAAAA;leaf 1" % i)' > tok_norm.folded
	ratio_ok 5_token_hash_every_byte tok_adv.folded tok_norm.folded 5

	# 6: line orders made against the sort's pivots (the former fixed
	# ones, and the places it draws now, which leave the rest to its
	# heapsort) within 3x the same lines shuffled; and the same SVG
	if cc -O2 -o mkqs_adversary "$TOP/tests/bench/mkqs_adversary.c" 2> cc6.err; then
		for m in fixed current random; do ./mkqs_adversary 80000 $m > sort_$m.folded; done
		ratio_ok 6_sort_adversary_fixed_pivot sort_fixed.folded sort_random.folded 3
		ratio_ok 6_sort_adversary_current_pivot sort_current.folded sort_random.folded 3
		for m in fixed current random; do "$OFFWAKE" render sort_$m.folded > sort_$m.svg 2>/dev/null; done
		if cmp -s sort_fixed.svg sort_random.svg && cmp -s sort_current.svg sort_random.svg &&
		   svg_ok sort_random.svg; then
			pass 6_sort_order_any_input_order
		else
			fail 6_sort_order_any_input_order "the SVGs of one set of lines in three orders differ"
		fi
	else
		skip 6_sort_adversary "cannot compile tests/bench/mkqs_adversary.c: $(head -c 200 cc6.err)"
	fi

	# 7: a --nameattr file of 50k names loads in linear time: the render
	# with it within 5x the same render without it
	python3 -c '
for i in range(50000): print("root;fn%d;leaf 1" % i)' > na.folded
	python3 -c '
for i in range(50000): print("fn%d\ttitle=t%d\thref=http://x/%d" % (i, i, i))' > na.attr
	ta=$(best_time na.folded --minwidth=0 --nameattr=na.attr)
	tn=$(best_time na.folded --minwidth=0)
	if [ "$ta" -le $((5 * tn + 50)) ]; then
		pass 7_nameattr_linear
	else
		fail 7_nameattr_linear "with 50k --nameattr lines ${ta} ms, without ${tn} ms (more than 5x)"
	fi
	# 7: values of any length, written whole, the SVG well-formed
	python3 -c '
print("fn1\tid=" + "x" * 10000 + "\tclass=" + "c" * 9000 + "\thref=h" + "y" * 5000 + "\ttarget=t" + "z" * 5000)' > long.attr
	"$OFFWAKE" render --minwidth=0 --nameattr=long.attr na.folded > long.svg 2> long.err; st=$?
	if [ $st -eq 0 ] && svg_ok long.svg && grep -q "id=\"$(printf 'x%.0s' $(seq 10000))\"" long.svg &&
	   grep -q "target=\"t$(printf 'z%.0s' $(seq 5000))\"" long.svg; then
		pass 7_nameattr_long_values
	else
		fail 7_nameattr_long_values "status $st, well-formed: $(svg_ok long.svg && echo yes || echo no), stderr: $(head -c 200 long.err)"
	fi
fi

# ---- 14: encodings and counts near 2^64 --------------------------------
printf 'a;b 3\na;c 5\n' > enc.folded
"$OFFWAKE" render enc.folded > enc.svg 2>/dev/null
if command -v iconv > /dev/null; then
	iconv -f UTF-8 -t UTF-16 enc.svg > enc16.svg	# with a byte order mark
	iconv -f UTF-8 -t UTF-16LE enc.svg > enc16le.svg	# without
	bad=
	for f in enc16.svg enc16le.svg; do
		"$OFFWAKE" diff -f "$f" enc.folded > enc.diff 2> enc.err; st=$?
		[ $st -eq 0 ] && [ "$(cat enc.diff)" = "$(printf 'a;b 3 3\na;c 5 5')" ] ||
			bad="$bad $f: status $st, $(head -c 100 enc.diff) $(head -c 100 enc.err);"
	done
	[ -z "$bad" ] && pass 14_diff_reads_utf16_svg || fail 14_diff_reads_utf16_svg "$bad"
else
	skip 14_diff_reads_utf16_svg "needs iconv"
fi
# a total of 2^64 - 1 is unfolded exactly from render's own SVG (whose
# titles print it rounded through a double, as flamegraph.pl does:
# 18,446,744,073,709,551,616; fg:w holds it exactly); a title above 2^64 - 1
# without fg:w (another tool's SVG) is a clear error (not "not a flame graph")
printf 'a;b 18446744073709551615\n' > max.folded
"$OFFWAKE" render --minwidth=0 max.folded > max.svg 2>/dev/null
"$OFFWAKE" unfold max.svg > max.out 2> max.err; st=$?
if [ $st -eq 0 ] && [ "$(cat max.out)" = 'a;b 18446744073709551615' ] && [ ! -s max.err ] &&
   grep -q '18,446,744,073,709,551,616' max.svg; then
	pass 14_unfold_count_2_64_minus_1
else
	fail 14_unfold_count_2_64_minus_1 "status $st, $(head -c 100 max.out) $(head -c 200 max.err)"
fi
sed -E 's/ fg:[xw]="[0-9]*"//g' max.svg > max_nofg.svg
"$OFFWAKE" unfold max_nofg.svg > max.out 2> max.err; st=$?
if [ $st -eq 1 ] && grep -q '2^64' max.err && ! grep -q 'not a flame graph' max.err; then
	pass 14_unfold_count_above_2_64_clear
else
	fail 14_unfold_count_above_2_64_clear "status $st, stderr: $(head -c 200 max.err)"
fi
# --encoding that would not read the UTF-8 bytes as written: refused
bad=
for e in UTF-16 UTF-16LE UTF-32 IBM037; do
	"$OFFWAKE" render --encoding=$e enc.folded > enc.out 2> enc.err; st=$?
	[ $st -eq 255 ] && [ ! -s enc.out ] && grep -q -- "--encoding $e" enc.err ||
		bad="$bad $e: status $st, $(head -c 100 enc.err);"
done
for e in UTF-8 ISO-8859-1; do
	"$OFFWAKE" render --encoding=$e enc.folded > enc.out 2> enc.err; st=$?
	[ $st -eq 0 ] && svg_ok enc.out || bad="$bad $e: status $st (refused?), $(head -c 100 enc.err);"
done
[ -z "$bad" ] && pass 14_encoding_ascii_incompatible_refused || fail 14_encoding_ascii_incompatible_refused "$bad"

# ---- capture: items 2 ---------------------------------------------------
can_capture hardening2_capture || exit 0
# capture_to NAME: a 1 s folded capture written with -o NAME
capture_to() { "$OFFWAKE" -f -q -o "$1" 1 2> cap.err; }

# 2: a device node (a private /dev/null) is written, not replaced
mknod null.dev c 1 3
capture_to null.dev; st=$?
if [ $st -eq 0 ] && [ -c null.dev ] && [ -z "$(ls null.dev.* 2>/dev/null)" ]; then
	pass 2_output_device_written
else
	fail 2_output_device_written "status $st, now: $(ls -l null.dev), stderr: $(head -c 200 cap.err)"
fi
# 2: a FIFO is written, not replaced
mkfifo out.fifo
timeout 20 cat out.fifo > fifo.got & R=$!	# (a regression leaves it waiting)
capture_to out.fifo; st=$?
wait $R
if [ $st -eq 0 ] && [ -p out.fifo ] && grep -q ';' fifo.got; then
	pass 2_output_fifo_written
else
	fail 2_output_fifo_written "status $st, now: $(ls -l out.fifo), got $(wc -c < fifo.got) bytes, stderr: $(head -c 200 cap.err)"
fi
# 2: a symlink is written through: the link stays, its target is replaced
echo old > real.out
ln -s real.out link.out
ino1=$(stat -c %i real.out)
capture_to link.out; st=$?
if [ $st -eq 0 ] && [ -L link.out ] && grep -q ';' real.out && [ "$(stat -c %i real.out)" != "$ino1" ]; then
	pass 2_output_symlink_through
else
	fail 2_output_symlink_through "status $st, now: $(ls -l link.out real.out), stderr: $(head -c 200 cap.err)"
fi
# 2: ... also when it names a file that does not exist yet
mkdir sub && ln -s sub/new.out dangling.out
capture_to dangling.out; st=$?
if [ $st -eq 0 ] && [ -L dangling.out ] && grep -q ';' sub/new.out; then
	pass 2_output_dangling_symlink_through
else
	fail 2_output_dangling_symlink_through "status $st, now: $(ls -l dangling.out sub), stderr: $(head -c 200 cap.err)"
fi
# 2: a listening UNIX socket is written to
if [ $have_py = 1 ]; then
	timeout 20 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("out.sock"); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); n = 0
with open("sock.got", "wb") as f:
    while True:
        b = c.recv(65536)
        if not b: break
        f.write(b)' > sock.ready & R=$!
	for _ in $(seq 50); do [ -S out.sock ] && break; sleep 0.1; done
	capture_to out.sock; st=$?
	wait $R
	if [ $st -eq 0 ] && [ -S out.sock ] && grep -q ';' sock.got; then
		pass 2_output_socket_written
	else
		fail 2_output_socket_written "status $st, now: $(ls -l out.sock), stderr: $(head -c 200 cap.err)"
	fi
else
	skip 2_output_socket_written "needs python3"
fi
# 2: a regular file is still replaced atomically, nothing left beside it
echo old > plain.out
ino1=$(stat -c %i plain.out)
capture_to plain.out; st=$?
if [ $st -eq 0 ] && grep -q ';' plain.out && [ "$(stat -c %i plain.out)" != "$ino1" ] &&
   [ -z "$(ls plain.out.* 2>/dev/null)" ]; then
	pass 2_output_regular_atomic
else
	fail 2_output_regular_atomic "status $st, files: $(ls), stderr: $(head -c 200 cap.err)"
fi

# ---- 4: perf maps: owned by the process's user -----------------------
# A "JIT" (tests/workloads/jitstub.c), run as nobody; its perf map,
# written here, names the stub.
if [ "$(uname -m)" != x86_64 ]; then
	skip 4_perfmap_owner "the JIT stub is x86-64 code"
elif ! command -v setpriv > /dev/null || ! cc -O1 -fno-omit-frame-pointer -o jit "$TOP/tests/workloads/jitstub.c" 2> jit.err; then
	skip 4_perfmap_owner "needs setpriv and a C compiler: $(head -c 200 jit.err 2>/dev/null)"
else
	chmod 755 "$TMPD" jit
	setpriv --reuid=65534 --regid=65534 --clear-groups ./jit > jit.addr & J=$!
	for _ in $(seq 50); do [ -s jit.addr ] && break; sleep 0.1; done
	PMAP=/tmp/perf-$J.map
	trap 'kill $J 2>/dev/null; rm -f "$PMAP"; rm -rf "$TMPD"' EXIT
	read -r A S _ < jit.addr
	# jit_named OWNER: the stub's name in a capture with the map owned so
	jit_named() {
		"$OFFWAKE" -f -q -p "$J" 1 2> jit.cap.err | grep -c 'jit_stub_hardening2'
	}
	rm -f "$PMAP"; echo "$A $S jit_stub_hardening2" > "$PMAP"
	chown 65534 "$PMAP"; n_user=$(jit_named)
	chown 0 "$PMAP"; n_root=$(jit_named)
	chown 12345 "$PMAP"; n_other=$(jit_named)
	echo "$A $S jit_stub_hardening2" > root.map
	rm -f "$PMAP"; ln -s "$TMPD/root.map" "$PMAP"; n_link=$(jit_named)
	# root's map for nobody's process: not the process's (issue 44)
	if [ "$n_user" -gt 0 ] && [ "$n_root" -eq 0 ]; then
		pass 4_perfmap_owner_trusted
	else
		fail 4_perfmap_owner_trusted "stub named $n_user times (map owned by the process's user), $n_root (root); $(head -c 200 jit.cap.err)"
	fi
	if [ "$n_user" -gt 0 ] && [ "$n_other" -eq 0 ]; then
		pass 4_perfmap_other_user_ignored
	else
		fail 4_perfmap_other_user_ignored "stub named $n_other times from a map owned by another user"
	fi
	if [ "$n_user" -gt 0 ] && [ "$n_link" -eq 0 ]; then
		pass 4_perfmap_symlink_ignored
	else
		fail 4_perfmap_symlink_ignored "stub named $n_link times from a symlinked map"
	fi
	kill "$J" 2>/dev/null
	rm -f "$PMAP"
fi

# ---- 8: what would fail the output fails before tracing ----------------
# (a capture of an hour: only a failure before tracing ends it in time)
early_fail() {	# early_fail NAME STATUS ARGS...: fails at once, with STATUS, no FILE
	local name=$1 want=$2 st; shift 2
	rm -f early.svg
	timeout 20 "$OFFWAKE" -q "$@" 3600 > /dev/null 2> early.err; st=$?
	if [ $st -eq "$want" ] && [ ! -e early.svg ] && [ -z "$(ls early.svg.* nodir 2>/dev/null)" ] &&
	   [ "$(wc -l < early.err)" -eq 1 ]; then
		pass "$name"
	else
		fail "$name" "status $st (124: it traced), stderr: $(head -c 200 early.err)"
	fi
}
early_fail 8_missing_dir_fails_first 1 -o nodir/early.svg
early_fail 8_bad_width_fails_first 2 -o early.svg --width=5
early_fail 8_missing_nameattr_fails_first 2 -o early.svg --nameattr=nodir/attrs
early_fail 8_bad_fontsize_fails_first 2 -o early.svg --fontsize=1e999

# ---- 9: SIGHUP writes what was captured; no signal leaves a file -------
# ended PID: until PID is gone, its status in ENDED_ST (20 s; then it is
# killed and 1 returned)
ended() {
	for _ in $(seq 200); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"; ENDED_ST=$?
			return 0
		fi
		sleep 0.1
	done
	kill -KILL "$1"; wait "$1"
	return 1
}
mkdir sig && cd sig || exit 1
"$OFFWAKE" -q -o hup.svg 3600 2> hup.err & P=$!
if attached $P; then
	sleep 2
	kill -HUP $P
	if ended $P; then st=$ENDED_ST; else st="none (still running after 20 s)"; fi
	if [ "$st" = 0 ] && svg_ok hup.svg && [ "$(ls)" = "$(printf 'hup.err\nhup.svg')" ]; then
		pass 9_sighup_writes_output
	else
		fail 9_sighup_writes_output "status $st, files: $(ls | tr '\n' ' '), stderr: $(head -c 200 hup.err)"
	fi
else
	fail 9_sighup_writes_output "the capture did not start: $(head -c 200 hup.err)"
fi
rm -f ./*

for sig in QUIT USR1 ALRM KILL; do
	# the default action (a background job of a script ignores SIGQUIT)
	env --default-signal=QUIT,USR1,ALRM "$OFFWAKE" -q -o out.svg 3600 2> /dev/null & P=$!
	if attached $P; then
		kill -s $sig $P
		ended $P || { fail "9_sig${sig}_leaves_nothing" "SIG$sig did not end it"; rm -f ./*; continue; }
		left=$(ls)
		[ -z "$left" ] && pass "9_sig${sig}_leaves_nothing" ||
			fail "9_sig${sig}_leaves_nothing" "left behind: $left"
	else
		fail "9_sig${sig}_leaves_nothing" "the capture did not start"
	fi
	rm -f ./*
done
cd "$TMPD" || exit 1
