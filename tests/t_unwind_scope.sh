#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_scope.sh - which processes get unwind tables (issue 29, item 2):
# only the traced ones and the wakers whose user stacks are shown.
# 1. -p on ow_sleep (tests/workloads/sleeper.c, woken by the timer
#    interrupt) while processes it has nothing to do with run: a spinner on
#    each CPU (the timer interrupts that wake ow_sleep land on them: an
#    interrupt's waker is not shown, so not walked) and a program started
#    meanwhile that blocks and wakes itself (its exec is not ours).  The
#    summary must count tables for 1 process, and no more files than
#    ow_sleep maps.  Before, the interrupted spinners and every exec on the
#    machine asked for tables (here: 51 files for -p on one process).
# 2. -p on ow_chain (tests/workloads/chain.c, fork mode): its waker is
#    another process, ow_chainw, which must still get its tables (2
#    processes) and whole stacks.
# 3. 1 again with the spinners running before the capture starts and a
#    gap of 300 ms right after attaching (OFFWAKE_ARM_DELAY_MS): the
#    waking program works there already (it is not held back until
#    armed), and the system call entry its process-context test needs was
#    set only after attaching, so a spinner interrupted in user mode
#    passed for a waker in its system call and got tables (a start of
#    1.2 s put 1's spinners, started 1 s in, in the few ms of that gap: 4
#    or 30 files for 2 processes, half the runs; here 5 of 5 before).
# Needs root, BPF, cc (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_unwind unwind_scope || exit 0
printf 'int main(void) { volatile long i = 0; for (;;) i++; }\n' > "$TMPD/spin.c"
if ! { cc "${CF_NOFP[@]}" -o "$TMPD/ow_sleep" "$WL/sleeper.c" &&
       cc "${CF_NOFP[@]}" -o "$TMPD/ow_spin" "$TMPD/spin.c" &&
       cc "${CF_NOFP[@]}" -o "$TMPD/ow_chain" "$WL/chain.c" "$WL/chainlib.c"; } 2> "$TMPD/cc.err"; then
	fail unwind_scope_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi

# tables N: "FILES PROCS" from the summary of capture N
tables() {
	sed -n 's/.*unwind tables: \([0-9]*\) files (\([0-9]*\) process.*/\1 \2/p' "$TMPD/$1.err"
}

# 1. nothing for the processes not traced
"$TMPD/ow_sleep" 10 & SL=$!
sleep 0.2	# (its libraries mapped: the files it has code in)
mapped=$(awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/$SL/maps | sort -u | wc -l)
{ sleep 1
  for cpu in 0 1; do taskset -c $cpu timeout 2 "$TMPD/ow_spin" & done
  "$TMPD/ow_chain" 2 thread > /dev/null
  wait; } & BG=$!
"$OFFWAKE" -f -p $SL 4 > "$TMPD/one" 2> "$TMPD/one.err"; st=$?
wait $BG
kill $SL 2> /dev/null
wait $SL 2> /dev/null
read -r files procs < <(tables one)
if [ $st -eq 0 ] && [ "${procs:-x}" = 1 ] && [ "${files:-99}" -le "$mapped" ]; then
	pass "unwind_scope_traced_only ($files files, $procs process)"
else
	fail unwind_scope_traced_only "status $st, ${files:-?} files for ${procs:-?} processes (want 1, at most $mapped files): $(grep 'unwind tables' "$TMPD/one.err")"
fi

# 2. a waker in another process gets its tables
"$TMPD/ow_chain" 10 fork > /dev/null & CH=$!
sleep 0.3
"$OFFWAKE" -f -p $CH 3 > "$TMPD/two" 2> "$TMPD/two.err"; st=$?
kill $CH 2> /dev/null
wait $CH 2> /dev/null
read -r files procs < <(tables two)
pct=$(awk '/;ow_chainw [0-9]+$/ { t += $NF
	if ($0 ~ /;(__GI___libc_write|__libc_write|__write|write);w6;w5;w4;w3;w2;w1;writer;main;__libc_start_call_main;__libc_start_main[^;]*;_start;ow_chainw [0-9]+$/) k += $NF }
	END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/two")
if [ $st -eq 0 ] && [ "${procs:-x}" = 2 ] && [ "$pct" -ge 90 ]; then
	pass "unwind_scope_waker_tables ($pct% of ow_chainw's wakeups whole, $procs processes)"
else
	fail unwind_scope_waker_tables "status $st, ${procs:-?} processes with tables (want 2), $pct% whole: $(grep 'unwind tables' "$TMPD/two.err")"
fi

# 3. nothing for the processes not traced before the capture is armed
"$TMPD/ow_sleep" 10 & SL=$!
for cpu in 0 1; do taskset -c $cpu timeout 4 "$TMPD/ow_spin" & done
sleep 0.2
OFFWAKE_ARM_DELAY_MS=300 "$OFFWAKE" -f -p $SL 1 > "$TMPD/three" 2> "$TMPD/three.err"; st=$?
kill $SL $(jobs -p) 2> /dev/null
wait 2> /dev/null
read -r files procs < <(tables three)
if [ $st -eq 0 ] && [ "${procs:-x}" = 1 ]; then
	pass "unwind_scope_before_armed ($files files, $procs process)"
else
	fail unwind_scope_before_armed "status $st, ${files:-?} files for ${procs:-?} processes (want 1): $(grep 'unwind tables' "$TMPD/three.err")"
fi
