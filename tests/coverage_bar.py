#!/usr/bin/env python3
"""coverage_bar.py OUT: the bar on lib/'s coverage, from what scripts/coverage
wrote in OUT (summary.txt, uncovered.txt): at least 95% of lib/'s lines and
85% of its branches covered. Prints the figures and, when the bar is not
met, the uncovered lines of lib/ file by file."""
import os
import re
import sys

LINES, BRANCHES = 95.0, 85.0
out = sys.argv[1]
summary = os.path.join(out, "summary.txt")
if not os.path.exists(summary):
    sys.exit("coverage_bar: no %s: run scripts/coverage, which writes it" % summary)
last = open(summary).read().strip().splitlines()[-1]
m = re.match(r"^lib/: lines ([\d.]+)%, branches ([\d.]+)%, functions ([\d.]+)%$", last)
if not m:
    sys.exit("coverage_bar: the summary does not end with the lib/ line: %r" % last)
lines, branches, functions = (float(x) for x in m.groups())
print(last)
uncovered = open(os.path.join(out, "uncovered.txt")).read().splitlines()
ok = lines >= LINES and branches >= BRANCHES
if not ok or "-v" in sys.argv:
    by_file = {}
    for u in uncovered:
        by_file.setdefault(u.split(":", 1)[0], []).append(u)
    for f in sorted(by_file, key=lambda f: -len(by_file[f])):
        print("%s: %d uncovered lines" % (f, len(by_file[f])))
        for u in by_file[f]:
            print("  " + u)
if not ok:
    sys.exit("coverage_bar: lib/ is below the bar (lines %.1f%% of %.0f%%, branches %.1f%% of %.0f%%)"
             % (lines, LINES, branches, BRANCHES))
print("coverage_bar: lib/ meets the bar (lines >= %.0f%%, branches >= %.0f%%); %d lines uncovered"
      % (LINES, BRANCHES, len(uncovered)))
