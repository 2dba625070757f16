#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_memory.sh - a capture lets go of what it keeps about processes once
# they are gone: short-lived "JIT" processes (tests/workloads/jitmap.c,
# one after another, each with its /tmp/perf-PID.map) are traced, their
# JIT frames must be named in the output, and the capture's last memory
# sample (OFFWAKE_MEMSTATS, src/capture/memstats.c), taken seconds after
# the last one exited, must hold none of their perf maps.  Then sleepers
# (tests/workloads/sleeper.c, woken by the timer interrupt) beside a
# process busy in the kernel (dd: the interrupts land anywhere in its
# kernel code, so each wakeup's kernel stack is new): those stacks must be
# given up once idle (OFFWAKE_STACKS_IDLE=2: after 2 + 2 s), with no stack
# missed.  (make soak looks at every table at scale, for ten minutes.)  Needs root, kernel BTF and x86-64; skips
# with the reason otherwise.
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads
N=30

can_capture memory || exit 0
if [ "$(uname -m)" != x86_64 ]; then
	skip memory "the JIT stub is x86-64 code"
	exit 0
fi
for w in jitmap sleeper; do
	if ! cc -O1 -fno-omit-frame-pointer -o "$TMPD/$w" "$WL/$w.c" 2> "$TMPD/cc.err"; then
		fail memory_build "cannot compile $w.c: $(head -c 200 "$TMPD/cc.err")"
		exit 0
	fi
done
jits=()
busy=()
cleanup() {
	[ -n "$cap" ] && kill "$cap" 2> /dev/null
	for p in "${busy[@]}"; do kill "$p" 2> /dev/null; done
	for p in "${jits[@]}"; do rm -f "/tmp/perf-$p.map"; done
	rm -rf "$TMPD"
}
trap cleanup EXIT

# 30 processes of 150 ms, then 8 s before the capture ends: each is gone
# for longer than the perf maps' and procmaps' grace (5 and 3 + 3 s).
OFFWAKE_MEMSTATS=$TMPD/mem "$OFFWAKE" -f -o "$TMPD/out" 14 2> "$TMPD/err" &
cap=$!
if ! attached "$cap"; then
	fail memory_capture "the capture did not attach in 20 s: $(head -c 300 "$TMPD/err")"
	exit 0
fi
start=$SECONDS
for i in $(seq "$N"); do
	"$TMPD/jitmap" 150 jit_memtest_stub & jits+=($!)
	wait "${jits[-1]}"
done
wait "$cap"; st=$?
cap=
last=$(tail -n 1 "$TMPD/mem" 2> /dev/null)
val() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$last"; }
named=$(grep -c 'jit_memtest_stub' "$TMPD/out")
if [ "$st" -eq 0 ] && [ "$named" -gt 0 ]; then
	pass memory_jit_named
else
	fail memory_jit_named "status $st, the stub named in $named lines: $(head -c 300 "$TMPD/err")"
fi
# the JIT processes ran $((SECONDS - start)) s of the 14
if [ -n "$last" ] && [ "$(val jit_maps)" -le 2 ]; then
	pass memory_perfmaps_let_go
else
	fail memory_perfmaps_let_go "$(val jit_maps) perf maps kept of $N processes gone: $last"
fi

# Interrupts' wakeups: 16 s, their stacks given up 4-5 s after last used.
timeout 20 dd if=/dev/zero of=/dev/null bs=64k 2> /dev/null & busy+=($!)
"$TMPD/sleeper" 20 & busy+=($!)
"$TMPD/sleeper" 20 & busy+=($!)
OFFWAKE_STACKS_IDLE=2 OFFWAKE_MEMSTATS=$TMPD/mem2 "$OFFWAKE" -o "$TMPD/irq.svg" 16 2> "$TMPD/err2"; st=$?
for p in "${busy[@]}"; do kill "$p" 2> /dev/null; done
busy=()
last=$(tail -n 1 "$TMPD/mem2" 2> /dev/null)
seen=$(val irq_seen); kept=$(val irq_stacks)
if [ "$st" -ne 0 ] || [ -z "$last" ]; then
	fail memory_irq_stacks_let_go "status $st, no memory sample: $(head -c 300 "$TMPD/err2")"
elif [ "$seen" -lt 40 ]; then
	skip memory_irq_stacks_let_go "only $seen kernel stacks of interrupts' wakeups in 16 s"
elif [ $((kept * 2)) -le "$seen" ]; then
	pass memory_irq_stacks_let_go
else
	fail memory_irq_stacks_let_go "$kept kernel stacks of interrupts' wakeups kept of $seen: $last"
fi
if [ "$st" -eq 0 ] && ! grep -q 'stacks never received' "$TMPD/err2"; then
	pass memory_irq_nothing_lost
else
	fail memory_irq_nothing_lost "status $st: $(grep -m1 'never received' "$TMPD/err2")"
fi
