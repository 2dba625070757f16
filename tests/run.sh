#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run.sh - the one test runner: unit test binaries (build/tests/*) and test
# scripts (tests/t_*.sh).  Each prints lines "PASS: name", "FAIL: name: why"
# or "SKIP: name: why"; this runner counts them and ends with the line
# "N passed, N failed" (exit 1 if anything failed).
# Usage: tests/run.sh [PATTERN]   (only tests whose file name matches)
# Environment: OFFWAKE (the binary), UNIT_DIR (unit test binaries, default
# build/tests), SKIP_TESTS (names of tests not to run, space-separated).
cd "$(dirname "$0")/.." || exit 1
export OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
export TOP=$PWD
pat=${1:-}
log=$(mktemp); trap 'rm -f "$log"' EXIT
pass=0; fail=0; skip=0
run_one() {
	local name=$1; shift
	case $name in *"$pat"*) ;; *) return ;; esac
	case " ${SKIP_TESTS:-} " in *" $name "*) echo "SKIP: $name: skipped in this pass (SKIP_TESTS)"; skip=$((skip + 1)); return ;; esac
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	local st=${PIPESTATUS[0]}
	local p f s
	p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log"); s=$(grep -c '^SKIP: ' "$log")
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited with status $st"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "FAIL: $name: reported no result"
		f=1
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}
for t in "${UNIT_DIR:-build/tests}"/*; do
	[ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/t_*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
done
echo
if [ "$skip" -gt 0 ]; then echo "($skip skipped)"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
