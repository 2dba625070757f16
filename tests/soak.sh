#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# soak.sh - `make soak` (not part of `make check`): a long system-wide SVG
# capture over a fork/exec storm (a few shells running /bin/true in a loop:
# thousands of short-lived processes a second) plus a long-lived target
# (tests/workloads/pingpong.c).  The capture's RSS is sampled every
# SOAK_INTERVAL seconds; at the end it prints the RSS curve, the capture's
# stderr (loss counters and the "user stacks:" / "unwind tables:" summary)
# and the number of distinct stacks in the SVG, and asserts:
#   soak_memory_bounded   peak RSS of the last third <= 1.5x the first third's
#   soak_nothing_silent   every stderr line is one the README explains
#   soak_target_whole     the long-lived target's block and waker stacks are whole
#   soak_storm_seen       the storm's processes are in the graph
# SOAK_SECONDS (default 600), SOAK_INTERVAL (10), SOAK_SHELLS (3).
# Needs root and kernel BTF; skips with the reason otherwise.
. "$(dirname "$0")/lib.sh"
SECS=${SOAK_SECONDS:-600}
IVL=${SOAK_INTERVAL:-10}
SHELLS=${SOAK_SHELLS:-3}
WL=$TOP/tests/workloads

if [ "$(id -u)" -ne 0 ]; then
	skip soak "needs root to load BPF programs"
	exit 0
fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip soak "no kernel BTF (/sys/kernel/btf/vmlinux)"
	exit 0
fi
if ! cc -O1 -g -pthread -o "$TMPD/pingpong" "$WL/pingpong.c"; then
	fail soak_build "cannot compile pingpong.c"
	exit 0
fi

pids=()
storm=()
cleanup() {
	for p in "${pids[@]}" "${storm[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT

"$TMPD/pingpong" $((SECS + 60)) "$TMPD/tids" & pids+=($!)
# The storm: each shell forks and execs /bin/true until the deadline
# (bounded), then writes how many it ran.
for i in $(seq "$SHELLS"); do
	bash -c 'n=0; while [ $SECONDS -lt '"$((SECS + 2))"' ]; do /bin/true; n=$((n + 1)); done; echo $n > '"$TMPD/storm.$i" &
	storm+=($!)
done
sleep 1

"$OFFWAKE" -o "$TMPD/soak.svg" "$SECS" 2> "$TMPD/err" &
cap=$!
pids+=($cap)
echo "soak: ${SECS} s system-wide capture (pid $cap) over $SHELLS shells of /bin/true and pingpong"
: > "$TMPD/rss"
t=0
while kill -0 "$cap" 2> /dev/null; do
	sleep "$IVL"
	t=$((t + IVL))
	rss=$(awk '/^VmRSS:/ {r = $2} /^RssAnon:/ {a = $2} END {if (r) print r, a}' /proc/$cap/status 2> /dev/null)
	[ -n "$rss" ] && echo "$t $rss" >> "$TMPD/rss" &&
		cp /proc/$cap/smaps "$TMPD/smaps" 2> /dev/null
done
wait "$cap"
st=$?
for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
wait "${storm[@]}" 2> /dev/null	# they end by themselves, SECS + 2 s after they began
runs=$(cat "$TMPD"/storm.* 2> /dev/null | awk '{s += $1} END {print s + 0}')

echo "soak: RSS of the capture (s, MB; of which anonymous):"
awk '{printf "  %5d s %7.1f MB %7.1f MB\n", $1, $2 / 1024, $3 / 1024}' "$TMPD/rss"
echo "soak: its largest mappings at the last sample (RSS):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {m = $1 " " ($6 == "" ? "[anon]" : $6)} /^Rss:/ && $2 > 1024 {printf "  %7.1f MB %s\n", $2 / 1024, m}' \
	"$TMPD/smaps" 2> /dev/null | sort -rn | head -5
echo "soak: storm: $runs processes, $((runs / (SECS + 1))) a second"
echo "soak: capture stderr (exit status $st):"
sed 's/^/  /' "$TMPD/err"
keys=0
if [ -s "$TMPD/soak.svg" ] && "$OFFWAKE" unfold "$TMPD/soak.svg" > "$TMPD/folded" 2> "$TMPD/unfold.err"; then
	keys=$(wc -l < "$TMPD/folded")
fi
echo "soak: distinct stacks in the SVG: $keys; SVG $(stat -c %s "$TMPD/soak.svg" 2> /dev/null || echo 0) bytes"

n=$(wc -l < "$TMPD/rss")
if [ "$st" -ne 0 ] || [ "$n" -lt 3 ]; then
	fail soak_memory_bounded "capture exit status $st, $n RSS samples: $(head -c 300 "$TMPD/err")"
else
	third=$((n / 3))
	first=$(head -n "$third" "$TMPD/rss" | awk '$2 > m {m = $2} END {print m}')
	last=$(tail -n "$third" "$TMPD/rss" | awk '$2 > m {m = $2} END {print m}')
	if [ $((last * 2)) -le $((first * 3)) ]; then
		pass soak_memory_bounded
	else
		fail soak_memory_bounded "peak RSS of the last third $((last / 1024)) MB > 1.5x the first third's $((first / 1024)) MB"
	fi
fi

# Each line the capture may print at the end, and the README text that
# explains it: a line matching no pattern, or whose explanation is gone
# from the README, is a loss nobody was told about.
explained=(
	'user stacks: .* by unwind tables|Processes that appear later'
	'unwind tables: .* files, .* MB of|Processes that appear later'
	'files without unwind tables and .* unreadable|a file without unwind tables'
	'tables did not fit --unwind-memory|a table that did not fit `--unwind-memory`'
	'blocks without their waker|a waker the kernel never reported'
	'context switches the kernel did not report|"context switches the kernel did not report"'
	'a hidden task: pid|names the hidden task'
	'stacks lost: ring buffer full|could not be sent while the ring buffer was full'
	'stacks not readable \(-EFAULT\)|readable (-EFAULT)` under a fork storm'
	'events missed: no task storage|Warnings about missing stacks or wakers'
	'process events lost: ring buffer full|`process events lost: ring buffer full` means'
	'files mapped by traced processes could not be opened|files mapped by traced processes could not be opened`'
	'the maps of .* processes could not be read|maps of N processes could not be read`'
)
# the README as one line: its phrases may wrap
tr -s '\n ' '  ' < "$TOP/README.md" > "$TMPD/readme"
bad=
while IFS= read -r line; do
	ok=
	for e in "${explained[@]}"; do
		if grep -qE -- "${e%%|*}" <<< "$line"; then
			grep -qF -- "${e#*|}" "$TMPD/readme" && ok=1
			break
		fi
	done
	[ -n "$ok" ] || bad="$bad [$line]"
done < "$TMPD/err"
if [ -z "$bad" ]; then
	pass soak_nothing_silent
else
	fail soak_nothing_silent "stderr lines the README does not explain:$bad"
fi

if grep -qE '^ow_pong;.*pong_loop;.*anon_pipe_read;.*--;.*anon_pipe_write;.*ping_loop;.*ow_ping ' "$TMPD/folded"; then
	pass soak_target_whole
else
	fail soak_target_whole "no whole ow_pong stack woken by ow_ping in the SVG: $(grep -m2 '^ow_pong' "$TMPD/folded" | cut -c1-300)"
fi
if [ "$runs" -gt 0 ] && grep -qE '(^|;)true[; ]' "$TMPD/folded"; then
	pass soak_storm_seen
else
	fail soak_storm_seen "$runs storm processes, none in the SVG"
fi
