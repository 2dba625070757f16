#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_live.sh - CFI unwinding of what appears while a capture runs:
# a process started during a system-wide capture (its tables are built
# when it is first seen; its stacks are whole from then on), a library
# loaded with dlopen() during a -p capture (its table is added within a
# few seconds), and --unwind-memory too small for the tables (a warning
# naming the option, frame pointers for what did not fit, the capture
# still written).  Workloads are built -O2 -fomit-frame-pointer: only
# unwind tables walk them.  Needs root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

if [ "$(id -u)" != 0 ]; then
	skip unwind_live "needs root (BPF)"
	exit 0
fi
if [ ! -r /sys/kernel/btf/vmlinux ] || [ "$(uname -m)" != x86_64 ]; then
	skip unwind_live "needs kernel BTF on x86_64"
	exit 0
fi
CF=(-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -pthread)
if ! { cc "${CF[@]}" -o "$TMPD/chain" "$WL/chain.c" "$WL/chainlib.c" &&
       cc "${CF[@]}" -shared -fPIC -o "$TMPD/libowchain.so" "$WL/chainlib.c" &&
       cc "${CF[@]}" -o "$TMPD/chainso" "$WL/chain.c" -L"$TMPD" -lowchain \
	  -Wl,-rpath,"$TMPD" &&
       cc "${CF[@]}" -o "$TMPD/chaindl" "$WL/chaindl.c" -ldl; } 2> "$TMPD/cc.err"; then
	fail unwind_live_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi

whole_blocked='^ow_chain;_start;__libc_start_main[^;]*;__libc_start_call_main;main;f1;f2;f3;f4;f5;f6;(__GI___libc_read|__libc_read|read);'

# 1. A process that starts after the capture: no -p, so no table before
# it is seen; its first blocks (before the table is built) are walked by
# frame pointers, every later one by its tables.
"$OFFWAKE" -f -u 6 > "$TMPD/new" 2> "$TMPD/new.err" & OW=$!
if attached $OW; then
	"$TMPD/chain" 5 thread > /dev/null
	wait $OW; st=$?
	pct=$(share "$TMPD/new" "$whole_blocked" '^ow_chain;.*anon_pipe_read')
	# (tables come tens of ms after the start here, more under ASan
	# on a busy machine: most of 5 s must be whole)
	if [ $st -eq 0 ] && [ "$pct" -ge 60 ]; then
		pass "unwind_live_new_process ($pct% of its blocked time whole)"
	else
		fail unwind_live_new_process "status $st, $pct% of ow_chain's read time with whole stacks"
	fi
	if grep -q 'tables in place [0-9]* ms after a process was seen' "$TMPD/new.err"; then
		pass unwind_live_lag_reported
	else
		fail unwind_live_lag_reported "no table latency in: $(head -c 300 "$TMPD/new.err")"
	fi
else
	kill $OW 2> /dev/null
	fail unwind_live_new_process "the capture did not attach"
fi

# 1b. The same with f4..f6 in a library no other process maps: its
# table is not in the first ones, the program's and libc's (the quick
# pass, native_maps.c: update()), but built when a walk meets it; the
# stacks through it meanwhile wait for it (deferred), so they are whole
# too, not cut at the library.
"$OFFWAKE" -f -u 6 > "$TMPD/newso" 2> "$TMPD/newso.err" & OW=$!
if attached $OW; then
	"$TMPD/chainso" 5 thread > /dev/null
	wait $OW; st=$?
	pct=$(share "$TMPD/newso" "$whole_blocked" '^ow_chain;.*anon_pipe_read')
	quick=$(grep -oE '[0-9]+ quick passes' "$TMPD/newso.err" | cut -d' ' -f1)
	wanted=$(grep -oE '[0-9]+ processes given the rest when a walk met it' "$TMPD/newso.err" | cut -d' ' -f1)
	if [ $st -eq 0 ] && [ "$pct" -ge 60 ] && [ "${quick:-0}" -ge 1 ] && [ "${wanted:-0}" -ge 1 ]; then
		pass "unwind_live_new_process_library ($pct% of its blocked time whole; $quick quick passes, $wanted given the rest when a walk met it)"
	else
		fail unwind_live_new_process_library "status $st, $pct% of ow_chain's read time with whole stacks, quick passes: ${quick:-none}, the rest on a miss: ${wanted:-none}; cut: $(grep '^ow_chain;' "$TMPD/newso" | grep -vE "$whole_blocked" | head -3 | cut -c1-200 | tr '\n' '|')"
	fi
else
	kill $OW 2> /dev/null
	fail unwind_live_new_process_library "the capture did not attach"
fi

# 2. dlopen during a -p capture: blocks through the library's f4..f6,
# once its table is in, reach main.
# (the library is loaded once the capture has traced a while: a file
# says when)
"$TMPD/chaindl" 9 "$TMPD/go" "$TMPD/libowchain.so" > "$TMPD/dl.out" & DL=$!
for _ in $(seq 100); do [ -s "$TMPD/dl.out" ] && break; sleep 0.02; done
"$OFFWAKE" -f -p $DL 6 > "$TMPD/dl" 2> "$TMPD/dl.err" & OW=$!
attached $OW && sleep 1.5
touch "$TMPD/go"
wait $OW; st=$?
kill $DL 2> /dev/null
wait $DL
whole_dl='^ow_chaindl;_start;__libc_start_main[^;]*;__libc_start_call_main;main;g1;g2;g3;f4;f5;f6;(__GI___libc_read|__libc_read|read);'
pct=$(share "$TMPD/dl" "$whole_dl" '^ow_chaindl;(.*;)?f6;.*anon_pipe_read')
# the table is added within a few seconds: at least the last half whole
if [ $st -eq 0 ] && [ "$pct" -ge 50 ]; then
	pass "unwind_live_dlopen ($pct% of the time blocked in the library whole)"
else
	fail unwind_live_dlopen "status $st, $pct% whole: $(grep -m1 ';f6;' "$TMPD/dl" | head -c 300)"
fi
if grep -qE '^ow_chaindl;_start;.*;main;g1;g2;g3;g4;(__GI___libc_read|__libc_read|read);' "$TMPD/dl"; then
	pass unwind_live_before_dlopen
else
	fail unwind_live_before_dlopen "no whole stack through g4 before the dlopen"
fi

# 3. Tables larger than --unwind-memory: said, and the capture still
# written (frame pointers for the files that did not fit).
"$OFFWAKE" -f -u --unwind-memory 1 2 > "$TMPD/small" 2> "$TMPD/small.err"; st=$?
if [ $st -eq 0 ] && [ -s "$TMPD/small" ] &&
   grep -q 'tables did not fit --unwind-memory=1: .*raise it' "$TMPD/small.err"; then
	pass unwind_live_memory_limit
else
	fail unwind_live_memory_limit "status $st: $(head -c 400 "$TMPD/small.err")"
fi

# 4. Blocks before any table could be built: a command the capture starts
# (-- sh -c: a child of the shell, exec'd after tracing started) and a
# process started during a system-wide capture block at once and for long
# (the main thread on its input, a thread in nanosleep).  Their stacks are
# deferred (a copy of the stack's top, walked once the tables are in):
# whole from the first block, where frame pointers gave one frame.
if cc "${CF[@]}" -o "$TMPD/ow_first" "$WL/firstblock.c" 2> "$TMPD/cc.err"; then
	first_main='^ow_first;_start;__libc_start_main[^;]*;__libc_start_call_main;main;b1[^;]*;b2[^;]*;b3[^;]*;'
	first_thread='^ow_first;[^;]*clone[^;]*;start_thread;sleeper[^;]*;t1[^;]*;t2[^;]*;'
	# first_check NAME FILE STATUS
	first_check() {
		local m t
		# (the blocked side's kernel frames: before the first '-')
		m=$(share "$2" "$first_main" '^ow_first;[^-]*pipe_read;')
		t=$(share "$2" "$first_thread" '^ow_first;[^-]*do_nanosleep;')
		if [ "$3" -eq 0 ] && [ "$m" -ge 90 ] && [ "$t" -ge 90 ]; then
			pass "unwind_live_first_block_$1 (main $m%, thread $t% whole)"
		else
			fail "unwind_live_first_block_$1" "status $3; whole: main $m%, thread $t% (want 90): $(grep -m2 '^ow_first;' "$2" | cut -c1-200 | tr '\n' '|')"
		fi
	}
	"$OFFWAKE" -f -- sh -c "(sleep 2; echo x) | $TMPD/ow_first 2" > "$TMPD/first" 2> "$TMPD/first.err"
	first_check cmd "$TMPD/first" $?
	# (every new process's first stacks are copies, 16 KiB each: room
	# for a busy machine's, so none is walked by frame pointers instead)
	"$OFFWAKE" -f -u --ring-buffer-size 64 6 > "$TMPD/firsta" 2> "$TMPD/firsta.err" & OW=$!
	if attached $OW; then
		(sleep 2; echo x) | "$TMPD/ow_first" 2
		wait $OW
		first_check system "$TMPD/firsta" $?
	else
		kill $OW 2> /dev/null
		fail unwind_live_first_block_system "the capture did not attach"
	fi
	if grep -q 'deferred user stacks (their tables not in place yet): [1-9]' "$TMPD/first.err"; then
		pass unwind_live_deferred_reported
	else
		fail unwind_live_deferred_reported "no deferred stacks counted: $(head -c 400 "$TMPD/first.err")"
	fi
else
	fail unwind_live_first_block_build "$(head -c 300 "$TMPD/cc.err")"
fi
