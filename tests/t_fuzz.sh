#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_fuzz.sh - the fuzz harnesses in the test suite: build them
# (tests/fuzz/run.sh, into build/fuzz-test so that a running campaign in
# build/fuzz is left alone), replay every input kept in
# tests/fuzz/regress/HARNESS/ with all sanitizer checks fatal and no
# suppressions (each is a bug found once: it fails until fixed), then fuzz
# each harness for FUZZ_TEST_SECONDS (default 10) from the seed corpus.
# SKIP when clang's libFuzzer runtime is missing (libclang-rt-14-dev).
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP" || exit 1
export FUZZ_OUT=build/fuzz-test
SECS=${FUZZ_TEST_SECONDS:-10}
HARNESSES="fuzz_render fuzz_elf fuzz_maps fuzz_unfold"

if ! command -v "${CLANG:-clang}" > /dev/null; then
	skip fuzz "clang not installed"
	exit 0
fi
bash tests/fuzz/run.sh 0 > "$TMPD/build.log" 2>&1; st=$?
if [ $st -eq 77 ]; then
	skip fuzz "clang cannot link -fsanitize=fuzzer (sh tests/deps.sh libclang-rt-14-dev)"
	exit 0
elif [ $st -ne 0 ]; then
	fail fuzz_build "$(tail -c 600 "$TMPD/build.log")"
	exit 0
fi
pass fuzz_build

# Replays: every check fatal, nothing suppressed, no known-bug workarounds.
for h in $HARNESSES; do
	for f in tests/fuzz/regress/$h/*; do
		[ -f "$f" ] || continue
		name="fuzz_regress_${h#fuzz_}_$(basename "$f")"
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		timeout 120 "$FUZZ_OUT/$h" -rss_limit_mb=3072 "$f" \
			> "$TMPD/replay.log" 2>&1; st=$?
		if [ $st -eq 0 ]; then
			pass "$name"
		else
			why=$(grep -aE -m1 'runtime error|ERROR: (Address|Leak|libFuzzer)|bad SVG|SUMMARY' "$TMPD/replay.log")
			fail "$name" "exit $st: ${why:-$(tail -c 300 "$TMPD/replay.log")}"
		fi
	done
done

# Short runs from the seeds (known, reported findings suppressed: see
# tests/fuzz/ubsan-known.supp; the replays above fail for them).
rm -rf "$FUZZ_OUT/corpus" "$FUZZ_OUT/crash"
for h in $HARNESSES; do
	if bash tests/fuzz/run.sh "$SECS" "$h" > "$TMPD/run.log" 2>&1; then
		pass "fuzz_${h#fuzz_}_${SECS}s"
	else
		mkdir -p "$TOP/build/fuzz-test/found"
		cp "$FUZZ_OUT/crash/$h/"* "$TOP/build/fuzz-test/found/" 2>/dev/null
		why=$(grep -aE -m1 'runtime error|ERROR: (Address|Leak|libFuzzer)|bad SVG|SUMMARY' "$FUZZ_OUT/$h.log")
		fail "fuzz_${h#fuzz_}_${SECS}s" "${why:-see $FUZZ_OUT/$h.log}; input kept in build/fuzz-test/found/"
	fi
done
