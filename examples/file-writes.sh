#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# file-writes.sh - off-wake graph of a process blocked on file writes
# (write + fsync).  Usage (root): examples/file-writes.sh [SECONDS]
set -e
cd "$(dirname "$0")"
secs=${1:-4}
bin=../offwake-svg
[ -x "$bin" ] || make -C .. offwake-svg >/dev/null
cc -O2 -g -fno-omit-frame-pointer -o /tmp/offwake-file-writes file-writes.c
/tmp/offwake-file-writes /tmp/offwake-file-writes.dat "$((secs + 2))" &
pid=$!
"$bin" -f -p "$pid" "$secs" > file-writes.folded
wait "$pid"
"$bin" render --colors=chain --countname=us --title="Off-Wake Time: write + fsync" \
	file-writes.folded > file-writes.svg
echo "wrote examples/file-writes.svg"
