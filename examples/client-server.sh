#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# client-server.sh - a wakeup chain three levels deep (--chain-depth 3): a
# client waits for a server's reply over a Unix socket, the server waits
# for its write to reach the disk, and the disk's completion wakes it.
# Usage (root): examples/client-server.sh [--update] [SECONDS]
# (build/examples/, or examples/ with --update: see common.sh)
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
set -- $ARGS
secs=${1:-3}
bin=${OFFWAKE:-$BIN}
cc -O2 -g -fno-omit-frame-pointer -o "$OUTDIR/offwake-client-server" client-server.c
# (-- CMD, the client and the server it forks: they start once the capture
# traces; their pids go to a file, not into the folded output)
"$bin" -f --chain-depth 3 -- sh -c 'exec "$0" "$1" "$2" > "$3"' \
	"$OUTDIR/offwake-client-server" "$secs" /var/tmp/offwake-client-server.dat \
	"$OUTDIR/client-server.pids" > "$OUTDIR/client-server.folded"
"$bin" render --colors=chain --countname=us --width=1400 \
	--title="Off-Wake Time, 3 levels: client <- server <- disk" \
	"$OUTDIR/client-server.folded" > "$OUTDIR/client-server.svg"
rm -f "$OUTDIR/client-server.pids"
echo "wrote $SHOWN/client-server.svg"
