#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_python.sh - Python frames in blocked and waker stacks (--python; issue
# 30), captured for real on Debian's python3.11 (/usr/bin/python3.11:
# `make deps` installs it; a python3.11 on PATH may be another build).
# tests/workloads/pyjobs.py runs threads that block in known functions;
# each thread's folded lines (--group thread) are checked frame by frame
# on both sides of the "--": a worker in queue.get woken by a relay's put
# (and, at --chain-depth 2, the feeder's put that woke the relay), a
# generator and a with block on the way to time.sleep, socket.recv woken
# by another thread's sendall, sqlite3 (C) calling a Python function that
# sleeps, threads started by threading.Thread(target=...) and the main
# thread; --python=lines adds the line; --python=off keeps the
# interpreter's C frames; pprof has each code object's file and first line; a process that exits during the capture keeps
# its names; 40 big frames (24 KiB of data stack) all shown; pyenv's 3.12 (where there is one) is stitched the same; a
# CPython version not supported (pyenv's 3.13) is named in one warning.
# Shares of blocked time with wide tolerances (a noisy 2-core VM).
. "$(dirname "$0")/lib.sh"
WL=$(cd "$(dirname "$0")/workloads" && pwd)
PY=/usr/bin/python3.11

# the option's bad value: a usage error (no privileges needed)
out=$("$OFFWAKE" --python=maybe 1 2>&1); st=$?
if [ $st -eq 2 ] && grep -qF "offwake-svg: error: argument --python: invalid choice: 'maybe' (choose from 'on', 'off', 'lines')" <<<"$out"; then
	pass python_bad_value
else
	fail python_bad_value "status $st: $out"
fi

can_unwind python_capture || exit 0
if [ ! -x "$PY" ]; then
	skip python_capture "no $PY (make deps installs python3.11)"
	exit 0
fi

# start_jobs NAME SECONDS: pyjobs.py in the background (PID in $JOBS_PID),
# its threads' ids in $TMPD/NAME.tids once they run.
start_jobs() {
	"$PY" "$WL/pyjobs.py" "$2" "$TMPD/$1.tids" & JOBS_PID=$!
	for _ in $(seq 100); do [ -s "$TMPD/$1.tids" ] && return 0; sleep 0.05; done
	return 1
}
# tid NAME FILE: the thread's id
tid() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }
# thread_share FILE TIDS NAME PATTERN: percent of thread NAME's blocked time
# whose lines match PATTERN
thread_share() { share "$1" "$4" "^python3.11-[0-9]+/$(tid "$3" "$2");"; }

start_jobs jobs 60 || { fail python_capture "pyjobs.py did not start"; exit 0; }
P=$JOBS_PID
trap 'kill $P 2>/dev/null; rm -rf "$TMPD"' EXIT
T=$TMPD/jobs.tids
if ! cap main --group thread -p "$P" 3; then
	fail python_capture "capture failed: $(cat "$TMPD/main.err")"
	exit 0
fi

# expect NAME MIN PATTERN: thread NAME's share matching PATTERN >= MIN %
expect() {
	local test=$1 name=$2 min=$3 pat=$4 pct
	pct=$(thread_share "$TMPD/main" "$T" "$name" "$pat")
	if [ "$pct" -ge "$min" ]; then
		pass "$test"
	else
		fail "$test" "${pct}% of $name's blocked time matches '$pat': $(grep -aE "^python3.11-[0-9]+/$(tid "$name" "$T");" "$TMPD/main" | sort -t' ' -k2 -n | tail -2 | head -c 2000)"
	fi
}
THREAD_START='start_thread;.*;_bootstrap \(threading.py\);_bootstrap_inner \(threading.py\);run \(threading.py\);_PyFunction_Vectorcall;'
# queue.get (Condition.wait's lock), woken by the relay's put (notify)
expect python_queue_get q_worker 70 "${THREAD_START}q_worker \(pyjobs.py\);get \(queue.py\);wait \(threading.py\);[^(]*futex_wait.*;--;.*;notify \(threading.py\);put \(queue.py\);q_relay \(pyjobs.py\);_PyFunction_Vectorcall;run \(threading.py\);"
# time.sleep through a with block and a generator (next() is C)
expect python_generator_with sleeper 80 "${THREAD_START}sleeper \(pyjobs.py\);held_lock \(pyjobs.py\);builtin_next[^;]*;gen_naps \(pyjobs.py\);time_sleep[^;]*;clock_nanosleep;"
# socket.recv woken by another thread's sendall
expect python_socket receiver 70 "${THREAD_START}receiver \(pyjobs.py\);[^(]*sock_recv[^(]*;--;[^(]*sock_sendall[^(]*;sender \(pyjobs.py\);_PyFunction_Vectorcall;run \(threading.py\);"
# sqlite3's C code between two Python frames
expect python_c_extension sql_worker 70 "${THREAD_START}sql_worker \(pyjobs.py\);[^(]*sqlite3_step;[^(]*;sql_nap \(pyjobs.py\);time_sleep[^;]*;clock_nanosleep;"
# the main thread: from _start through the module's code
expect python_main_thread main 80 "^python3.11-[0-9]+/[0-9]+;_start;[^(]*;<module> \(pyjobs.py\);main \(pyjobs.py\);main_wait \(pyjobs.py\);wait \(threading.py\);wait \(threading.py\);"
# no interpreter loop left where its Python frames were walked
pct=$(share "$TMPD/main" '_PyEval_EvalFrameDefault' "^python3.11-$P/")
if [ "$pct" -le 3 ]; then pass python_no_eval_frames; else fail python_no_eval_frames "${pct}% of the time has _PyEval_EvalFrameDefault"; fi
if grep -qE '^offwake-svg: python: 1 process running CPython; [1-9][0-9]* stacks with Python frames' "$TMPD/main.err"; then
	pass python_summary
else
	fail python_summary "$(grep python "$TMPD/main.err")"
fi

# --chain-depth 2: the worker's waker (the relay), and the feeder's put
# that woke the relay
if cap chain --group thread --chain-depth 2 --chain-max-age 1000000 -p "$P" 3; then
	pct=$(thread_share "$TMPD/chain" "$T" q_worker "q_worker \(pyjobs.py\);get \(queue.py\);.*;--;.*;put \(queue.py\);q_relay \(pyjobs.py\);.*;--;.*;put \(queue.py\);q_feeder \(pyjobs.py\);")
	if [ "$pct" -ge 50 ]; then pass python_chain_depth2; else fail python_chain_depth2 "${pct}%: $(grep -a "q_worker (pyjobs" "$TMPD/chain" | sort -t' ' -k2 -n | tail -1 | head -c 2500)"; fi
else
	fail python_chain_depth2 "capture failed: $(cat "$TMPD/chain.err")"
fi

# --python=lines: the line each frame was at
line=$(grep -n 'relayed.get(timeout' "$WL/pyjobs.py" | cut -d: -f1)
if cap lines --python=lines --group thread -p "$P" 2; then
	pct=$(thread_share "$TMPD/lines" "$T" q_worker "q_worker \(pyjobs.py:$line\);get \(queue.py:[0-9]+\);wait \(threading.py:[0-9]+\);")
	if [ "$pct" -ge 70 ]; then pass python_lines; else fail python_lines "${pct}% at line $line: $(grep -ao 'q_worker (pyjobs.py[^;]*;[^;]*;[^;]*' "$TMPD/lines" | sort -u | head -5)"; fi
else
	fail python_lines "capture failed: $(cat "$TMPD/lines.err")"
fi

# --python=off: the interpreter's C frames, no Python one
if cap off --python=off -p "$P" 2; then
	if ! grep -q '(pyjobs.py)' "$TMPD/off" && grep -q '_PyEval_EvalFrameDefault' "$TMPD/off" &&
	   ! grep -q 'python:' "$TMPD/off.err"; then
		pass python_off
	else
		fail python_off "$(grep -c '(pyjobs.py)' "$TMPD/off") Python frames"
	fi
else
	fail python_off "capture failed: $(cat "$TMPD/off.err")"
fi
# pprof: one Function per code object, with its file and first line (go
# tool pprof -raw prints "name file:line s=START")
GO=$(command -v go)
if [ -z "$GO" ]; then
	skip python_pprof "no go (golang-go) to read pprof with"
elif "$OFFWAKE" --format=pprof -o "$TMPD/py.pb.gz" -p "$P" 2 2> "$TMPD/pprof.err" &&
     "$GO" tool pprof -raw -symbolize=none "$TMPD/py.pb.gz" > "$TMPD/raw" 2> "$TMPD/raw.err"; then
	def=$(grep -n '^def q_worker' "$WL/pyjobs.py" | cut -d: -f1)
	if grep -qE "^ +[0-9]+: 0x0 q_worker \(pyjobs.py\) $WL/pyjobs.py:0 s=$def\$" "$TMPD/raw" &&
	   grep -qE '^ +[0-9]+: 0x0 get \(queue.py\) /usr/lib/python3.11/queue.py:0 s=[0-9]+$' "$TMPD/raw"; then
		pass python_pprof
	else
		fail python_pprof "$(grep -E 'q_worker|get \(queue' "$TMPD/raw" | head -3) (want s=$def)"
	fi
else
	fail python_pprof "capture or pprof failed: $(cat "$TMPD/pprof.err" "$TMPD/raw.err" | head -c 600)"
fi
kill $P 2>/dev/null
wait $P 2>/dev/null

# A process that exits during the capture keeps its frames' names (read
# when each new stack arrives: only a stack taken in its last moments,
# its code never seen before, can find it gone: at most 10% of its time).
# (4 s: loading the capture takes a second or two on a busy machine)
start_jobs short 4 || { fail python_exit "pyjobs.py did not start"; exit 0; }
S=$JOBS_PID
if cap short -p "$S" 7 && ! kill -0 "$S" 2>/dev/null; then
	pct=$(share "$TMPD/short" 'python: unreadable' .)
	if grep -q 'main_wait (pyjobs.py)' "$TMPD/short" && grep -q 'sql_nap (pyjobs.py)' "$TMPD/short" &&
	   [ "$pct" -le 10 ]; then
		pass python_exit
	else
		fail python_exit "$(grep -c 'pyjobs.py' "$TMPD/short") lines name pyjobs.py, ${pct}% of the time unreadable: $(grep 'unreadable' "$TMPD/short" | head -3 | cut -c1-600)"
	fi
else
	fail python_exit "capture failed, or the process still runs: $(cat "$TMPD/short.err")"
fi

# A deep stack of big frames (60 locals: about 600 bytes each, 24 KiB in
# all): more than one read of the data stack (8 KiB at most) and frames in
# an older chunk of it (16 KiB), read alone: all 40 in their order.
locs=$(seq -s= -f 'a%g' 0 59)
cat > "$TMPD/bigframes.py" <<PYEOF
import time
def big(n):
    $locs = n
    if n > 1:
        return big(n - 1)
    while True:
        time.sleep(0.02)
big(40)
PYEOF
"$PY" "$TMPD/bigframes.py" & B=$!
cap big -p "$B" 2
kill $B 2>/dev/null
wait $B 2>/dev/null
pct=$(share "$TMPD/big" "<module> \\(bigframes.py\\);(big \\(bigframes.py\\);){40}time_sleep" .)
if [ "$pct" -ge 90 ]; then
	pass python_big_frames
else
	fail python_big_frames "${pct}% of the time shows 40 big frames: $(sort -t' ' -k2 -n "$TMPD/big" | tail -1 | sed 's/big (bigframes.py);/B;/g' | cut -c1-800) $(head -c 300 "$TMPD/big.err")"
fi

# 3.12 (pyenv's, where there is one: its frames end at a C entry shim,
# not at an is_entry flag): the same stitching
PY12=$(ls -d /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)
if [ -n "$PY12" ]; then
	"$PY12" "$WL/pyjobs.py" 60 "$TMPD/v312.tids" & U=$!
	for _ in $(seq 100); do [ -s "$TMPD/v312.tids" ] && break; sleep 0.05; done
	if cap v312 -p "$U" 2 &&
	   grep -qE ';_bootstrap \(threading.py\);_bootstrap_inner \(threading.py\);run \(threading.py\);q_worker \(pyjobs.py\);get \(queue.py\);wait \(threading.py\);' "$TMPD/v312" &&
	   grep -qE ';sql_worker \(pyjobs.py\);[^(]*sqlite3_step;[^(]*;sql_nap \(pyjobs.py\);time_sleep;' "$TMPD/v312" &&
	   [ "$(share "$TMPD/v312" _PyEval_EvalFrameDefault .)" -le 3 ]; then
		pass python_312
	else
		fail python_312 "$(grep python "$TMPD/v312.err") $(grep -a 'q_worker' "$TMPD/v312" | head -1 | head -c 800)"
	fi
	kill $U 2>/dev/null
else
	skip python_312 "no CPython 3.12 here"
fi

# A version not supported: one warning naming it (pyenv's 3.13, where
# there is one), its stacks native only.
PY13=$(ls -d /root/.pyenv/versions/3.13*/bin/python3.13 2>/dev/null | head -1)
if [ -n "$PY13" ]; then
	"$PY13" -c 'import time
for _ in range(3000): time.sleep(0.01)' & U=$!
	sleep 0.3
	if cap v313 -p "$U" 1 &&
	   [ "$(grep -c 'CPython 3.13 (pid [0-9]*, 1 process) is not supported (3.11 and 3.12 are)' "$TMPD/v313.err")" = 1 ] &&
	   grep -q 'time_sleep' "$TMPD/v313"; then
		pass python_unsupported
	else
		fail python_unsupported "$(cat "$TMPD/v313.err")"
	fi
	kill $U 2>/dev/null
else
	skip python_unsupported "no CPython 3.13 here"
fi
