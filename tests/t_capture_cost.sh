#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_capture_cost.sh - what the capture leaves out to cost less, checked for
# exactness (issue 31): a waker's stacks are not walked for a wakee blocked
# for less than half of -m so far (tests/workloads/earlywake.c wakes
# ow_early early, then keeps its CPU busy with a SCHED_FIFO thread, so the
# block is kept anyway): the blocked time is still all there (within 2% of
# the workload's own measure), those blocks name their waker with its
# stacks missing, and the loss is counted; with -m small enough, the same
# wakeups have their waker's stacks.  The counts are exact whether a key
# has a slot or goes to the hash maps.  Needs root and kernel BTF.
. "$(dirname "$0")/lib.sh"
OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
WL=$(cd "$(dirname "$0")/workloads" && pwd)

can_capture capture_cost || exit 0
[ "$(nproc)" -ge 2 ] || { pass "capture_cost (skipped: one CPU)"; exit 0; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/earlywake" "$WL/earlywake.c" ||
	{ fail capture_cost_build "cannot compile earlywake.c"; exit 0; }

# run NAME -m US WAKE_US: earlywake's 30 blocks (its measure in NAME.us),
# folded capture of it in NAME
run() {
	"$OFFWAKE" -f -m "$2" -o "$TMPD/$1" -- "$TMPD/earlywake" 30 "$3" 10 \
		> "$TMPD/$1.us" 2> "$TMPD/$1.err"
}
# blocked time of ow_early in read() (us), in the capture NAME
read_us() { grep -E '^ow_early;.*early_wait;read;' "$TMPD/$1" | awk '{ s += $NF } END { print s + 0 }'; }
# within 2% of the workload's own measure
exact() {
	local got want
	got=$(read_us "$1")
	want=$(cat "$TMPD/$1.us")
	[ -n "$want" ] && awk -v g="$got" -v w="$want" 'BEGIN { exit !(w > 0 && g >= w * 0.98 && g <= w * 1.02) }'
}

# woken 50 us after blocking, under -m 4000: early (before 2 ms)
run early 4000 50
early=$(grep -oE '[0-9]+ blocks woken before half of -m' "$TMPD/early.err" | cut -d' ' -f1)
if [ "${early:-0}" -ge 1 ] &&
   grep -qE '^ow_early;.*early_wait;read;.*anon_pipe_read;schedule;__schedule;--;\[Missed Kernel Stack\];\[Missed User Stack\];ow_waker [0-9]+$' "$TMPD/early"; then
	pass "capture_cost_waker_early ($early blocks kept without their waker's stacks, counted)"
else
	fail capture_cost_waker_early "want the loss counted and ow_waker with missed stacks: $(head -c 600 "$TMPD/early.err")"
fi
if exact early; then
	pass "capture_cost_early_exact ($(read_us early) us of $(cat "$TMPD/early.us") measured)"
else
	fail capture_cost_early_exact "ow_early blocked $(read_us early) us in the capture, $(cat "$TMPD/early.us") us measured (want within 2%)"
fi

# the same wakeups under -m 20 (half: 10 us): every waker's stack taken
# (ow_early's; another thread's block may be woken within 10 us)
run late 20 50
missed=$(grep -E '^ow_early;.*early_wait;read;' "$TMPD/late" | grep -c 'Missed')
if [ "$missed" = 0 ] &&
   grep -qE '^ow_early;.*early_wait;read;.*;--;.*anon_pipe_write;.*;__write;waker_wake;waker;start_thread;__clone3;ow_waker [0-9]+$' "$TMPD/late"; then
	pass capture_cost_waker_late
else
	fail capture_cost_waker_late "want every wakeup with its waker's stacks: $missed lines of ow_early's reads with missed stacks; their wakers: $(grep -E '^ow_early;.*early_wait;read;' "$TMPD/late" | sed 's/.*;--;//' | cut -c1-200 | tr '\n' '|'); $(head -c 300 "$TMPD/late.err")"
fi
if exact late; then
	pass "capture_cost_late_exact ($(read_us late) us of $(cat "$TMPD/late.us") measured)"
else
	fail capture_cost_late_exact "ow_early blocked $(read_us late) us in the capture, $(cat "$TMPD/late.us") us measured (want within 2%)"
fi

# The counts: a task's blocks with the key of its last add to its slot
# (bpf: add_count()); keys past a period's slots go to the counts hash
# maps.  With no slot at all (OFFWAKE_COUNT_SLOTS=0) and with one (the
# rest by the hash maps), the blocked time is still all there.
for n in 0 1; do
	OFFWAKE_COUNT_SLOTS=$n run "slots$n" 20 50
	if exact "slots$n"; then
		pass "capture_cost_count_slots_${n}_exact ($(read_us "slots$n") us of $(cat "$TMPD/slots$n.us") measured)"
	else
		fail "capture_cost_count_slots_${n}_exact" "with OFFWAKE_COUNT_SLOTS=$n ow_early blocked $(read_us "slots$n") us in the capture, $(cat "$TMPD/slots$n.us") us measured (want within 2%)"
	fi
done

# Blocks all shorter than -m walk (almost) no stack: neither the blocked
# side's (taken at the end of schedule() once a block is kept, where the
# kernel has it) nor the waker's.  ow_pong blocks 10 ms at a time; -m is
# the capture's 1 s, so that no block is kept however busy the VM: before,
# every switch-out and wakeup walked a user stack.
if ! grep -qa btf_trace_sched_exit_tp /sys/kernel/btf/vmlinux; then
	pass "capture_cost_short_blocks_unwalked (skipped: no sched_exit_tp, kernel before 6.16)"
	exit 0
fi
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/pingpong" "$WL/pingpong.c" ||
	{ fail capture_cost_build "cannot compile pingpong.c"; exit 0; }
"$TMPD/pingpong" 10 "$TMPD/tids" & PP=$!
trap 'kill $PP 2>/dev/null; rm -rf "$TMPD"' EXIT
for _ in $(seq 50); do [ -s "$TMPD/tids" ] && break; sleep 0.1; done
"$OFFWAKE" -f -m 1000000 -p "$PP" -o "$TMPD/short" 1 2> "$TMPD/short.err"
switches=$(grep -oE 'went off CPU [0-9]+ times' "$TMPD/short.err" | grep -oE '[0-9]+')
walks=$(grep -oE 'user stacks: [0-9]+ by unwind tables, [0-9]+ by tables and frame pointers, [0-9]+ by frame pointers only' "$TMPD/short.err" |
	grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
if [ "${switches:-0}" -ge 50 ] && [ $((walks * 10)) -lt "$switches" ]; then
	pass "capture_cost_short_blocks_unwalked ($walks user stacks walked for $switches switch-outs, all shorter than -m)"
else
	fail capture_cost_short_blocks_unwalked "$walks user stacks walked for ${switches:-?} switch-outs shorter than -m (want under a tenth): $(head -c 600 "$TMPD/short.err")"
fi
