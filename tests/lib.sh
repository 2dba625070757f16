# SPDX-License-Identifier: Apache-2.0
# lib.sh - helpers sourced by the tests/t_*.sh scripts.
# pass NAME / fail NAME WHY / skip NAME WHY print the lines run.sh counts;
# check NAME CMD... passes when CMD succeeds.
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; }
skip() { echo "SKIP: $1: $2"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
# nothing leaves the machine: no debuginfod server unless a test names one
unset DEBUGINFOD_URLS
# unwind tables built in each capture, as before the cache (table_cache.c):
# tests of deferred stacks and table timing need them late; t_unwind_cache
# sets its own
export OFFWAKE_UNWIND_CACHE=off
TMPD=$(mktemp -d); trap 'rm -rf "$TMPD"' EXIT
# can_capture NAME [WHY]: 0 when a capture can run here (root, kernel BTF);
# else a SKIP for NAME (WHY: what root is needed for) and 1.
can_capture() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1" "${2:-needs root to load BPF programs}"
		return 1
	fi
	if [ ! -r /sys/kernel/btf/vmlinux ]; then
		skip "$1" "no kernel BTF (/sys/kernel/btf/vmlinux)"
		return 1
	fi
}
# run from the repository root, as run.sh does, or directly
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
# asan_build: 0 when $OFFWAKE is built with AddressSanitizer (SANITIZE=1 in
# the environment, or ASan's runtime among its symbols, as check.sh's pass
# on build/san/offwake-svg has it), else 1.  ASan reserves terabytes of
# address space (no ulimit -v) and doubles memory use.
asan_build() {
	[ "${SANITIZE:-0}" = 1 ] || nm -an "$OFFWAKE" 2> /dev/null | grep -q __asan_init
}
# svgcheck NAME: set SVGCHECK to the libxml2 checker (build/tools/svgcheck,
# made by `make test-bin`, rebuilt here when its source is newer); on
# failure print a SKIP for NAME and return 1.
svgcheck() {
	SVGCHECK=$TOP/build/tools/svgcheck
	if [ -x "$SVGCHECK" ] && [ ! "$TOP/tests/tools/svgcheck.c" -nt "$SVGCHECK" ] &&
	   [ ! "$TOP/tests/tools/svgcheck.h" -nt "$SVGCHECK" ]; then
		return 0
	fi
	SVGCHECK=$TMPD/svgcheck
	# shellcheck disable=SC2046
	cc -O1 -o "$SVGCHECK" "$TOP/tests/tools/svgcheck.c" $(pkg-config --cflags --libs libxml-2.0) \
		2> "$TMPD/cc.err" && return 0
	skip "$1" "cannot build tests/tools/svgcheck.c (libxml2-dev?): $(head -c 300 "$TMPD/cc.err")"
	return 1
}
# attached PID: wait (up to 60 s) until capture PID's BPF links exist, 1
# if it ended first or never got there.  Loading takes seconds on a busy
# machine; the links are made last, and the traced window starts when the
# programs are armed right after them (ms later, more on a busy machine: a
# block that starts at once may begin before it and not be counted).  A
# test that signals a capture waits here first, never a fixed time from
# its start (a signal before arming ends it with nothing traced).  A test
# that needs its workload's first block runs it as -- CMD, which the
# capture lets exec once armed.
attached() {
	local t0=$SECONDS
	while [ $((SECONDS - t0)) -lt 60 ]; do
		grep -qs '^link_id:' /proc/"$1"/fdinfo/* 2> /dev/null && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.02
	done
	return 1
}
# cap NAME ARGS...: folded capture into $TMPD/NAME (stderr in NAME.err).
cap() {
	local n=$1; shift
	"$OFFWAKE" -f "$@" > "$TMPD/$n" 2> "$TMPD/$n.err"
}
# sum_us FILE PATTERN: total count of the folded lines matching PATTERN.
sum_us() { grep -aE "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'; }
# stall_lengths NAME FILE SECONDS: FILE's lines "START_NS DURATION_NS ..."
# are the 80 ms stalls of a capture of SECONDS s of tests/workloads/stall.c
# (one every half second): SECONDS to 2 * SECONDS + 2 of them (a noisy
# machine), each 60 to 200 ms (pass or fail NAME).
stall_lengths() {
	local n bad
	n=$(wc -l < "$2")
	bad=$(awk '$2 < 60e6 || $2 > 200e6 { print $2 / 1e6 " ms" }' "$2" | head -3)
	if [ "$n" -ge "$3" ] && [ "$n" -le $(($3 * 2 + 2)) ] && [ -z "$bad" ]; then
		pass "$1"
		echo "  ($n stalls in $3 s: $(awk '{ printf "%.1f ms ", $2 / 1e6 }' "$2"))"
	else
		fail "$1" "$n stalls in $3 s (want $3 to $(($3 * 2 + 2)), each 60 to 200 ms): $bad"
	fi
}
# share FILE PART WHOLE: percent of WHOLE's count that matches PART too.
share() {
	local whole part
	whole=$(sum_us "$1" "$3")
	part=$(grep -aE "$3" "$1" | grep -aE "$2" | awk '{ s += $NF } END { print s + 0 }')
	[ "$whole" -gt 0 ] || { echo 0; return; }
	echo $((part * 100 / whole))
}
# can_unwind NAME: can_capture, on x86_64 (the CFI walker's only machine);
# sets CF_NOFP, the flags of the unwinding workloads (no frame pointers,
# no sibling calls: only the tables walk them, every function a frame).
can_unwind() {
	can_capture "$1" || return 1
	if [ "$(uname -m)" != x86_64 ]; then
		skip "$1" "x86_64 only"
		return 1
	fi
	CF_NOFP=(-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -pthread)
}
# live_serve NAME ARGS...: start a capture with ARGS (a --serve on
# 127.0.0.1) in the background, its stderr in $TMPD/NAME.err, its pid
# added to the array pids; CAP its pid, LIVE_URL the address it printed
# (http://127.0.0.1:PORT/TOKEN/), PORT the port; 1 when none in 20 s.
live_serve() {
	local n=$1; shift
	"$OFFWAKE" "$@" 2> "$TMPD/$n.err" & CAP=$!
	pids+=("$CAP")
	PORT= LIVE_URL=
	for _ in $(seq 200); do
		LIVE_URL=$(sed -n 's|.*live view at \(http://127\.0\.0\.1:[0-9]*/[^ ]*\) until.*|\1|p' "$TMPD/$n.err")
		PORT=$(sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' <<< "$LIVE_URL")
		[ -n "$PORT" ] && return 0
		kill -0 "$CAP" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
