#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_ustack_cache.sh - the user stack cache (bpf/ustack_cache.bpf.h, issue
# 31): a task's user stack taken again from its last one there, when its
# registers and every word its CFI walk read are unchanged, must be the
# stack the walk gives.  The checks:
# - tests/workloads/twin_callers.c (ow_twin blocked in read() through
#   twin_a and twin_b in turn, the same registers both ways: only a return
#   address on the stack tells them apart), with OFFWAKE_USTACK_CHECK=1
#   (each hit walked too, the ones that differ counted; the summary
#   warns): most stacks come from the cache, none differs;
# - the same without the check (the cache's own answers): twin_a and
#   twin_b each have half of ow_twin's blocked time (a cache that trusted
#   the registers gives one of them nearly all of it); the same with
#   --unwind=fp (frame-pointer walks are kept too);
# - without the cache (OFFWAKE_USTACK_CACHE=0): the same blocked-in-read()
#   stacks, and no summary line for it;
# - a system-wide capture with the check: none differs.
# Needs root and kernel BTF.
. "$(dirname "$0")/lib.sh"
WL=$(cd "$(dirname "$0")/workloads" && pwd)

can_unwind ustack_cache || exit 0
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/twin" "$WL/twin_callers.c" ||
	{ fail ustack_cache_build "cannot compile twin_callers.c"; exit 0; }

# hits FILE.err: "H N" from the summary's "user stacks: H of N ..."
hits() {
	sed -nE 's/.*user stacks: ([0-9]+) of ([0-9]+) .*/\1 \2/p' "$1"
}
# (by frame pointers, the frame of twin_wait, which read() leaves rbp
# pointing into, is not seen: twin_a;read)
twin() { sum_us "$TMPD/$1" "^ow_twin;.*;twin_$2;(twin_wait;)?read;"; }

OFFWAKE_USTACK_CHECK=1 cap checked -- "$TMPD/twin" 2
read -r h n <<< "$(hits "$TMPD/checked.err")"
if [ "${n:-0}" -ge 300 ] && [ "$((h * 100))" -ge "$((n * 80))" ] &&
   ! grep -q 'differed from the walk' "$TMPD/checked.err"; then
	pass ustack_cache_hits
else
	fail ustack_cache_hits "hits ${h:-?} of ${n:-?} (want >= 80% of >= 300, none differing): $(grep -a 'user stacks:' "$TMPD/checked.err")"
fi

# halves TEST OUT [ARGS...]: a capture of the twin workload (with ARGS)
# into OUT, in which the cache had hits and twin_a and twin_b each have
# 35-65% of ow_twin's blocked time in read()
halves() {
	local t=$1 out=$2 a b
	shift 2
	cap "$out" "$@" -- "$TMPD/twin" 2
	a=$(twin "$out" a)
	b=$(twin "$out" b)
	if [ "$a" -gt 0 ] && [ "$((a * 100))" -ge "$(((a + b) * 35))" ] &&
	   [ "$((a * 100))" -le "$(((a + b) * 65))" ] &&
	   [ "$(hits "$TMPD/$out.err" | cut -d' ' -f1)" -gt 0 ]; then
		pass "$t"
	else
		fail "$t" "twin_a ${a} us, twin_b ${b} us (want each 35-65%): $(grep -a 'user stacks:' "$TMPD/$out.err")"
	fi
}
halves ustack_cache_twin_callers cached
# frame pointers only (--unwind=fp): their walks are kept too
halves ustack_cache_frame_pointers fp --unwind=fp

OFFWAKE_USTACK_CACHE=0 cap walked -- "$TMPD/twin" 2
a=$(twin walked a)
b=$(twin walked b)
# blocked-in-read() stacks, waker side cut off (preemptions and the
# exit path land where the scheduler happens to put them: other stacks
# in each run, cache or not; OFFWAKE_USTACK_CHECK covers those above)
in_read() {
	grep -aE '^ow_twin;.*;twin_[ab];twin_wait;read;' "$TMPD/$1" |
		sed -E 's/ [0-9]+$//; s/;--;.*//' | sort -u
}
if [ "$a" -gt 0 ] && [ "$b" -gt 0 ] &&
   ! grep -q 'user stacks: [0-9]* of' "$TMPD/walked.err" &&
   [ "$(in_read cached)" = "$(in_read walked)" ]; then
	pass ustack_cache_off
else
	fail ustack_cache_off "without the cache: twin_a ${a} us, twin_b ${b} us, or other stacks than with it: $(grep -a 'user stacks:' "$TMPD/walked.err") $(diff <(in_read cached) <(in_read walked) | grep '^[<>]' | head -4 | tr '\n' ' ')"
fi

# system-wide, with the workload beside whatever else runs
"$TMPD/twin" 3 & wl=$!
OFFWAKE_USTACK_CHECK=1 cap wide 2
wait "$wl"
read -r h n <<< "$(hits "$TMPD/wide.err")"
if [ "${h:-0}" -ge 50 ] && ! grep -q 'differed from the walk' "$TMPD/wide.err"; then
	pass ustack_cache_system_wide
else
	fail ustack_cache_system_wide "$(grep -a 'user stacks:' "$TMPD/wide.err")"
fi
