#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# timeline_bench.sh - what --timeline's events amount to on a busy machine
# (issue 46, item 5): the test suite's busy workload (t_capture.sh's: 2 x
# 8192 distinct user stacks ping-ponging, a shell forking and exec'ing all
# along, the compiler over render/*.c), traced system-wide for SECS
# seconds with defaults and with --timeline, interleaved, RUNS times
# each.  For each: the tracer's CPU time; for --timeline, the events kept,
# lost and their bytes a second from the kernel (the capture's summary
# line).  The per-switch cost of --timeline beside the defaults' is
# offcpu_bench.sh's (programs' own run time).  Needs root and BPF; skips
# (status 0) otherwise.
#
# Environment:
#   TIMELINE_BENCH_SECS=8     seconds a capture
#   TIMELINE_BENCH_RUNS=3     captures of each configuration
#   OFFWAKE=path              our binary (default ./offwake-svg)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
SECS=${TIMELINE_BENCH_SECS:-8}
RUNS=${TIMELINE_BENCH_RUNS:-3}
B=$TOP/build/bench/timeline
mkdir -p "$B"

note() { echo "timeline bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }
cc -O1 -g -o "$B/manypaths" tests/workloads/manypaths.c -lpthread ||
	{ note "cannot build tests/workloads/manypaths.c"; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

# the busy workload for S seconds, in the background (its pids in $BUSY)
busy() {
	"$B/manypaths" "$1" 8192 & BUSY=$!
	( end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do
		sh -c 'cat /proc/self/stat > /dev/null; ls /usr/lib > /dev/null'
	done ) & BUSY="$BUSY $!"
	( end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do
		for w in render/*.c; do cc -O2 -c -Irender -o "$B/cc.o" "$w" 2> /dev/null; done
	done ) & BUSY="$BUSY $!"
}
# one capture of config $1 (its arguments after): the tracer's CPU (s)
# into $B/$1.cpu, its summary in $B/$1.err
one() {
	local c=$1 tp; shift
	busy $((SECS + 2))
	sleep 0.5
	/usr/bin/time -f '%U %S' -o "$B/$c.time" "$OURS" -o "$B/$c.svg" "$@" "$SECS" \
		2> "$B/$c.err" & tp=$!
	wait $tp
	# shellcheck disable=SC2086
	kill $BUSY 2> /dev/null; wait $BUSY 2> /dev/null
	awk '{ printf "%.2f\n", $1 + $2 }' "$B/$c.time" >> "$B/$c.cpu"
	sed -n 's/.*timeline: \([0-9]*\) blocks.*(\([0-9.]*\) KB\/s.*), \([0-9]*\) lost.*/\1 \2 \3/p' \
		"$B/$c.err" >> "$B/$c.tl"
}
command -v /usr/bin/time > /dev/null 2>&1 || { note "skipped: /usr/bin/time (package time) not installed"; exit 0; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in defaults timeline; do : > "$B/$c.cpu"; : > "$B/$c.tl"; done
for _ in $(seq "$RUNS"); do
	one defaults -q
	one timeline -q --timeline
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
note "system-wide, $SECS s a capture over the suite's busy workload, $RUNS interleaved captures each"
note "tracer CPU (s, median): defaults $(median < "$B/defaults.cpu"), --timeline $(median < "$B/timeline.cpu") (captures: $(tr '\n' ' ' < "$B/defaults.cpu")/ $(tr '\n' ' ' < "$B/timeline.cpu"))"
note "--timeline events kept (median) $(awk '{ print $1 }' "$B/timeline.tl" | median), lost $(awk '{ print $3 }' "$B/timeline.tl" | median), from the kernel $(awk '{ print $2 }' "$B/timeline.tl" | median) KB/s (captures: $(awk '{ printf "%s ", $2 }' "$B/timeline.tl"))"
note "load average (1, 5, 15 min): $load_before before, $load_after after"
