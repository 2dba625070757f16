# SPDX-License-Identifier: Apache-2.0
# lib.sh - helpers sourced by the tests/t_*.sh scripts.
# pass NAME / fail NAME WHY / skip NAME WHY print the lines run.sh counts;
# check NAME CMD... passes when CMD succeeds.
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; }
skip() { echo "SKIP: $1: $2"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi; }
TMPD=$(mktemp -d); trap 'rm -rf "$TMPD"' EXIT
# run from the repository root, as run.sh does, or directly
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
