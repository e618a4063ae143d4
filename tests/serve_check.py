"""serve_check.py SLUICE SRC WORKDIR: `sluice serve`, `sluice record` and
`sluice capture import` end to end, on 127.0.0.1 only, every server with
--max-requests and --deadline so it ends by itself.

- curl against every endpoint of every bundled capture, and every fault;
- Python's http.client (a real HTTP client) for what curl cannot show: the
  shape of each write (--rechunk), pacing (--ttft, --gap, a recording's own
  times; lower bounds only, never a timing that can flake), each gzip piece
  decodable as it arrives, a stall that keeps the connection open;
- client -> record -> serve -> client: the recording equals what serve sent;
- imported cassettes, HAR and AI SDK chunks equal their golden files, and
  serve gives back the bodies the fixtures were written from.

Expected bodies are computed here, independently of sluice: a .sse or
.ndjson capture is served as the file's bytes; a .chunks.jsonl capture as
each line framed the way its provider frames it.
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import zlib

SLUICE, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CAPS = os.path.join(SRC, "corpus", "captures")
os.makedirs(WORK, exist_ok=True)
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


class Server:
    """A sluice serve (or record) process, ended by itself."""

    def __init__(self, args, cmd="serve"):
        self.p = subprocess.Popen([SLUICE, cmd] + args + ["--deadline", "60"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("listening on http://"):
            self.p.kill()
            raise SystemExit("%s did not start: %r %s" % (cmd, line, self.p.stderr.read()))
        self.url = line.split("listening on ")[1].strip()
        self.host, self.port = self.url[len("http://"):].split(":")
        self.port = int(self.port)

    def finish(self):
        try:
            out, err = self.p.communicate(timeout=70)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
            check(False, "the server ended by itself")
        return self.p.returncode, err


def endpoint(family, model="m"):
    return {
        "openai-chat": "/v1/chat/completions", "openai-completions": "/v1/completions",
        "openai-responses": "/v1/responses", "anthropic": "/v1/messages",
        "ollama-chat": "/api/chat", "ollama-generate": "/api/generate",
        "gemini": "/v1beta/models/%s:streamGenerateContent?alt=sse" % model,
        "llamacpp": "/completion", "cohere": "/v2/chat"}[family]


def family_of(chunk):
    t = chunk.get("type")
    if isinstance(t, str) and "-" in t:
        return "cohere"  # Cohere v2
    if isinstance(t, str):
        if t.startswith("response."):
            return "openai-responses"
        if t == "error":
            return "openai-responses" if "sequence_number" in chunk else "anthropic"
        return "anthropic"
    if "candidates" in chunk:
        return "gemini"
    if "choices" in chunk:
        c0 = chunk["choices"][0] if chunk["choices"] else {}
        return "openai-completions" if "text" in c0 and "delta" not in c0 else "openai-chat"
    if "done" in chunk:
        return "ollama-chat" if "message" in chunk else "ollama-generate"
    if "content" in chunk and "stop" in chunk:
        return "llamacpp"
    return "unknown"


def expected_body(name):
    """The bytes a client must receive for a capture, framed as its provider does."""
    path = os.path.join(CAPS, name)
    raw = open(path, "rb").read()
    if not name.endswith(".chunks.jsonl"):
        first = raw.split(b"\n", 1)[0]
        if name.endswith(".ndjson"):
            fam = family_of(json.loads(first))
        else:
            fam = "anthropic" if b"event: message_start" in raw else None
            for line in raw.split(b"\n"):
                if fam is None and line.startswith(b"data: {"):
                    fam = family_of(json.loads(line[6:]))
        return raw, fam
    lines = [l for l in raw.split(b"\n") if l.strip()]
    fam = family_of(json.loads(lines[0]))
    out = b""
    for l in lines:
        ev = b""
        if fam in ("anthropic", "openai-responses"):
            ev = b"event: " + json.loads(l)["type"].encode() + b"\n"
        out += ev + b"data: " + l + (b"\r\n\r\n" if fam == "gemini" else b"\n\n")
    if fam in ("openai-chat", "openai-completions"):
        out += b"data: [DONE]\n\n"
    return out, fam


def curl(url, body=b'{"stream": true}', extra=(), timeout=20):
    """curl -sN: (exit status, body bytes, http code)."""
    r = subprocess.run(["curl", "-sN", "-o", "-", "-w", "\n%{http_code}", "-X", "POST",
                        "--max-time", str(timeout), "--data-binary", "@-", url] + list(extra),
                       input=body, capture_output=True)
    out, _, code = r.stdout.rpartition(b"\n")
    return r.returncode, out, int(code or 0)


def reads(srv, path, body=b'{"stream": true}', headers=None, timeout=10):
    """http.client: (status, headers, [(seconds, bytes) per read1], how it ended)."""
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    t0 = time.monotonic()
    c.request("POST", path, body=body, headers=headers or {})
    r = c.getresponse()
    got, how = [], "clean"
    try:
        while True:
            b = r.read1(65536)
            if not b:
                break
            got.append((time.monotonic() - t0, b))
    except http.client.IncompleteRead as e:
        if e.partial:
            got.append((time.monotonic() - t0, e.partial))
        how = "incomplete"
    except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError):
        how = "reset"
    except TimeoutError:
        how = "timeout"
    except OSError:
        how = "reset"
    c.close()
    return r.status, dict(r.getheaders()), got, how


def main():
    names = sorted(n for n in os.listdir(CAPS) if n.endswith((".sse", ".chunks.jsonl", ".ndjson")))
    check("curl" and shutil.which("curl") is not None, "curl is installed")

    # Every endpoint of every bundled capture, named by X-Sluice-Capture.
    srv = Server([os.path.join(CAPS, n) for n in names] + ["--max-requests", str(len(names) + 2)])
    for n in names:
        want, fam = expected_body(n)
        rc, got, code = curl(srv.url + endpoint(fam), extra=["-H", "X-Sluice-Capture: " + n])
        check(rc == 0 and code == 200 and got == want,
              "%s: %s endpoint gives the capture byte for byte (curl %d, HTTP %d)" % (n, fam, rc, code))
    rc, log, code = 0, None, 0
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    c.request("POST", "/v1/chat/completions", body=b'{"model":"no-such","stream":true}',
              headers={"Authorization": "Bearer sk-secret-123", "X-Api-Key": "k-secret"})
    r = c.getresponse()
    r.read()
    c.request("GET", "/_sluice/log")
    log = json.loads(c.getresponse().read())
    c.close()
    rc, got, code = curl(srv.url + "/v1/nothing-here")  # the last counted request
    check(code == 404 and b"no provider endpoint" in got, "an unknown path: 404 with a JSON error")
    last = log[-1]
    check(last["path"] == "/v1/chat/completions" and last["body"]["model"] == "no-such",
          "/_sluice/log lists the request with its body")
    text = json.dumps(log)
    check("sk-secret-123" not in text and "k-secret" not in text and
          last["headers"].get("Authorization") == "[redacted]",
          "/_sluice/log redacts authorization and API keys")
    rc, err = srv.finish()
    check(rc == 0, "serve ended by itself after --max-requests (exit %d)" % rc)

    one = os.path.join(CAPS, "openai-chat-text-usage-done.sse")
    want, _ = expected_body("openai-chat-text-usage-done.sse")
    events = want.count(b"\n\n")

    # The model's deltas cut again: the same content, a delta per code point
    # or at chosen positions, read back by replay.
    def replay_text(body):
        path = os.path.join(WORK, "resplit-read.sse")
        open(path, "wb").write(body)
        r = subprocess.run([SLUICE, "replay", "-q", "--output", "jsonl", path], capture_output=True)
        evs = [json.loads(l) for l in r.stdout.splitlines()]
        deltas = [e for e in evs if e["type"] == "delta" and e["kind"] == "text"]
        return "".join(e["text"] for e in deltas), len(deltas), evs[-1]
    text0, n0, end0 = replay_text(want)
    for how, more in (("codepoint", True), ("at:3,7", None), ("whole", False)):
        srv = Server([one, "--resplit", how, "--max-requests", "1"])
        rc, got, code = curl(srv.url + "/v1/chat/completions")
        srv.finish()
        text, n, end = replay_text(got)
        shape = (n == len(text0) if more else n == 1 if more is False else n == 3)
        check(rc == 0 and text == text0 and end == end0 and shape,
              "--resplit %s: the same text and end in %d deltas (recorded: %d)" % (how, n, n0))

    # Faults, through curl.
    srv = Server([one, "--cut-after", "1000", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/chat/completions")
    check(rc == 0 and got == want[:1000], "--cut-after 1000: a clean end after 1000 bytes (curl %d, %d bytes)" % (rc, len(got)))
    srv.finish()
    srv = Server([one, "--drop-after", "1000", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/chat/completions")
    check(rc in (18, 56) and got == want[:1000],
          "--drop-after 1000: the connection breaks after 1000 bytes (curl %d: %s)" % (rc, {18: "partial", 56: "reset"}.get(rc, "?")))
    srv.finish()
    srv = Server([one, "--stall-after", "1000", "--stall-for", "5", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/chat/completions", timeout=2)
    check(rc == 28 and got == want[:1000], "--stall-after 1000: 1000 bytes, then silence with the connection open (curl %d: timeout)" % rc)
    srv.finish()
    srv = Server([one, "--error-after", "1000", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/chat/completions")
    cut = want.find(b"\n\n", 999) + 2
    ev = got[cut:]
    check(rc == 0 and got[:cut] == want[:cut] and ev.startswith(b'data: {"error":') and ev.endswith(b"\n\n"),
          "--error-after 1000: at the next event boundary, OpenAI's error event, then the end")
    srv.finish()
    srv = Server([os.path.join(CAPS, "anthropic-messages-basic.sse"), "--error-after", "1", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/messages")
    check(b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"" in got,
          "--error-after: Anthropic's error event is Anthropic-shaped")
    srv.finish()
    for cap, path, key in (("openai-chat-text-usage-done.sse", "/v1/chat/completions", "error"),
                           ("anthropic-messages-basic.sse", "/v1/messages", "type"),
                           ("ollama-generate-deepseek-r1-think-tags.ndjson", "/api/generate", "error"),
                           ("gemini-api-gemma4-thought-then-text.chunks.jsonl",
                            "/v1beta/models/g:streamGenerateContent?alt=sse", "error")):
        srv = Server([os.path.join(CAPS, cap), "--status", "429", "--max-requests", "1"])
        rc, got, code = curl(srv.url + path)
        body = json.loads(got)
        check(code == 429 and key in body, "--status 429 on %s: the provider's JSON error body" % path)
        srv.finish()
    srv = Server([one, "--gzip", "--max-requests", "1"])
    rc, got, code = curl(srv.url + "/v1/chat/completions", extra=["--compressed"])
    check(rc == 0 and got == want, "--gzip: curl --compressed gets the capture byte for byte")
    srv.finish()

    # Shapes and pacing, through http.client.
    small = os.path.join(CAPS, "openai-chat-max-tokens-length.sse")
    small_want, _ = expected_body("openai-chat-max-tokens-length.sse")
    srv = Server([small, "--rechunk", "7", "--gap", "10", "--max-requests", "1"])
    st, h, got, how = reads(srv, "/v1/chat/completions")
    sizes = [len(b) for _, b in got]
    writes = (len(small_want) + 6) // 7
    check(b"".join(b for _, b in got) == small_want and max(sizes) <= 7 and len(sizes) >= writes,
          "--rechunk 7: every write is 7 bytes at most (%d reads for %d writes)" % (len(sizes), writes))
    took = got[-1][0] - got[0][0]
    check(took >= 0.9 * 0.010 * (writes - 1),
          "--gap 10: %d writes spread over %.2f s (at least 10 ms apart)" % (writes, took))
    srv.finish()
    srv = Server([one, "--ttft", "300", "--max-requests", "1"])
    st, h, got, how = reads(srv, "/v1/chat/completions")
    check(got[0][0] >= 0.29, "--ttft 300: the first byte after %.3f s" % got[0][0])
    check(len(got) >= events // 2, "the capture goes out event by event (%d reads, %d events)" % (len(got), events))
    srv.finish()
    srv = Server([one, "--stall-after", "500", "--stall-for", "3", "--max-requests", "1"])
    st, h, got, how = reads(srv, "/v1/chat/completions", timeout=1.5)
    check(how == "timeout" and sum(len(b) for _, b in got) == 500,
          "--stall-after 500: the connection stays open, silent, after 500 bytes")
    srv.finish()
    srv = Server([one, "--gzip", "--gap", "30", "--max-requests", "1"])
    st, h, got, how = reads(srv, "/v1/chat/completions")
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    each = all(d.decompress(b) for _, b in got[:-1])
    check(h.get("Content-Encoding") == "gzip" and each and d.flush() == b"",
          "--gzip: each piece decodes as it arrives (flushed)")
    srv.finish()

    # client -> record -> serve -> client, then the recording served again
    up = Server([one, "--gap", "10", "--max-requests", "1"])
    rec_dir = os.path.join(WORK, "recorded")
    shutil.rmtree(rec_dir, ignore_errors=True)
    rec = Server(["--upstream", up.url, "--out", rec_dir, "--max-requests", "1"], cmd="record")
    rc, got, code = curl(rec.url + "/v1/chat/completions", body=b'{"model":"m","stream":true}',
                         extra=["-H", "Authorization: Bearer sk-live-secret"])
    check(rc == 0 and got == want, "record passes the upstream's stream through unchanged")
    rec.finish()
    up.finish()
    files = sorted(os.listdir(rec_dir))
    check(len(files) == 1 and files[0].endswith("-openai-chat.capture.jsonl"), "record wrote one capture: %s" % files)
    lines = open(os.path.join(rec_dir, files[0]), "rb").read().splitlines()
    head = json.loads(lines[0])
    pieces = [json.loads(l) for l in lines[1:] if b'"data"' in l]
    body = b"".join(p["data"].encode() for p in pieces)
    check(body == want, "the recording's pieces join to exactly what serve sent")
    check(all(b[1]["t"] >= a[1]["t"] for a, b in zip(enumerate(pieces), enumerate(pieces[1:]))) and len(pieces) > 1,
          "the recording has %d pieces with their times" % len(pieces))
    check(b"sk-live-secret" not in open(os.path.join(rec_dir, files[0]), "rb").read() and
          head["request"]["headers"]["Authorization"] == "[redacted]",
          "the recording scrubs the authorization header")
    # The round trip: what the client read through record, the recording
    # replayed, and the recording served again, read by the one reader, give
    # the same events as the capture that was served.
    def events(path):
        r = subprocess.run([SLUICE, "replay", "-q", "--output", "jsonl", path], capture_output=True)
        return r.returncode, r.stdout
    rc0, ev0 = events(one)
    rc1, ev1 = events(os.path.join(rec_dir, files[0]))
    client = os.path.join(WORK, "client-read.sse")
    open(client, "wb").write(got)
    rc2, ev2 = events(client)
    check(rc0 == rc1 == rc2 == 0 and ev0 == ev1 == ev2 and ev0.count(b"\n") > 3,
          "client -> record -> capture -> replay gives the served capture's %d events" % ev0.count(b"\n"))
    srv = Server([os.path.join(rec_dir, files[0]), "--max-requests", "1"])
    t0 = time.monotonic()
    rc, got, code = curl(srv.url + "/v1/chat/completions")
    took = time.monotonic() - t0
    span = pieces[-1]["t"] - pieces[0]["t"]
    check(rc == 0 and got == want and took >= span * 0.9,
          "a recording is served byte for byte at its recorded pace (%.2f s for %.2f s recorded)" % (took, span))
    srv.finish()
    open(client, "wb").write(got)
    rc3, ev3 = events(client)
    check(rc3 == 0 and ev3 == ev0, "the recording served again reads as the same events")

    # Imports: golden files, and serve gives back the bodies they came from.
    imp = os.path.join(SRC, "tests", "import")
    out = os.path.join(WORK, "imported")
    shutil.rmtree(out, ignore_errors=True)
    inputs = [os.path.join(imp, f) for f in ("openai-gzip.yaml", "anthropic-plain.yaml", "session.har", "aisdk.chunks.txt")]
    r = subprocess.run([SLUICE, "capture", "import"] + inputs + ["--out", out], capture_output=True, text=True)
    check(r.returncode == 0, "capture import exits 0 (%s)" % r.stderr.strip()[:200])
    for f in sorted(os.listdir(os.path.join(imp, "expected"))):
        same = os.path.exists(os.path.join(out, f)) and \
            open(os.path.join(out, f), "rb").read() == open(os.path.join(imp, "expected", f), "rb").read()
        check(same, "capture import writes %s as its golden file" % f)
    check(sorted(os.listdir(out)) == sorted(os.listdir(os.path.join(imp, "expected"))),
          "capture import writes nothing else (the non-streaming exchanges are left out)")
    bodies = json.load(open(os.path.join(imp, "expected-bodies.json")))
    for name, body in sorted(bodies.items()):
        path = os.path.join(out, name + ".capture.jsonl")
        fam = json.loads(open(path).readline())["endpoint"]
        srv = Server([path, "--max-requests", "1"])
        rc, got, code = curl(srv.url + endpoint(fam))
        check(got == body.encode(), "%s (imported) is served as the body it was recorded from" % name)
        srv.finish()
    bad = os.path.join(WORK, "bad.yaml")
    open(bad, "w").write("interactions:\n- request: [unclosed\n")
    r = subprocess.run([SLUICE, "capture", "import", bad, "--out", out], capture_output=True, text=True)
    check(r.returncode == 1 and "bad.yaml:3:" in r.stderr, "a malformed cassette: its line and column, exit 1 (%s)" % r.stderr.strip())
    print("%d checks failed" % len(failures) if failures else "every check passed")
    sys.exit(1 if failures else 0)


main()
