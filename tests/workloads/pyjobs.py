# SPDX-License-Identifier: Apache-2.0
# pyjobs.py - a threaded Python workload with known functions, for
# tests/t_python.sh: each thread blocks in its own way, in functions named
# after what they do, so that the capture's Python frames can be checked
# one by one on both sides of the "--".
#   q_worker: blocks in queue.Queue.get (threading.Condition.wait, a lock);
#             fed by q_relay's put, which got it from q_feeder's put (every
#             20 ms): a chain of three Python threads (--chain-depth 2)
#   sleeper:  blocks in time.sleep (10 ms), a generator and a with block on
#             the way (gen_naps, held_lock)
#   receiver: blocks in socket.recv, woken by sender's sendall (10 ms apart)
#   sql_worker: sqlite3 calls the Python function sql_nap (registered with
#             create_function), which sleeps: a C extension between Python
#             frames
#   main thread: main_wait blocks in threading.Event.wait (50 ms at a time)
# Usage: pyjobs.py SECONDS [TIDFILE]: writes "NAME TID" lines to TIDFILE
# once the threads run (main: the main thread), then exits after SECONDS.
import os
import queue
import socket
import sqlite3
import sys
import threading
import time

stop = threading.Event()
jobs = queue.Queue()
relayed = queue.Queue()
guard = threading.Lock()


def q_feeder():
    while not stop.is_set():
        jobs.put(1)
        time.sleep(0.02)


def q_relay():
    while not stop.is_set():
        try:
            relayed.put(jobs.get(timeout=0.5))
        except queue.Empty:
            pass


def q_worker():
    while not stop.is_set():
        try:
            relayed.get(timeout=0.5)
        except queue.Empty:
            pass


def gen_naps():
    while True:
        time.sleep(0.01)
        yield 1


def held_lock(naps):
    with guard:
        next(naps)


def sleeper():
    naps = gen_naps()
    while not stop.is_set():
        held_lock(naps)


def receiver(conn):
    while not stop.is_set():
        if not conn.recv(16):
            break


def sender(conn):
    while not stop.is_set():
        time.sleep(0.01)
        conn.sendall(b"x")


def sql_nap(x):
    time.sleep(0.01)
    return x


def sql_worker():
    db = sqlite3.connect(":memory:")
    db.create_function("sql_nap", 1, sql_nap)
    while not stop.is_set():
        db.execute("select sql_nap(1)").fetchone()


def main_wait(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        stop.wait(0.05)


def main():
    seconds = float(sys.argv[1])
    a, b = socket.socketpair()
    threads = [threading.Thread(target=f, args=args, name=f.__name__)
               for f, args in ((q_feeder, ()), (q_relay, ()), (q_worker, ()),
                               (sleeper, ()), (receiver, (a,)),
                               (sender, (b,)), (sql_worker, ()))]
    for t in threads:
        t.start()
    if len(sys.argv) > 2:
        with open(sys.argv[2] + ".tmp", "w") as f:
            f.write("main %d\n" % threading.get_native_id())
            for t in threads:
                f.write("%s %d\n" % (t.name, t.native_id))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    main_wait(seconds)
    stop.set()
    b.sendall(b"x")
    for t in threads:
        t.join()


main()
