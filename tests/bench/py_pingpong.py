# SPDX-License-Identifier: Apache-2.0
# py_pingpong.py - two Python threads ping-ponging one byte over two pipes,
# each from the bottom of DEPTH Python frames (so every context switch
# walks about DEPTH Python frames on the blocked side and as many on the
# waker's), for tests/bench/python_bench.sh.  Starts once GOFILE exists
# (the capture attached); prints the seconds the OPS round trips took and
# the context switches its two threads made meanwhile.
# Usage: py_pingpong.py DEPTH OPS GOFILE
import os
import sys
import threading
import time

depth, ops, go = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r1, w1 = os.pipe()
r2, w2 = os.pipe()


def deep(n, fn):
    if n <= 0:
        return fn()
    return deep(n - 1, fn)


switches = []


def ctxt():
    with open("/proc/thread-self/status") as f:
        return sum(int(line.split()[1]) for line in f
                   if "ctxt_switches" in line)


def ping():
    c = ctxt()
    for _ in range(ops):
        os.write(w1, b"x")
        os.read(r2, 1)
    switches.append(ctxt() - c)


def pong():
    c = ctxt()
    for _ in range(ops):
        os.read(r1, 1)
        os.write(w2, b"x")
    switches.append(ctxt() - c)


while not os.path.exists(go):
    time.sleep(0.01)
# frames: thread: _bootstrap, _bootstrap_inner, run, deep * (depth - 4), pong;
# main: <module>, deep * (depth - 2), ping
t = threading.Thread(target=deep, args=(depth - 4, pong))
t.start()
t0 = time.monotonic()
deep(depth - 2, ping)
t.join()
print("%.3f %d" % (time.monotonic() - t0, sum(switches)))
