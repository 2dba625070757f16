#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nanosleep.sh - off-wake graph of a nanosleep loop (woken by timer
# interrupts).  Usage (root): examples/nanosleep.sh [--update] [SECONDS]
# (build/examples/, or examples/ with --update: see common.sh)
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
set -- $ARGS
secs=${1:-4}
bin=$BIN
cc -O2 -g -fno-omit-frame-pointer -o "$OUTDIR/offwake-nanosleep" nanosleep.c
# (-- CMD: the loop starts once the capture traces, however long that takes)
"$bin" -f -- "$OUTDIR/offwake-nanosleep" "$secs" > "$OUTDIR/nanosleep.folded"
"$bin" render --colors=chain --countname=us --title="Off-Wake Time: nanosleep loop" \
	"$OUTDIR/nanosleep.folded" > "$OUTDIR/nanosleep.svg"
echo "wrote $SHOWN/nanosleep.svg"
