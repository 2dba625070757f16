#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""stack_shares.py - how complete the user stacks of a capture are: the
share of blocked time (our folded output) or of samples (perf script)
whose user stack reaches its thread's entry, and the share cut short.
Used by tests/bench/unwind_bench.sh (offwake-svg and perf side by side) and
tests/t_unwind.sh.

Definitions (the blocked side of each stack only: the thread that went off
CPU; "root-most" is the outermost user frame, where the walk ended):

  complete      the user stack reaches its thread's entry: its root-most
                frame is one of the frames every correct unwind of a Linux
                thread ends at (glibc and musl on x86-64; their CFI marks
                the return address undefined there, or they are the
                thread's documented entry):
                  the main thread:  _start, _start_c, __libc_start_main,
                    __libc_start_main_impl, __libc_start_main_alias_N,
                    __libc_start_call_main, or main itself (a walk that
                    stops at main has reached the program's entry);
                  other threads:    clone3, clone, __clone3, __clone,
                    __GI___clone3, __GI___clone, __clone_internal, or
                    start_thread (glibc's thread entry, which calls the
                    start function given to pthread_create).
                A stripped executable's _start is named after its file
                ("[gzip]"): such a root counts when the frame above it is
                an entry (__libc_start_main).
                No thread identity is needed: a main thread's stack cannot
                honestly end at clone3, nor another thread's at _start.
                [unknown] frames between the root and the leaf are fine
                (an unnamed local function in a stripped binary, as the
                issue says; perf shows them as [unknown] too).
  cut short     not complete, and the root-most frame is [unknown] (a walk
                that went wrong or gave up at an address it could not
                name: the typical frame-pointer failure).
  other         not complete, and the root-most frame is a named frame that
                is no entry (the walk stopped early: the depth limit, no
                unwind information, perf's 8 KB stack copy too short).
  no user stack no user frames at all (or only a [Missed User Stack] mark).

So complete + cut short + other + no user stack = 100%; "incomplete" is
everything but complete.

Input formats (-F):
  folded  offwake-svg -f -d output (the -d delimiters are required: the
          blocked side is COMM;user frames root first;-;kernel frames;--;
          ...), weighted by the blocked time (the count, microseconds).
  perf    `perf script` output of sched:sched_switch samples with call
          chains (leaf first; user frames are those below
          0x800000000000), weighted by samples (1 each): perf gives no
          blocked time.

With --side waker (folded input only), the same for the wakers' user
stacks, each weighted by the blocked time its wakeup ended; a wakeup from
interrupt context ([hardirq]/[softirq]: no waker stack is shown) or
without a waker counts as "no user stack".

Usage: stack_shares.py [-F folded|perf] [--side blocked|waker]
                       [--label TEXT] [--header] [--by-comm N] [FILE]
Prints one table row: label, weight, complete %, cut short %, other %, no
user stack %, (and with --by-comm N the N heaviest thread names).
"""
import argparse
import re
import sys

MAIN_ENTRIES = {
    "_start", "_start_c", "__libc_start_main", "__libc_start_main_impl",
    "__libc_start_call_main", "main",
}
THREAD_ENTRIES = {
    "clone3", "clone", "__clone3", "__clone", "__GI___clone3",
    "__GI___clone", "__clone_internal", "start_thread",
}
_ALIAS = re.compile(r"^__libc_start_main_alias_[0-9]+$")


def strip_frame(name):
    """A frame's bare function name: perf's "+0x12" offsets and our
    "_[k]"-style annotations dropped."""
    name = name.strip()
    name = re.sub(r"\+0x[0-9a-fA-F]+$", "", name)
    name = re.sub(r"_\[[a-z]\]$", "", name)
    return name


def is_entry(frame):
    f = strip_frame(frame)
    return f in MAIN_ENTRIES or f in THREAD_ENTRIES or bool(_ALIAS.match(f))


def is_unknown(frame):
    return strip_frame(frame).startswith("[unknown")


def is_file_frame(frame):
    f = strip_frame(frame)
    return (f.startswith("[") and f.endswith("]") and not is_unknown(f)
            and f not in ("[truncated]", "[hardirq]", "[softirq]", "[nmi]"))


def classify(user_root_first):
    """complete / cutshort / other / none for a user stack, root first."""
    frames = [f for f in user_root_first if f and not f.startswith("[Missed")]
    if not frames:
        return "none"
    root = frames[0]
    if is_entry(root):
        return "complete"
    # a stripped executable's _start is named after its file ("[gzip]"):
    # below an entry (__libc_start_main), it is the entry's caller
    if (is_file_frame(root) and len(frames) > 1 and is_entry(frames[1])):
        return "complete"
    if is_unknown(root):
        return "cutshort"
    return "other"


def read_folded(lines, side="blocked"):
    """(comm, user frames root first, weight) per line of -f -d output;
    side "waker": the waker's name and user stack (none for a wakeup
    from interrupt context or without a waker), weighted by the same
    blocked time."""
    for line in lines:
        line = line.rstrip("\r\n")
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        try:
            weight = int(count)
        except ValueError:
            continue
        blocked, _, waker = stack.partition(";--;")
        if side == "waker":
            w = waker.split(";")
            comm = w[-1] if w else ""
            user = w[w.index("-") + 1:-1] if "-" in w else w[:-1]
            if "[hardirq]" in user or "[softirq]" in user:
                user = []
            yield comm, list(reversed(user)), weight
            continue
        frames = blocked.split(";")
        comm = frames[0]
        rest = frames[1:]
        if "-" in rest:
            user = rest[:rest.index("-")]
        else:
            read_folded.undelimited += 1
            # no delimiter: -U output (user frames only) or a stack whose
            # kernel side is empty; without -d the split is unknowable
            user = rest
        yield comm, user, weight


read_folded.undelimited = 0

_PERF_HEAD = re.compile(r"^(\S.*?)\s+(\d+)(?:/(\d+))?\s+(?:\[\d+\]\s+)?[\d.]+:")
_PERF_FRAME = re.compile(r"^\s+([0-9a-fA-F]+)\s+(.*?)(?:\s+\((.*)\))?$")


def read_perf(lines):
    """(comm, user frames root first, 1) per sample of perf script."""
    comm = None
    user = []
    in_sample = False
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if in_sample:
                yield comm, list(reversed(user)), 1
            in_sample = False
            user = []
            continue
        if not line[0].isspace():
            if in_sample:
                yield comm, list(reversed(user)), 1
            m = _PERF_HEAD.match(line)
            comm = m.group(1) if m else line.split()[0]
            in_sample = True
            user = []
            continue
        m = _PERF_FRAME.match(line)
        if not m or not in_sample:
            continue
        addr = int(m.group(1), 16)
        if addr >= 0x800000000000:
            continue
        user.append(m.group(2) or "[unknown]")
    if in_sample:
        yield comm, list(reversed(user)), 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-F", "--format", choices=("folded", "perf"), default="folded")
    ap.add_argument("--label", default=None)
    ap.add_argument("--header", action="store_true", help="print the column names first")
    ap.add_argument("--by-comm", type=int, default=0, metavar="N",
                    help="also a row for each of the N heaviest thread names")
    ap.add_argument("--unit", default=None, help="name of the weight (default us / samples)")
    ap.add_argument("--side", choices=("blocked", "waker"), default="blocked",
                    help="folded input: whose user stacks (the waker's are weighted by "
                    "the blocked time they caused; none for interrupt wakeups)")
    ap.add_argument("file", nargs="?", default="-")
    a = ap.parse_args()
    src = sys.stdin if a.file == "-" else open(a.file, errors="replace")
    if a.format == "folded":
        def reader(f):
            return read_folded(f, a.side)
    else:
        reader = read_perf
    unit = a.unit or ("us" if a.format == "folded" else "samples")
    cats = ("complete", "cutshort", "other", "none")
    tot = dict.fromkeys(cats, 0)
    per = {}
    n_lines = 0
    for comm, user, w in reader(src):
        n_lines += 1
        c = classify(user)
        tot[c] += w
        per.setdefault(comm, dict.fromkeys(cats, 0))[c] += w
    if a.format == "folded" and n_lines and read_folded.undelimited == n_lines:
        print("stack_shares.py: %s: no \"-\" delimiters (capture with -d): kernel frames "
              "are taken for user frames" % a.file, file=sys.stderr)
    label = a.label or a.file
    if a.header:
        print("%-44s %14s %9s %10s %7s %8s" % ("capture", "weight", "complete", "cut short",
                                             "other", "no user"))

    def row(name, d):
        n = sum(d.values())
        pct = [100.0 * d[c] / n if n else 0.0 for c in cats]
        print("%-44s %14s %8.1f%% %9.1f%% %6.1f%% %7.1f%%"
              % (name[:44], "%d %s" % (n, unit), *pct))
    row(label, tot)
    for comm, d in sorted(per.items(), key=lambda kv: -sum(kv[1].values()))[:a.by_comm]:
        row("  thread " + comm, d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
