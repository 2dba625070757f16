#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# offcpu_bench.sh - what a capture costs per context switch, side by side
# with `perf record --off-cpu -e dummy -a` (issue 31's target: ours with
# defaults at most 1.0 times perf's).  The workload, `taskset -c 0 perf
# bench sched pipe -l N` (two processes ping-ponging over a pipe on one
# CPU: two context switches an operation, a wakeup each), runs untraced,
# under perf --off-cpu and under a system-wide offwake-svg with defaults,
# --unwind=fp, -m 1000, --timeline (issue 46's target: at most 1.2 times
# the defaults' per switch) and --timeline --event-min 1 (every block an
# event: their bytes a second), one of each per round (rounds interleave, so
# drift on a shared VM hits all alike).  Ours keeps unwind tables across
# captures (src/unwind/table_cache.c): from its first round on they are
# read back; OFFWAKE_UNWIND_CACHE=off builds them in each round, as a
# first capture does.  Each traced run's cost per switch
# is taken against the untraced run of its own round (a paired
# difference); the table gives the median over the rounds, and the ratio
# ours / perf's (the median of the rounds' ratios).  Then, with
# kernel.bpf_stats_enabled on for that pass only, each program's own run
# time per call and the programs' total per switch of the workload, ours
# and perf's: which other load on the VM barely changes.
#
# perf's --off-cpu needs a perf built with BUILD_BPF_SKEL=1 (Debian's is
# not): tests/bench/build_perf.sh builds one from Debian's linux-source
# package into a cache outside the tree when it is not there; without one
# the perf column is skipped, with a message.  Needs root and BPF; skips
# (status 0) otherwise.
#
# Environment:
#   OFFCPU_BENCH_N=300000     operations (about 1-2 s untraced here)
#   OFFCPU_BENCH_RUNS=5       rounds
#   OFFCPU_PERF=path          a perf with --off-cpu (default: built)
#   OFFWAKE=path              our binary (default ./offwake-svg)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
N=${OFFCPU_BENCH_N:-300000}
RUNS=${OFFCPU_BENCH_RUNS:-5}
B=$TOP/build/bench/offcpu
mkdir -p "$B"

note() { echo "offcpu bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
command -v perf > /dev/null || { note "skipped: perf (perf bench) not installed"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }
PERF=${OFFCPU_PERF:-$(bash tests/bench/build_perf.sh)} || PERF=
[ -n "$PERF" ] || note "no perf with --off-cpu (see above): perf's column skipped"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
# the workload's "Total time" (s)
workload() {
	taskset -c 0 perf bench sched pipe -l "$N" 2>&1 | awk '/Total time/ { print $3 }'
}

# Tracers: start_NAME starts one (its pid in $tp, attached on return),
# stop ends it.  Ours: a system-wide capture, ARGS from the config.
start_ours() {
	"$OURS" -q -o "$B/out.svg" "$@" 2> "$B/ours.err" & tp=$!
	for _ in $(seq 200); do	# attached once its BPF links exist
		grep -qs '^link_id:' /proc/$tp/fdinfo/* && break
		sleep 0.05
	done
	sleep 0.2
}
# (the kernel stack cache off: what it saves, in the same run)
start_ours_nokc() { OFFWAKE_KSTACK_CACHE=0 start_ours "$@"; }
# (the user stack cache off, the same)
start_ours_nouc() { OFFWAKE_USTACK_CACHE=0 start_ours "$@"; }
# (no unwind tables kept across captures: each round's new perf process
# has its tables built during the measured run, as on a first capture)
start_ours_nocache() { OFFWAKE_UNWIND_CACHE=off start_ours "$@"; }
# (defaults, the workload's unwind tables built first: a short run of it
# in the same capture, so that what is measured is the steady state, not
# the one-time table building for the new perf process (about 0.15 s of
# the tracer's CPU, on a 2-CPU VM))
start_ours_warm() {
	start_ours "$@"
	taskset -c 0 perf bench sched pipe -l 20000 > /dev/null 2>&1
	sleep 0.3
}
start_perf() {
	"$PERF" record --off-cpu -e dummy -a -q -o "$B/perf.data" > /dev/null 2> "$B/perf.err" & tp=$!
	for _ in $(seq 200); do	# attached once its BPF links exist
		grep -qs '^link_id:' /proc/$tp/fdinfo/* && break
		sleep 0.05
	done
	sleep 0.5
}
# the tracer's own CPU time so far (s): on a 2-core VM, what it takes
# from the workload's CPU counts in the wall time too
cpu_s() { awk '{ print $14 + $15 }' /proc/"$tp"/stat; }
stop() {
	kill -INT "$tp"
	wait "$tp"
	rm -f "$B/perf.data" "$B/perf.data.old"
}

# configurations: name, then how to start its tracer ("" none)
OURS_CONFIGS=(ours ours_nocache ours_warm ours_nokc ours_nouc ours_fp ours_m1000 ours_tl ours_tl_all)
CONFIGS=(none perf "${OURS_CONFIGS[@]}")
declare -A START=([none]= [perf]=start_perf [ours]=start_ours
	[ours_tl]="start_ours --timeline" [ours_tl_all]="start_ours --timeline --event-min 1"
	[ours_nocache]=start_ours_nocache [ours_warm]=start_ours_warm
	[ours_nokc]=start_ours_nokc [ours_nouc]=start_ours_nouc
	[ours_fp]="start_ours --unwind=fp" [ours_m1000]="start_ours -m 1000")
declare -A LABEL=([perf]="perf record --off-cpu -e dummy -a"
	[ours]="offwake-svg (defaults)"
	[ours_nocache]="offwake-svg, OFFWAKE_UNWIND_CACHE=off"
	[ours_warm]="offwake-svg (defaults), tables built"
	[ours_nokc]="offwake-svg, OFFWAKE_KSTACK_CACHE=0"
	[ours_nouc]="offwake-svg, OFFWAKE_USTACK_CACHE=0"
	[ours_fp]="offwake-svg --unwind=fp"
	[ours_m1000]="offwake-svg -m 1000"
	[ours_tl]="offwake-svg --timeline"
	[ours_tl_all]="offwake-svg --timeline --event-min 1")
[ -n "$PERF" ] || CONFIGS=(none "${OURS_CONFIGS[@]}")

# run CFG: the workload under CFG's tracer -> its time (s)
run() {
	local tp c0
	[ -z "${START[$1]}" ] && { workload; return; }
	${START[$1]}
	c0=$(cpu_s)
	workload
	echo "$(cpu_s) $c0" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($1 - $2) / hz }' >> "$B/$1.cpu"
	stop
	# (the events' bytes a second, from the capture's summary)
	[ "$1" = ours_tl_all ] && sed -n 's/.*kept as events (\([0-9.]*\) KB\/s.*/\1/p' "$B/ours.err" >> "$B/tl_kbs"
	return 0
}

switches=$((2 * N))
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
note "workload: taskset -c 0 perf bench sched pipe -l $N ($switches context switches), $RUNS interleaved rounds"
for c in "${CONFIGS[@]}"; do : > "$B/$c.runs"; : > "$B/$c.cpu"; done
: > "$B/tl_kbs"
for r in $(seq "$RUNS"); do
	for c in "${CONFIGS[@]}"; do
		echo "$(run "$c")" >> "$B/$c.runs"
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# per round: us added per switch, against that round's untraced run
added() {
	paste "$B/none.runs" "$B/$1.runs" |
		awk -v s="$switches" '{ printf "%.3f\n", ($2 - $1) / s * 1e6 }'
}
printf '\n%-36s %9s %12s %12s   %s\n' tracer "wall (s)" "+us/switch" "tracer CPU (s)" "+us/switch per round"
printf '%-36s %9s %12s %12s   %s\n' "none" "$(median < "$B/none.runs")" - - -
for c in "${CONFIGS[@]}"; do
	[ "$c" = none ] && continue
	added "$c" > "$B/$c.added"
	printf '%-36s %9s %12s %12s   %s\n' "${LABEL[$c]}" "$(median < "$B/$c.runs")" \
		"$(median < "$B/$c.added")" "$(median < "$B/$c.cpu")" "$(tr '\n' ' ' < "$B/$c.added")"
done
echo
if [ -n "$PERF" ]; then
	for c in "${OURS_CONFIGS[@]}"; do
		# (a round where perf's run was not slower than the untraced
		# one has no ratio: noise larger than what is measured)
		ratios=$(paste "$B/$c.added" "$B/perf.added" |
			awk '{ if ($2 > 0) printf "%.2f\n", $1 / $2; else print "-" }')
		note "${LABEL[$c]} / perf --off-cpu per switch: median $(echo "$ratios" | grep -v '^-' | median) (rounds: $(echo "$ratios" | tr '\n' ' '))$([ "$c" = ours ] && echo " (target <= 1.0)")"
	done
fi
note "load average (1, 5, 15 min): $load_before before, $load_after after (other work on the VM: the noise)"

# the programs' own run time (kernel.bpf_stats_enabled, for this pass only)
command -v bpftool > /dev/null && command -v python3 > /dev/null ||
	{ note "no bpftool or python3: programs' run time not measured"; exit 0; }
progs() {	# ids of the BPF programs a process holds
	awk '/^prog_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2> /dev/null | sort -u
}
snap() { for id in $1; do bpftool -j prog show id "$id"; echo; done; }
# stats CFG: its programs' run time over one workload run: per program
# "name ns/call calls", then "total ns/switch"
stats() {
	local tp ids
	${START[$1]}
	ids=$(progs "$tp")
	snap "$ids" > "$B/s0.json"
	workload > /dev/null
	snap "$ids" > "$B/s1.json"
	stop
	python3 - "$B/s0.json" "$B/s1.json" "$switches" <<'PY'
import json, sys
def rd(f):
    t = {}
    for line in open(f):
        if line.strip():
            p = json.loads(line)
            t[p["name"]] = (p.get("run_time_ns", 0), p.get("run_cnt", 0))
    return t
a, b = rd(sys.argv[1]), rd(sys.argv[2])
tot = 0
for k in sorted(b):
    dt, dc = b[k][0] - a.get(k, (0, 0))[0], b[k][1] - a.get(k, (0, 0))[1]
    tot += dt
    if dc >= 1000:
        print("%s %.0f %d" % (k, dt / dc, dc))
print("total %.0f" % (tot / int(sys.argv[3])))
PY
}
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
for c in "${CONFIGS[@]}"; do : > "$B/$c.stats"; done
for r in $(seq "$RUNS"); do
	for c in "${CONFIGS[@]}"; do
		[ "$c" = none ] || stats "$c" | sed "s/^/$r /" >> "$B/$c.stats"
	done
done
sysctl -q -w kernel.bpf_stats_enabled="$old"
printf '\n%-36s %s\n' "programs' own run time (median)" "ns/call (calls per switch) ..., total ns/switch"
for c in "${CONFIGS[@]}"; do
	[ "$c" = none ] && continue
	line=
	for p in $(awk '$2 != "total" { print $2 }' "$B/$c.stats" | sort -u); do
		ns=$(awk -v p="$p" '$2 == p { print $3 }' "$B/$c.stats" | median)
		n=$(awk -v p="$p" '$2 == p { print $4 }' "$B/$c.stats" | median)
		line="$line$p $ns ($(calc "$n / $switches" 2)), "
	done
	printf '%-36s %s total %s\n' "${LABEL[$c]}" "$line" \
		"$(awk '$2 == "total" { print $3 }' "$B/$c.stats" | median)"
done
if [ -n "$PERF" ]; then
	ptot=$(awk '$2 == "total" { print $3 }' "$B/perf.stats" | median)
	for c in "${OURS_CONFIGS[@]}"; do
		note "${LABEL[$c]} / perf --off-cpu, programs' run time per switch: $(calc "$(awk '$2 == "total" { print $3 }' "$B/$c.stats" | median) / $ptot" 2)"
	done
fi
dtot=$(awk '$2 == "total" { print $3 }' "$B/ours.stats" | median)
for c in ours_tl ours_tl_all; do
	note "${LABEL[$c]} / defaults, programs' run time per switch: $(calc "$(awk '$2 == "total" { print $3 }' "$B/$c.stats" | median) / $dtot" 2)$([ "$c" = ours_tl ] && echo " (target <= 1.2)")"
done
note "events from the kernel with --timeline --event-min 1 (every block of the pipe bench): median $(median < "$B/tl_kbs") KB/s (rounds: $(tr '\n' ' ' < "$B/tl_kbs"))"
if grep -q warning "$B/ours.err"; then
	note "our loss warnings (last run):"
	sed 's/^/    /' "$B/ours.err"
fi
