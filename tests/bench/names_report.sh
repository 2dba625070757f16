#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# names_report.sh - how many user frames get a name, before and after the
# names work (issue 28), on programs from Debian and a stripped test
# program served by a local debuginfod.  Not run by make check; by hand,
# as root:  tests/bench/names_report.sh [SECONDS]   (default 5)
#
# For each workload the old binary (OLD_OFFWAKE: the commit before frames
# were named after their file, built by this script into /tmp when not
# given: [unknown] for any frame without a symbol, no MiniDebugInfo, Go
# pclntab nor debuginfod) and ours (OFFWAKE) capture the same processes
# at the same time (-f -U -p PIDS, or system-wide with the target comms
# filtered for workloads of short-lived processes), and from the blocked
# threads' user stacks (the frames between the comm and the kernel part)
# it computes:
#   named%    user frames with a function name ([unknown] and file-named
#             frames such as [libc.so.6] count as unnamed)
#   whole%    blocked time whose user stack has no unnamed frame
#   end s     wall time of the capture minus its duration (start + naming)
# Workloads: tar | gzip (examples/tar-gzip.sh's pipeline), redis-server
# under redis-benchmark, memcached under a Python client, python3.11 with
# python3.11-dbg's debug files and without them (/usr/lib/debug hidden by
# an empty directory mounted over it in a private mount namespace), hugo
# building a new site in a loop, and a stripped C program whose debug file
# only a local debuginfod (127.0.0.1) has, with a cold and a warm cache.
# Prints a Markdown table, with the load average at the start of each row.
set -u
SECS=${1:-5}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
W=$(mktemp -d /tmp/names_report.XXXXXX)
PIDS=()
cleanup() { kill "${PIDS[@]}" 2> /dev/null; wait 2> /dev/null; umount "$W/nodebug" 2> /dev/null; rm -rf "$W"; }
trap cleanup EXIT
unset DEBUGINFOD_URLS
[ "$(id -u)" = 0 ] || { echo "names_report: needs root" >&2; exit 1; }

if [ -z "${OLD_OFFWAKE:-}" ]; then
	OLD_OFFWAKE=/tmp/names_report_old/offwake-svg
	if [ ! -x "$OLD_OFFWAKE" ]; then
		rm -rf /tmp/names_report_old && mkdir -p /tmp/names_report_old &&
		git -C "$TOP" archive 3fcbe4c^ | tar -x -C /tmp/names_report_old &&
		make -s -C /tmp/names_report_old -j2 all > /dev/null 2>&1 ||
			{ echo "names_report: cannot build the old binary" >&2; exit 1; }
	fi
fi

# metrics FOLDED COMMS: "named% whole%" of the lines whose target is one
# of COMMS (a regex), from their blocked user stacks
metrics() {
	python3 - "$1" "$2" <<'PY'
import re, sys
comms = re.compile("^(?:%s)$" % sys.argv[2])
frames = named = 0
time = whole = 0
unnamed = re.compile(r"^\[.*\]$")
for line in open(sys.argv[1], errors="replace"):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    parts = stack.split(";")
    if not stack or not comms.match(parts[0]):
        continue
    user = []
    for f in parts[1:]:
        if f in ("", "-", "--"):
            break
        user.append(f)
    if not user:
        continue
    bad = sum(1 for f in user if unnamed.match(f))
    frames += len(user)
    named += len(user) - bad
    time += int(n)
    whole += int(n) if not bad else 0
print("%.1f %.1f" % (100.0 * named / max(frames, 1), 100.0 * whole / max(time, 1)))
PY
}

# capture NAME [ENV=...] -- ARGS: both binaries at once, ARGS given to each
# (each run through "${WRAP[@]}" when set); sets END_OLD, END_NEW (seconds
# past the duration)
WRAP=()
capture() {
	local n=$1 t0 p1 p2; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	t0=$(date +%s.%N)
	( "${WRAP[@]}" "$OLD_OFFWAKE" -f -U "$@" "$SECS" > "$W/$n.old" 2> "$W/$n.old.err"
	  date +%s.%N > "$W/$n.old.t" ) & p1=$!
	( env "${envs[@]}" "${WRAP[@]}" "$OFFWAKE" -f -U "$@" "$SECS" > "$W/$n.new" 2> "$W/$n.new.err"
	  date +%s.%N > "$W/$n.new.t" ) & p2=$!
	wait "$p1" "$p2"
	END_OLD=$(echo "$(cat "$W/$n.old.t") - $t0 - $SECS" | bc)
	END_NEW=$(echo "$(cat "$W/$n.new.t") - $t0 - $SECS" | bc)
}

echo "| workload | load avg | named frames before → after | blocked time with every frame named, before → after | capture end (s past duration), before / after |"
echo "|---|---|---|---|---|"
# row NAME COMMS [NOTE]
row() {
	local b1 b2 a1 a2
	read -r b1 b2 <<< "$(metrics "$W/$1.old" "$2")"
	read -r a1 a2 <<< "$(metrics "$W/$1.new" "$2")"
	printf '| %s | %s | %s%% → %s%% | %s%% → %s%% | %.1f / %.1f%s |\n' "$1" "$LOAD" "$b1" "$a1" "$b2" "$a2" \
		"$END_OLD" "$END_NEW" "${3:+ ($3)}"
}
load() { LOAD=$(cut -d' ' -f1 /proc/loadavg); }

# tar | gzip (system-wide: both processes, filtered by comm)
load
sh -c "timeout $((SECS + 3)) tar cf - /usr 2>/dev/null | gzip > /dev/null" & SH=$!; PIDS+=($SH)
sleep 0.5
KIDS=$(pgrep -d, -P "$SH")
capture tar-gzip -- -p "$KIDS,$(pgrep -d, -P "$KIDS")"
row tar-gzip 'tar|gzip'

# redis-server under redis-benchmark
load
RP=$((20000 + RANDOM % 10000))
redis-server --port "$RP" --bind 127.0.0.1 --save '' --appendonly no > /dev/null & RS=$!; PIDS+=($RS)
sleep 0.5
redis-benchmark -p "$RP" -n 100000000 -q -c 20 > /dev/null 2>&1 & PIDS+=($!)
capture redis -- -p "$RS"
row redis 'redis-server|bio_.*|io_thd.*|jemalloc_bg_thd'
kill "$RS" 2> /dev/null

# memcached under a small Python client
load
MP=$((30000 + RANDOM % 10000))
memcached -p "$MP" -l 127.0.0.1 -U 0 -u root -t 4 > /dev/null 2>&1 & MS=$!; PIDS+=($MS)
sleep 0.5
python3 - "$MP" "$((SECS + 3))" <<'PY' > /dev/null 2>&1 & PIDS+=($!)
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
end = time.time() + int(sys.argv[2]); i = 0
while time.time() < end:
    k = "k%d" % (i % 1000); i += 1
    s.sendall(b"set %s 0 0 5\r\nhello\r\nget %s\r\n" % (k.encode(), k.encode()))
    buf = b""
    while not buf.endswith(b"END\r\n"):
        buf += s.recv(4096)
PY
capture memcached -- -p "$MS"
row memcached 'memcached|mc-worker|mc-.*'
kill "$MS" 2> /dev/null

# python3.11, with python3.11-dbg's debug files and without them
PYW='import threading, time, subprocess
def w():
    while True:
        time.sleep(0.001); open("/proc/self/stat").read()
for _ in range(4): threading.Thread(target=w, daemon=True).start()
while True: subprocess.run(["true"])'
load
/usr/bin/python3.11 -c "$PYW" & PY=$!; PIDS+=($PY)
sleep 0.5
capture python3.11-dbg -- -p "$PY"
row python3.11-dbg 'python3.11|python3' "python3.11-dbg installed"
load
mkdir -p "$W/nodebug"
# both binaries in a mount namespace of their own where /usr/lib/debug is empty
WRAP=(unshare -m sh -c 'mount --bind "$0" /usr/lib/debug && exec "$@"' "$W/nodebug")
capture python3.11-nodbg -- -p "$PY"
WRAP=()
row python3.11-nodbg 'python3.11|python3' "debug files hidden"
kill "$PY" 2> /dev/null

# hugo building a new site in a loop (short-lived processes: system-wide)
load
( cd "$W" && hugo new site site > /dev/null 2>&1 && cd site &&
  while :; do hugo --quiet -d "$W/public" > /dev/null 2>&1; done ) & PIDS+=($!)
sleep 1
capture hugo --
row hugo 'hugo'

# a stripped C program, its debug file only on a local debuginfod
cat > "$W/p.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) void ow_leaf(int n) { usleep(n); }
__attribute__((noinline)) void ow_mid(int n) { ow_leaf(n); ow_leaf(n + 1); }
int main(void) { for (;;) ow_mid(2000); }
C
cc -O1 -g -fno-omit-frame-pointer -o "$W/full" "$W/p.c" && mkdir "$W/srv" &&
	objcopy --only-keep-debug "$W/full" "$W/srv/prog.debug" && cp "$W/full" "$W/stripped" &&
	strip --strip-all "$W/stripped"
DP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -p "$DP" -d "$W/db.sqlite" -t 0 -g 0 "$W/srv" > "$W/srv.log" 2>&1 & PIDS+=($!)
ID=$(readelf -n "$W/stripped" | awk '/Build ID/ { print $3 }')
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$DP/buildid/$ID/debuginfo" && break; sleep 0.1; done
"$W/stripped" & SP=$!; PIDS+=($SP)
for cache in cold warm; do
	load
	capture "debuginfod-$cache" DEBUGINFOD_URLS="http://127.0.0.1:$DP" DEBUGINFOD_CACHE_PATH="$W/cache" -- -p "$SP"
	got=$(grep -o 'debuginfod: .* in [0-9.]* s' "$W/debuginfod-$cache.new.err" | grep -o 'in [0-9.]* s')
	row "debuginfod-$cache" 'stripped' "debuginfod ${got:-not asked}, $cache cache"
done
