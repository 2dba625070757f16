#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tar-gzip.sh - the classic off-wake case study: in "tar | gzip", gzip waits
# on tar (pipe reads, woken by tar's writes) and tar waits on the pipe and
# the disk.  Only the pipeline is traced (offwake-svg -- CMD).
# Usage (root): examples/tar-gzip.sh [--update] [--drop-caches] [SECONDS] [DIR]
#   writes build/examples/offwake-tar-gzip.{folded,svg} (examples/ with
#   --update), then traces it again in time (--timeline): the SVG with its
#   heat map, offwake-tar-gzip-timeline.svg, and the Perfetto trace,
#   offwake-tar-gzip.pftrace; --drop-caches first drops the page cache (system-wide), so that tar
#   reads DIR from the disk.
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
set -- $ARGS
secs=${1:-5}
dir=${2:-/usr}
drop_caches
"$BIN" -f -q "$secs" -- sh -c "timeout $secs tar cf - '$dir' 2>/dev/null | gzip > /dev/null" \
	> "$OUTDIR/offwake-tar-gzip.folded" || [ $? -eq 124 ]
"$BIN" render --colors=chain --countname=us \
	--title="Off-Wake Time Flame Graph: tar | gzip" "$OUTDIR/offwake-tar-gzip.folded" \
	> "$OUTDIR/offwake-tar-gzip.svg"
echo "wrote $SHOWN/offwake-tar-gzip.svg"
# the same pipeline in time (each block of 1 ms or more an event): the SVG
# with its heat map, then the Perfetto trace
pipeline="timeout $secs tar cf - '$dir' 2>/dev/null | gzip > /dev/null"
drop_caches
"$BIN" -q --timeline --title="Off-Wake Time Flame Graph: tar | gzip, in time" \
	-o "$OUTDIR/offwake-tar-gzip-timeline.svg" "$secs" -- sh -c "$pipeline" || [ $? -eq 124 ]
echo "wrote $SHOWN/offwake-tar-gzip-timeline.svg"
drop_caches
"$BIN" -q -o "$OUTDIR/offwake-tar-gzip.pftrace" "$secs" -- sh -c "$pipeline" || [ $? -eq 124 ]
echo "wrote $SHOWN/offwake-tar-gzip.pftrace"
