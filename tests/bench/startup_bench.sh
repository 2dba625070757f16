#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# startup_bench.sh - how soon a capture starts tracing and what a whole
# 1 s capture costs the machine, beside libbpf-tools' offcputime (Debian's
# libbpf-tools, installed when missing) and perf record --off-cpu (when
# build_perf.sh has one; it is not built here): each traces one sleeping
# process (-p PID) for 1 s, RUNS times interleaved.  Exec to armed: from
# the tracer's start to its first BPF link (the links are the last step
# of our start-up, armed right after; offcputime and perf attach theirs
# last too), polled every 10 ms.  CPU: the tracer's user and system time
# for the whole run (its BPF loads' verification is system time).
# Medians, and ours / theirs.  Issue 51's targets: armed <= 0.3 s, system
# CPU <= 0.3 s.
#
# Environment: STARTUP_BENCH_RUNS=5, OFFWAKE=path (ours), OFFCPU_PERF=path
# (else build_perf.sh's cache).
set -u
cd "$(dirname "$0")/../.." || exit 1
OURS=${OFFWAKE:-$PWD/offwake-svg}
RUNS=${STARTUP_BENCH_RUNS:-5}
B=$PWD/build/bench/startup
mkdir -p "$B"
note() { echo "startup bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }
command -v offcputime > /dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q libbpf-tools > /dev/null 2>&1 ||
	note "libbpf-tools could not be installed: offcputime's column skipped"
# (perf's column only with one built before: offcpu_bench.sh builds it)
PERF=${OFFCPU_PERF:-${PERF_CACHE:-/var/cache/offwake-bench/perf}/bin/perf}
[ -x "$PERF" ] || { PERF=; note "no perf with --off-cpu built (offcpu_bench.sh builds one): its column skipped"; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

# run NAME CMD...: one 1 s run of CMD (its target: $SP); appends
# "armed cpu_sys cpu_user wall" to $B/NAME
run() {
	local n=$1 t0 tp armed=- ticks cpu
	shift
	t0=$(date +%s%N)
	"$@" > /dev/null 2> "$B/$n.err" & tp=$!
	while kill -0 $tp 2> /dev/null; do
		if grep -qs '^link_id:' /proc/$tp/fdinfo/* 2> /dev/null; then
			armed=$(( ($(date +%s%N) - t0) / 1000000 ))
			break
		fi
		sleep 0.01
	done
	# the tracer's own CPU, read before it exits (ticks of 1/HZ)
	while kill -0 $tp 2> /dev/null; do
		cpu=$(awk '{ print $15, $14 }' /proc/$tp/stat 2> /dev/null) || true
		sleep 0.05
	done
	wait $tp
	ticks=$(getconf CLK_TCK)
	set -- ${cpu:-0 0}
	echo "$armed $(calc "$1 / $ticks") $(calc "$2 / $ticks") $(( ($(date +%s%N) - t0) / 1000000 ))" >> "$B/$n"
}

sleep 3600 & SP=$!
trap 'kill $SP 2> /dev/null' EXIT
rm -f "$B"/ours "$B"/offcputime "$B"/perf
for _ in $(seq "$RUNS"); do
	run ours "$OURS" -q -f -p $SP 1
	command -v offcputime > /dev/null && run offcputime offcputime -p $SP 1
	[ -n "$PERF" ] && run perf "$PERF" record --off-cpu -e dummy -p $SP -q -o "$B/perf.data" -- sleep 1
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
printf '\nStart-up, %s runs each, medians (load %s; %s, %s):\n\n' "$RUNS" "$load" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
	"$(grep -q ' pti' /proc/cpuinfo && echo PTI || echo 'no PTI')"
printf '| tracer | exec to armed | system CPU, 1 s capture | user CPU | wall |\n|---|---|---|---|---|\n'
declare -A A S
for n in ours offcputime perf; do
	[ -s "$B/$n" ] || continue
	A[$n]=$(awk '{ print $1 }' "$B/$n" | median)
	S[$n]=$(awk '{ print $2 }' "$B/$n" | median)
	printf '| %s | %s ms | %s s | %s s | %s ms |\n' "$n" "${A[$n]}" "${S[$n]}" \
		"$(awk '{ print $3 }' "$B/$n" | median)" "$(awk '{ print $4 }' "$B/$n" | median)"
done
for n in offcputime perf; do
	[ -n "${A[$n]:-}" ] || continue
	printf 'ours / %s: exec to armed %sx, system CPU %sx\n' "$n" \
		"$(calc "${A[ours]} / ${A[$n]}")" \
		"$(awk -v a="${S[ours]}" -v b="${S[$n]}" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')"
done
printf 'targets (issue 51): exec to armed <= 300 ms: %s; system CPU <= 0.3 s: %s\n' \
	"$([ "${A[ours]}" -le 300 ] 2> /dev/null && echo met || echo "not met (${A[ours]} ms)")" \
	"$(awk -v s="${S[ours]}" 'BEGIN { print (s <= 0.3 ? "met" : "not met (" s " s)") }')"
