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
#   4  /tmp/perf-PID.map is used only when a regular file owned by root or
#      by the process's user.
# The unit-level parts live in tests/unit/unit_hardening2.c.
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
ASAN=${SANITIZE:-0}
nm -an "$OFFWAKE" 2>/dev/null | grep -q __asan_init && ASAN=1
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
