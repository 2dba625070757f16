#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# check.sh - what `make check` runs: the whole suite on the normal build,
# then the whole suite again on a build with AddressSanitizer and UBSan
# (build/san/offwake-svg; the browser and valgrind tests are not repeated:
# they test the page and a binary without ASan).  Ends with the sum of both,
# "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp); trap 'rm -f "$log"' EXIT
bash tests/run.sh | tee "$log"
read -r p1 f1 < <(tail -1 "$log" | awk '{print $1, $3}')
echo
echo "== the suite again, built with SANITIZE=1 (ASan + UBSan)"
if make -s SANITIZE=1 OUT=build/san BIN=build/san/offwake-svg all test-bin > "$log.build" 2>&1; then
	OFFWAKE=$PWD/build/san/offwake-svg UNIT_DIR=build/san/tests SKIP_TESTS="t_browser t_valgrind" \
		bash tests/run.sh | tee "$log"
	read -r p2 f2 < <(tail -1 "$log" | awk '{print $1, $3}')
else
	cat "$log.build"
	echo "FAIL: sanitizer build: make SANITIZE=1 failed"
	p2=0; f2=1
fi
rm -f "$log.build"
echo
echo "$((p1 + p2)) passed, $((f1 + f2)) failed"
[ $((f1 + f2)) -eq 0 ]
