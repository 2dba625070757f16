#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# export_stacks.py - print a profile's stacks as folded lines, identical
# stacks summed, sorted: for tests/t_export.sh to compare what pprof and
# speedscope read from our exports with the folded input (whose empty
# frames the exports leave out: "a;;b;; 1" reads as "a;b 1").
#   export_stacks.py folded FILE        folded text
#   export_stacks.py pprof-raw FILE     the output of `go tool pprof -raw`
#   export_stacks.py speedscope FILE    speedscope JSON (root-first stacks)
#   export_stacks.py pprof-where FILE   from go tool pprof -raw: each location
#                                       that has a mapping, as "name<TAB>file
#                                       <TAB>build id<TAB>1 if its address is
#                                       inside the mapping, else 0"
#   export_stacks.py pprof-events FILE  from go tool pprof -raw: each sample
#                                       with numeric labels start and duration
#                                       (a long block, --timeline) as "START
#                                       DURATION VALUE STACK", ns, the stack
#                                       root first, ";"-separated
#   export_stacks.py speedscope-events FILE  speedscope JSON's evented
#                                       profiles: each block (a run of
#                                       opens and closes from nothing open
#                                       back to nothing) as "START DURATION
#                                       RUNNABLE STACK", ns, RUNNABLE the
#                                       time in its "[runnable]" frame, the
#                                       stack root first after the thread's
#                                       name, ";"-separated; exit 1 when a
#                                       close is not of the frame open last
#   export_stacks.py schema SCHEMA FILE validate JSON against a JSON schema
#                                       (python3 jsonschema); exit 1 if not
import json
import re
import sys
from collections import defaultdict


def folded(path):
    out = defaultdict(int)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            stack, _, count = line.rpartition(" ")
            if stack:
                out[";".join(f for f in stack.split(";") if f)] += int(count)
    return out


def raw_lines(path):
    """The lines of go tool pprof -raw output with the section each is in
    ("Samples:", "Locations", "Mappings", or None before them)."""
    section = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
            else:
                yield section, line


def pprof_raw(path):
    """Samples ("count: loc loc ...", leaf first) and Locations
    ("id: 0xaddr M=n name :line s=n"; no M=n for a name that is in no
    mapping) of go tool pprof -raw."""
    samples, names = [], {}
    loc_re = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*) :-?\d+ s=\d+$")
    for section, line in raw_lines(path):
        if section == "Samples:" and (m := re.match(r"^\s*(\d+): ((?:\d+ )*\d+) ?$", line)):
            samples.append((int(m.group(1)), m.group(2).split()))
        elif section == "Locations" and (m := loc_re.match(line)):
            names[m.group(1)] = m.group(2)
    out = defaultdict(int)
    for count, locs in samples:
        out[";".join(names[i] for i in reversed(locs))] += count
    return out


def pprof_events(path):
    samples, names = [], {}
    loc_re = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*) :-?\d+ s=\d+$")
    for section, line in raw_lines(path):
        if section == "Samples:" and (m := re.match(r"^\s*(\d+): ((?:\d+ )*\d+) ?$", line)):
            samples.append([int(m.group(1)), m.group(2).split(), {}])
        elif section == "Samples:" and samples and line.startswith("\t\t" if line.startswith("\t") else " " * 16):
            for k, v in re.findall(r"(\w+):\[(-?\d+) nanoseconds\]", line):
                samples[-1][2][k] = int(v)
        elif section == "Locations" and (m := loc_re.match(line)):
            names[m.group(1)] = m.group(2)
    for count, locs, num in samples:
        if "start" in num and "duration" in num:
            stack = ";".join(names[i] for i in reversed(locs))
            print(num["start"], num["duration"], count, stack)


def pprof_where(path):
    maps, locs = {}, []
    map_re = re.compile(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x[0-9a-f]+ (\S*) (\S*) ?")
    loc_re = re.compile(r"^\s*\d+: 0x([0-9a-f]+) M=(\d+) (.*) :-?\d+ s=\d+$")
    for section, line in raw_lines(path):
        if section == "Locations" and (m := loc_re.match(line)):
            locs.append((int(m.group(1), 16), m.group(2), m.group(3)))
        elif section == "Mappings" and (m := map_re.match(line)):
            bid = m.group(5) if not m.group(5).startswith("[") else ""
            maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), m.group(4), bid)
    for addr, mid, name in locs:
        start, limit, file, bid = maps[mid]
        print(f"{name}\t{file}\t{bid}\t{int(start <= addr < limit)}")


def speedscope(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    frames = [fr["name"] for fr in d["shared"]["frames"]]
    p = d["profiles"][0]
    out = defaultdict(int)
    for stack, w in zip(p["samples"], p["weights"], strict=True):
        out[";".join(frames[i] for i in stack)] += w
    return out


def speedscope_events(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    frames = [fr["name"] for fr in d["shared"]["frames"]]
    for p in d["profiles"]:
        if p["type"] != "evented":
            continue
        thread = re.sub(r" \(tid \d+\)$", "", p["name"])
        opened, stack, runnable = [], [], 0
        for e in p["events"]:
            if e["type"] == "O":
                if not opened:
                    start, stack, runnable = e["at"], [], 0
                opened.append(e)
                if frames[e["frame"]] != "[runnable]":
                    stack.append(frames[e["frame"]])
                continue
            if not opened or opened[-1]["frame"] != e["frame"] or e["at"] < opened[-1]["at"]:
                sys.exit(f"{path}: {p['name']}: a close of frame {e['frame']} at {e['at']} "
                         "that is not the one open last")
            o = opened.pop()
            if frames[o["frame"]] == "[runnable]":
                runnable += e["at"] - o["at"]
            if not opened:
                print(start, e["at"] - start, runnable, ";".join([thread] + stack))
        if opened:
            sys.exit(f"{path}: {p['name']}: frames left open")


def main():
    kind = sys.argv[1]
    if kind == "schema":
        import jsonschema
        with open(sys.argv[2], encoding="utf-8") as f:
            schema = json.load(f)
        with open(sys.argv[3], encoding="utf-8") as f:
            doc = json.load(f)
        try:
            jsonschema.validate(doc, schema)
        except jsonschema.ValidationError as e:
            print("invalid:", e.message, file=sys.stderr)
            sys.exit(1)
        return
    if kind == "pprof-events":
        pprof_events(sys.argv[2])
        return
    if kind == "speedscope-events":
        speedscope_events(sys.argv[2])
        return
    if kind == "pprof-where":
        pprof_where(sys.argv[2])
        return
    stacks = {"folded": folded, "pprof-raw": pprof_raw, "speedscope": speedscope}[kind](sys.argv[2])
    for s in sorted(stacks):
        c = stacks[s]
        print(s, int(c) if c == int(c) else c)


main()
