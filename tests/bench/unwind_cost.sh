#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# unwind_cost.sh - what walking user stacks by CFI tables costs, against
# frame pointers at the same depth: tests/bench/switch_depth.c (two threads
# ping-ponging over pipes on one CPU, from the bottom of DEPTH nested calls;
# built with frame pointers, so both walks reach the same frames) runs
# untraced and under a system-wide `offwake-svg -f --unwind=fp` and
# `--unwind=auto`, at two depths.  Prints the median added cost per context
# switch for each, the frames a walk took (from the folded output), the
# CFI walk's extra cost per switch over frame pointers (the issue's target:
# at most 1.5 us at the same depth), and each method's cost per frame (the
# slope between the two depths).  Each switch walks two user stacks: the
# blocked thread's and its waker's.  Needs root and BPF; skips otherwise.
#
# Environment: UNWIND_BENCH_OPS=300000 (operations: two switches each),
# UNWIND_BENCH_RUNS=3, OFFWAKE=path (our binary).
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
OPS=${UNWIND_BENCH_OPS:-300000}
RUNS=${UNWIND_BENCH_RUNS:-3}
B=$TOP/build/bench/unwind
mkdir -p "$B"

note() { echo "unwind bench: $*"; }
[ "$(id -u)" = 0 ] || { note "skipped: needs root"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "skipped: no kernel BTF"; exit 0; }
[ -x "$OURS" ] || { note "$OURS not built (run make)"; exit 1; }
cc -O2 -fno-omit-frame-pointer -pthread -o "$B/switch_depth" tests/bench/switch_depth.c ||
	{ note "cannot build tests/bench/switch_depth.c"; exit 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }

# one run: MODE DEPTH -> seconds the workload took
run() {
	local mode=$1 depth=$2 ow t
	if [ "$mode" = none ]; then
		taskset -c 0 "$B/switch_depth" "$depth" "$OPS"
		return
	fi
	"$OURS" -f --unwind="$mode" -o "$B/$mode.$depth.folded" 2> "$B/$mode.err" & ow=$!
	for _ in $(seq 100); do	# attached once its BPF links exist
		grep -qs '^link_id:' /proc/$ow/fdinfo/* && break
		sleep 0.05
	done
	sleep 0.2
	t=$(taskset -c 0 "$B/switch_depth" "$depth" "$OPS")
	kill -INT $ow
	wait $ow
	echo "$t"
}

# frames of the workload's heaviest user stack (the blocked side)
frames() {
	grep '^switch_depth;' "$B/$1.$2.folded" | sort -t' ' -k2 -n | tail -1 |
		sed 's/;;.*//' | awk -F';' '{ print NF - 1 }'
}

D1=2 D2=32
switches=$((2 * OPS))
note "workload: switch_depth at depths $D1 and $D2, $OPS operations ($switches context switches), $RUNS runs each; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for d in $D1 $D2; do
	for m in none fp auto; do
		: > "$B/$m.$d.runs"
	done
	for _ in $(seq "$RUNS"); do	# interleaved: drift hits all three
		for m in none fp auto; do
			run $m $d >> "$B/$m.$d.runs"
		done
	done
done

declare -A cost fr
printf '\n%-6s %-14s %10s %16s %14s\n' depth walk "wall (s)" "added us/switch" "frames/stack"
for d in $D1 $D2; do
	base=$(median < "$B/none.$d.runs")
	printf '%-6s %-14s %10s %16s %14s\n' "$d" none "$base" - -
	for m in fp auto; do
		w=$(median < "$B/$m.$d.runs")
		cost[$m.$d]=$(calc "($w - $base) / $switches * 1e6" 3)
		fr[$m.$d]=$(frames $m $d)
		printf '%-6s %-14s %10s %16s %14s\n' "$d" "--unwind=$m" "$w" "${cost[$m.$d]}" "${fr[$m.$d]}"
	done
done
echo
for d in $D1 $D2; do
	note "depth $d: CFI costs $(calc "${cost[auto.$d]} - ${cost[fp.$d]}" 2) us per switch more than frame pointers (${fr[auto.$d]} against ${fr[fp.$d]} frames a stack; target <= 1.5 us)"
done
for m in fp auto; do
	df=$(( ${fr[$m.$D2]:-0} - ${fr[$m.$D1]:-0} ))
	[ "$df" -gt 0 ] &&
		note "--unwind=$m: $(calc "(${cost[$m.$D2]} - ${cost[$m.$D1]}) / (2 * $df) * 1000" 0) ns per frame (two stacks a switch)"
done
note "our summary (last run, --unwind=auto, depth $D2):"
sed 's/^/    /' "$B/auto.err"
