#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# browser_bench.sh - `make bench-browser`: how fast our SVG is in headless
# Chromium (issue 21) next to flamegraph.pl's SVG of the same input.  Makes a
# seeded off-wake chain input with tests/bench/gen.c (5,200 lines: about 45k
# frames, 8.8 MB of SVG), renders it with offwake-svg and, when present,
# flamegraph.pl, and has tests/bench/browser_bench.js measure load to first
# paint, click zoom on a mid-size frame, Reset Zoom and a search, each to the
# next paint: median of REPS, over RUNS runs.  Prints the range of the run
# medians, the ratios flamegraph.pl/ours and the issue's targets.  Timings
# are reported, never asserted.  Skipped, saying so, without Chromium.
#
# Environment:
#   BENCH_BROWSER_LINES=5200  input lines (100000: about 154k frames)
#   BENCH_BROWSER_RUNS=3      runs
#   BENCH_BROWSER_REPS=5      loads and clicks per run (the median is kept)
#   BENCH_BROWSER_TERM=tcp_   the search term (matches about 1,300 frames)
#   BENCH_SEED=1              generator seed
#   OFFWAKE=path              our binary (default ./offwake-svg)
#   FLAMEGRAPH_PL=path        flamegraph.pl (default ../ref/FlameGraph/flamegraph.pl
#                             beside the repository); its zoom takes ~30 s a click
#   CHROMIUM=path             the browser (default /usr/bin/chromium)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
B=build/bench
OURS=${OFFWAKE:-$TOP/offwake-svg}
LINES=${BENCH_BROWSER_LINES:-5200}
RUNS=${BENCH_BROWSER_RUNS:-3}
REPS=${BENCH_BROWSER_REPS:-5}
TERM_RE=${BENCH_BROWSER_TERM:-tcp_}
SEED=${BENCH_SEED:-1}
mkdir -p "$B"

die() { echo "bench-browser: $*" >&2; exit 1; }
[ -x "$OURS" ] || die "$OURS not built (run make)"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
	echo "bench-browser: skipped: no Chromium at $CHROMIUM (apt-get install chromium, or set CHROMIUM=)"
	exit 0
fi
. tests/browser/setup.sh
browser_setup || { echo "bench-browser: skipped: $BROWSER_WHY"; exit 0; }

FGPL=${FLAMEGRAPH_PL:-$TOP/../ref/FlameGraph/flamegraph.pl}
if ! [ -f "$FGPL" ] || ! command -v perl >/dev/null; then
	echo "note: flamegraph.pl not found at $FGPL; to compare with it, fetch"
	echo "      https://github.com/brendangregg/FlameGraph outside the repository and run"
	echo "      FLAMEGRAPH_PL=/path/to/FlameGraph/flamegraph.pl make bench-browser"
	FGPL=
fi

cc -O2 -o "$B/gen" tests/bench/gen.c || die "cannot compile tests/bench/gen.c"
IN=$B/browser-$LINES.folded
"$B/gen" "$LINES" "$SEED" > "$IN" || die "cannot generate $IN"
"$OURS" render "$IN" > "$B/browser-ours.svg" || die "offwake-svg render failed on $IN"
graphs=("offwake-svg=$B/browser-ours.svg")
if [ -n "$FGPL" ]; then
	perl "$FGPL" "$IN" > "$B/browser-fgpl.svg" || die "flamegraph.pl failed on $IN"
	graphs+=("flamegraph.pl=$B/browser-fgpl.svg")
fi
nframes=$(grep -c '<rect x=[^>]*rx="2"' "$B/browser-ours.svg")
echo "bench-browser: $LINES lines, $nframes frames, $(awk -v b="$(stat -c %s "$B/browser-ours.svg")" \
	'BEGIN { printf "%.1f MB", b / 1e6 }') of SVG; $RUNS runs of $REPS, search /$TERM_RE/"

CHROMIUM=$CHROMIUM node tests/bench/browser_bench.js "$RUNS" "$REPS" "$TERM_RE" "${graphs[@]}" \
	> "$B/browser.txt" || die "browser_bench.js failed"

# "LABEL RUN load zoom reset search" lines -> a table of min-max and ratios
awk -v lines="$LINES" -v frames="$nframes" -v runs="$RUNS" -v reps="$REPS" '
function fmt(ms) { return ms >= 1000 ? sprintf("%.2f s", ms / 1000) : sprintf("%.0f ms", ms) }
function range(a, b) { return a == b ? fmt(a) : fmt(a) " - " fmt(b) }
{
	if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 }
	for (k = 3; k <= 6; k++) {
		v = $k + 0; key = $1 SUBSEP k
		if (!(key in lo) || v < lo[key]) lo[key] = v
		if (!(key in hi) || v > hi[key]) hi[key] = v
		sum[key] += v; cnt[key]++
	}
}
END {
	split("load zoom reset search", name, " ")
	printf "browser bench: %d-line chain input, %d frames; headless Chromium; median of %d, range over %d runs\n\n", \
		lines, frames, reps, runs
	printf "| %-13s | %-17s | %-17s | %-17s | %-17s |\n", "SVG", "load", "zoom", "reset", "search"
	printf "|---------------|-------------------|-------------------|-------------------|-------------------|\n"
	for (i = 0; i < n; i++) {
		t = order[i]
		printf "| %-13s |", t
		for (k = 3; k <= 6; k++) printf " %-17s |", range(lo[t SUBSEP k], hi[t SUBSEP k])
		printf "\n"
	}
	o = "offwake-svg"; f = "flamegraph.pl"
	if ((f SUBSEP 3) in cnt) {
		printf "\nflamegraph.pl / ours (mean of the run medians):"
		for (k = 3; k <= 6; k++)
			printf " %s %.1fx", name[k - 2], (sum[f SUBSEP k] / cnt[f SUBSEP k]) / (sum[o SUBSEP k] / cnt[o SUBSEP k])
		printf "\n"
	}
	printf "\ntargets (issue 21): load <= 2 s, zoom, reset and search <= 100 ms (median)\n"
	for (k = 3; k <= 6; k++) {
		lim = k == 3 ? 2000 : 100
		printf "  %-7s worst run %-9s %s\n", name[k - 2], fmt(hi[o SUBSEP k]), hi[o SUBSEP k] <= lim ? "ok" : "MISSED"
	}
}' "$B/browser.txt"
echo "(uptime: $(uptime | sed 's/.*load average/load average/'); timings are wall-clock and grow with other load)"
[ -z "$FGPL" ] && echo "flamegraph.pl was not measured (set FLAMEGRAPH_PL=/path/to/flamegraph.pl)."
exit 0
