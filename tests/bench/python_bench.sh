#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# python_bench.sh - what Python frames (--python, issue 30) give and cost,
# on Debian's python3.11:
# 1. coverage: tests/workloads/pyjobs.py (threads blocked in queue.get,
#    time.sleep, socket.recv, sqlite3 callbacks, Event.wait) captured for
#    DURATION s: the share of its threads' blocked time whose blocked side
#    shows a Python function, and, of the time woken by another thread of
#    the same process (not by an interrupt that landed on one), the share
#    whose waker side shows one too (target: >= 95% each).
# 2. cost per switch of a Python thread with 30 Python frames:
#    tests/bench/py_pingpong.py (two threads ping-ponging over pipes on one
#    CPU, each from the bottom of 30 Python frames) captured with -p and
#    --python=on, then =off, interleaved, RUNS times; our programs' run
#    time (kernel.bpf_stats_enabled, on for the measurement only) over the
#    workload's run, divided by its context switches (its threads'
#    voluntary and involuntary switches, which it counts), capture_bench.sh's
#    method.  The
#    difference is what walking the Python frames costs per switch, both
#    sides (the blocked thread's stack at the switch, the waker's at the
#    wakeup) (target: <= 1.5 us).
# 3. other processes: a C ping-pong (tests/bench/switch_depth.c) captured
#    system-wide while a Python process runs (so the Python walker is
#    armed), --python=on against =off: the programs' run time per switch
#    (target: no difference beyond noise).
# Needs root, bpftool, python3 and BPF; skips (status 0) otherwise.
#
# Environment: PYTHON_BENCH_OPS=50000 (round trips), PYTHON_BENCH_RUNS=5,
# PYTHON_BENCH_SECONDS=5 (coverage capture), PYTHON_BENCH_PARTS="1 2 3"
# (which of the three), OFFWAKE=path.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
OPS=${PYTHON_BENCH_OPS:-50000}
RUNS=${PYTHON_BENCH_RUNS:-5}
SECS=${PYTHON_BENCH_SECONDS:-5}
PARTS=" ${PYTHON_BENCH_PARTS:-1 2 3} "
PY=/usr/bin/python3.11
B=$TOP/build/bench/python
mkdir -p "$B"

note() { echo "python bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$PY" ] || { note "skipped: no $PY (make deps)"; exit 0; }
command -v bpftool > /dev/null && command -v python3 > /dev/null ||
	{ note "skipped: needs bpftool and python3"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }
cc -O2 -fno-omit-frame-pointer -pthread -o "$B/switch_depth" tests/bench/switch_depth.c ||
	{ note "cannot build tests/bench/switch_depth.c"; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
# attached PID: wait until capture PID's BPF links exist
attached() {
	for _ in $(seq 400); do
		grep -qs '^link_id:' /proc/"$1"/fdinfo/* && return 0
		sleep 0.05
	done
	return 1
}
# prog_ns PID: "run_time_ns run_cnt" of capture PID's switch and waking
# programs, summed
prog_ns() {
	for id in $(awk '/^prog_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2> /dev/null | sort -u); do
		bpftool -j prog show id "$id"; echo
	done | python3 -c '
import json, sys
ns = cnt = 0
for line in sys.stdin:
    if line.strip():
        p = json.loads(line)
        if p["name"] in ("switch_btf", "waking_btf"):
            ns += p.get("run_time_ns", 0)
        if p["name"] == "switch_btf":
            cnt += p.get("run_cnt", 0)
print(ns, cnt)'
}

note "load: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. coverage
part() { [[ $PARTS == *" $1 "* ]]; }
if part 1; then
"$PY" tests/workloads/pyjobs.py $((SECS + 30)) "$B/jobs.tids" & J=$!
for _ in $(seq 100); do [ -s "$B/jobs.tids" ] && break; sleep 0.05; done
"$OURS" -f --group thread -p "$J" "$SECS" > "$B/jobs.folded" 2> "$B/jobs.err"
kill $J 2> /dev/null
wait $J 2> /dev/null
awk -v p="$J" '
# blocked side: before the first "--"; waker side: the next level
{
	n = split($0, w, " "); v = w[n]; line = substr($0, 1, length($0) - length(v) - 1)
	if (index(line, "python3.11-" p "/") != 1) next
	split(line, lv, ";--;")
	total += v
	if (lv[1] ~ /\([^;()]*\.py\)/) tpy += v
	if (lv[2] ~ ("python3.11-" p "/[0-9]+$") && lv[2] !~ /\[(hardirq|softirq|nmi)\]/) {
		woken += v
		if (lv[2] ~ /\([^;()]*\.py\)/) wpy += v
	}
}
END {
	printf "coverage: %.1f%% of pyjobs.py threads'"'"' blocked time (%.2f s) shows the Python function that blocked (target >= 95%%); of the %.2f s woken by its own threads, %.1f%% shows the waker'"'"'s Python function (target >= 95%%)\n",
		total ? 100 * tpy / total : 0, total / 1e6, woken / 1e6, woken ? 100 * wpy / woken : 0
}' "$B/jobs.folded" | sed 's/^/python bench: /'
grep 'python:' "$B/jobs.err" | sed 's/^offwake-svg: /python bench: summary: /'
fi

# 2. cost per switch of a thread with 30 Python frames
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
trap 'sysctl -q -w kernel.bpf_stats_enabled="$old"' EXIT
if part 2; then
# one run: MODE -> "ns_per_switch seconds python_stacks" (the stacks
# walked with Python frames: none with --python=off)
py_run() {
	local mode=$1 ow w a b t
	rm -f "$B/go" "$B/pp.out"
	taskset -c 0 "$PY" tests/bench/py_pingpong.py 30 "$OPS" "$B/go" > "$B/pp.out" & w=$!
	"$OURS" -f --python="$mode" -p "$w" -o "$B/pp.$mode.folded" 2> "$B/pp.$mode.err" & ow=$!
	attached $ow || { note "capture did not start: $(cat "$B/pp.$mode.err")"; kill $w; return; }
	sleep 0.5
	a=$(prog_ns $ow)
	touch "$B/go"
	wait $w
	b=$(prog_ns $ow)
	kill -INT $ow
	wait $ow
	read -r t n < "$B/pp.out"
	echo "$(calc "(${b% *} - ${a% *}) / $n" 0) $t $(grep -o '[0-9]* stacks with Python frames' "$B/pp.$mode.err" | cut -d' ' -f1)"
}
: > "$B/pp.runs"
for _ in $(seq "$RUNS"); do
	echo "$(py_run on) $(py_run off)" >> "$B/pp.runs"
done
on=$(cut -d' ' -f1 "$B/pp.runs" | median)
off=$(cut -d' ' -f4 "$B/pp.runs" | median)
frames=$(sed 's/;--;.*//' "$B/pp.on.folded" | grep -a 'pong (py_pingpong.py)' |
	 sort -t' ' -k2 -n | tail -1 | grep -o '([a-z_]*\.py)' | wc -l)
note "30 Python frames (a pong stack shows $frames): programs' run time per switch of the workload, median of $RUNS: --python=on $on ns, off $off ns: +$(calc "($on - $off) / 1000" 3) us per switch (blocked and waker stacks; target <= 1.5)"
note "  runs (on: ns, s, Python stacks; off: ns, s): $(tr '\n' '|' < "$B/pp.runs")"
fi

# 3. other processes: a C workload, system-wide, a Python process running
part 3 || exit 0
"$PY" -c 'import time
while True: time.sleep(0.05)' & SP=$!
c_run() {
	local mode=$1 ow a b
	"$OURS" -f -q --python="$mode" -o /dev/null 2> "$B/c.$mode.err" & ow=$!
	attached $ow || { note "capture did not start"; return; }
	sleep 0.5
	a=$(prog_ns $ow)
	taskset -c 0 "$B/switch_depth" 10 100000 > /dev/null
	b=$(prog_ns $ow)
	kill -INT $ow
	wait $ow
	calc "(${b% *} - ${a% *}) / (${b#* } - ${a#* })" 0
}
: > "$B/c.runs"
for _ in $(seq "$RUNS"); do
	echo "$(c_run on) $(c_run off)" >> "$B/c.runs"
done
kill $SP
con=$(cut -d' ' -f1 "$B/c.runs" | median)
coff=$(cut -d' ' -f2 "$B/c.runs" | median)
note "other processes (a C ping-pong, system-wide capture, a Python process running): $con ns per switch with --python=on, $coff ns off: $(calc "$con - $coff" 0) ns (runs: $(tr '\n' '|' < "$B/c.runs"))"
