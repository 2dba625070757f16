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
# attached PID: wait (up to 20 s) until capture PID's BPF links exist:
# tracing starts right after (attaching is the capture's last step before
# its traced window); loading takes a second or more on a busy machine
attached() {
	for _ in $(seq 1000); do
		grep -qs '^link_id:' /proc/"$1"/fdinfo/* 2> /dev/null && return 0
		sleep 0.02
	done
	return 1
}
