#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# capture_bench.sh - what a capture costs, side by side with perf: the
# workload `taskset -c 0 perf bench sched pipe -l N` (two processes
# ping-ponging over a pipe on one CPU, two context switches an operation)
# runs with no tracer, under `perf record -e sched:sched_switch -a -g`
# (then `perf script > /dev/null`, what getting a graph from it takes), and
# under a system-wide `offwake-svg -o out.svg` (ended by SIGINT once the
# workload is done).  For each, the median of RUNS runs of: the workload's
# own time (perf bench's "Total time"), the slowdown, the added cost per
# context switch, and the time after the workload until the result is
# written (perf: the rest of perf record, plus perf script; us: SIGINT to
# exit, the SVG written).  Then the ratio of the whole costs (slowdown +
# time after), ours / perf's (the issue's target: at most 1/3), and our
# loss warnings.  Needs root, perf and BPF; skips (status 0) otherwise.
#
# Environment:
#   CAPTURE_BENCH_N=2000000   operations (about 5-10 s untraced here)
#   CAPTURE_BENCH_RUNS=3      runs per configuration
#   OFFWAKE=path              our binary (default ./offwake-svg)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
N=${CAPTURE_BENCH_N:-2000000}
RUNS=${CAPTURE_BENCH_RUNS:-3}
B=$TOP/build/bench/capture
mkdir -p "$B"

note() { echo "capture bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
command -v perf >/dev/null || { note "skipped: perf not installed"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }

now() { date +%s.%N; }
# workload: run it, print its "Total time" in seconds.
workload() {
	taskset -c 0 perf bench sched pipe -l "$N" 2>&1 |
		awk '/Total time/ { print $3 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

run_none() { workload; }

# perf record around the workload, then perf script: "WALL POST".
run_perf() {
	local t0 t1 t2 wall
	t0=$(now)
	wall=$(perf record -q -e sched:sched_switch -a -g -o "$B/perf.data" -- \
		taskset -c 0 perf bench sched pipe -l "$N" 2>&1 |
		awk '/Total time/ { print $3 }')
	t1=$(now)
	perf script -i "$B/perf.data" > /dev/null 2> "$B/perf-script.err"
	t2=$(now)
	echo "$wall $(calc "$t1 - $t0 - $wall + $t2 - $t1" 3)"
	ls -l "$B/perf.data" | awk '{ printf "%d\n", $5 / 1048576 }' > "$B/perf-mb"
	rm -f "$B/perf.data" "$B/perf.data.old"
}

# offwake-svg system-wide around the workload: "WALL POST".
run_ours() {
	local ow wall t0 t1
	"$OURS" -o "$B/out.svg" 2> "$B/ours.err" & ow=$!
	# attached once its BPF links exist
	for _ in $(seq 100); do
		grep -qs '^link_id:' /proc/$ow/fdinfo/* && break
		sleep 0.05
	done
	sleep 0.2
	wall=$(workload)
	t0=$(now)
	kill -INT $ow
	wait $ow
	t1=$(now)
	echo "$wall $(calc "$t1 - $t0" 3)"
}

ctxt() { awk '/^ctxt/ { print $2 }' /proc/stat; }
note "workload: taskset -c 0 perf bench sched pipe -l $N ($((2 * N)) context switches), $RUNS runs each; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for cfg in none perf ours; do
	: > "$B/$cfg.runs"
	: > "$B/$cfg.ctxt"
	for _ in $(seq "$RUNS"); do
		c0=$(ctxt)
		"run_$cfg" >> "$B/$cfg.runs"
		c1=$(ctxt)
		echo "$((c1 - c0))" >> "$B/$cfg.ctxt"
	done
done

base=$(cut -d' ' -f1 "$B/none.runs" | median)
switches=$((2 * N))
printf '\n%-34s %10s %9s %14s %16s\n' tracer "wall (s)" slowdown "added us/switch" "after (s)"
printf '%-34s %10s %9s %14s %16s\n' "none" "$base" "-" "-" "-"
row() {
	local name=$1 f=$2 wall post
	wall=$(cut -d' ' -f1 "$f" | median)
	post=$(cut -d' ' -f2 "$f" | median)
	printf '%-34s %10s %8s%% %14s %16s\n' "$name" "$wall" \
		"$(calc "($wall - $base) / $base * 100" 0)" \
		"$(calc "($wall - $base) / $switches * 1e6" 2)" "$post"
	echo "$(calc "$wall - $base + $post" 3)" > "$f.total"
}
row "perf record -a -g + perf script" "$B/perf.runs"
row "offwake-svg -o out.svg" "$B/ours.runs"
echo
note "perf.data was $(cat "$B/perf-mb") MB; context switches per untraced run, all CPUs (/proc/stat): $(tr '\n' ' ' < "$B/none.ctxt")"
ptot=$(cat "$B/perf.runs.total")
otot=$(cat "$B/ours.runs.total")
note "whole cost (slowdown + time after): perf $ptot s, offwake-svg $otot s, ratio $(calc "$otot / $ptot" 3) (target <= 0.333)"
if grep -q warning "$B/ours.err"; then
	note "our loss warnings (last run):"
	sed 's/^/    /' "$B/ours.err"
else
	note "our loss warnings (last run): none"
fi
rm -f "$B"/*.ctxt
