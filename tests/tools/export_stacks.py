#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# export_stacks.py - print a profile's stacks as folded lines, identical
# stacks summed, sorted: for tests/t_export.sh to compare what pprof and
# speedscope read from our exports with the folded input.
#   export_stacks.py folded FILE        folded text
#   export_stacks.py pprof-raw FILE     the output of `go tool pprof -raw`
#   export_stacks.py speedscope FILE    speedscope JSON (root-first stacks)
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
                out[stack] += int(count)
    return out


def pprof_raw(path):
    """Samples ("count: loc loc ...", leaf first) and Locations
    ("id: 0xaddr M=n name :line s=n") of go tool pprof -raw."""
    samples, names, section = [], {}, None
    loc_re = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) :-?\d+ s=\d+$")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section == "Samples:":
                m = re.match(r"^\s*(\d+): ((?:\d+ )*\d+) ?$", line)
                if m:
                    samples.append((int(m.group(1)), m.group(2).split()))
            elif section == "Locations":
                m = loc_re.match(line)
                if m:
                    names[m.group(1)] = m.group(2)
    out = defaultdict(int)
    for count, locs in samples:
        out[";".join(names[i] for i in reversed(locs))] += count
    return out


def speedscope(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    frames = [fr["name"] for fr in d["shared"]["frames"]]
    p = d["profiles"][0]
    out = defaultdict(int)
    for stack, w in zip(p["samples"], p["weights"], strict=True):
        out[";".join(frames[i] for i in stack)] += w
    return out


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
    stacks = {"folded": folded, "pprof-raw": pprof_raw, "speedscope": speedscope}[kind](sys.argv[2])
    for s in sorted(stacks):
        c = stacks[s]
        print(s, int(c) if c == int(c) else c)


main()
