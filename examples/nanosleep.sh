#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nanosleep.sh - off-wake graph of a nanosleep loop (woken by timer
# interrupts).  Usage (root): examples/nanosleep.sh [SECONDS]
set -e
cd "$(dirname "$0")"
secs=${1:-4}
bin=../offwake-svg
[ -x "$bin" ] || make -C .. offwake-svg >/dev/null
cc -O2 -g -fno-omit-frame-pointer -o /tmp/offwake-nanosleep nanosleep.c
/tmp/offwake-nanosleep "$((secs + 2))" &
pid=$!
"$bin" -f -p "$pid" "$secs" > nanosleep.folded
wait "$pid"
"$bin" render --colors=chain --countname=us --title="Off-Wake Time: nanosleep loop" \
	nanosleep.folded > nanosleep.svg
echo "wrote examples/nanosleep.svg"
