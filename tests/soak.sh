#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# soak.sh - `make soak` (not part of `make check`): a long system-wide SVG
# capture over a fork/exec storm (a few shells running /bin/true in a loop:
# thousands of short-lived processes a second) plus a long-lived target
# (tests/workloads/pingpong.c).  The capture writes what its memory is made
# of every 5 s (OFFWAKE_MEMSTATS, src/capture/memstats.c); at the end this
# prints, every SOAK_INTERVAL seconds, its RSS, the distinct lines of the
# output so far, what they take (the keys, the symbolised stacks they name
# and the frame names: the output itself, kept to the end) and the rest
# (caches, the stack store, the process's own), then the last sample table
# by table, the capture's stderr (loss counters and the "user stacks:" /
# "unwind tables:" summary), and asserts:
#   soak_memory_bounded   after a warm-up (a sixth of the run, at least
#                         60 s: the stack store's retention), anonymous RSS
#                         grows by at most 10% plus SOAK_LINE_KB (1.5) kB
#                         per new distinct output line: memory follows the
#                         output, not the time run or the processes seen
#   soak_line_cost        the output costs at most SOAK_LINE_KB per line
#   soak_nothing_silent   every stderr line is one the docs explain
#   soak_target_whole     the long-lived target's block and waker stacks are whole
#   soak_storm_seen       the storm's processes are in the graph
# The distinct lines are what the system runs besides the storm (on a
# shared machine: compilers, browsers): their number is not the soak's to
# choose, hence a bound per line rather than a flat one.
# SOAK_SECONDS (default 600), SOAK_INTERVAL (60), SOAK_SHELLS (3).
# Needs root and kernel BTF; skips with the reason otherwise.
. "$(dirname "$0")/lib.sh"
SECS=${SOAK_SECONDS:-600}
IVL=${SOAK_INTERVAL:-60}
LINE_KB=${SOAK_LINE_KB:-1.5}
SHELLS=${SOAK_SHELLS:-3}
WL=$TOP/tests/workloads

can_capture soak || exit 0
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

OFFWAKE_MEMSTATS=$TMPD/mem "$OFFWAKE" -o "$TMPD/soak.svg" "$SECS" 2> "$TMPD/err" &
cap=$!
pids+=($cap)
echo "soak: ${SECS} s system-wide capture (pid $cap) over $SHELLS shells of /bin/true and pingpong"
while kill -0 "$cap" 2> /dev/null; do	# its largest mappings, near the end
	sleep 5
	cp /proc/$cap/smaps "$TMPD/smaps" 2> /dev/null
done
wait "$cap"
st=$?
for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
wait "${storm[@]}" 2> /dev/null	# they end by themselves, SECS + 2 s after they began
runs=$(cat "$TMPD"/storm.* 2> /dev/null | awk '{s += $1} END {print s + 0}')

# The samples as columns: t rss anon lines output_kb (memstats' names).
awk '{for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
      print v["t"], v["rss"], v["anon"], v["keys"],
	    v["keys_kb"] + v["interned_kb"] + v["names_kb"]}' "$TMPD/mem" 2> /dev/null > "$TMPD/curve"
echo "soak: the capture every $IVL s: RSS, anonymous RSS, distinct output lines, what they take, the rest (MB):"
awk -v ivl="$IVL" 'function row() {
	printf "  %5d s %7.1f %7.1f %8d lines %7.1f %7.1f\n", $1, $2 / 1024, $3 / 1024,
		$4, $5 / 1024, ($3 - $5) / 1024 }
	$1 >= next_t || NR == 1 {row(); next_t = $1 + ivl; last = NR}
	END {if (NR && last != NR) row()}' "$TMPD/curve"
echo "soak: the last sample (kB unless a count; src/capture/memstats.c):"
tail -n 1 "$TMPD/mem" 2> /dev/null | fold -s -w 76 | sed 's/^/  /'
echo "soak: its largest mappings near the end (RSS):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {m = $1 " " ($6 == "" ? "[anon]" : $6)} /^Rss:/ && $2 > 1024 {printf "  %7.1f MB %s\n", $2 / 1024, m}' \
	"$TMPD/smaps" 2> /dev/null | sort -rn | head -5
echo "soak: storm: $runs processes, $((runs / (SECS + 1))) a second"
echo "soak: capture stderr (exit status $st):"
sed 's/^/  /' "$TMPD/err"
"$OFFWAKE" unfold "$TMPD/soak.svg" > "$TMPD/folded" 2> "$TMPD/unfold.err"
echo "soak: SVG $(stat -c %s "$TMPD/soak.svg" 2> /dev/null || echo 0) bytes, $(wc -l < "$TMPD/folded") lines left after --minwidth"

# After the warm-up (the first sample at or past it) against the end.
warm=$((SECS / 6 > 60 ? SECS / 6 : 60))
read -r w_t w_anon w_lines w_out <<< "$(awk -v w="$warm" '$1 >= w {print $1, $3, $4, $5; exit}' "$TMPD/curve")"
read -r e_t _ e_anon e_lines e_out <<< "$(tail -n 1 "$TMPD/curve")"
if [ "$st" -ne 0 ] || [ -z "$w_t" ] || [ -z "$e_t" ] || [ "$e_t" -le "$w_t" ]; then
	fail soak_memory_bounded "capture exit status $st, samples from ${w_t:-none} to ${e_t:-none} s: $(head -c 300 "$TMPD/err")"
	fail soak_line_cost "no samples"
else
	verdict=$(awk -v wa="$w_anon" -v wl="$w_lines" -v ea="$e_anon" -v el="$e_lines" -v k="$LINE_KB" 'BEGIN {
		allowed = wa * 1.1 + k * (el - wl)
		printf "%s %.1f MB from %.1f MB at %d lines to %.1f MB at %d lines (allowed %.1f MB: 10%% plus %s kB a line)",
			ea <= allowed ? "ok" : "over", (ea - wa) / 1024, wa / 1024, wl, ea / 1024, el, allowed / 1024, k}')
	echo "soak: after $w_t s: anonymous RSS grew ${verdict#* }"
	if [ "${verdict%% *}" = ok ]; then
		pass soak_memory_bounded
	else
		fail soak_memory_bounded "${verdict#* }"
	fi
	cost=$(awk -v o="$e_out" -v l="$e_lines" 'BEGIN {printf "%.0f", l ? o * 1024 / l : 0}')
	echo "soak: the output: $e_lines distinct lines, $((e_out / 1024)) MB, $cost bytes a line"
	if awk -v c="$cost" -v k="$LINE_KB" 'BEGIN {exit !(c <= k * 1024)}'; then
		pass soak_line_cost
	else
		fail soak_line_cost "$cost bytes a line > $LINE_KB kB"
	fi
fi

# Each line the capture may print at the end, and the docs' text that
# explains it (README.md, docs/*.md): a line matching no pattern, or whose
# explanation is gone from them, is a loss nobody was told about.
explained=(
	'user stacks of [a-z ]*: .* by unwind tables|Processes that appear later'
	'unwind tables: .* files, .* MB of|Processes that appear later'
	'files without unwind tables and .* unreadable|a file without unwind tables'
	'tables did not fit --unwind-memory|a table that did not fit `--unwind-memory`'
	'blocks without their waker|a waker the kernel never reported'
	'context switches the kernel did not report|"context switches the kernel did not report"'
	'a hidden task: pid|names the hidden task'
	'stacks lost: the ring buffer and the stack backlog|`stacks lost: the ring buffer and the stack backlog were both full`'
	'user space fell behind: .* waited in the kernel|waits in the kernel, in a backlog'
	'counts map was full between two drains|Blocks that found the kernel'
	'stacks not readable \(-EFAULT\)|readable (-EFAULT)` under a fork storm'
	'events missed: no task storage|Warnings about missing stacks or wakers'
	'process events lost: the ring buffer and the event backlog|`process events lost: the ring buffer and the event backlog were both full` means'
	'files mapped by traced processes could not be opened|files mapped by traced processes could not be opened`'
	'the maps of .* processes could not be read|maps of N processes could not be read`'
)
# the docs as one line: their phrases may wrap
cat "$TOP/README.md" "$TOP"/docs/*.md | tr -s '\n ' '  ' > "$TMPD/readme"
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
	fail soak_nothing_silent "stderr lines the docs do not explain:$bad"
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
