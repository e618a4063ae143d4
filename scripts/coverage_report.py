#!/usr/bin/env python3
"""coverage_report.py ROOT OUT: turns llvm-cov's summary (OUT/summary.json)
and line counts (OUT/lib-lines.txt) into OUT/summary.txt, a table per file
of lib/ and tools/ (lines, branches, functions: covered of total and the
percentage), ending with "lib/: lines L%, branches B%, functions F%", and
OUT/uncovered.txt, each line of lib/ that no test ran as FILE:LINE: text."""
import json
import os
import re
import sys

root, out = sys.argv[1], sys.argv[2]
KINDS = ("lines", "branches", "functions")


def pct(covered, count):
    return 100.0 * covered / count if count else 100.0


data = json.load(open(os.path.join(out, "summary.json")))
rows = []
for f in data["data"][0]["files"]:
    rel = os.path.relpath(f["filename"], root)
    if rel.startswith("lib/") or rel.startswith("tools/"):
        rows.append((rel, {k: (f["summary"][k]["covered"], f["summary"][k]["count"]) for k in KINDS}))
rows.sort()


def total(prefix):
    t = {k: [0, 0] for k in KINDS}
    for rel, s in rows:
        if rel.startswith(prefix):
            for k in KINDS:
                t[k][0] += s[k][0]
                t[k][1] += s[k][1]
    return t


def cells(s):
    return "".join("%9d/%-6d %6.1f%%" % (s[k][0], s[k][1], pct(*s[k])) for k in KINDS)


lines = ["%-40s%17s%17s%17s" % ("file", "lines", "branches", "functions")]
for rel, s in rows:
    lines.append("%-40s%s" % (rel, cells(s)))
for prefix in ("tools/", "lib/"):
    t = total(prefix)
    lines.append("%-40s%s" % (prefix + " (total)", cells(t)))
lib = total("lib/")
lines.append("lib/: lines %.1f%%, branches %.1f%%, functions %.1f%%"
             % tuple(pct(*lib[k]) for k in KINDS))
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

# llvm-cov show's text: a "/path/file.c:" header per file, then
# "  LINE|  COUNT|source" (COUNT blank where the line holds no code).
uncovered, current = [], None
for line in open(os.path.join(out, "lib-lines.txt"), errors="replace"):
    if line.startswith("/") and line.rstrip().endswith(":"):
        current = os.path.relpath(line.rstrip()[:-1], root)
        continue
    m = re.match(r"^\s*(\d+)\|\s*(\d+)\|(.*)$", line.rstrip("\n"))
    if current and m and m.group(2) == "0":
        uncovered.append("%s:%s: %s" % (current, m.group(1), m.group(3).strip()))
open(os.path.join(out, "uncovered.txt"), "w").write("\n".join(uncovered) + ("\n" if uncovered else ""))
print("%d lines of lib/ uncovered (%s)" % (len(uncovered), os.path.join(out, "uncovered.txt")))
