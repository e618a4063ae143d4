#!/usr/bin/env python3
"""Every code example in README.md and the public headers is part of a program
in docs/examples/ that compiles (-std=c11 -pedantic, no warnings) and runs.

An example names its program: in README.md an HTML comment
<!-- docs/examples/X.c --> right before a ```c block; in a header, a comment
line that names (docs/examples/X.c ...) and the indented lines that follow.
Each example's lines must appear, in order and together, in the program
(comments and indentation aside), so the docs cannot drift from code that
is compiled. Then each program is compiled against the build tree and run
on an input whose output it checks.

usage: doc_examples.py SOURCE_DIR BUILD_DIR WORK_DIR
"""
import glob
import os
import re
import subprocess
import sys

src, build, work = sys.argv[1:4]
failures = []


def norm(line):
    line = re.sub(r"/\*.*?\*/", "", line)
    line = re.sub(r"//.*$", "", line)
    return line.strip()


def norm_lines(lines):
    return [x for x in (norm(l) for l in lines) if x]


def examples():
    """(where, program, lines) for every example."""
    out = []
    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read().split("\n")
    for i, line in enumerate(readme):
        m = re.match(r"<!-- (docs/examples/[\w.]+\.c) -->", line)
        if m and i + 1 < len(readme) and readme[i + 1].startswith("```c"):
            j = i + 2
            while j < len(readme) and not readme[j].startswith("```"):
                j += 1
            out.append(("README.md:%d" % (i + 1), m.group(1), readme[i + 2:j]))
    for h in sorted(glob.glob(os.path.join(src, "lib/include/*.h"))):
        lines = open(h, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            m = re.search(r"\((docs/examples/[\w.]+\.c)", line)
            if not m or not line.lstrip().startswith("*"):
                continue
            j = i + 1
            while j < len(lines) and lines[j].strip() not in ("*", "*/") and \
                    not lines[j].startswith(" *     "):
                j += 1  # the sentence that names the program goes on
            while j < len(lines) and lines[j].strip() == "*":
                j += 1
            k = j
            while k < len(lines) and lines[k].startswith(" *     "):
                k += 1
            body = [l[len(" *     "):] for l in lines[j:k]]
            out.append(("%s:%d" % (os.path.relpath(h, src), i + 1), m.group(1), body))
    return out


def contiguous(needle, hay):
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


seen = set()
for where, prog, body in examples():
    path = os.path.join(src, prog)
    seen.add(prog)
    if not os.path.exists(path):
        failures.append("%s: names %s, which does not exist" % (where, prog))
        continue
    want = norm_lines(body)
    have = norm_lines(open(path, encoding="utf-8").read().split("\n"))
    if not contiguous(want, have):
        failures.append("%s: the example is not in %s as written" % (where, prog))

# (program, libraries, stdin file or bytes, what stdout must hold)
runs = {
    "docs/examples/think_stream.c": (["-lsluice"], b"a<thi", "ac"),
    "docs/examples/pipeline.c": (["-lsluice"],
                                 "corpus/captures/deepseek-chat-reasoning_content.chunks.jsonl",
                                 "three \"r\"s"),
    "docs/examples/capture.c": (["-lsluice"], "corpus/captures/anthropic-messages-basic.sse",
                                "endpoint anthropic, model \"claude-3-opus-latest\""),
    "docs/examples/kit_options.c": (["-lsluice-kit", "-lsluice"], b"", "kit_options: ok"),
}
os.makedirs(work, exist_ok=True)
for prog in sorted(glob.glob(os.path.join(src, "docs/examples/*.c"))):
    rel = os.path.relpath(prog, src)
    if rel not in runs:
        failures.append("%s: no run is defined for it in tests/doc_examples.py" % rel)
        continue
    libs, stdin, expect = runs[rel]
    exe = os.path.join(work, os.path.basename(prog)[:-2])
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L",
           "-I", os.path.join(src, "lib/include"), "-I", os.path.join(build, "include"), prog,
           "-L", build, "-Wl,-rpath," + build] + libs + ["-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        failures.append("%s does not compile:\n%s" % (rel, r.stderr))
        continue
    data = stdin if isinstance(stdin, bytes) else open(os.path.join(src, stdin), "rb").read()
    if rel.endswith("think_stream.c"):
        data = b"a<thi" + b"nk>b</think>c"
    r = subprocess.run([exe], input=data, capture_output=True, timeout=60)
    out = r.stdout.decode("utf-8", "replace")
    if r.returncode or expect not in out:
        failures.append("%s: exit %d, stdout %r, stderr %r" % (rel, r.returncode, out[-300:],
                                                               r.stderr[-300:]))
    else:
        print("ok   %s" % rel)

for f in failures:
    print("FAIL " + f)
print("%d examples in the docs, %d programs, %d failed" % (len(examples()), len(runs),
                                                           len(failures)))
sys.exit(1 if failures else 0)
