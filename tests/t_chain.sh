#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_chain.sh - wakeup chains (--chain-depth, --chain-max-age; issue 19),
# captured for real: a three-thread pipeline (tests/workloads/pipeline3.c:
# ow_pa writes pipe 1, ow_pb reads it and writes pipe 2, ow_pc reads that)
# is traced and the folded lines are checked: at depth 2, ow_pc's blocked
# time is explained by ow_pb's write and, one level further, ow_pa's write;
# at depth 3 the chain goes on to ow_pa's timer interrupt and ends there;
# a wakeup by an interrupt that landed on a thread ends the chain (the
# interrupted thread's own waker is not shown); --chain-max-age cuts a
# level whose waker was woken too long before; depth 1 keeps the one-level
# format; --text prints the levels; --group names every level; bad values
# are usage errors; and
# render (--colors=chain), unfold and diff take multi-level lines.
# Blocked time is asserted as shares with wide tolerances (a noisy 2-core
# VM).  The captures need root and kernel BTF; they skip otherwise.
. "$(dirname "$0")/lib.sh"
OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
WL=$(cd "$(dirname "$0")/workloads" && pwd)

# Bad values: usage errors naming the option (no privileges needed).
bad() {	# NAME EXPECTED-MESSAGE ARGS...
	local n=$1 msg=$2 out st
	shift 2
	out=$("$OFFWAKE" "$@" 2>&1); st=$?
	if [ $st -eq 2 ] && grep -qF -- "offwake-svg: error: $msg" <<<"$out"; then
		pass "$n"
	else
		fail "$n" "status $st: $out"
	fi
}
bad chain_depth_zero "argument --chain-depth: must be nonzero" --chain-depth 0 1
bad chain_depth_five "argument --chain-depth: must be 1 to 4, not '5'" --chain-depth 5 1
bad chain_depth_word "argument --chain-depth: invalid int value: 'x'" --chain-depth x 1
bad chain_depth_negative "argument --chain-depth: must be positive" --chain-depth=-2 1
bad chain_depth_missing "argument --chain-depth: expected one argument" --chain-depth
bad chain_age_zero "argument --chain-max-age: must be nonzero" --chain-max-age 0 1
bad chain_age_word "argument --chain-max-age: invalid int value: '1ms'" --chain-max-age 1ms 1

# past_irq FILE PATTERN: lines matching PATTERN with a level after an
# interrupt's (its marker, the interrupted task's name, then "--").
past_irq() { grep -aE "$2" "$1" | grep -acE '\[(hardirq|softirq|nmi)\];[^;]*;--;'; }
# dividers FILE PATTERN: the most ";--;" a line matching PATTERN has.
dividers() { grep -aE "$2" "$1" | awk '{ n = gsub(/;--;/, "&"); if (n > m) m = n } END { print m + 0 }'; }

# Multi-level lines through render, unfold and diff (no capture needed).
C2='ow_pc;c_wait;read;anon_pipe_read;schedule;--;anon_pipe_write;__write;b_send;ow_pb;--;anon_pipe_write;__write;a_send;ow_pa'
C1='ow_pc;c_wait;read;anon_pipe_read;schedule;--;anon_pipe_write;__write;b_send;ow_pb'
B3='ow_pb;b_wait;read;anon_pipe_read;schedule;--;anon_pipe_write;__write;a_send;ow_pa;--;hrtimer_wakeup;[hardirq];swapper/0'
printf '%s 900\n%s 100\n%s 500\n' "$C2" "$C1" "$B3" > "$TMPD/levels.folded"
printf '%s 300\n%s 700\n%s 500\n' "$C2" "$C1" "$B3" > "$TMPD/levels2.folded"
if "$OFFWAKE" render --colors=chain "$TMPD/levels.folded" > "$TMPD/levels.svg"; then
	# every divider grey; the second level's frames waker-coloured (aqua:
	# blue and green well above red), as the first level's
	greys=$(grep -A1 '<title>-- (' "$TMPD/levels.svg" | grep -o 'fill="[^"]*"' | sort -u)
	aqua=$(grep -A1 -E '<title>(a_send|ow_pa|hrtimer_wakeup|b_send) \(' "$TMPD/levels.svg" |
		grep -o 'fill="rgb([0-9,]*)"' | tr -dc '0-9,\n' |
		awk -F, '{ if (!($2 > $1 + 40 && $3 > $1 + 40)) bad++ ; n++ } END { print n + 0, bad + 0 }')
	ndiv=$(grep -c '<title>-- (' "$TMPD/levels.svg")
	if [ "$greys" = 'fill="rgb(160,160,160)"' ] && [ "$ndiv" -ge 3 ] && [ "$aqua" = "6 0" ]; then
		pass chain_render_levels
	else
		fail chain_render_levels "dividers $ndiv, fills $greys, waker frames (n bad) $aqua"
	fi
else
	fail chain_render_levels "render failed"
fi
if "$OFFWAKE" unfold "$TMPD/levels.svg" > "$TMPD/unfolded" 2> "$TMPD/unfold.err" &&
   diff <(sort "$TMPD/levels.folded") <(sort "$TMPD/unfolded") > "$TMPD/unfold.diff"; then
	pass chain_unfold_levels
else
	fail chain_unfold_levels "$(head -c 600 "$TMPD/unfold.diff" "$TMPD/unfold.err")"
fi
# diff: the two-level line lost 600 us, the one-level line gained 600:
# the second level (from the "--" above ow_pb) shows the loss, ow_pb, the
# first level's waker in both lines, kept its 1,000 us (each frame's
# change is its whole width's); counts in us (an off-wake profile)
if "$OFFWAKE" diff "$TMPD/levels.folded" "$TMPD/levels2.folded" > "$TMPD/diff.svg" 2> "$TMPD/diff.err" &&
   grep -qF '<title>ow_pa (300 us, 20.00%; -40.00%)' "$TMPD/diff.svg" &&
   grep -qF '<title>-- (300 us, 20.00%; -40.00%)' "$TMPD/diff.svg" &&
   grep -qF '<title>ow_pb (1,000 us, 66.67%; 0.00%)' "$TMPD/diff.svg"; then
	pass chain_diff_levels
else
	fail chain_diff_levels "$(grep -o '<title>ow_pa[^<]*' "$TMPD/diff.svg" | head -3) $(head -c 300 "$TMPD/diff.err")"
fi

can_capture chain_capture || exit 0
for w in pipeline3 sleeper; do
	if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/$w" "$WL/$w.c"; then
		fail chain_build "cannot compile $w.c"
		exit 0
	fi
done

# Three pipelines (killed at the end): B hands on at once (P0); B burns
# 20 ms first (P20);
# B burns 5 ms, pinned to CPU 0 with a 5 ms sleeper whose timer interrupt
# often lands on ow_pb (PIRQ).
"$TMPD/pipeline3" 600 0 "$TMPD/tids0" & P0=$!
"$TMPD/pipeline3" 600 20 "$TMPD/tids20" & P20=$!
taskset -c 0 "$TMPD/pipeline3" 600 5 "$TMPD/tidsirq" & PIRQ=$!
taskset -c 0 "$TMPD/sleeper" 600 & SL=$!
trap 'kill $P0 $P20 $PIRQ $SL 2>/dev/null; rm -rf "$TMPD"' EXIT
for f in tids0 tids20 tidsirq; do
	for _ in $(seq 50); do [ -s "$TMPD/$f" ] && break; sleep 0.1; done
done

C='^ow_pc;.*c_wait;read;.*anon_pipe_read;schedule;__schedule;--;'
BW='.*anon_pipe_write;.*;__write;b_send;b_loop;start_thread;__clone3;ow_pb'
AW='.*anon_pipe_write;.*;__write;a_send;a_loop;main;__libc_start_call_main;__libc_start_main;_start;ow_pa'

# Depth 2: ow_pc blocked on B's write, which A's write woke.
if cap d2 --chain-depth 2 -p "$P0" 2; then
	pct=$(share "$TMPD/d2" "$C$BW;--;$AW [0-9]+$" "^ow_pc;")
	if [ "$pct" -ge 80 ]; then
		pass chain_depth2
	else
		fail chain_depth2 "${pct}% of ow_pc's blocked time has B's then A's write: $(grep '^ow_pc;' "$TMPD/d2" | head -c 1500)"
	fi
else
	fail chain_depth2 "capture failed: $(cat "$TMPD/d2.err")"
fi

# B itself: woken by A, who was woken by a timer interrupt (a 1 s age:
# on a loaded VM, A may wait for a CPU longer than the default 10 ms).
if cap d2irq --chain-depth 2 --chain-max-age 1000000 -p "$P0" 2; then
	pct=$(share "$TMPD/d2irq" "^ow_pb;.*b_wait;.*--;$AW;--;hrtimer_wakeup;.*;\[hardirq\];[^;]+ [0-9]+$" "^ow_pb;")
	if [ "$pct" -ge 60 ]; then pass chain_depth2_irq_level; else fail chain_depth2_irq_level "${pct}% of ow_pb's time"; fi
	n=$(dividers "$TMPD/d2irq" .)
	if [ "$n" -eq 2 ]; then pass chain_depth2_bounded; else fail chain_depth2_bounded "$n levels at depth 2"; fi
else
	fail chain_depth2_irq_level "capture failed: $(cat "$TMPD/d2irq.err")"
fi

# Depth 3: C's chain goes on to A's timer, and ends there (a 1 s age, as
# above).
if cap d3 --chain-depth 3 --chain-max-age 1000000 -p "$P0" 2; then
	pct=$(share "$TMPD/d3" "$C$BW;--;$AW;--;hrtimer_wakeup;.*;\[hardirq\];[^;]+ [0-9]+$" "^ow_pc;")
	if [ "$pct" -ge 60 ]; then pass chain_depth3; else fail chain_depth3 "${pct}% of ow_pc's time: $(grep '^ow_pc;' "$TMPD/d3" | tail -2 | head -c 1500)"; fi
	n=$(past_irq "$TMPD/d3" .)
	if [ "$n" -eq 0 ]; then pass chain_ends_at_interrupt; else fail chain_ends_at_interrupt "$n lines go on past an interrupt's wakeup"; fi
else
	fail chain_depth3 "capture failed: $(cat "$TMPD/d3.err")"
fi

# An interrupt that lands on a thread: the sleeper's timer fires while
# ow_pb (woken by ow_pa, within the 1 s age given) burns CPU; the sleeper's
# chain must end at "[hardirq];ow_pb", not go on to ow_pa.
if cap irq --chain-depth 4 --chain-max-age 1000000 -p "$SL,$PIRQ" 3; then
	landed=$(sum_us "$TMPD/irq" '^ow_sleep;.*;\[hardirq\];ow_pb')
	n=$(past_irq "$TMPD/irq" '^ow_sleep;')
	if [ "$landed" -gt 0 ] && [ "$n" -eq 0 ]; then
		pass chain_interrupted_thread
	elif [ "$landed" -eq 0 ]; then
		skip chain_interrupted_thread "no timer interrupt landed on ow_pb in 3 s"
	else
		fail chain_interrupted_thread "$n ow_sleep lines go on past the interrupt: $(grep '^ow_sleep;' "$TMPD/irq" | awk 'gsub(/;--;/, "&") > 1' | head -c 800)"
	fi
else
	fail chain_interrupted_thread "capture failed: $(cat "$TMPD/irq.err")"
fi

# --chain-max-age: B burns 20 ms of CPU between its wakeup and its write
# (longer on a loaded machine, where it is preempted meanwhile), more than
# the default 10 ms: no second level; 10 s keeps it.
if cap age20 --chain-depth 2 -p "$P20" 2 && cap age20long --chain-depth 2 --chain-max-age 10000000 -p "$P20" 2; then
	cut=$(share "$TMPD/age20" ";ow_pb;--;" "^ow_pc;")
	kept=$(share "$TMPD/age20long" "$C$BW;--;$AW [0-9]+$" "^ow_pc;")
	if [ "$cut" -le 5 ] && [ "$kept" -ge 80 ]; then
		pass chain_max_age
	else
		fail chain_max_age "second level on ${cut}% of ow_pc's time by default (20 ms old), ${kept}% with 10 s: $(grep '^ow_pc;' "$TMPD/age20long" | head -c 1500)"
	fi
else
	fail chain_max_age "capture failed: $(cat "$TMPD/age20.err" "$TMPD/age20long.err")"
fi
# 1 us: no wakeup reaches a write that soon (a context switch alone takes longer)
if cap age1 --chain-depth 2 --chain-max-age 1 -p "$P0" 1 && [ "$(sum_us "$TMPD/age1" '^ow_pc;')" -gt 0 ]; then
	n=$(dividers "$TMPD/age1" .)
	if [ "$n" -eq 1 ]; then pass chain_max_age_tiny; else fail chain_max_age_tiny "$n levels with a 1 us age"; fi
else
	fail chain_max_age_tiny "capture failed: $(cat "$TMPD/age1.err")"
fi

# Depth 1 (the default, and given): one waker, the format as before.
if cap d1 -p "$P0" 1 && cap d1x --chain-depth 1 -p "$P0" 1; then
	pct=$(share "$TMPD/d1" "$C$BW [0-9]+$" "^ow_pc;")
	pctx=$(share "$TMPD/d1x" "$C$BW [0-9]+$" "^ow_pc;")
	n=$(dividers "$TMPD/d1" .)
	nx=$(dividers "$TMPD/d1x" .)
	if [ "$pct" -ge 80 ] && [ "$pctx" -ge 80 ] && [ "$n" -eq 1 ] && [ "$nx" -eq 1 ]; then
		pass chain_depth1_format
	else
		fail chain_depth1_format "default: ${pct}% ($n levels), --chain-depth 1: ${pctx}% ($nx levels)"
	fi
else
	fail chain_depth1_format "capture failed: $(cat "$TMPD/d1.err")"
fi

# --text: the levels above the waker, the furthest first.
"$OFFWAKE" --text --chain-depth 2 -p "$P0" 1 > "$TMPD/text" 2> /dev/null
if awk '/^    waker 2: +ow_pa /{ a = NR } /^    waker: +ow_pb /{ if (a && !b) b = NR }
	/^    target: +ow_pc /{ if (b) { ok = 1; exit } } END { exit !ok }' "$TMPD/text" &&
   [ "$(grep -ac '^    --               --$' "$TMPD/text")" -gt "$(grep -ac '^    target:' "$TMPD/text")" ]; then
	pass chain_text
else
	fail chain_text "no waker 2 / waker / target entry: $(head -c 1500 "$TMPD/text")"
fi

# --group=thread: every level named comm-PID/TID, as the waker is.
read -r TA TB TC < "$TMPD/tids0"
if cap grp --group=thread --chain-depth 2 -p "$P0" 1 &&
   grep -aqE "^ow_pc-$P0/$TC;.*;ow_pb-$P0/$TB;--;.*;ow_pa-$P0/$TA [0-9]+$" "$TMPD/grp"; then
	pass chain_group
else
	fail chain_group "no ow_pc-$P0/$TC line ending ow_pb-$P0/$TB;--;...;ow_pa-$P0/$TA: $(grep '^ow_pc' "$TMPD/grp" | head -c 600) $(head -c 300 "$TMPD/grp.err")"
fi

# The SVG of a depth-2 capture: both levels drawn.
if "$OFFWAKE" --chain-depth 2 -p "$P0" -o "$TMPD/d2.svg" 1 2> "$TMPD/svg.err" &&
   [ "$(grep -c '<title>-- (' "$TMPD/d2.svg")" -ge 2 ] && grep -q '<title>a_send (' "$TMPD/d2.svg"; then
	pass chain_svg
else
	fail chain_svg "$(cat "$TMPD/svg.err")"
fi
