#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# live_bench.sh - what the terminal live view (--live) costs per refresh
# (issue 32 item 3).  First the tree alone, fed synthetic snapshots
# (tests/bench/live_bench.c: no BPF, no curses) at 10k and 100k distinct
# stacks: the median refresh with a tenth of the stacks changed, and with
# all of them, its CPU milliseconds, the tree's nodes and peak RSS.  Then,
# with root, BPF and tmux, real captures of tests/workloads/manypaths.c
# (PATHS distinct paths a side: about 10k and about 130k stacks) under
# --live in an 80x24 tmux window: the view's own CPU per refresh as its
# second line shows it (reading the profile, the tree, the drawing; not the
# drain, which the capture does anyway), sampled every second, and the
# capture's whole CPU time and peak RSS with and without --live over the
# same workload (CPU times vary with the machine's other load).
# Environment: LIVE_BENCH_SECONDS=20 (each capture of 10k stacks; three
# times that at 130k), OFFWAKE=path.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
OURS=${OFFWAKE:-$TOP/offwake-svg}
SECS=${LIVE_BENCH_SECONDS:-20}
B=$TOP/build/bench/live
mkdir -p "$B"
note() { echo "live bench: $*"; }

make -s build/tests_src/live_bench || exit 1
build/tests_src/live_bench 10000 100000 | sed 's/^/live bench: synthetic: /'

[ "$(id -u)" = 0 ] || { note "real captures skipped: needs root"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { note "real captures skipped: no kernel BTF"; exit 0; }
command -v tmux > /dev/null || { note "real captures skipped: no tmux"; exit 0; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$B/manypaths" tests/workloads/manypaths.c || exit 1
T=(tmux -L "owbench$$" -f /dev/null)
trap '"${T[@]}" kill-server 2> /dev/null' EXIT

# cpu_of CMD...: the capture's user+system seconds, from /usr/bin/time
for paths in 2500 32768; do
	secs=$SECS
	[ "$paths" -gt 2500 ] && secs=$((SECS * 3))	# a few refreshes past the first
	rm -f "$B/st" "$B/time"
	"${T[@]}" new-session -d -x 80 -y 24 -s live \
		"/usr/bin/time -f '%U %S %M' -o $B/time $OURS --live -o $B/live.svg -- $B/manypaths $secs $paths 2> $B/live.err; echo \$? > $B/st"
	: > "$B/samples"
	while [ ! -e "$B/st" ]; do
		"${T[@]}" capture-pane -p -t live 2> /dev/null | sed -n 2p |
			grep -oE '[0-9]+ stacks, refresh [0-9.]+ ms' >> "$B/samples"
		sleep 1
	done
	live_cpu=$(awk '{ print $1 + $2 " s CPU, peak RSS " int($3 / 1024) " MB" }' "$B/time")
	/usr/bin/time -f '%U %S %M' -o "$B/time" "$OURS" -q -o "$B/plain.svg" -- "$B/manypaths" "$secs" "$paths" 2> /dev/null
	plain_cpu=$(awk '{ print $1 + $2 " s CPU, peak RSS " int($3 / 1024) " MB" }' "$B/time")
	# the refreshes after the first (which makes the tree), as shown
	sort -u "$B/samples" | sort -n | awk '$1 > 0' > "$B/seen"
	stacks=$(tail -1 "$B/seen" | cut -d' ' -f1)
	tail -n +2 "$B/seen" | awk '{ print $4 }' | sort -n > "$B/ms"
	n=$(wc -l < "$B/ms")
	if [ "$n" -lt 1 ]; then
		note "manypaths $paths: too few refreshes seen"
		continue
	fi
	note "real capture, manypaths $paths paths: ${stacks:-?} stacks at the end; the view's refresh $(sed -n "$(((n + 1) / 2))p" "$B/ms") ms CPU (median of $n, $(head -1 "$B/ms") to $(tail -1 "$B/ms")); the capture with --live ${live_cpu}; without ${plain_cpu}"
done
