# SPDX-License-Identifier: Apache-2.0
# common.sh - sourced by the example scripts: where their output goes and
# the binary they run.  By default they write into build/examples/ (the
# committed files in examples/ stay as they are); --update writes into
# examples/ itself, replacing the committed files (say so in your commit).
# Sets OUTDIR (SHOWN: the same from the top of the tree) and BIN; leaves
# the other arguments in ARGS.
set -e
cd "$(dirname "$0")"
OUTDIR=../build/examples SHOWN=build/examples	# SHOWN: for messages
ARGS=
DROP_CACHES=
for a in "$@"; do
	case $a in
	--update) OUTDIR=. SHOWN=examples ;;
	--drop-caches) DROP_CACHES=1 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) ARGS="$ARGS $a" ;;
	esac
done
mkdir -p "$OUTDIR"
BIN=../offwake-svg
[ -x "$BIN" ] || make -C .. offwake-svg > /dev/null
# drop_caches: a system-wide side effect (every process's cached file pages
# are dropped), done only when asked and said first
drop_caches() {
	[ -n "$DROP_CACHES" ] || return 0
	echo "dropping the page cache (echo 3 > /proc/sys/vm/drop_caches): system-wide" >&2
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
