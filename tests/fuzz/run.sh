#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# fuzz/run.sh - build the libFuzzer harnesses into build/fuzz/ and run each.
# Usage: tests/fuzz/run.sh [SECONDS] [HARNESS...]
#   SECONDS   run time of each harness (default 60); 0 = build only
#   HARNESS   fuzz_render, fuzz_elf, fuzz_maps, fuzz_unfold (default: all)
# Environment: FUZZ_OUT=DIR builds and works in DIR instead of build/fuzz;
#   FUZZ_JOBS=N runs N workers per harness (default 1);
#   FUZZ_ARGS adds libFuzzer flags.  New corpus entries go to
#   $FUZZ_OUT/corpus/HARNESS (the seeds in tests/fuzz/corpus/HARNESS are
#   read, not written); crashes are written to $FUZZ_OUT/crash/HARNESS/ and
#   make the script exit 1 (copy them to tests/fuzz/regress/HARNESS/).
# Exit status: 0 clean, 1 a harness crashed/leaked/timed out, 2 build failed,
#   77 clang's fuzzer runtime is missing.
cd "$(dirname "$0")/../.." || exit 2
SECS=${1:-60}; shift 2>/dev/null
HARNESSES=${*:-fuzz_render fuzz_elf fuzz_maps fuzz_unfold}
CLANG=${CLANG:-clang}
OUT=${FUZZ_OUT:-build/fuzz}
mkdir -p "$OUT/gen" "$OUT/obj"

# libFuzzer present?  (Debian: libclang-rt-14-dev; tests/deps.sh installs it)
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}' > "$OUT/probe.c"
if ! $CLANG -fsanitize=fuzzer,address,undefined "$OUT/probe.c" -o "$OUT/probe" 2>"$OUT/probe.err"; then
	echo "fuzz/run.sh: $CLANG cannot link -fsanitize=fuzzer (install libclang-rt-14-dev):" >&2
	cat "$OUT/probe.err" >&2
	exit 77
fi

# UB checks are recoverable so that the known ones can be suppressed
# (tests/fuzz/ubsan-known.supp); halt_on_error=1 still stops on any other.
FLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -DOFFWAKE_VERSION=\"fuzz\" -fsanitize=fuzzer,address,undefined
	-fsanitize-recover=undefined -fno-omit-frame-pointer -Wno-everything -Irender -Isrc -Itests/fuzz"
LIBFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined
	-fsanitize-recover=undefined -fno-omit-frame-pointer -Wno-everything -Irender -Isrc -Itests/fuzz"

build() {
	set -e
	sh tests/embed.sh fg_script_js render/script.js > "$OUT/gen/script_js.c"
	sh tests/embed.sh fg_heatmap_js render/heatmap.js > "$OUT/gen/heatmap_js.c"
	sh tests/embed.sh --table fg_palette_files $(ls palettes/*.rules palettes/*.pal | LC_ALL=C sort) > "$OUT/gen/palettes_data.c"
	local objs=()
	for f in render/*.c render/base/*.c "$OUT"/gen/*.c; do
		local o="$OUT/obj/render_$(basename "$f" .c).o"
		$CLANG $LIBFLAGS -c "$f" -o "$o"
		objs+=("$o")
	done
	# the symboliser, reading its files through fuzz_fopen() and fuzz_open()
	local sym=()
	for f in symbols/procmaps symbols/perfmap symbols/ksyms symbols/usyms symbols/gopclntab symbols/demangle symbols/debuginfod \
		 common/util common/htab common/privs; do
		[ -f "src/$f.c" ] || { echo "fuzz: src/$f.c is missing" >&2; return 1; }
		$CLANG $LIBFLAGS -Dfopen=fuzz_fopen -Dopen=fuzz_open -include tests/fuzz/fuzz_common.h \
			-c "src/$f.c" -o "$OUT/obj/src_${f#*/}.o"
		sym+=("$OUT/obj/src_${f#*/}.o")
	done
	$CLANG $FLAGS $(pkg-config --cflags libxml-2.0) tests/fuzz/fuzz_render.c "${objs[@]}" -lpcre2-8 -lm \
		$(pkg-config --cflags --libs libxml-2.0) -o "$OUT/fuzz_render"
	$CLANG $FLAGS tests/fuzz/fuzz_maps.c "${sym[@]}" -lelf -lz -llzma -liberty -o "$OUT/fuzz_maps"
	$CLANG $FLAGS tests/fuzz/fuzz_elf.c "${sym[@]}" -lelf -lz -llzma -liberty -o "$OUT/fuzz_elf"
	# reading SVGs back: unfold.c with what it uses of common/
	$CLANG $FLAGS $(pkg-config --cflags libxml-2.0) tests/fuzz/fuzz_unfold.c src/reports/unfold.c \
		src/common/util.c src/common/htab.c $(pkg-config --libs libxml-2.0) -lm -o "$OUT/fuzz_unfold"
}
if ! (build); then
	echo "fuzz/run.sh: build failed" >&2
	exit 2
fi
[ "$SECS" = 0 ] && exit 0

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/fuzz/ubsan-known.supp}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
st=0
jobs=
# -jobs makes libFuzzer write fuzz-N.log files in the current directory
[ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs="-fork=$FUZZ_JOBS"
for h in $HARNESSES; do
	mkdir -p "$OUT/corpus/$h" "$OUT/crash/$h"
	dict=; [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
	echo "== $h: ${SECS}s"
	# shellcheck disable=SC2086
	"$OUT/$h" "$OUT/corpus/$h" "tests/fuzz/corpus/$h" $dict \
		-max_total_time="$SECS" -timeout=20 -rss_limit_mb=3072 -max_len=65536 \
		$jobs -artifact_prefix="$OUT/crash/$h/" -close_fd_mask=1 -print_final_stats=1 \
		${FUZZ_ARGS:-} </dev/null > "$OUT/$h.log" 2>&1
	r=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' "$OUT/$h.log" | tail -3
	if [ $r -ne 0 ]; then
		echo "$h: exit $r, see $OUT/$h.log; artifacts:"; ls "$OUT/crash/$h"
		st=1
	fi
done
exit $st
