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
"$OUTDIR/offwake-client-server" "$((secs + 4))" /var/tmp/offwake-client-server.dat \
	> "$OUTDIR/client-server.pids" &
sleep 0.5
read -r client server < "$OUTDIR/client-server.pids"
"$bin" -f --chain-depth 3 -p "$client,$server" "$secs" > "$OUTDIR/client-server.folded"
wait
"$bin" render --colors=chain --countname=us --width=1400 \
	--title="Off-Wake Time, 3 levels: client <- server <- disk" \
	"$OUTDIR/client-server.folded" > "$OUTDIR/client-server.svg"
rm -f "$OUTDIR/client-server.pids"
echo "wrote $SHOWN/client-server.svg"
