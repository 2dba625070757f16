#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# live_cost.sh - what the browser live view (--serve) costs the capture
# per refresh (issue 32 item 3), at about 10k and 100k distinct stacks:
# tests/workloads/manypaths ping-pongs over pipes through PATHS distinct
# call paths (6 levels) a side, so a capture of it (-p) holds about
# 8 x PATHS distinct stacks (the folded output's lines: blocked and waking
# paths paired, and kernel variants) once a few sweeps are done.  The
# capture runs SECONDS with --serve 127.0.0.1:0 --interval 1 while a client
# fetches, every second, the SVG only, or the SVG, folded and pprof; the
# figures are the capture's own summary line ("N ms CPU each (at most M)":
# the capture thread's CPU time to render and publish one refresh, measured
# around it), the distinct stacks (the folded output's lines) and the size
# of the last SVG.  Needs root and BPF; skips (status 0) otherwise.
#
# Environment:
#   LIVE_BENCH_PATHS="1600 12500"   paths a side (4 to 8 stacks a path:
#                                   the waker side and kernel variants)
#   LIVE_BENCH_SECONDS=20           each capture's length
#   OFFWAKE=path                    our binary (default ./offwake-svg)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
PATHS=${LIVE_BENCH_PATHS:-1600 12500}
SECONDS_=${LIVE_BENCH_SECONDS:-20}
T=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$T"' EXIT

if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "live_cost: skipped (needs root and kernel BTF)"
	exit 0
fi
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$T/manypaths" "$TOP/tests/workloads/manypaths.c" || exit 1

# one PATHS MODE: MODE "svg" or "all" (svg, folded, pprof every second)
one() {
	local paths=$1 mode=$2 port= cap mp
	"$T/manypaths" $((SECONDS_ + 10)) "$paths" 6 & mp=$!
	pids+=("$mp")
	"$OFFWAKE" -q -p "$mp" --serve 127.0.0.1:0 --interval 1 -f -o "$T/out.folded" "$SECONDS_" \
		2> "$T/err" & cap=$!
	for _ in $(seq 300); do
		port=$(sed -n 's|.*live view at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$T/err")
		[ -n "$port" ] && break
		sleep 0.1
	done
	while kill -0 "$cap" 2> /dev/null; do
		curl -s -o "$T/last.svg" --max-time 10 "http://127.0.0.1:$port/svg"
		if [ "$mode" = all ]; then
			curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$port/folded"
			curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$port/pprof"
		fi
		sleep 1
	done
	wait "$cap"
	kill "$mp" 2> /dev/null
	wait "$mp" 2> /dev/null
	local line stacks
	line=$(grep -o '[0-9]* refreshes, [0-9.]* ms CPU each (at most [0-9.]*)' "$T/err")
	stacks=$(wc -l < "$T/out.folded")
	printf '%-8s %-20s %9s  %s; last SVG %s MB\n' "$stacks" "$mode" "$paths" "${line:-no summary: $(tail -c 200 "$T/err")}" \
		"$(awk -v b="$(wc -c < "$T/last.svg" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1048576 }')"
}

echo "live view refresh cost ($(nproc) CPUs, $(uname -r)); $SECONDS_ s captures, --interval 1"
printf '%-8s %-20s %9s  %s\n' stacks "client fetches" paths "capture's summary"
for p in $PATHS; do
	one "$p" svg
	one "$p" all
done
