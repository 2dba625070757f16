#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_timeline_views.sh - the heat map and speedscope's evented profiles of a
# real capture (issue 46): tests/workloads/stall.c (a worker waiting ~0.5
# ms for most jobs, 80 ms for one every half second, its producer
# meanwhile waiting on a third thread) traced 4 s twice at once, with
# --timeline -o v.svg and --timeline --format=speedscope.  The speedscope
# file's worker profile holds each stall as one run of opens and closes of
# 60 to 200 ms, under worker_wait, with its "[runnable]" part inside
# (tests/tools/export_stacks.py speedscope-events, which fails on a close
# that is not of the frame open last).  The SVG opens in Debian's Chromium
# and firefox-esr (tests/browser/heatmap_test.js in its capture mode): the
# stalls' cells among the hottest, ?t= of a range without a stall drawn
# without the stall's stack, of one with a stall with it.  A browser is
# skipped only when it cannot be installed (tests/browser/setup.sh).
. "$(dirname "$0")/lib.sh"
can_capture timeline_views || exit 0
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/stall" "$TOP/tests/workloads/stall.c" ||
	{ fail timeline_views_build "cannot compile stall.c"; exit 0; }

"$TMPD/stall" 5 80 "$TMPD/tids" & SP=$!
trap 'kill $SP 2> /dev/null; rm -rf "$TMPD"' EXIT
"$OFFWAKE" -q --timeline -o "$TMPD/v.svg" -p $SP 4 2> "$TMPD/v.err" & A=$!
"$OFFWAKE" -q --timeline --format=speedscope -o "$TMPD/v.json" -p $SP 4 2> "$TMPD/s.err"; sb=$?
wait $A; sa=$?
if [ $sa -ne 0 ] || [ $sb -ne 0 ] || [ ! -s "$TMPD/v.svg" ] || [ ! -s "$TMPD/v.json" ]; then
	fail timeline_views_capture "status $sa/$sb: $(head -c 300 "$TMPD/v.err") $(head -c 300 "$TMPD/s.err")"
	exit 0
fi
pass timeline_views_capture

# ---- speedscope: the worker's evented profile ------------------------
if python3 "$TOP/tests/tools/export_stacks.py" speedscope-events "$TMPD/v.json" > "$TMPD/s.ev" 2> "$TMPD/s.msg" &&
   grep -q ' ow_worker;' "$TMPD/s.ev"; then
	pass timeline_views_speedscope_evented
else
	fail timeline_views_speedscope_evented "$(head -c 300 "$TMPD/s.msg") $(cut -d' ' -f4 "$TMPD/s.ev" | cut -d';' -f1 | sort | uniq -c | tr '\n' ' ')"
fi
grep -a ' ow_worker;' "$TMPD/s.ev" | awk '$2 >= 50e6' > "$TMPD/long"
stall_lengths timeline_views_speedscope_stalls "$TMPD/long" 4
bad=$(awk '$4 !~ /;worker_wait;read;/ || $3 <= 0 || $3 >= $2 { print $1, $2, $3, substr($4, 1, 200) }' "$TMPD/long" | head -2)
if [ -s "$TMPD/long" ] && [ -z "$bad" ]; then
	pass timeline_views_speedscope_stall_stacks
else
	fail timeline_views_speedscope_stall_stacks "stall blocks not under worker_wait or without a runnable part inside: $bad"
fi

# ---- the heat map in the browsers --------------------------------------
. "$TOP/tests/browser/setup.sh"
pick_browsers "timeline_views heatmap"
for b in $browsers; do
	CHROMIUM=$CHROMIUM FIREFOX=$FIREFOX node "$BROWSER_DIR/heatmap_test.js" "$TMPD/v.svg" "$b" capture |
		sed -u "s/^\(PASS\|FAIL\|SKIP\): heatmap: /\1: timeline_views heatmap ($b): /"
	st=${PIPESTATUS[0]}
	[ "$st" -eq 0 ] || fail "timeline_views heatmap ($b): heatmap_test.js" "exited with status $st"
done
exit 0
