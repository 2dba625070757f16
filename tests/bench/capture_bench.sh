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
# loss warnings.  Then what wakeup chains cost (issue 19): the same capture
# with --chain-depth 2, per switch, over depth 1 (target: at most 0.3 us;
# every switch of the workload is a wakeup, so each copies a chain level).
# Runs are interleaved (one of each configuration, RUNS times), so drift
# on a shared VM hits every configuration alike.  Since the workload's time
# on a busy VM varies by more than that difference, the programs' own run
# time is measured too (kernel.bpf_stats_enabled, on for that measurement
# only): the switch and waking programs' nanoseconds per switch of one
# workload run at each depth, which other load barely changes.  Needs
# root, perf and BPF; skips (status 0) otherwise.
#
# Environment:
#   CAPTURE_BENCH_N=2000000   operations (about 5-10 s untraced here)
#   CAPTURE_BENCH_RUNS=3      runs per configuration
#   CAPTURE_BENCH_CONFIGS="none perf ours chain2"   which configurations
#   OFFWAKE=path              our binary (default ./offwake-svg)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
N=${CAPTURE_BENCH_N:-2000000}
RUNS=${CAPTURE_BENCH_RUNS:-3}
CONFIGS=${CAPTURE_BENCH_CONFIGS:-none perf ours chain2}
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

# start_ours ARGS...: a system-wide capture into $B/out.svg, its pid in
# $ow once attached (its BPF links exist).
start_ours() {
	"$OURS" -o "$B/out.svg" "$@" 2> "$B/ours.err" & ow=$!
	for _ in $(seq 100); do
		grep -qs '^link_id:' /proc/$ow/fdinfo/* && break
		sleep 0.05
	done
	sleep 0.2
}

# offwake-svg system-wide around the workload (ARGS...): "WALL POST".
run_ours() {
	local ow wall t0 t1
	start_ours "$@"
	wall=$(workload)
	t0=$(now)
	kill -INT $ow
	wait $ow
	t1=$(now)
	echo "$wall $(calc "$t1 - $t0" 3)"
}

# the same with wakeup chains of two levels
run_chain2() { run_ours --chain-depth 2; }

# bpf_ns ARGS...: our programs' run time per context switch (ns) over one
# workload run, capturing with ARGS (kernel.bpf_stats_enabled must be on).
bpf_ns() {
	local ow ids
	start_ours "$@"
	ids=$(awk '/^prog_id:/ { print $2 }' /proc/$ow/fdinfo/* 2> /dev/null | sort -u)
	workload > /dev/null
	for id in $ids; do bpftool -j prog show id "$id"; echo; done |
		python3 -c '
import json, sys
t = {}
for line in sys.stdin:
    if line.strip():
        p = json.loads(line)
        t[p["name"]] = (p.get("run_time_ns", 0), p.get("run_cnt", 0))
sw = t.get("switch_btf", (0, 0))
wk = t.get("waking_btf", (0, 0))
print("%.0f" % ((sw[0] + wk[0]) / max(sw[1], 1)))'
	kill -INT $ow
	wait $ow
}

ctxt() { awk '/^ctxt/ { print $2 }' /proc/stat; }
note "workload: taskset -c 0 perf bench sched pipe -l $N ($((2 * N)) context switches), $RUNS runs each; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for cfg in $CONFIGS; do
	: > "$B/$cfg.runs"
	: > "$B/$cfg.ctxt"
done
for _ in $(seq "$RUNS"); do
	for cfg in $CONFIGS; do
		c0=$(ctxt)
		"run_$cfg" >> "$B/$cfg.runs"
		c1=$(ctxt)
		echo "$((c1 - c0))" >> "$B/$cfg.ctxt"
	done
done
has() { [[ " $CONFIGS " == *" $1 "* ]]; }

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
has perf && row "perf record -a -g + perf script" "$B/perf.runs"
has ours && row "offwake-svg -o out.svg" "$B/ours.runs"
has chain2 && row "offwake-svg --chain-depth 2" "$B/chain2.runs"
echo
has perf && note "perf.data was $(cat "$B/perf-mb") MB; context switches per untraced run, all CPUs (/proc/stat): $(tr '\n' ' ' < "$B/none.ctxt")"
if has perf && has ours; then
	ptot=$(cat "$B/perf.runs.total")
	otot=$(cat "$B/ours.runs.total")
	note "whole cost (slowdown + time after): perf $ptot s, offwake-svg $otot s, ratio $(calc "$otot / $ptot" 3) (target <= 0.333)"
fi
if has ours && has chain2; then
	w1=$(cut -d' ' -f1 "$B/ours.runs" | median)
	w2=$(cut -d' ' -f1 "$B/chain2.runs" | median)
	note "--chain-depth 2 over depth 1: $(calc "($w2 - $w1) / $switches * 1e6" 3) us per switch (target <= 0.3; runs: depth 1 $(cut -d' ' -f1 "$B/ours.runs" | tr '\n' ' ')s, depth 2 $(cut -d' ' -f1 "$B/chain2.runs" | tr '\n' ' ')s)"
	if command -v bpftool > /dev/null && command -v python3 > /dev/null; then
		old=$(sysctl -n kernel.bpf_stats_enabled)
		sysctl -q -w kernel.bpf_stats_enabled=1
		: > "$B/bpf.runs"
		for _ in $(seq "$RUNS"); do
			echo "$(bpf_ns) $(bpf_ns --chain-depth 2)" >> "$B/bpf.runs"
		done
		sysctl -q -w kernel.bpf_stats_enabled="$old"
		n1=$(cut -d' ' -f1 "$B/bpf.runs" | median)
		n2=$(cut -d' ' -f2 "$B/bpf.runs" | median)
		note "programs' run time per switch (bpf_stats, median of $RUNS): depth 1 $n1 ns, depth 2 $n2 ns: +$(calc "($n2 - $n1) / 1000" 3) us (target <= 0.3)"
	fi
fi
if grep -q warning "$B/ours.err"; then
	note "our loss warnings (last run):"
	sed 's/^/    /' "$B/ours.err"
else
	note "our loss warnings (last run): none"
fi
rm -f "$B"/*.ctxt
