#!/usr/bin/env python3
"""monitor_port.py: the literal Python port of the original stream monitor.

The yardstick for `sluice bench monitor --python`. It is the detector of
seed 004 as DESIGN.md 2 states it, written the way the original Python
module writes it: the accumulated text is a str, the pattern tests are
str.endswith(pattern * reps) and str.rfind, and phase 2 walks the earlier
occurrences of the last 10 characters with rfind. The one change from the
original is the one DESIGN.md makes: checkpoints are code-point positions
(every 128 for whitespace, every 512 for repetition), not feed calls, so
the verdict is the same for every chunking and equals the C filter's.

Input bytes are decoded incrementally (a chunk may cut a UTF-8 sequence);
an invalid byte becomes one character (surrogateescape), as in the library.

    python3 monitor_port.py --profile seed|current --chunk N --reps N
                            --inner N FILE

feeds FILE's bytes in chunks of N bytes to a fresh monitor per run, `inner`
runs per sample, and prints one JSON line: the median CPU time
(time.thread_time) and wall time per run, and the stop verdict.
"""
import argparse
import codecs
import json
import statistics
import time

CURRENT_REPS = [340, 170, 114, 86, 69, 58, 50, 44, 40, 36,
                33, 31, 29, 27, 26, 25, 24, 23, 22, 21]


def reps_seed(length):
    return (100 + 8 * (length - 1)) // length if length <= 30 else 10


def reps_current(length):
    return CURRENT_REPS[length - 1] if length <= 20 else 20


def match_exact(text, pattern, reps):
    return text.endswith(pattern * reps)


def match_quasi(text, pattern, reps):
    # The original's quasi rule: the text ends with the pattern, and going
    # back, each earlier copy is found by rfind with a gap shorter than it.
    if not text.endswith(pattern):
        return False
    length = len(pattern)
    count, pos = 1, len(text) - length
    while count < reps and pos > 0:
        q = text.rfind(pattern, 0, pos)
        if q < 0 or pos - (q + length) >= length:
            break
        count, pos = count + 1, q
    return count >= reps


def detect_repetition(text, reps, match):
    n = len(text)
    threshold = n // 10
    # Phase 1: short patterns at the end.
    for length in range(1, min(10, threshold) + 1):
        r = reps(length)
        if length * r > n:
            break
        if match(text, text[-length:], r):
            return True
    if threshold <= 10:
        return False
    # Phase 2: every earlier occurrence of the last 10 characters within
    # the threshold; the candidate is the text after it.
    marker = text[-10:]
    low = max(0, n - 10 - threshold)
    pos = text.rfind(marker, low, n - 1)
    while pos >= 0:
        candidate = text[pos + 10:]
        if match(text, candidate, reps(len(candidate))):
            return True
        pos = text.rfind(marker, low, pos + 9)
    return False


def trailing_ws(text, end, weighted):
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
    if not weighted:
        return end - i
    w = 0
    for k in range(i, end):
        c = text[k]
        if c == "\n":
            w += 0 if k > i and text[k - 1] == "\r" else 8
        elif c == "\r":
            w += 8
        elif c == "\t":
            w += 4
        else:
            w += 1
    return w


class StreamMonitor:
    def __init__(self, profile):
        current = profile == "current"
        self.reps = reps_current if current else reps_seed
        self.match = match_quasi if current else match_exact
        self.weighted = current
        self.ws_threshold = 512 if current else 128
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.text = ""
        self.stop = None

    def _checkpoints(self, start):
        # every position p in (start, len(text)] that is a multiple of 128
        n = len(self.text)
        p = (start // 128 + 1) * 128
        while p <= n:
            if trailing_ws(self.text, p, self.weighted) >= self.ws_threshold:
                return ("whitespace", p)
            if p % 512 == 0:
                prefix = self.text if p == n else self.text[:p]
                if detect_repetition(prefix, self.reps, self.match):
                    return ("repetition", p)
            p += 128
        return None

    def feed(self, chunk, final=False):
        if self.stop:
            return self.stop
        s = self.decoder.decode(chunk, final)
        if s:
            start = len(self.text)
            self.text += s
            self.stop = self._checkpoints(start)
        return self.stop


def run(data, profile, chunk):
    m = StreamMonitor(profile)
    for off in range(0, len(data), chunk):
        if m.feed(data[off:off + chunk]):
            break
    m.feed(b"", True)
    return m.stop


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="seed", choices=["seed", "current"])
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--inner", type=int, default=1)
    ap.add_argument("file")
    a = ap.parse_args()
    with open(a.file, "rb") as f:
        data = f.read()
    cpu, wall, stop = [], [], None
    for _ in range(a.reps):
        c0, w0 = time.thread_time(), time.perf_counter()
        for _ in range(a.inner):
            stop = run(data, a.profile, a.chunk)
        cpu.append((time.thread_time() - c0) / a.inner)
        wall.append((time.perf_counter() - w0) / a.inner)
    print(json.dumps({"cpu_s": statistics.median(cpu), "wall_s": statistics.median(wall),
                      "stop": list(stop) if stop else None, "bytes": len(data),
                      "profile": a.profile, "chunk": a.chunk}))


if __name__ == "__main__":
    main()
