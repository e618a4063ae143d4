#!/usr/bin/env python3
"""A small OpenAI-chat middleware for `sluice gate`'s tests: a proxy on
127.0.0.1 that forwards POST /v1/chat/completions to $SLUICE_UPSTREAM and
streams the answer back, correct in mode `pass`, and broken on purpose in
each other mode, one class of middleware bug each:

  pass          forwards the bytes as they come (a correct proxy)
  lines         re-frames each network read as if it held whole SSE lines:
                a line cut by the network is lost (splits SSE lines per
                network chunk)
  think         moves <think>...</think> into reasoning_content, in or out
                of a block across deltas, but finds a tag only whole within
                one delta (a tag cut by a delta boundary leaks)
  trailing      holds a whitespace-only delta to put before the next one,
                and never flushes it at the end
  collapse      every tool call at index 0 with a fresh id
  complete      an upstream that fails mid-stream is ended as a normal
                completion ([DONE])
  noreasoning   drops reasoning_content and reasoning
  merge         every choice's deltas as choice 0

The delta modes read the upstream's events with a correct SSE parser and
write each event again. It serves until --deadline seconds pass, then ends.

usage: mw.py MODE --port N [--deadline S]
"""
import http.client
import http.server
import json
import os
import re
import socket
import sys
import threading
import urllib.parse

MODE = sys.argv[1]
PORT = int(sys.argv[sys.argv.index("--port") + 1])
DEADLINE = float(sys.argv[sys.argv.index("--deadline") + 1]) if "--deadline" in sys.argv else 600
UP = urllib.parse.urlsplit(os.environ["SLUICE_UPSTREAM"])


def events(resp):
    """SSE events (their data) from a response, by the spec's line rules
    (a byte-order mark at the start dropped; a CR at the very end is a line
    end); raises on a connection that breaks."""
    buf, data, first = b"", [], True
    while True:
        chunk = resp.read1(65536)
        buf += chunk
        if first and len(buf) >= 3 or not chunk:
            if first and buf.startswith(b"\xef\xbb\xbf"):
                buf = buf[3:]
            first = False
        while True:
            m = re.search(rb"\r\n|\r|\n", buf)
            if not m or (chunk and m.group() == b"\r" and m.end() == len(buf)):
                break
            line, buf = buf[:m.start()], buf[m.end():]
            if not line:
                if data:
                    yield b"\n".join(data)
                data = []
            elif line.startswith(b"data:"):
                v = line[5:]
                data.append(v[1:] if v.startswith(b" ") else v)
        if not chunk:
            return


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def chunk(self, b):
        if b:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
            self.wfile.flush()

    def end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send(self, obj):
        self.chunk(b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n")

    def do_GET(self):
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        conn = http.client.HTTPConnection(UP.hostname, UP.port, timeout=60)
        conn.request("POST", self.path, body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.getheader("Content-Type", "text/event-stream"))
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if MODE == "pass":
                while True:
                    b = resp.read1(65536)
                    if not b:
                        break
                    self.chunk(b)
            elif MODE == "lines":
                self.reframe_per_read(resp)
            else:
                self.per_event(resp)
        except (OSError, http.client.HTTPException):
            if MODE == "complete":  # the bug: a failure ended as a completion
                self.send({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                self.send(b"[DONE]")
                self.end()
            else:  # a correct proxy: the client sees the failure
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.end()

    def reframe_per_read(self, resp):
        while True:
            b = resp.read1(65536)
            if not b:
                return
            for line in b.split(b"\n"):
                if line.startswith(b"data: "):
                    v = line[6:]
                    if v == b"[DONE]":
                        self.send(b"[DONE]")
                        continue
                    try:
                        self.send(json.loads(v))
                    except ValueError:
                        pass  # the bug: half a line is dropped

    def per_event(self, resp):
        held = ""
        self.inside = False
        for data in events(resp):
            if data == b"[DONE]":
                self.send(b"[DONE]")
                continue
            ev = json.loads(data)
            ev, held = self.rewrite(ev, held)
            if ev is not None:
                self.send(ev)

    def split_think(self, text):
        out, reason = [], []
        while text:
            tag = "</think>" if self.inside else "<think>"
            i = text.find(tag)
            (reason if self.inside else out).append(text if i < 0 else text[:i])
            if i < 0:
                break
            self.inside = not self.inside
            text = text[i + len(tag):]
        return "".join(out), "".join(reason)

    def rewrite(self, ev, held):
        for c in ev.get("choices", []):
            d = c.get("delta", {})
            if MODE == "think" and isinstance(d.get("content"), str):
                d["content"], found = self.split_think(d["content"])
                if found:
                    d["reasoning_content"] = found
            if MODE == "trailing" and isinstance(d.get("content"), str):
                text = held + d["content"]
                if d["content"] and not d["content"].strip():
                    return None, text
                d["content"], held = text, ""
            if MODE == "collapse":
                for t in d.get("tool_calls", []):
                    if "id" in t:
                        t["id"] = "call_%d" % id(t)
                    t["index"] = 0
            if MODE == "noreasoning":
                d.pop("reasoning_content", None)
                d.pop("reasoning", None)
            if MODE == "merge":
                c["index"] = 0
        return ev, held


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
server.daemon_threads = True
threading.Timer(DEADLINE, server.shutdown).start()
server.serve_forever()
