#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# client-server.sh - a wakeup chain three levels deep (--chain-depth 3): a
# client waits for a server's reply over a Unix socket, the server waits
# for its write to reach the disk, and the disk's completion wakes it.
# Usage (root): examples/client-server.sh [SECONDS]  -> examples/client-server.{folded,svg}
set -e
cd "$(dirname "$0")"
secs=${1:-3}
bin=${OFFWAKE:-../offwake-svg}
[ -x "$bin" ] || make -C .. offwake-svg >/dev/null
cc -O2 -g -fno-omit-frame-pointer -o /tmp/offwake-client-server client-server.c
/tmp/offwake-client-server "$((secs + 4))" /var/tmp/offwake-client-server.dat > /tmp/offwake-cs.pids &
sleep 0.5
read -r client server < /tmp/offwake-cs.pids
"$bin" -f --chain-depth 3 -p "$client,$server" "$secs" > client-server.folded
wait
"$bin" render --colors=chain --countname=us --width=1400 \
	--title="Off-Wake Time, 3 levels: client <- server <- disk" \
	client-server.folded > client-server.svg
rm -f /tmp/offwake-client-server /tmp/offwake-cs.pids
echo "wrote examples/client-server.svg"
