#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_render.sh - issue 44 ("Hardening, round three"), item 9: inputs
# small on disk that made huge outputs or used gigabytes.
#   - one folded line of 2,000,000 frames: every frame as wide as the graph,
#     so all were drawn (518 MB of memory, a 413 MB SVG); now cut to
#     --maxdepth (8192) frames ending in [truncated], said once on stderr;
#     the boundary (8192 kept, 8193 cut), --maxdepth=N/0, --reverse, and
#     convert and diff's inputs (folded text, and an SVG's stacks, which are
#     added frame by frame as a capture's are);
#   - --maxsize: an SVG estimated larger is refused before a byte is written,
#     naming --minwidth;
#   - convert --format=speedscope of 500,000 stacks: json-c's tree of the
#     whole document took 906 MB; now written as it goes, the same JSON.
# Memory is peak RSS from /usr/bin/time -v, with generous bounds (doubled
# under ASan) that the old binary exceeds; no timings are asserted.
. "$(dirname "$0")/lib.sh"
ASAN=0
asan_build && ASAN=1
cd "$TMPD" || exit 1
TIME=/usr/bin/time
[ -x "$TIME" ] || TIME=
have_jq=1
command -v jq > /dev/null || have_jq=0

# rss_kb ERRFILE: the peak RSS that time -v appended to ERRFILE
rss_kb() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
# measured NAME LIMIT_MB CMD...: run CMD (stdout, stderr to NAME.out/.err),
# then check its peak RSS against LIMIT_MB (doubled under ASan); returns
# CMD's status.  No /usr/bin/time: the check is a SKIP.
measured() {
	local name=$1 lim=$2 st kb; shift 2
	[ "$ASAN" = 1 ] && lim=$((lim * 2))
	if [ -z "$TIME" ]; then
		"$@" > "$name.out" 2> "$name.err"; st=$?
		skip "${name}_memory" "no /usr/bin/time (apt-get install time)"
		return $st
	fi
	"$TIME" -v -o "$name.time" "$@" > "$name.out" 2> "$name.err"; st=$?
	kb=$(rss_kb "$name.time")
	if [ -n "$kb" ] && [ "$kb" -lt $((lim * 1024)) ]; then
		pass "${name}_memory"
	else
		fail "${name}_memory" "peak RSS ${kb:-?} kB, limit $lim MB"
	fi
	return $st
}
# deep N [PREFIX]: one folded line of N frames PREFIX0;PREFIX1;... count 5
deep() { awk -v n="$1" -v p="${2:-f}" 'BEGIN { for (i = 0; i < n; i++)
	printf "%s%s%d", (i ? ";" : ""), p, i; print " 5" }'; }
# frames SVG: the number of frames drawn (the root "all" included)
frames() { grep -c '^<title>' "$1"; }

# ---- one line of 2M frames --------------------------------------------
deep 2000000 > deep.folded
measured h44_9_deep_line 300 "$OFFWAKE" render deep.folded; st=$?
if [ $st -ne 0 ]; then
	fail h44_9_deep_line "status $st: $(head -c 300 h44_9_deep_line.err)"
elif ! xmllint --noout h44_9_deep_line.out 2> xml.err; then
	fail h44_9_deep_line "not a valid SVG: $(head -c 200 xml.err)"
elif [ "$(frames h44_9_deep_line.out)" -ne 8193 ] ||
     ! grep -q '^<title>\[truncated\] (5 samples' h44_9_deep_line.out ||
     ! grep -q '^<title>f8190 (' h44_9_deep_line.out ||
     grep -q '^<title>f8191 (' h44_9_deep_line.out; then
	fail h44_9_deep_line "want 8192 frames (f0..f8190, [truncated]) and the root, got $(frames h44_9_deep_line.out)"
elif [ "$(stat -c %s h44_9_deep_line.out)" -gt 20000000 ]; then
	fail h44_9_deep_line "SVG of $(stat -c %s h44_9_deep_line.out) bytes"
else
	pass h44_9_deep_line
fi
n=$(grep -c 'deeper than' h44_9_deep_line.err)
if [ "$n" = 1 ] && grep -q '^offwake-svg: render: 1 stack deeper than 8192 frames cut to 8192, the last one \[truncated\]$' \
	h44_9_deep_line.err; then
	pass h44_9_deep_line_reported
else
	fail h44_9_deep_line_reported "want one line saying 1 stack was cut, got: $(head -c 300 h44_9_deep_line.err)"
fi
# from standard input too (read in blocks, not mapped), and counted over
# several files: said once, with the sum
cat deep.folded deep.folded | "$OFFWAKE" render - deep.folded > stdin.svg 2> stdin.err
if [ "$(frames stdin.svg)" -eq 8193 ] && [ "$(grep -c 'deeper than' stdin.err)" = 1 ] &&
   grep -q ': 3 stacks deeper than 8192' stdin.err; then
	pass h44_9_deep_stdin_files
else
	fail h44_9_deep_stdin_files "$(frames stdin.svg) frames; $(head -c 300 stdin.err)"
fi

# ---- the boundary, --maxdepth, --reverse ------------------------------
deep 8192 > at.folded
deep 8193 > over.folded
"$OFFWAKE" render at.folded > at.svg 2> at.err
"$OFFWAKE" render over.folded > over.svg 2> over.err
if [ "$(frames at.svg)" -eq 8193 ] && ! grep -q 'truncated' at.svg at.err &&
   grep -q '^<title>f8191 (' at.svg &&
   [ "$(frames over.svg)" -eq 8193 ] && grep -q '^<title>\[truncated\] (' over.svg &&
   ! grep -q '^<title>f8191 (' over.svg && grep -q ': 1 stack deeper' over.err; then
	pass h44_9_boundary
else
	fail h44_9_boundary "8192 frames: $(frames at.svg) drawn; 8193: $(frames over.svg); $(head -c 200 over.err)"
fi
deep 1000 > k.folded
"$OFFWAKE" render --maxdepth=100 k.folded > k100.svg 2> k100.err
"$OFFWAKE" render --maxdepth 0 k.folded > k0.svg 2> k0.err
"$OFFWAKE" render --maxdepth=-1 k.folded > /dev/null 2> kneg.err; st=$?
if [ "$(frames k100.svg)" -eq 101 ] && grep -q '^<title>\[truncated\] (' k100.svg &&
   grep -q 'deeper than 100 frames cut to 100' k100.err &&
   [ "$(frames k0.svg)" -eq 1001 ] && ! grep -q 'truncated' k0.svg k0.err &&
   [ $st -eq 255 ] && grep -q '^offwake-svg: --maxdepth -1 is out of range' kneg.err; then
	pass h44_9_maxdepth_option
else
	fail h44_9_maxdepth_option "100: $(frames k100.svg) frames, 0: $(frames k0.svg), -1: status $st $(head -c 200 kneg.err)"
fi
# --reverse: the cap applies to the reversed stack (its leaf-most frames)
"$OFFWAKE" render --reverse --maxdepth=10 k.folded > rev.svg 2> rev.err
if [ "$(frames rev.svg)" -eq 11 ] && grep -q '^<title>f999 (' rev.svg &&
   grep -q '^<title>f991 (' rev.svg && ! grep -q '^<title>f990 (' rev.svg &&
   grep -q '^<title>\[truncated\] (' rev.svg; then
	pass h44_9_maxdepth_reverse
else
	fail h44_9_maxdepth_reverse "$(frames rev.svg) frames: $(grep -o '^<title>[^ ]*' rev.svg | tr '\n' ' ' | head -c 200)"
fi
# diff's inputs are cut as they are read, and said so
"$OFFWAKE" diff --maxdepth=50 k.folded k.folded > d.svg 2> d.err; st=$?
if [ $st -eq 0 ] && [ "$(frames d.svg)" -eq 51 ] && [ "$(grep -c 'deeper than 50' d.err)" = 2 ]; then
	pass h44_9_diff_maxdepth
else
	fail h44_9_diff_maxdepth "status $st, $(frames d.svg) frames: $(head -c 300 d.err)"
fi

# an SVG read back (convert's unfold): its stacks are added frame by frame
# (fg_stacks_add(), as a capture's are), and cut the same way
deep 9000 > d9k.folded
"$OFFWAKE" render --maxdepth=0 d9k.folded > d9k.svg 2> /dev/null
"$OFFWAKE" convert -f d9k.svg > d9k.back 2> d9k.err; st=$?
if [ $st -eq 0 ] && [ "$(tr ';' '\n' < d9k.back | wc -l)" = 8192 ] &&
   grep -q ';f8190;\[truncated\] 5$' d9k.back &&
   grep -q '^offwake-svg: convert: d9k.svg: 1 stack deeper than 8192 frames cut' d9k.err; then
	pass h44_9_svg_stacks_cut
else
	fail h44_9_svg_stacks_cut "status $st, $(tr ';' '\n' < d9k.back | wc -l) frames: $(head -c 200 d9k.err)"
fi
# ---- --maxsize: refused before writing -------------------------------
# 200 roots, each under a stack of 8000 frames: 1.6M frames of 0.59 px,
# all drawn, about 285 MB from 3 MB of input
awk 'BEGIN { d = ""; for (i = 0; i < 8000; i++) d = d ";a"
	for (r = 0; r < 200; r++) print "r" r d, 1 }' > wide.folded
"$OFFWAKE" render --maxsize=100 -o wide.svg wide.folded > wide.out 2> wide.err; st=$?
if [ $st -eq 1 ] && [ ! -e wide.svg ] && [ ! -s wide.out ] && [ "$(wc -l < wide.err)" = 1 ] &&
   grep -q '^offwake-svg: the SVG would be about [0-9]* MB (1600201 frames to draw), more than --maxsize 100: .*--minwidth' wide.err; then
	pass h44_9_maxsize_refused
else
	fail h44_9_maxsize_refused "status $st, $(ls wide.svg 2>/dev/null) $(head -c 300 wide.err)"
fi
# what the message suggests works: wider frames only
"$OFFWAKE" render --maxsize=100 --minwidth=1% wide.folded > wide1.svg 2> wide1.err; st=$?
if [ $st -eq 0 ] && xmllint --noout wide1.svg 2> /dev/null && [ "$(frames wide1.svg)" -eq 1 ]; then
	pass h44_9_maxsize_minwidth
else
	fail h44_9_maxsize_minwidth "status $st: $(head -c 200 wide1.err)"
fi

# ---- convert --format=speedscope of 500k stacks -----------------------
awk 'BEGIN { srand(1); for (i = 0; i < 500000; i++) { s = "main"
	for (d = 0; d < 12; d++) s = s ";fn" int(rand() * 2000)
	print s ";leaf" i, 1 + int(rand() * 100) } }' > many.folded
want_total=$(awk '{ s += $NF } END { print s }' many.folded)
measured h44_9_speedscope 450 "$OFFWAKE" convert --format=speedscope many.folded; st=$?
if [ $st -ne 0 ]; then
	fail h44_9_speedscope "status $st: $(head -c 300 h44_9_speedscope.err)"
elif [ $have_jq = 0 ]; then
	python3 -m json.tool h44_9_speedscope.out > /dev/null 2>&1 &&
		skip h44_9_speedscope "valid JSON; no jq to check the totals"
else
	got=$(jq -r '.profiles[0] | [.endValue, (.weights | add), (.samples | length),
		(.weights | length), ([.samples[][]] | max)] | @tsv' h44_9_speedscope.out 2> jq.err)
	nframes=$(jq '.shared.frames | length' h44_9_speedscope.out)
	want_frames=$(tr ' ;' '\n\n' < many.folded | grep -v '^[0-9]*$' | sort -u | wc -l)
	if [ "$got" = "$(printf '%s\t%s\t500000\t500000\t%s' "$want_total" "$want_total" $((want_frames - 1)))" ] &&
	   [ "$nframes" = "$want_frames" ]; then
		pass h44_9_speedscope
	else
		fail h44_9_speedscope "endValue, weights, samples, max index: $got (want $want_total, 500000, $((want_frames - 1))); frames $nframes/$want_frames $(head -c 200 jq.err)"
	fi
fi
# a deep stack in convert: cut, said, and its sample ends in [truncated]
"$OFFWAKE" convert --format=speedscope deep.folded > deep.json 2> deep.err; st=$?
if [ $st -eq 0 ] && [ $have_jq = 1 ] &&
   [ "$(jq -r '.profiles[0].samples[0] | length' deep.json)" = 8192 ] &&
   [ "$(jq -r '.shared.frames[.profiles[0].samples[0][-1]].name' deep.json)" = "[truncated]" ] &&
   grep -q '^offwake-svg: convert: deep.folded: 1 stack deeper than 8192 frames cut' deep.err; then
	pass h44_9_convert_deep
elif [ $have_jq = 0 ]; then
	skip h44_9_convert_deep "no jq"
else
	fail h44_9_convert_deep "status $st: $(head -c 300 deep.err)"
fi
