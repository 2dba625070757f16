#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_kstack_cache.sh - the kernel stack cache (bpf/kstack_cache.bpf.h,
# issue 31): a task's kernel stack taken again from its last one there,
# by replaying the kernel's ORC walk, must be the stack the kernel's own
# walk gives.  OFFWAKE_KSTACK_CHECK=1 makes every hit walk the stack too
# and count the ones that differ (the summary warns); the checks:
# - tests/workloads/pingpong.c (ow_pong blocked in pipe_read, woken by
#   ow_ping's write, which sleeps in nanosleep: three kernel stacks, each
#   taken about 300 times, all through system calls, whose frames the
#   kernel moves by a random offset each time): most stacks not taken on
#   an interrupt's stack come from the cache, none differs;
# - the stacks kept are flattened (kc_replay_flat()), and with that off
#   (OFFWAKE_KSTACK_FLAT=0, the general loop) the hits are as many, none
#   differing;
# - the same workload without the cache (OFFWAKE_KSTACK_CACHE=0): the same
#   stacks, the summary says why there is no cache;
# - a system-wide capture (kernel threads, interrupts, every stack the VM
#   has) with the check: none differs.
# Needs root and kernel BTF.
. "$(dirname "$0")/lib.sh"
WL=$(cd "$(dirname "$0")/workloads" && pwd)

can_capture kstack_cache || exit 0
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/pingpong" "$WL/pingpong.c" ||
	{ fail kstack_cache_build "cannot compile pingpong.c"; exit 0; }

# hits FILE.err: "H N I" from the summary's "kernel stacks: H of N ...
# (I on an interrupt's stack)" (those are walked: the timer interrupt that
# ends ow_ping's nanosleep wakes it from the interrupt's stack, when it
# came while the CPU was idle)
hits() {
	sed -nE 's/.*kernel stacks: ([0-9]+) of ([0-9]+) .*\(([0-9]+) on an interrupt.*/\1 \2 \3/p' "$1"
}
# the heaviest line of ow_pong reading the pipe, without its count
pong_stack() {
	grep -aE '^ow_pong;.*pong_wait;read;' "$TMPD/$1" | sort -t' ' -k2 -n |
		tail -1 | sed -E 's/ [0-9]+$//'
}

OFFWAKE_KSTACK_CHECK=1 cap cached -- "$TMPD/pingpong" 3 "$TMPD/tids"
read -r h n i <<< "$(hits "$TMPD/cached.err")"
if [ "${n:-0}" -ge 200 ] && [ "$((h * 100))" -ge "$(((n - i) * 80))" ] &&
   ! grep -q 'differed from the kernel' "$TMPD/cached.err"; then
	pass kstack_cache_hits
else
	fail kstack_cache_hits "hits ${h:-?} of ${n:-?} - ${i:-?} (want >= 80% of >= 200 not on an interrupt's stack, none differing): $(grep -a 'kernel stacks' "$TMPD/cached.err")"
fi

# the replay flattened (kc_replay_flat()): the stacks kept are, and the
# hits are as many, with none differing, as by the general loop
# (OFFWAKE_KSTACK_FLAT=0)
flat() { sed -nE 's/.*kernel stacks: .* ([0-9]+) of them kept for the next time \(([0-9]+) flattened\).*/\1 \2/p' "$1"; }
read -r k f <<< "$(flat "$TMPD/cached.err")"
if [ "${k:-0}" -ge 1 ] && [ "$((${f:-0} * 2))" -ge "$k" ]; then
	pass kstack_cache_flattened
else
	fail kstack_cache_flattened "${f:-?} of ${k:-?} kept stacks flattened (want at least half): $(grep -a 'kernel stacks' "$TMPD/cached.err")"
fi
OFFWAKE_KSTACK_FLAT=0 OFFWAKE_KSTACK_CHECK=1 cap general -- "$TMPD/pingpong" 3 "$TMPD/tids5"
read -r h n i <<< "$(hits "$TMPD/general.err")"
read -r k f <<< "$(flat "$TMPD/general.err")"
if [ "${n:-0}" -ge 200 ] && [ "$((h * 100))" -ge "$(((n - i) * 80))" ] &&
   [ "${f:-1}" = 0 ] && ! grep -q 'differed from the kernel' "$TMPD/general.err"; then
	pass kstack_cache_general_replay
else
	fail kstack_cache_general_replay "hits ${h:-?} of ${n:-?} - ${i:-?}, ${f:-?} flattened (want >= 80%, none flattened, none differing): $(grep -a 'kernel stacks' "$TMPD/general.err")"
fi

cap walked -- "$TMPD/pingpong" 3 "$TMPD/tids2"
ca=$(pong_stack cached)
wa=$(pong_stack walked)
if [ -n "$ca" ] && [ "$ca" = "$wa" ] &&
   [[ "$ca" == *"pipe_read;schedule;__schedule;--;"* ]]; then
	pass kstack_cache_same_stack
else
	fail kstack_cache_same_stack "cached: '$ca' / walked: '$wa'"
fi

OFFWAKE_KSTACK_CACHE=0 cap off -- "$TMPD/pingpong" 1 "$TMPD/tids3"
if grep -q 'kernel stacks: all walked (no cache: OFFWAKE_KSTACK_CACHE=0)' "$TMPD/off.err" &&
   [ -n "$(pong_stack off)" ]; then
	pass kstack_cache_off
else
	fail kstack_cache_off "$(grep -a 'kernel stacks' "$TMPD/off.err")"
fi

# system-wide, with the workload beside whatever else runs
"$TMPD/pingpong" 4 "$TMPD/tids4" & wl=$!
OFFWAKE_KSTACK_CHECK=1 cap wide 2
wait "$wl"
read -r h n i <<< "$(hits "$TMPD/wide.err")"
if [ "${h:-0}" -ge 50 ] && ! grep -q 'differed from the kernel' "$TMPD/wide.err"; then
	pass kstack_cache_system_wide
else
	fail kstack_cache_system_wide "$(grep -a 'kernel stacks' "$TMPD/wide.err")"
fi
