#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tar-gzip.sh - the classic off-wake case study: in "tar | gzip", gzip waits
# on tar (pipe reads, woken by tar's writes) and tar waits on the disk
# (woken from block I/O completion, often in interrupt context).
# Usage (root): examples/tar-gzip.sh [SECONDS] [DIR]  -> examples/offwake-tar-gzip.{folded,svg}
set -e
cd "$(dirname "$0")"
secs=${1:-5}
dir=${2:-/usr}
bin=../offwake-svg
[ -x "$bin" ] || make -C .. offwake-svg >/dev/null
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
(sleep 1; timeout "$secs" sh -c "tar cf - '$dir' 2>/dev/null | gzip > /dev/null") &
"$bin" -f -u "$((secs + 1))" > offwake-tar-gzip.folded
wait
"$bin" render --colors=chain --countname=us \
	--title="Off-Wake Time Flame Graph: tar | gzip" offwake-tar-gzip.folded > offwake-tar-gzip.svg
echo "wrote examples/offwake-tar-gzip.svg"
