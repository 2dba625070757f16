#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# file-writes.sh - off-wake graph of a process blocked on file writes
# (write + fsync).  Usage (root): examples/file-writes.sh [--update] [SECONDS]
# (build/examples/, or examples/ with --update: see common.sh)
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
set -- $ARGS
secs=${1:-4}
bin=$BIN
cc -O2 -g -fno-omit-frame-pointer -o "$OUTDIR/offwake-file-writes" file-writes.c
# (-- CMD: the writes start once the capture traces)
"$bin" -f -- "$OUTDIR/offwake-file-writes" "$OUTDIR/offwake-file-writes.dat" "$secs" \
	> "$OUTDIR/file-writes.folded"
"$bin" render --colors=chain --countname=us --title="Off-Wake Time: write + fsync" \
	"$OUTDIR/file-writes.folded" > "$OUTDIR/file-writes.svg"
echo "wrote $SHOWN/file-writes.svg"
