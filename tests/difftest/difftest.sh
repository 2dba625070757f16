#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# difftest.sh - differential test of `offwake-svg render` against the real
# flamegraph.pl: runs both on every case (the hand-written ones in
# tests/difftest/cases/ and the seeded ones tests/difftest/gen_cases.py makes
# under build/difftest/) and compares exit status and SVG with svgcmp.py,
# modulo the differences spec section 15 allows.  Prints "PASS: case" /
# "FAIL: case: reason" lines and the summary "N passed, N failed".
#
# Not part of `make check` (CI has no flamegraph.pl).  Skips cleanly when
# flamegraph.pl is absent.
#
# Usage: tests/difftest/difftest.sh [PATTERN]     (only cases whose name matches)
# Environment:
#   FLAMEGRAPH_PL=path   flamegraph.pl (default ../ref/FlameGraph/flamegraph.pl
#                        beside the repository)
#   OFFWAKE=path         our binary (default ./offwake-svg)
#   DIFFTEST_SEED=N      seed of the generated cases (default 1)
#   DIFFTEST_GEN=N       number of generated cases (default 400; 0: none)
#   DIFFTEST_SELF=1      compare flamegraph.pl with itself (harness check)
#   DIFFTEST_STRICT=1    also report the differences the README documents beyond
#                        spec section 15 (mojibake, sizes, nameattr-exit)
#   DIFFTEST_JOBS=N      parallel jobs (default: number of CPUs)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
D=tests/difftest
pat=${1:-}
FGPL=${FLAMEGRAPH_PL:-$TOP/../ref/FlameGraph/flamegraph.pl}
if ! [ -f "$FGPL" ] || ! command -v perl >/dev/null; then
	echo "SKIP: difftest: flamegraph.pl not found at $FGPL (fetch"
	echo "  https://github.com/brendangregg/FlameGraph outside the repository and set FLAMEGRAPH_PL=/path/to/flamegraph.pl)"
	exit 0
fi
command -v python3 >/dev/null || { echo "SKIP: difftest: python3 not found"; exit 0; }
FGPL=$(cd "$(dirname "$FGPL")" && pwd)/$(basename "$FGPL")
REF="perl $FGPL"
if [ "${DIFFTEST_SELF:-0}" = 1 ]; then
	OURS=$REF
	SELF=--self
else
	O=${OFFWAKE:-$TOP/offwake-svg}
	[ -x "$O" ] || { echo "FAIL: difftest: $O not built (run make)"; echo "0 passed, 1 failed"; exit 1; }
	OURS="$(cd "$(dirname "$O")" && pwd)/$(basename "$O") render"
	SELF=
fi

seed=${DIFFTEST_SEED:-1}
ngen=${DIFFTEST_GEN:-400}
# a directory of this run's own (several runs may go on at once); kept when
# something failed, so that the failing cases can be re-run and inspected
gendir=
if [ "$ngen" -gt 0 ]; then
	mkdir -p build/difftest
	gendir=$(mktemp -d "build/difftest/gen-$seed.XXXXXX")
	python3 $D/gen_cases.py --seed "$seed" --count "$ngen" --out "$gendir" ||
		{ echo "FAIL: difftest: gen_cases.py failed"; echo "0 passed, 1 failed"; exit 1; }
fi

list=$(mktemp); log=$(mktemp); trap 'rm -f "$list" "$log"' EXIT
gl=; [ "$ngen" -gt 0 ] && gl="$gendir/*.opts $gendir/*.folded"
for f in $D/cases/*.opts $D/cases/*.folded $gl; do
	[ -e "$f" ] || continue
	p=${f%.*}
	case $(basename "$p") in *"$pat"*) echo "$p" ;; esac
done | sort -u > "$list"

jobs=${DIFFTEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
export SELFOPT=$SELF REFCMD=$REF OURSCMD=$OURS
# one svgcmp.py process per chunk of cases, run in parallel; output kept per chunk
xargs -a "$list" -n 8 -P "$jobs" sh -c 'out=$(python3 "$0" run $SELFOPT "$REFCMD" "$OURSCMD" "$@"); printf "%s\n" "$out"' \
	"$D/svgcmp.py" > "$log" 2>&1 <&- \
	|| true
cat "$log"
pass=$(grep -c '^PASS: ' "$log"); fail=$(grep -c '^FAIL: ' "$log")
echo
if [ -n "$gendir" ] && [ "$fail" -eq 0 ]; then
	rm -rf "$gendir"
elif [ -n "$gendir" ]; then
	echo "generated cases kept in $gendir; re-run one with"
	echo "  python3 $D/svgcmp.py run '$REF' '$OURS' $gendir/NAME"
fi
echo "difftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
