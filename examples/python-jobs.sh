#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# python-jobs.sh - off-wake graph of a threaded Python program (Debian's
# python3.11 running tests/workloads/pyjobs.py: workers blocked in
# queue.get, time.sleep, socket.recv and a sqlite3 callback), with its
# Python frames in place of the interpreter's (--python, on by default).
# Usage (root): examples/python-jobs.sh [--update] [SECONDS]
# (build/examples/, or examples/ with --update: see common.sh)
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
set -- $ARGS
secs=${1:-4}
bin=$BIN
# (-- CMD: the jobs start once the capture traces)
"$bin" -f -- /usr/bin/python3.11 ../tests/workloads/pyjobs.py "$secs" "$OUTDIR/python-jobs.tids" \
	> "$OUTDIR/python-jobs.folded"
rm -f "$OUTDIR/python-jobs.tids"
"$bin" render --colors=chain --countname=us --minwidth=1 \
	--title="Off-Wake Time: Python threads (pyjobs.py)" \
	"$OUTDIR/python-jobs.folded" > "$OUTDIR/python-jobs.svg"
echo "wrote $SHOWN/python-jobs.svg"
