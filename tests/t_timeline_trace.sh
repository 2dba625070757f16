#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_timeline_trace.sh - the Perfetto trace of a real capture (issue 46),
# decoded by build/tests_src/pftrace_dump (tests/tools/pftrace_dump.c,
# whose top comment gives its lines): the stall workload (tests/workloads/
# stall.c: a worker waiting ~0.5 ms for most jobs, 80 ms for one every
# half second, its producer meanwhile waiting on a third thread) traced
# 3 s with -o x.pftrace.  Each stall is one slice of 60 to 200 ms on the
# worker's track, named after the innermost user frame of its stack and
# the kernel frame it blocked in, its stacks the worker's worker_wait and
# the producer's prod_hand, its runnable part entered by one flow from the
# producer's track; the producer's own 80 ms waits (prod_stall) are
# entered from the third thread's; few of the short waits are slices (the
# rest summed on the worker's counter track); every event the summary
# counts is a slice; the tracks carry the threads' names.  Then
# -o y.perfetto-trace writes the same kind of file, and the decoder
# refuses what is not a trace.  Tolerant figures: a shared, noisy 2-CPU
# machine.
. "$(dirname "$0")/lib.sh"
DUMP=$TOP/build/tests_src/pftrace_dump
if [ ! -x "$DUMP" ]; then
	fail timeline_trace "no $DUMP (run make test-bin first)"
	exit 0
fi
can_capture timeline_trace || exit 0
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/stall" "$TOP/tests/workloads/stall.c" ||
	{ fail timeline_trace_build "cannot compile stall.c"; exit 0; }

# ---- the decoder refuses what is not a trace ---------------------------
# bad NAME: pftrace_dump fails on $TMPD/NAME with one line naming it
bad() {
	"$DUMP" "$TMPD/$1" > "$TMPD/$1.out" 2> "$TMPD/$1.msg"
	local st=$?
	[ $st = 1 ] && [ ! -s "$TMPD/$1.out" ] && [ "$(wc -l < "$TMPD/$1.msg")" = 1 ] &&
		grep -q "^pftrace_dump: $TMPD/$1: $2" "$TMPD/$1.msg"
}
printf 'not a Perfetto trace at all\n' > "$TMPD/text"
: > "$TMPD/empty"
if bad text 'not a Perfetto trace' && bad empty 'no packets'; then
	pass timeline_trace_dump_refuses
else
	fail timeline_trace_dump_refuses "$(cat "$TMPD/text.msg" "$TMPD/empty.msg" | head -c 300)"
fi

# ---- the capture ----------------------------------------------------
"$OFFWAKE" -q -o "$TMPD/x.pftrace" -- "$TMPD/stall" 3 80 "$TMPD/tids" 2> "$TMPD/x.err"; st=$?
read -r W P T < "$TMPD/tids" 2> /dev/null
jobs=$(sed -n 2p "$TMPD/tids" | awk '{ print $2 }')
if [ $st -ne 0 ] || [ -z "$T" ] || ! "$DUMP" "$TMPD/x.pftrace" > "$TMPD/x.txt" 2> "$TMPD/dump.err"; then
	fail timeline_trace_capture "status $st, tids '$W $P $T': $(head -c 300 "$TMPD/x.err") $(cat "$TMPD/dump.err")"
	exit 0
fi
pass timeline_trace_capture
X=$TMPD/x.txt

# every block the summary counts as kept is a slice (the runnable parts
# are the slices at depth 1)
kept=$(sed -n 's/.*timeline: \([0-9]*\) blocks.*/\1/p' "$TMPD/x.err")
n=$(awk '$1 == "slice" && $5 == 0' "$X" | wc -l)
if [ "$n" -gt 0 ] && [ "$n" = "$kept" ]; then
	pass timeline_trace_every_event
else
	fail timeline_trace_every_event "$n slices, the summary says: $(grep timeline: "$TMPD/x.err")"
fi

# the tracks: the process and its three threads, with their names
want="process $P ow_prod
thread $P $P ow_prod
thread $P $W ow_worker
thread $P $T ow_third"
got=$(awk -v w="$W" -v p="$P" -v t="$T" '
	$1 == "process" && $3 == p { print $1, $3, $4 }
	$1 == "thread" && $3 == p && ($4 == p || $4 == w || $4 == t) { print $1, $3, $4, $5 }' "$X" |
	sort -k 3n)
if [ "$got" = "$(sort -k 3n <<< "$want")" ]; then
	pass timeline_trace_tracks
else
	fail timeline_trace_tracks "want: $(tr '\n' '|' <<< "$want") got: $(tr '\n' '|' <<< "$got")"
fi
# no track for a task an interrupt came in on (a timer's wakeup has no
# waker thread): every thread track is the traced process's, and no
# worker stall's waker is an interrupt (the producer wakes it)
others=$(awk -v p="$P" '$1 == "thread" && $3 != p { print $5 }' "$X" | sort -u | head -5)
irq=$(awk '$1 == "arg" && $2 == "waker" && $3 ~ /^\[(hard|soft)irq\]$/' "$X" | wc -l)
if [ -z "$others" ] && [ "$irq" -gt 0 ]; then
	pass "timeline_trace_irq_no_track ($irq blocks woken in interrupt context)"
else
	fail timeline_trace_irq_no_track "tracks of other processes: $(echo $others); $irq blocks marked as woken in interrupt context"
fi

# stalls TID: TID's blocks of 50 ms or more, "BEGIN DUR STACK END_STACK
# NAME" (the slice's name last, with its spaces)
stalls() {
	awk -v tid="$1" '$1 == "slice" && $2 == tid && $5 == 0 && $4 >= 50e6 {
		$1 = $2 = $5 = ""; sub(/^ +/, ""); gsub(/  +/, " "); print }' "$X"
}
# stack IID: the frames of interned stack IID
stack() { awk -v i="$1" '$1 == "stack" && $2 == i { print $3 }' "$X"; }
stalls "$W" > "$TMPD/long"
nl=$(wc -l < "$TMPD/long")
stall_lengths timeline_trace_stalls "$TMPD/long" 3
# ~500 ms apart
gaps=$(sort -n "$TMPD/long" | awk 'NR > 1 { g = ($1 - p) / 1e6; if (g < 350 || g > 650) print g " ms" } { p = $1 }' | head -3)
[ -z "$gaps" ] && pass timeline_trace_stall_period ||
	fail timeline_trace_stall_period "stalls apart by $gaps (want ~500 ms)"

# each stall's stacks: the worker's worker_wait when it blocked, the
# producer's prod_hand when it woke it; its name: the innermost user frame
# of the former and the kernel frame it blocked in (not the scheduler's)
why=
while read -r b d s e name; do
	bs=$(stack "$s"); es=$(stack "$e")
	user=$(tr ';' '\n' <<< "$bs" | grep -v '_\[k\]$' | tail -1)
	kern=${name#* -> }
	case ";$bs;" in *";worker_wait;"*";$kern""_[k];"*) ;; *) why="$why blocked stack $s: $bs;" ;; esac
	case ";$es;" in *";prod_hand;"*) ;; *) why="$why waker stack $e: $es;" ;; esac
	case $kern in *pipe_read) ;; *) why="$why kernel frame $kern;" ;; esac
	[ "$name" = "$user -> $kern" ] || why="$why name '$name' (innermost user frame $user);"
done < "$TMPD/long"
if [ "$nl" -gt 0 ] && [ -z "$why" ]; then
	pass timeline_trace_stall_stacks
	echo "  ($(head -1 "$TMPD/long" | cut -d' ' -f5-))"
else
	fail timeline_trace_stall_stacks "$(head -c 600 <<< "$why")"
fi

# flows TID FROM STALLS: for each stall of STALLS on TID's track, its
# runnable slice (depth 1, from the flow's end to the stall's end) and the
# one flow into it, from FROM's track; the stalls that do not have them
flows() {
	awk -v tid="$1" -v from="$2" 'FNR == NR { b[NR] = $1; e[NR] = $1 + $2; n = NR; next }
		$1 == "slice" && $2 == tid && $5 == 1 && $8 == "runnable" { run[$3] = $3 + $4 }
		$1 == "flow" && $6 == tid { fl[$7] = fl[$7] " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				k = 0; ok = 0; got = ""
				for (t in fl)
					if (t + 0 > b[i] && t + 0 <= e[i]) {
						k++
						ok = fl[t] == " " from && run[t] == e[i]
						got = got fl[t]
					}
				if (k != 1 || !ok)
					printf "stall at %.0f: %d flows in (from%s)\n", b[i], k, got
			}
		}' "$3" "$X"
}
why=$(flows "$W" "$P" "$TMPD/long")
if [ "$nl" -gt 0 ] && [ -z "$why" ]; then
	pass timeline_trace_stall_waker
else
	fail timeline_trace_stall_waker "$(head -3 <<< "$why" | tr '\n' ' ')"
fi
# the producer's own waits on the third thread meanwhile, in prod_stall,
# entered from ow_third's track
stalls "$P" | while read -r b d s e name; do
	case ";$(stack "$s");" in *";prod_stall;"*) echo "$b $d" ;; esac
done > "$TMPD/plong"
np=$(wc -l < "$TMPD/plong")
why=$(flows "$P" "$T" "$TMPD/plong")
if [ "$np" -ge $((nl - 1)) ] && [ "$np" -le $((nl + 1)) ] && [ -z "$why" ]; then
	pass timeline_trace_producer_waits
else
	fail timeline_trace_producer_waits "$np producer waits in prod_stall for $nl stalls: $(head -2 <<< "$why" | tr '\n' ' ')"
fi

# the ~0.5 ms waits: few are slices (those past 1 ms under load); the
# rest summed, a value on the worker's counter track
short=$(awk -v tid="$W" '$1 == "slice" && $2 == tid && $5 == 0 && $4 < 50e6' "$X" | wc -l)
ctr=$(awk -v tid="$W" '$1 == "counter" && $3 == tid { c = 1 } $1 == "value" && $2 == tid && c { v = $4 } END { printf "%.0f\n", v }' "$X")
if [ "${jobs:-0}" -gt 1000 ] && [ "$short" -lt $((jobs / 5)) ] && [ "$ctr" -gt 100000000 ]; then
	pass timeline_trace_short_summed
	echo "  ($short of $jobs short waits are slices; $((ctr / 1000000)) ms summed)"
else
	fail timeline_trace_short_summed "$short short worker slices of $jobs jobs, $ctr ns summed on its counter"
fi

# the decoder refuses a trace cut short
head -c $(($(stat -c %s "$TMPD/x.pftrace") * 2 / 3)) "$TMPD/x.pftrace" > "$TMPD/cut"
if bad cut 'not a Perfetto trace'; then
	pass timeline_trace_dump_cut
else
	fail timeline_trace_dump_cut "$(head -c 300 "$TMPD/cut.msg") ($(wc -l < "$TMPD/cut.out") lines out)"
fi

# ---- .perfetto-trace: the same kind of file ----------------------------
"$OFFWAKE" -q -o "$TMPD/y.perfetto-trace" -- "$TMPD/stall" 2 80 "$TMPD/tidy" 2> "$TMPD/y.err"; st=$?
read -r W2 P2 _ < "$TMPD/tidy" 2> /dev/null
n=$("$DUMP" "$TMPD/y.perfetto-trace" 2> "$TMPD/y.msg" |
	awk -v tid="$W2" '$1 == "slice" && $2 == tid && $5 == 0 && $4 >= 60e6 && $4 <= 200e6' | wc -l)
if [ $st -eq 0 ] && [ ! -s "$TMPD/y.msg" ] && [ "$n" -ge 2 ] &&
   [ "$(head -c 1 "$TMPD/y.perfetto-trace" | od -An -tx1 | tr -d ' ')" = 0a ]; then
	pass timeline_trace_perfetto_ext
else
	fail timeline_trace_perfetto_ext "status $st, $n worker stalls in 2 s: $(head -c 200 "$TMPD/y.msg") $(head -c 200 "$TMPD/y.err")"
fi
