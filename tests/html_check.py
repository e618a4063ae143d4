#!/usr/bin/env python3
"""Checks an HTML report the way a reader meets it: in a real browser
(Debian's chromium, headless). The page must load without a script error or
a failed resource, its DOM (after any script ran) must hold a table with at
least MIN_ROWS rows and the texts given with --expect, and a screenshot of it
must not be blank (a page whose styles hide everything, or an empty body,
renders as one colour).

usage: html_check.py PAGE.html MIN_ROWS [--expect TEXT]... [--shot OUT.png]

Exit 0 when it holds, 1 with the reasons when not, 77 when no chromium is
installed (the test is skipped and says so).
"""
import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--enable-logging=stderr", "--v=0"]


def run(args, timeout=90):
    """Runs the browser, isolated in a profile of its own; its stdout and
    stderr."""
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([BROWSER, *FLAGS, "--user-data-dir=" + profile, *args],
                           capture_output=True, timeout=timeout)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def console_errors(log):
    """Script errors and failed loads, as chromium logs them."""
    bad = []
    for line in log.splitlines():
        if "CONSOLE" in line and ("Uncaught" in line or "Error" in line):
            bad.append(line.strip())
        elif "Failed to load resource" in line or "net::ERR_" in line:
            bad.append(line.strip())
    return bad


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables = 0
        self.rows = 0
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables += 1
        elif tag == "tr":
            self.rows += 1

    def handle_data(self, data):
        self.text.append(data)


def png_pixels(path):
    """The RGB(A) rows of an 8-bit PNG (what chromium writes), decoded with
    zlib and the PNG filters."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError("PNG of depth %d colour %d" % (depth, colour))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def not_blank(path):
    """The share of pixels unlike the top-left one, and how many colours."""
    width, height, bpp, rows = png_pixels(path)
    bg = rows[0][:3]
    differ, colours = 0, set()
    for row in rows[::2]:
        for x in range(0, width * bpp, bpp * 2):
            px = row[x:x + 3]
            colours.add(px)
            if px != bg:
                differ += 1
    total = ((height + 1) // 2) * ((width + 1) // 2)
    return differ / total, len(colours)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    page, min_rows = os.path.abspath(args[0]), int(args[1])
    expect = [args[i + 1] for i, a in enumerate(args) if a == "--expect"]
    shot = args[args.index("--shot") + 1] if "--shot" in args else None
    if not BROWSER:
        print("chromium not found: skipped")
        sys.exit(77)
    url = "file://" + page
    failures = []
    dom, log = run(["--dump-dom", url])
    failures += ["the browser logged: " + e for e in console_errors(log)]
    t = Tables()
    t.feed(dom)
    text = " ".join("".join(t.text).split())
    if t.tables < 1:
        failures.append("no table in the rendered page")
    if t.rows < min_rows:
        failures.append("%d table rows, fewer than %d" % (t.rows, min_rows))
    for e in expect:
        if e not in text:
            failures.append("the rendered text lacks %r" % e)
    with tempfile.TemporaryDirectory() as d:
        png = shot or os.path.join(d, "page.png")
        _, log = run(["--screenshot=" + png, "--window-size=1200,900", url])
        failures += ["the browser logged: " + e for e in console_errors(log)]
        if not os.path.exists(png):
            failures.append("no screenshot was written")
        else:
            share, colours = not_blank(png)
            if share < 0.01 or colours < 3:
                failures.append("the screenshot is blank (%.2f%% of pixels drawn, %d colours)"
                                % (100 * share, colours))
            else:
                print("%s: %d tables, %d rows, %.1f%% of the screenshot drawn, %d colours"
                      % (os.path.basename(page), t.tables, t.rows, 100 * share, colours))
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
