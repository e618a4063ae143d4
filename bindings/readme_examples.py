"""The README's Python and JavaScript examples are programs that run (CTest
bindings_readme), as its C examples are (tests/doc_examples.py).

An example names its program in an HTML comment right before its block:
<!-- bindings/python/examples/readme.py --> then ```python, or
<!-- bindings/node/examples/readme.mjs --> then ```js. Every line of the
block (comments and indentation aside) must be a line of the program, in
the same order, so the README cannot drift from code that runs; then each
program runs from the source tree with the package it needs.

usage: readme_examples.py SOURCE_DIR PYTHONPATH WASM
"""
import os
import re
import subprocess
import sys

src, pythonpath, wasm = sys.argv[1:4]
COMMENT = {".py": re.compile(r"\s+#.*$|^#.*$"), ".mjs": re.compile(r"\s*//.*$")}


def norm(lines, ext):
    return [x for x in (COMMENT[ext].sub("", l).strip() for l in lines) if x]


readme = open(os.path.join(src, "README.md"), encoding="utf-8").read().split("\n")
failures, programs = [], []
for i, line in enumerate(readme):
    m = re.match(r"<!-- (bindings/[\w/.-]+\.(py|mjs)) -->", line)
    if not m or i + 1 >= len(readme) or not readme[i + 1].startswith("```"):
        continue
    j = i + 2
    while j < len(readme) and not readme[j].startswith("```"):
        j += 1
    path, ext = m.group(1), "." + m.group(2)
    want = norm(readme[i + 2:j], ext)
    have = norm(open(os.path.join(src, path), encoding="utf-8").read().split("\n"), ext)
    at = 0
    for w in want:
        while at < len(have) and have[at] != w:
            at += 1
        if at == len(have):
            failures.append("README.md:%d: %r is not a line of %s (in this order)" % (i + 1, w, path))
            break
        at += 1
    programs.append(path)

if len(programs) < 2:
    failures.append("README.md names %d example programs, expected the Python and the JavaScript one" % len(programs))
env = dict(os.environ, PYTHONPATH=pythonpath, SLUICE_WASM=wasm)
for path in programs:
    cmd = ["python3" if path.endswith(".py") else "node", os.path.join(src, path)]
    r = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
    if r.returncode:
        failures.append("%s exited with %d:\n%s%s" % (path, r.returncode, r.stdout, r.stderr))
    else:
        print("ok   %s" % path)
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
