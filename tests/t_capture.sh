#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_capture.sh - real eBPF capture tests of offwake-svg: small workloads of
# our own (tests/workloads/*.c, compiled here into $TMPD) are traced and
# the folded output is checked: blocking and waker stacks, the "--"
# divider, blocked time, every filter, frames of a process that exited
# during the capture, the SVG, -o, SIGINT, that no BPF program stays
# loaded, that a busy system-wide capture loses no stack, and how soon the
# output of a capture with many distinct stacks is written.  Needs root and kernel BTF; skips with the reason otherwise.
. "$(dirname "$0")/lib.sh"
OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
WL=$(cd "$(dirname "$0")/workloads" && pwd)

# Argument errors need no privileges.
out=$("$OFFWAKE" -p x 2>&1); st=$?
if [ $st -eq 2 ] && grep -q "^offwake-svg: error: argument -p/--pid: invalid int value: 'x'" <<<"$out"; then
	pass capture_bad_pid
else
	fail capture_bad_pid "status $st: $out"
fi
out=$("$OFFWAKE" -U -K 2>&1); st=$?
if [ $st -eq 2 ] && grep -q "not allowed with argument" <<<"$out"; then
	pass capture_exclusive_group
else
	fail capture_exclusive_group "status $st: $out"
fi

can_capture capture || exit 0
for w in pingpong sleeper shortlived manypaths; do
	if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/$w" "$WL/$w.c"; then
		fail capture_build "cannot compile $w.c"
		exit 0
	fi
done

"$TMPD/pingpong" 150 "$TMPD/tids" & PP=$!
"$TMPD/sleeper" 150 & SL=$!
trap 'kill $PP $SL 2>/dev/null; rm -rf "$TMPD"' EXIT
for _ in $(seq 50); do [ -s "$TMPD/tids" ] && break; sleep 0.1; done
read -r PING PONG < "$TMPD/tids"

# cap NAME ARGS...: folded capture into $TMPD/NAME (stderr in NAME.err).
cap() {
	local n=$1; shift
	"$OFFWAKE" -f "$@" > "$TMPD/$n" 2> "$TMPD/$n.err"
}
# sum_us FILE PATTERN: total count of the lines matching PATTERN.
sum_us() { grep -E "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'; }
# within V LO HI
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
has() { grep -qE "$2" "$TMPD/$1"; }

# The main case: both workloads, 2 seconds.
if cap main -p "$PP,$SL" 2; then pass capture_runs; else fail capture_runs "$(cat "$TMPD/main.err")"; fi
# The session's snapshot call (OFFWAKE_SNAPSHOT=FILE, a test setting: the
# output as it is now, every second, while the capture goes on): the file
# is there, with the sleeper's blocked time, before the capture ends; the
# final output has at least as much.
OFFWAKE_SNAPSHOT="$TMPD/snap" "$OFFWAKE" -f -p "$SL" 6 > "$TMPD/snapfinal" 2> "$TMPD/snap.err" & CP=$!
attached $CP
sleep 3.5
snap_live=no
kill -0 $CP 2> /dev/null && [ -s "$TMPD/snap" ] && snap_live=yes
snap_us=$(sum_us "$TMPD/snap" '^ow_sleep;')
wait $CP
final_us=$(sum_us "$TMPD/snapfinal" '^ow_sleep;')
if [ $snap_live = yes ] && [ "$snap_us" -ge 1000000 ] && [ "$final_us" -ge "$snap_us" ] &&
   [ "$final_us" -ge 4000000 ]; then
	pass "capture_snapshot (after 3.5 s of 6, while running: $snap_us us of ow_sleep; at the end $final_us us)"
else
	fail capture_snapshot "snapshot while running: $snap_live, $snap_us us (want >= 1 s); final $final_us us (want >= 4 s and >= the snapshot's)"
fi

# Whole user stacks (--unwind=auto, the default: unwind tables): every
# function, down to the threads' entries.  A frame-pointer walk (the raw_tp
# set) loses the callers of libc's read and write (pong_wait, ping_send:
# libc's wrappers set up no frame) and ends at __libc_start_call_main.
pong='^ow_pong;__clone3;start_thread;pong_loop;pong_wait;read;.*anon_pipe_read;schedule;__schedule;--;.*anon_pipe_write;.*;__write;ping_send;ping_loop;main;__libc_start_call_main;__libc_start_main;_start;ow_ping [0-9]+$'
pong_fp='^ow_pong;.*pong_loop;read;.*anon_pipe_read;schedule;__schedule;--;.*anon_pipe_write;.*;__write;ping_loop;main;.*ow_ping [0-9]+$'
check capture_pipe_stacks has main "$pong"
check capture_divider has main '^ow_pong;[^ ]*;--;'
us=$(sum_us "$TMPD/main" '^ow_pong;.*anon_pipe_read')
if within "$us" 1000000 2300000; then pass capture_pipe_time; else fail capture_pipe_time "ow_pong blocked ${us} us in a 2 s capture"; fi
check capture_nanosleep_stack has main '^ow_sleep;.*sleep_loop;.*do_nanosleep;schedule;__schedule;--;hrtimer_wakeup;'
us=$(sum_us "$TMPD/main" '^ow_sleep;.*do_nanosleep')
if within "$us" 1000000 2300000; then pass capture_nanosleep_time; else fail capture_nanosleep_time "ow_sleep blocked ${us} us in a 2 s capture"; fi
check capture_irq_marker has main '^ow_sleep;.*hrtimer_wakeup;.*;\[hardirq\];[^;]* [0-9]+$'
# ELF files forgotten at every sweep (OFFWAKE_FILE_IDLE=0) and read again:
# user frames are still named (the names shown are copies; the sanitiser
# run of this suite would see a use after free otherwise).
if OFFWAKE_FILE_IDLE=0 cap idle -p "$PP" 3 && has idle "$pong"; then
	pass capture_files_forgotten
else
	fail capture_files_forgotten "$(head -c 300 "$TMPD/idle.err")"
fi
# The raw_tp set (kernels without tp_btf), forced: the same stacks and time.
if OFFWAKE_RAW_TP=1 cap raw -p "$PP,$SL" 2 && has raw "$pong_fp" &&
   within "$(sum_us "$TMPD/raw" '^ow_pong;.*anon_pipe_read')" 1000000 2300000; then
	pass capture_raw_tp
else
	fail capture_raw_tp "$(head -c 300 "$TMPD/raw.err")"
fi
# (interrupts may land in our programs: look at the leaves only)
if has main '(bpf_prog_|bpf_trace_run|__bpf_trace|bpf_trampoline)[^;]*;--;|;--;(bpf_prog_|bpf_trace_run|__bpf_trace|bpf_trampoline)'; then
	fail capture_no_plumbing "BPF/tracepoint frames shown"
else
	pass capture_no_plumbing
fi

# Thread filters.
cap pid1 -p "$PP" 1
if has pid1 '^ow_pong;' && ! has pid1 '^ow_sleep;'; then pass capture_filter_pid; else fail capture_filter_pid "-p $PP: wrong targets"; fi
cap tid -t "$PONG" 1
if has tid '^ow_pong;' && ! grep -qv '^ow_pong;' "$TMPD/tid"; then pass capture_filter_tid; else fail capture_filter_tid "-t $PONG: other targets"; fi
cap user -u 1
if has user '^ow_pong;' && ! cut -d' ' -f1 "$TMPD/user" | awk -F';--;' '{ print $1 }' | grep -q ';kthread;'; then
	pass capture_filter_user
else
	fail capture_filter_user "kernel threads traced with -u"
fi
cap kernel -k 1
if has kernel ';kthread;' && ! has kernel '^ow_'; then pass capture_filter_kernel; else fail capture_filter_kernel "user threads traced with -k"; fi

# Stack selection and delimiter.
cap ustk -U -p "$PP" 1
if has ustk '^ow_pong;.*pong_loop;pong_wait;read;--;__write;ping_send;ping_loop' && ! has ustk 'pipe_read'; then
	pass capture_user_stacks_only
else
	fail capture_user_stacks_only "kernel frames with -U"
fi
cap kstk -K -p "$PP" 1
if has kstk '^ow_pong;entry_SYSCALL.*anon_pipe_read;.*--;.*anon_pipe_write;.*;ow_ping ' && ! has kstk 'pong_loop|ping_loop'; then
	pass capture_kernel_stacks_only
else
	fail capture_kernel_stacks_only "user frames with -K"
fi
cap delim -d -p "$PP" 1
check capture_delimited has delim '^ow_pong;.*;read;-;entry_SYSCALL.*;--;.*;-;__write;'
# Without -d no frame between user and kernel frames (offwaketime -f
# prints none): no empty field, so no blank bar in the graph.
if has main '^ow_pong;.*;read;entry_SYSCALL' && ! grep -q ';;' "$TMPD/main"; then
	pass capture_no_blank_frame
else
	fail capture_no_blank_frame "$(grep -m1 ';;' "$TMPD/main" | head -c 300)"
fi

# Block time filters (ow_pong blocks 10 ms at a time until ow_ping wakes
# it; it may also lose the CPU while runnable, for microseconds, with no
# waker, in pipe_read: so only blocks ended by ow_ping count).
cap min -m 500000 -p "$PP" 1
cap min2 -m 5000 -p "$PP" 1
if ! has min 'anon_pipe_read;schedule;[^ ]*;ow_ping [0-9]+$' && has min2 '^ow_pong;.*anon_pipe_read'; then pass capture_min_block; else fail capture_min_block "-m did not filter by block time"; fi
cap max -M 2000 -p "$PP" 1
cap max2 -M 50000 -p "$PP" 1
if ! has max 'anon_pipe_read;schedule;[^ ]*;ow_ping [0-9]+$' && has max2 '^ow_pong;.*anon_pipe_read'; then pass capture_max_block; else fail capture_max_block "-M did not filter by block time"; fi

# State filter: pipe reads sleep in TASK_INTERRUPTIBLE (1).  (Blocks that
# end in preempt_schedule are preemptions: state 0, not a sleep.)
cap st1 --state 1 -p "$PP" 1
cap st2 --state 2 -p "$PP" 1
cap st0 --state 0 -p "$PP" 1
# --state 3 is the seed guide's $((1|2)): interruptible OR uninterruptible
# (bcc's "p->__state & MASK"), so the pipe reads are in.
cap st3 --state 3 -p "$PP" 1
if has st1 '^ow_pong;.*anon_pipe_read' && ! has st2 'anon_pipe_read;schedule;[^ ]*;ow_ping [0-9]+$' && ! has st0 'anon_pipe_read;schedule;[^ ]*;ow_ping [0-9]+$' &&
   has st3 '^ow_pong;.*anon_pipe_read;schedule;[^ ]*;ow_ping [0-9]+$'; then
	pass capture_state
else
	fail capture_state "--state 1/2/0/3 did not select interruptible/uninterruptible/running/either"
fi

# A process that exits during the capture keeps its names.
# (started once the capture is tracing: the programs' load and
# verification take a while, longer on a busy machine)
"$OFFWAKE" -f -u 2 > "$TMPD/exited" 2> "$TMPD/exited.err" & CP=$!
attached $CP
"$TMPD/shortlived" "$TMPD/short.out"
wait $CP
if has exited '^ow_short;.*short_main;' && ! has exited '^ow_short;\[(unknown|shortlived)\];\[(unknown|shortlived)\];'; then
	pass capture_exited_process
else
	fail capture_exited_process "frames of an exited process not named"
fi

# Text format.
"$OFFWAKE" --text -p "$PP" 1 > "$TMPD/text" 2>/dev/null
if grep -q '^    waker:           ow_ping ' "$TMPD/text" && grep -q '^    --               --$' "$TMPD/text" &&
   grep -q '^    target:          ow_pong ' "$TMPD/text"; then
	pass capture_text
else
	fail capture_text "no waker/--/target blocks"
fi

# SVG to standard output, and -o written atomically.
"$OFFWAKE" -p "$PP" --title "pp test" 1 > "$TMPD/out.svg" 2>/dev/null
if xmllint --noout "$TMPD/out.svg" 2>/dev/null && grep -q 'pp test' "$TMPD/out.svg" &&
   grep -q 'ow_pong' "$TMPD/out.svg"; then
	pass capture_svg
else
	fail capture_svg "invalid SVG or missing title/frames"
fi
mkdir "$TMPD/o"
"$OFFWAKE" -p "$PP" -o "$TMPD/o/g.svg" 2 2>/dev/null & OW=$!
attached $OW
sleep 0.5
early=$(ls "$TMPD/o")
wait $OW; st=$?
# (during the capture: nothing, the file being written has no name yet
# (O_TMPFILE, linked when complete), or on file systems without it only
# the temporary file, made before tracing began)
if [ $st -eq 0 ] && { [ -z "$early" ] || [[ $early == g.svg.?????? ]]; } &&
   [ "$(ls "$TMPD/o")" = g.svg ] &&
   xmllint --noout "$TMPD/o/g.svg" 2>/dev/null; then
	pass capture_output_atomic
else
	fail capture_output_atomic "status $st, during: '$early', after: '$(ls "$TMPD/o")'"
fi

# SIGINT ends the capture and the output is still written.
"$OFFWAKE" -f -p "$PP" > "$TMPD/int" 2>/dev/null & OW=$!
attached $OW
sleep 1
# (the ids of the programs it loaded, from its file descriptors)
progs=$(cat /proc/$OW/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u)
kill -INT $OW
wait $OW; st=$?
if [ $st -eq 0 ] && has int '^ow_pong;'; then pass capture_sigint; else fail capture_sigint "status $st"; fi

# Nothing of ours stays loaded (other captures may run at the same time:
# look for the programs of the one above only; the kernel frees them
# shortly after the last reference, give it two seconds).
for _ in $(seq 20); do
	left=
	for id in $progs; do
		bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
	done
	[ -z "$left" ] && break
	sleep 0.1
done
if [ -z "$progs" ]; then
	fail capture_unloaded "no BPF program ids found in /proc/PID/fdinfo"
elif [ -n "$left" ]; then
	fail capture_unloaded "BPF programs still loaded after exit:$left"
else
	pass capture_unloaded
fi

# A busy system-wide capture loses nothing: processes forking and
# exec'ing all along (new user stacks each), compilers (gcc's cc1 is not a
# PIE on Debian: its processes share stacks, which a stack given up must
# not lose; OFFWAKE_STACKS_IDLE=5 gives them up after 5 s, not 30),
# 2 x 8192 distinct user stacks ping-ponging, the workloads above, and
# whatever else runs here.  With the reader made 3 times slower
# (OFFWAKE_SLOW_READER=3: a slower machine, a niced profiler; the
# sanitizer pass slows it more): what the ring buffer cannot take waits
# in the kernel's backlog, and nothing is lost.
"$TMPD/manypaths" 40 8192 & MP=$!
( end=$((SECONDS + 30)); while [ $SECONDS -lt $end ]; do
	sh -c 'cat /proc/self/stat > /dev/null; ls /usr/lib > /dev/null'
done ) & FORKS=$!
( end=$((SECONDS + 30)); while [ $SECONDS -lt $end ]; do
	for w in "$WL"/../../render/*.c; do
		cc -O2 -c -I"$WL/../../render" -o "$TMPD/cc.o" "$w" 2> /dev/null
	done
done ) & CC=$!
OFFWAKE_STACKS_IDLE=5 OFFWAKE_SLOW_READER=3 cap busy 25
kill $FORKS $MP $CC 2>/dev/null
wait $FORKS $MP $CC 2>/dev/null
# lost: any warning of a stack, event or block not kept
lost_re='warning: .*(stacks (not taken|lost|never)|dropped|events lost|counts map was full)'
lost=$(grep -E "$lost_re" "$TMPD/busy.err")
wakers=$(grep -oE '[0-9]+ blocks without their waker' "$TMPD/busy.err" | cut -d' ' -f1)
kept=$(grep -oE 'fell behind: [0-9]+ stacks' "$TMPD/busy.err" | grep -oE '[0-9]+')
keys=$(wc -l < "$TMPD/busy")
if [ -z "$lost" ] && ! has busy '\[(Missed|Lost) (Kernel|User) Stack' && has busy '^ow_mp_a;.*hop[0-7];step;' &&
   [ "$keys" -gt 20000 ]; then
	pass "capture_busy_no_loss ($keys keys, reader 3x slower: ${kept:-0} stacks waited in the backlog; ${wakers:-0} blocks without waker)"
else
	fail capture_busy_no_loss "$keys keys: $lost $(grep -cE '(Missed|Lost) (Kernel|User) Stack' "$TMPD/busy") missed or lost frames"
fi

# The backlog, shown on any machine: a reader 200 times slower than here
# with a ring buffer of 1 MB, against 2 x 8192 distinct stacks.  The ring
# buffer fills; what it cannot take is kept in the kernel and read later:
# nothing lost.  With a backlog of 64 stacks (and the whole system
# traced, so that there are more new stacks), what does not fit is lost,
# counted, and its blocked time stays in the output under a frame that
# says so; the warning names the option to raise.
# (A workload each: the first capture's end, reading what waited, takes
# long in the sanitizer build.)
"$TMPD/manypaths" 60 8192 & MP=$!
OFFWAKE_SLOW_READER=200 cap backlog -p $MP --ring-buffer-size 1 4
kill $MP 2>/dev/null; wait $MP 2>/dev/null
"$TMPD/manypaths" 60 8192 & MP=$!
OFFWAKE_SLOW_READER=200 cap backlog64 --ring-buffer-size 1 --backlog 64 4
kill $MP 2>/dev/null; wait $MP 2>/dev/null
kept=$(grep -oE 'fell behind: [0-9]+ stacks' "$TMPD/backlog.err" | grep -oE '[0-9]+')
lost=$(grep -E "$lost_re" "$TMPD/backlog.err")
if [ "${kept:-0}" -gt 0 ] && [ -z "$lost" ] && ! has backlog '\[(Missed|Lost) (Kernel|User) Stack' &&
   has backlog '^ow_mp_a;.*hop[0-7];step;'; then
	pass "capture_backlog_keeps ($kept stacks waited in the kernel, none lost, $(wc -l < "$TMPD/backlog") keys)"
else
	fail capture_backlog_keeps "kept ${kept:-0} (want > 0); $lost; $(grep -cE '(Missed|Lost) (Kernel|User) Stack' "$TMPD/backlog") lost frames"
fi
nlost=$(grep -oE '[0-9]+ stacks lost: .*raise --backlog' "$TMPD/backlog64.err" | cut -d' ' -f1)
lost_us=$(sum_us "$TMPD/backlog64" '\[Lost (Kernel|User) Stack: backlog full\]')
all_us=$(sum_us "$TMPD/backlog64" '.')
if [ "${nlost:-0}" -gt 0 ] && [ "$lost_us" -gt 0 ] && [ "$all_us" -gt "$lost_us" ]; then
	pass "capture_backlog_full_counted ($nlost stacks lost, their $lost_us us of $all_us us shown under [Lost ... Stack])"
else
	fail capture_backlog_full_counted "lost ${nlost:-none} (want a count naming --backlog), $lost_us us under Lost frames of $all_us: $(grep warning "$TMPD/backlog64.err" | head -c 300)"
fi
# A block without its waker or without its end is only ever one the kernel
# hid (a switch it did not report: sandbox kernels hide their agent), and
# then the hidden task is named.
hidden=$(grep -oE '[0-9]+ context switches the kernel did not report' "$TMPD/busy.err" | cut -d' ' -f1)
ends=$(grep -oE '[0-9]+ blocks whose (end|return to CPU) the kernel did not report' "$TMPD/busy.err" | awk '{ s += $1 } END { if (NR) print s }')
if [ -z "$hidden" ] && [ -z "$wakers$ends" ]; then
	pass "capture_busy_losses_explained (no switch hidden, nothing missed)"
elif [ -n "$hidden" ] && grep -qE 'note: a hidden task: pid [0-9]+ \(' "$TMPD/busy.err"; then
	pass "capture_busy_losses_explained ($hidden switches hidden by the kernel: ${wakers:-0} wakers, ${ends:-0} block ends not seen)"
else
	fail capture_busy_losses_explained "$(grep -E 'warning|note' "$TMPD/busy.err" | tr '\n' ' ')"
fi

# The output of a capture with many (2 x 8192 + ...) distinct stacks is
# written whole after SIGINT.  How soon is a figure, not asserted here (a
# shared 2-core machine at load 9 took 1.6 s where a quiet one takes
# 0.3 s): printed, with only a bound that catches a hang (30 s).
"$TMPD/manypaths" 30 8192 & MP=$!
# out_time NAME ARGS...: SIGINT after 4 s, print the seconds until exit.
out_time() {
	local n=$1 ow t0; shift
	"$OFFWAKE" -p $MP -o "$TMPD/$n" "$@" 2> "$TMPD/$n.err" & ow=$!
	attached $ow
	sleep 3
	t0=$(date +%s%N)
	kill -INT $ow
	wait $ow
	echo $((($(date +%s%N) - t0) / 1000000))
}
ms_f=$(out_time many.folded -f)
ms_svg=$(out_time many.svg)
kill $MP 2>/dev/null
keys=$(wc -l < "$TMPD/many.folded")
if [ "$keys" -ge 10000 ] && [ "$ms_svg" -le 30000 ] && xmllint --noout "$TMPD/many.svg" 2>/dev/null; then
	pass "capture_many_stacks_output ($keys keys: SVG in $ms_svg ms, folded in $ms_f ms, load $(cut -d' ' -f1 /proc/loadavg))"
else
	fail capture_many_stacks_output "$keys keys (want 10000+), SVG written ${ms_svg} ms after the end (a hang: want <= 30000), valid: $(xmllint --noout "$TMPD/many.svg" 2>&1 | head -c 200)"
fi
