#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_debuginfod.sh - debug files fetched from debuginfod by build id
# (src/symbols/debuginfod.c), end to end: a stripped C program whose debug
# file only a local debuginfod server (Debian's `debuginfod`, on a free
# port, talked to on 127.0.0.1) has; captures with DEBUGINFOD_URLS naming
# it and a fresh DEBUGINFOD_CACHE_PATH name its frames (SVG, pprof and
# speedscope alike); unset, no request reaches the server and the frames
# are named after the file; a server that never answers holds the end of
# the capture no longer than DEBUGINFOD_TIMEOUT and the summary says it
# timed out; a debug file of another build served for the build id is
# never used.  Nothing leaves the machine.
. "$(dirname "$0")/lib.sh"
can_capture debuginfod || exit 0
command -v debuginfod > /dev/null || sh "$TOP/tests/deps.sh" debuginfod > /dev/null 2>&1
for t in cc strip objcopy debuginfod python3 curl; do
	command -v $t > /dev/null || { skip debuginfod "$t not installed"; exit 0; }
done
cd "$TMPD" || exit 1
PIDS=()
trap 'kill "${PIDS[@]}" 2> /dev/null; wait 2> /dev/null; [ -n "$KEEP" ] || rm -rf "$TMPD"' EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT

cat > p.c <<'C'
#include <unistd.h>
#ifdef OTHER
__attribute__((noinline)) int ow_other_pad(int x) { return x * 3 + 1; }
#endif
__attribute__((noinline)) void ow_dbgd_leaf(int n) { usleep(n); }
__attribute__((noinline)) void ow_dbgd_mid(int n) { ow_dbgd_leaf(n); ow_dbgd_leaf(n + 1); }
int main(void) { for (;;) ow_dbgd_mid(20000); }
C
cc -O1 -g -fno-omit-frame-pointer -o full p.c &&
	cc -O1 -g -fno-omit-frame-pointer -DOTHER -o other p.c ||
	{ skip debuginfod "cannot build a C program"; exit 0; }
mkdir srv && objcopy --only-keep-debug full srv/prog.debug &&
	cp full prog && strip --strip-all prog || { fail debuginfod_setup "objcopy/strip failed"; exit 0; }
ID=$(readelf -n prog | awk '/Build ID/ { print $3 }')

# a free port on 127.0.0.1
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# requests: the debug files the server was asked for so far
requests() { curl -s "http://127.0.0.1:$PORT/metrics" | awk '$1 == "http_requests_total{type=\"debuginfo\"}" { n = $2 } END { print n + 0 }'; }

PORT=$(port)
debuginfod -F -p "$PORT" -d "$TMPD/db.sqlite" -t 0 -g 0 "$TMPD/srv" > srv.log 2>&1 & PIDS+=($!)
ok=
for _ in $(seq 300); do
	if curl -sf -o /dev/null "http://127.0.0.1:$PORT/buildid/$ID/debuginfo"; then ok=1; break; fi
	sleep 0.1
done
[ -n "$ok" ] || { fail debuginfod_server "the server did not serve build id $ID in 30 s: $(tail -3 srv.log)"; exit 0; }
REQ0=$(requests)

./prog & P=$!; PIDS+=($P)
sleep 0.3
# cap NAME [ENV...]: a 2 s capture of ./prog to NAME.folded, NAME.err,
# also NAME.pb.gz and NAME.json (pprof, speedscope: converted from the SVG
# would lose nothing, but these are the capture's own writers)
cap() {
	local n=$1; shift
	env "$@" "$OFFWAKE" -f -U -p "$P" 2 > "$n.folded" 2> "$n.err"
}

# 1. unset: no request, frames named after the file
cap unset
REQ1=$(requests)
if [ "$REQ1" = "$REQ0" ]; then pass debuginfod_unset_no_request
else fail debuginfod_unset_no_request "the server counted $REQ0 then $REQ1 requests"; fi
if grep -q '^prog;.*\[prog\];\[prog\]' unset.folded && ! grep -q ow_dbgd unset.folded &&
   ! grep -q debuginfod unset.err; then pass debuginfod_unset_file_named
else fail debuginfod_unset_file_named "$(head -c 400 unset.folded) / $(head -c 300 unset.err)"; fi
# empty is unset too
cap empty DEBUGINFOD_URLS= DEBUGINFOD_CACHE_PATH="$TMPD/cache0"
REQ2=$(requests)
if [ "$REQ2" = "$REQ1" ] && ! grep -q ow_dbgd empty.folded; then pass debuginfod_empty_no_request
else fail debuginfod_empty_no_request "requests $REQ1 then $REQ2"; fi

# 2. set: names from the server's debug file, in every format
cap named DEBUGINFOD_URLS="http://127.0.0.1:$PORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache"
if grep -q '^prog;.*ow_dbgd_mid;ow_dbgd_leaf;' named.folded; then pass debuginfod_names
else fail debuginfod_names "$(grep '^prog;' named.folded | head -c 400) / $(head -c 300 named.err)"; fi
# (of the files asked: the stripped program's and those of wakers without
# local symbols, which the server has not)
if grep -Eq "debuginfod: [1-9][0-9]* debug files from the server \(or its cache\) of [0-9]+ asked" named.err &&
   [ -s "$TMPD/cache/$ID/debuginfo" ]; then pass debuginfod_summary_and_cache
else fail debuginfod_summary_and_cache "$(cat named.err) / $(ls -R "$TMPD/cache" 2>&1 | head -5)"; fi
# the SVG, pprof (with the mapping's build id) and speedscope say the same
env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache" \
	"$OFFWAKE" -U -p "$P" -o named.pb.gz 2 2> pb.err
env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache" \
	"$OFFWAKE" -U -p "$P" -o named.speedscope.json 2 2> ss.err
env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache" \
	"$OFFWAKE" -U -p "$P" -o named.svg 2 2> svg.err
# (pprof's string table and speedscope's frames: every name they show)
zcat named.pb.gz > named.pb
if grep -aq ow_dbgd_leaf named.pb && ! grep -aqF '[prog]' named.pb &&
   grep -q '"ow_dbgd_leaf"' named.speedscope.json && ! grep -q '"\[prog\]"' named.speedscope.json &&
   grep -q '<title>ow_dbgd_leaf ' named.svg && ! grep -q '<title>\[prog\] ' named.svg
then pass debuginfod_formats_same_names
else fail debuginfod_formats_same_names "pprof: $(grep -ac ow_dbgd_leaf named.pb) with the name, $(grep -acF '[prog]' named.pb) [prog]; speedscope: $(grep -c ow_dbgd_leaf named.speedscope.json), $(grep -cF '"[prog]"' named.speedscope.json); svg: $(grep -c '<title>ow_dbgd_leaf ' named.svg), $(grep -cF '<title>[prog] ' named.svg); $(grep -h 'debuginfod\|error' pb.err ss.err svg.err)"; fi
if grep -aq "$ID" named.pb; then pass debuginfod_pprof_build_id
else fail debuginfod_pprof_build_id "build id $ID not in the pprof mappings"; fi

# 3. a server that accepts and never answers: the end waits at most
# DEBUGINFOD_TIMEOUT (3 s) for all the files asked together (several: the
# wakers' too), and the summary says they timed out
HPORT=$(port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); held = []
while True: held.append(s.accept())
' "$HPORT" & PIDS+=($!)
sleep 0.3
t0=$(date +%s.%N)
cap hung DEBUGINFOD_URLS="http://127.0.0.1:$HPORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache2" DEBUGINFOD_TIMEOUT=3
took=$(echo "$(date +%s.%N) - $t0" | bc)
# 2 s traced, up to 3 s asking, the rest starting and ending on a busy VM
if [ "$(echo "$took < 12" | bc)" = 1 ] && grep -Eq 'debuginfod: 0 debug files .* [1-9][0-9]* timed out' hung.err &&
   grep -q '^prog;.*\[prog\];\[prog\]' hung.folded; then pass debuginfod_hung_server_bounded
else fail debuginfod_hung_server_bounded "took $took s; $(grep debuginfod hung.err)"; fi

# 4. a server (python's http.server) giving a debug file of another build
# for the build id: never used (its functions are elsewhere)
WPORT=$(port)
mkdir -p "www/buildid/$ID" && objcopy --only-keep-debug other "www/buildid/$ID/debuginfo"
python3 -m http.server --bind 127.0.0.1 --directory www "$WPORT" > www.log 2>&1 & PIDS+=($!)
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$WPORT/buildid/$ID/debuginfo" && break; sleep 0.1; done
cap wrong DEBUGINFOD_URLS="http://127.0.0.1:$WPORT" DEBUGINFOD_CACHE_PATH="$TMPD/cache3"
if grep -q '^prog;.*\[prog\];\[prog\]' wrong.folded && ! grep '^prog;' wrong.folded | grep -q 'ow_dbgd\|ow_other' &&
   grep -q 'debuginfod: .*1 received of another build (build id), not used' wrong.err
then pass debuginfod_other_build_not_used
else fail debuginfod_other_build_not_used "$(grep '^prog;' wrong.folded | head -c 300) / $(grep debuginfod wrong.err)"; fi
