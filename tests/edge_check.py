"""edge_check.py SLUICE SRC WORK CASE: issue 28's findings against `sluice
serve`, `sluice record` and `sluice capture import`, one CASE per CTest, on
127.0.0.1 only; every server is started in its own process group with a
--deadline and killed at the end.

  crash    no request ends a server (invalid UTF-8 in header names and in
           X-Sluice-Capture, cut inside a character, a body nested 1200
           deep); both answer and live on
  secrets  every variant of the audit planted through serve's /_sluice/log,
           record's captures and imports (and bodies that are broken JSON,
           too deep, plain text, or a number under a secret name); no output
           holds a planted secret
  bombs    (run under `ulimit -v` 512 MB) a gzip bomb in a cassette and in a
           capture, deep YAML and an alias bomb: a clean error, quickly, no
           partial file
  redirect record refuses targets that are not origin-form (400) and never
           connects anywhere but --upstream
  record   record's caps: 413 over --max-body, client_closed, --idle-timeout
           (which a slow answer, in serve too, does not trip), --max-capture
           against an endless upstream; a second run into the same --out
           writes over nothing
  import   importers refuse statuses outside 100-599; same-named inputs do not
           overwrite each other
  caps     the caps of both servers: 413 over --max-body, 503 past
           --max-buffered while another upload is held (the next one answered
           once it is done), --max-connections (one more is closed unanswered),
           --log-size (the log keeps the last N)
  memory   16 MiB bodies x 8 at once through serve and record: peak RSS of each
           under 100 MB; the log stays small
Prints "N passed, M failed".
"""
import gzip
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

from edge_http import check, dechunk, recv_all, run_and_exit

SLUICE, SRC, WORK, CASE = sys.argv[1:5]
CAPS = os.path.join(SRC, "corpus", "captures")
ONE = os.path.join(CAPS, "openai-chat-text-usage-done.sse")
procs = []


class Server:
    """A sluice server in its own process group, ended by --deadline."""

    def __init__(self, args, cmd="serve", deadline=60):
        self.p = subprocess.Popen([SLUICE, cmd] + args + ["--deadline", str(deadline)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  start_new_session=True)
        procs.append(self.p)
        line = self.p.stdout.readline().decode()
        if "listening on http://" not in line:
            raise SystemExit("%s did not start: %s %s" % (cmd, line, self.p.stderr.read()[:500]))
        self.url = line.split("listening on ")[1].strip()
        self.port = int(self.url.rsplit(":", 1)[1])

    def alive(self):
        return self.p.poll() is None

    def rss_peak_kb(self):
        for l in open("/proc/%d/status" % self.p.pid):
            if l.startswith("VmHWM:"):
                return int(l.split()[1])
        return -1

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.p.pid))

    def stop(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
        try:
            out, err = self.p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            out, err = self.p.communicate()
        return self.p.returncode, err.decode("utf-8", "replace")


def raw(port, data, timeout=10, read=True):
    """Sends raw bytes, reads until the peer closes (or timeout): bytes."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(data)
    except OSError:
        return b""
    got = recv_all(s) if read else b""
    s.close()
    return got


def request(port, method, target, headers=(), body=b"", timeout=10):
    """One HTTP/1.1 request with Connection: close, written by hand so that
    any bytes can go in: (status, body bytes)."""
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" % (method, target)
    data = head.encode("latin-1") + b"".join(h + b"\r\n" for h in headers)
    data += b"Content-Length: %d\r\n\r\n" % len(body) + body
    got = raw(port, data, timeout)
    try:
        status = int(got.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    rest = got.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in got else b""
    if b"transfer-encoding: chunked" in got.split(b"\r\n\r\n")[0].lower():
        rest = dechunk(rest) or b""
    return status, rest


STREAM = b'{"model":"m","stream":true}'


class Ran:
    def __init__(self, rc, err):
        self.returncode, self.stderr = rc, err


def run(cmd, timeout=120):
    """A command's exit status and standard error (-1 and a note after
    timeout seconds)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
        return Ran(r.returncode, r.stderr)
    except subprocess.TimeoutExpired:
        return Ran(-1, "(still running after %d s)" % timeout)


# ---------------------------------------------------------------- crash

def case_crash():
    srv = Server([ONE])
    cases = [
        ("a header name with a byte >= 0x80", [b"X-\xffName: v"], 400),
        ("X-Sluice-Capture not UTF-8", [b"X-Sluice-Capture: \xff\xfe\x80"], 404),
        ("X-Sluice-Capture cut inside a character at 100 bytes",
         [b"X-Sluice-Capture: " + b"a" * 99 + "\u00e9\u00e9".encode()], 404),
        ("a header value not UTF-8", [b"X-Note: \xc3\x28\xff"], 200),
    ]
    deep = b'{"model":"m","stream":true,"x":' + b'{"a":' * 1200 + b"1" + b"}" * 1201
    cases.append(("a body nested 1200 deep (jansson parses recursively)", [], 200, deep))
    for what, headers, want, *body in cases:
        st, body = request(srv.port, "POST", "/v1/chat/completions", headers, body[0] if body else STREAM)
        ok = st == want
        if want != 200:
            try:
                json.loads(body)
            except ValueError:
                ok = False
        check(ok and srv.alive(), "serve: %s: answered %d (want %d) and lives on" % (what, st, want))
    st, body = request(srv.port, "GET", "/_sluice/log")
    try:
        log = json.loads(body)
    except ValueError:
        log = None
    check(st == 200 and isinstance(log, list) and len(log) == 5,
          "serve: /_sluice/log is valid JSON after them (%s entries)" % (len(log) if log else log))
    up = Server([ONE])
    rec = Server(["--upstream", up.url, "--out", os.path.join(WORK, "crash-rec")], cmd="record")
    for what, headers, want, *body in cases[:1] + cases[3:]:
        st, body = request(rec.port, "POST", "/v1/chat/completions", headers, body[0] if body else STREAM)
        check(st == want and rec.alive(), "record: %s: answered %d (want %d) and lives on" % (what, st, want))
    for s in (srv, up, rec):
        rc, err = s.stop()
        check(rc == 0 and "out of memory" not in err, "the server ends cleanly (exit %d)" % rc)


# ---------------------------------------------------------------- secrets

SECRET = "SLUICE-SECRET-"


def planted(n):
    return "%s%02d" % (SECRET, n)


HEADER_VARIANTS = [
    b"Authorization: Bearer %s",
    b"X-Auth-Token: %s", b"Ocp-Apim-Subscription-Key: %s", b"X-Amz-Security-Token: %s",
    b"Api_Key: %s", b"Authentication: %s", b"Private-Token: %s", b"Cookie: session=%s",
    b"Proxy-Authorization: Basic %s", b"X-Goog-Api-Key: %s", b"X-Client-Secret: %s",
    b"X-Signature: %s", b"X-Session-Id: %s", b"X-Password: %s",
]
QUERY_VARIANTS = ["api-key=%s", "x-api-key=%s", "sig=%s", "client_secret=%s", "password=%s",
                  "%%6Bey=%s", "access_token=%s", "Key=%s", "x-goog-api-key=%s"]


def planted_query(start):
    parts = ["alt=sse"]
    for i, q in enumerate(QUERY_VARIANTS):
        parts.append(q % planted(start + i))
    parts.append("a=1;key=%s" % planted(start + len(QUERY_VARIANTS)))
    return "&".join(parts), start + len(QUERY_VARIANTS) + 1


def planted_body(start):
    body = {"model": "m", "stream": True, "api_key": planted(start),
            "metadata": {"client_secret": planted(start + 1), "list": [{"password": planted(start + 2)}]},
            "auth": {"token": {"value": planted(start + 3)}}, "max_tokens": 5}
    return json.dumps(body).encode(), start + 4


def send_variants(port, path):
    """Every header, query and body variant, in a few requests."""
    n = 0
    headers = []
    for h in HEADER_VARIANTS:
        headers.append(h % planted(n).encode())
        n += 1
    q, n = planted_query(n)
    body, n = planted_body(n)
    sts = [request(port, "POST", path + "?" + q, headers, body)[0]]
    # malformed names: a space before the colon, folded lines (obs-fold); 400 each
    for bad in (b"Authorization : Bearer %s", b"Set-Cookie\t: %s", b"Authorization:\r\n Bearer %s",
                b"X-Note: a\r\n Authorization: %s"):
        sts.append(request(port, "POST", path, [bad % planted(n).encode()], STREAM)[0])
        n += 1
    # a form body
    form = ("model=m&api_key=%s&password=%s" % (planted(n), planted(n + 1))).encode()
    sts.append(request(port, "POST", path, [b"Content-Type: application/x-www-form-urlencoded"], form)[0])
    n += 2
    # bodies jansson refuses or that are no form, and a number under a secret name
    for b in odd_bodies(n):
        sts.append(request(port, "POST", path, [], b)[0])
    return sts, n + len(odd_bodies(n))


SECRET_NUMBER = "918273645546372"


def odd_bodies(n):
    """Bodies that hold planted(n), planted(n + 1), ...: broken JSON, JSON
    with a NUL, JSON nested 70 deep, plain text; and SECRET_NUMBER under a
    secret name (each streaming, but the text)."""
    head = '{"model":"m","stream":true,'
    return [(head + '"api_key":"%s",}' % planted(n)).encode(),
            (head + '"api_key":"%s","x":"a\\u0000b"}' % planted(n + 1)).encode(),
            (head + '"x":' + '{"a":' * 70 + '{"api_key":"%s"}' % planted(n + 2) + '}' * 71).encode(),
            ("api_key: %s\n" % planted(n + 3)).encode(),
            (head + '"session_id":%s}' % SECRET_NUMBER).encode()]


def leaks(text, upto):
    return [planted(i) for i in range(upto) if planted(i) in text]


class FakeUpstream(threading.Thread):
    """An upstream that answers with secret response headers (Set-Cookie :
    with a space, and others) and a short stream; counts connections."""

    def __init__(self, headers=b"", body=b"data: {}\n\ndata: [DONE]\n\n", endless=False):
        super().__init__(daemon=True)
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(64)
        self.port = self.s.getsockname()[1]
        self.headers, self.body, self.endless, self.count = headers, body, endless, 0
        self.start()

    def run(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            self.count += 1
            threading.Thread(target=self.answer, args=(c,), daemon=True).start()

    def answer(self, c):
        c.settimeout(10)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                b = c.recv(65536)
                if not b:
                    return
                data += b
            head, _, rest = data.partition(b"\r\n\r\n")
            want = 0
            for l in head.split(b"\r\n"):
                if l.lower().startswith(b"content-length:"):
                    want = int(l.split(b":")[1])
            while len(rest) < want:
                b = c.recv(65536)
                if not b:
                    break
                rest += b
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + self.headers +
                      (b"Connection: close\r\n\r\n"))
            if self.endless:
                chunk = b"data: " + b"x" * 65536 + b"\n\n"
                end = time.monotonic() + 20
                while time.monotonic() < end:
                    c.sendall(chunk)
            else:
                c.sendall(self.body)
        except OSError:
            pass
        finally:
            c.close()

    def close(self):
        self.s.close()


def import_inputs(start):
    """A cassette and a HAR with every variant planted."""
    n = start
    hdrs = {}
    for h in HEADER_VARIANTS:
        name, _, value = (h % planted(n).encode()).decode().partition(":")
        hdrs[name] = [value.strip()]
        n += 1
    q, n = planted_query(n)
    body, n = planted_body(n)
    resp_h = {"Content-Type": ["text/event-stream"], "Set-Cookie ": ["id=%s" % planted(n)],
              "X-Amz-Security-Token": [planted(n + 1)]}
    n += 2
    inter = {"request": {"uri": "https://api.example.com/v1/chat/completions?" + q,
                         "method": "POST", "headers": hdrs, "body": body.decode()},
             "response": {"status": {"code": 200, "message": "OK"}, "headers": resp_h,
                          "body": {"string": "data: {}\n\ndata: [DONE]\n\n"}}}
    inters = [inter]
    for b in odd_bodies(n):
        inters.append(dict(inter, request=dict(inter["request"], body=b.decode())))
    n += len(odd_bodies(n))
    yml = os.path.join(WORK, "secrets.yaml")
    open(yml, "w").write(json.dumps({"interactions": inters, "version": 1}))  # JSON is YAML
    har_h = [{"name": k, "value": v[0]} for k, v in hdrs.items()]
    entry = {"request": {"url": "https://api.example.com/v1/chat/completions?" + q + "&%6Bey=" + planted(n),
                         "method": "POST", "headers": har_h,
                         "postData": {"mimeType": "application/json", "text": body.decode()}},
             "response": {"status": 200, "headers": [{"name": "Set-Cookie :", "value": planted(n + 1)}],
                          "content": {"mimeType": "text/event-stream", "text": "data: [DONE]\n\n"}}}
    n += 2
    har = os.path.join(WORK, "secrets.har")
    json.dump({"log": {"entries": [entry]}}, open(har, "w"))
    return [yml, har], n


def case_secrets():
    srv = Server([ONE])
    sts, n = send_variants(srv.port, "/v1/chat/completions")
    want = [200, 400, 400, 400, 400, 400, 200, 200, 200, 400, 200]
    check(sts == want, "serve: the variants answered %s (malformed names: 400)" % sts)
    st, log = request(srv.port, "GET", "/_sluice/log")
    text = log.decode("utf-8", "replace")
    found = leaks(text, n) + [SECRET_NUMBER] * (SECRET_NUMBER in text)
    check(st == 200 and not found,
          "serve's /_sluice/log holds none of %d planted secrets (leaked: %s)" % (n + 1, found))
    check("[redacted]" in text and '"max_tokens":5' in text,
          "serve's log redacts, and keeps what is no secret (max_tokens)")
    srv.stop()
    up = FakeUpstream(headers=b"Set-Cookie : id=" + planted(90).encode() + b"\r\nX-Amz-Security-Token: " +
                      planted(91).encode() + b"\r\n")
    out = os.path.join(WORK, "secrets-rec")
    rec = Server(["--upstream", "http://127.0.0.1:%d" % up.port, "--out", out], cmd="record")
    sts, n2 = send_variants(rec.port, "/v1/chat/completions")
    check(sts == [200, 400, 400, 400, 400, 200, 200, 200, 200, 200, 200],
          "record: the variants answered %s (malformed names: 400)" % sts)
    rec.stop()
    up.close()
    text = "".join(open(os.path.join(out, f), encoding="utf-8", errors="replace").read() for f in os.listdir(out))
    found = leaks(text, n2) + [s for s in (planted(90), planted(91), SECRET_NUMBER) if s in text]
    check(len(os.listdir(out)) == 7 and not found,
          "record's %d captures hold none of the planted secrets, its upstream's Set-Cookie : "
          "included (leaked: %s)" % (len(os.listdir(out)), found))
    inputs, n3 = import_inputs(100)
    out = os.path.join(WORK, "secrets-imp")
    r = run([SLUICE, "capture", "import", "--out", out] + inputs)
    text = "".join(open(os.path.join(out, f), encoding="utf-8", errors="replace").read() for f in os.listdir(out))
    found = [planted(i) for i in range(100, n3) if planted(i) in text] + [SECRET_NUMBER] * (SECRET_NUMBER in text)
    check(r.returncode == 0 and len(os.listdir(out)) == 7 and not found,
          "capture import: a cassette and a HAR with every variant, no secret written "
          "(exit %d, leaked: %s) %s" % (r.returncode, found, r.stderr[:200]))


# ---------------------------------------------------------------- bombs

def gzip_zeros(n):
    import zlib
    c = zlib.compressobj(1, zlib.DEFLATED, 31)  # about 229:1, under gz's ratio cap
    block = b"\0" * (1 << 20)
    out = [c.compress(block) for _ in range(n >> 20)]
    out.append(c.flush())
    return b"".join(out)


def case_bombs():
    import base64
    bomb = gzip_zeros(1 << 30)  # 1 GiB of zeros, about 4.7 MB encoded
    cap = os.path.join(WORK, "bomb.capture.jsonl")
    with open(cap, "w") as f:
        f.write(json.dumps({"sluice_capture": 1, "endpoint": "openai-chat",
                            "response": {"status": 200, "headers": {"Content-Encoding": "gzip",
                                                                    "Content-Type": "text/event-stream"}}}) + "\n")
        for i in range(0, len(bomb), 65536):
            f.write(json.dumps({"t": 0, "data_b64": base64.b64encode(bomb[i:i + 65536]).decode()}) + "\n")
        f.write(json.dumps({"t": 0, "end": "complete"}) + "\n")
    t0 = time.monotonic()
    r = run([SLUICE, "serve", cap, "--deadline", "5"])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024  # the first child
    check(r.returncode == 2 and "bomb.capture.jsonl" in r.stderr and "out of memory" not in r.stderr
          and peak < 200, "serve: a capture that is a gzip bomb is refused at load, cleanly, in "
          "%.1f s, peak RSS %d MB (%s)" % (time.monotonic() - t0, peak, r.stderr.strip()[:160]))
    yml = os.path.join(WORK, "bomb.yaml")
    b64 = base64.b64encode(bomb).decode()
    open(yml, "w").write(
        "interactions:\n- request: {uri: 'https://x/v1/chat/completions', method: POST}\n"
        "  response:\n    status: {code: 200}\n    headers: {Content-Type: [text/event-stream], "
        "Content-Encoding: [gzip]}\n    body: {string: !!binary '%s'}\n" % b64)
    out = os.path.join(WORK, "bomb-out")
    t0 = time.monotonic()
    r = run([SLUICE, "capture", "import", yml, "--out", out])
    took = time.monotonic() - t0
    check(r.returncode == 1 and "bomb.yaml" in r.stderr and "encoded byte" in r.stderr and
          os.listdir(out) == [],
          "capture import: a gzip bomb (1 GiB of zeros) refused with the file and offset, "
          "no partial file, in %.1f s (exit %d: %s)" % (took, r.returncode, r.stderr.strip()[:160]))
    deep = os.path.join(WORK, "deep.yaml")
    open(deep, "w").write("interactions: " + "[" * 160000 + "]" * 160000 + "\n")
    t0 = time.monotonic()
    r = run([SLUICE, "capture", "import", deep, "--out", out], timeout=30)
    took = time.monotonic() - t0
    check(r.returncode == 1 and "nested deeper" in r.stderr and took < 5,
          "capture import: 320 KB of nested YAML refused in %.2f s (%s)" % (took, r.stderr.strip()[:120]))
    for count, kb, want in ((2000, 1, "more than 1024 aliases"), (500, 100, "aliases expand")):
        alias = os.path.join(WORK, "alias.yaml")
        body = "data: " + "x" * 1000 + "\n\n"
        with open(alias, "w") as f:
            f.write("big: &b {uri: 'https://x/v1/chat/completions', method: POST}\n")
            f.write("resp: &r {status: {code: 200}, headers: {Content-Type: [text/event-stream]}, "
                    "body: {string: '%s'}}\n" % (body * kb).replace("\n", "\\n"))
            f.write("interactions:\n")
            for _ in range(count):
                f.write("- {request: *b, response: *r}\n")
        size = os.path.getsize(alias)
        out2 = os.path.join(WORK, "alias-out-%d" % count)
        t0 = time.monotonic()
        r = run([SLUICE, "capture", "import", alias, "--out", out2], timeout=120)
        written = sum(os.path.getsize(os.path.join(out2, f)) for f in os.listdir(out2))
        check(r.returncode == 1 and want in r.stderr and written <= 2 * size + (2 << 20),
              "capture import: an alias bomb (%d aliases, %d KB) refused in %.1f s, %d KB written (%s)" %
              (count * 2, size // 1024, time.monotonic() - t0, written // 1024, r.stderr.strip()[-100:]))


# ---------------------------------------------------------------- redirect

def case_redirect():
    evil = FakeUpstream()
    up = Server([ONE])
    rec = Server(["--upstream", up.url, "--out", os.path.join(WORK, "redir")], cmd="record")
    targets = ["@127.0.0.1:%d/v1/chat/completions" % evil.port, ".evil.example/v1/chat/completions",
               ":%d/v1/chat/completions" % evil.port, "//127.0.0.1:%d/v1/chat/completions" % evil.port,
               "http://127.0.0.1:%d/v1/chat/completions" % evil.port, "*"]
    for t in targets:
        st, body = request(rec.port, "POST", t, [b"Authorization: Bearer sk-x"], STREAM)
        check(st == 400, "record: the target %r is refused with 400 (got %d)" % (t, st))
    st, body = request(rec.port, "POST", "/v1/chat/completions", [], STREAM)
    check(st == 200 and b"[DONE]" in body, "record: an origin-form target is forwarded (got %d)" % st)
    time.sleep(0.2)
    check(evil.count == 0, "record connected nowhere but --upstream (%d connections elsewhere)" % evil.count)
    r = run([SLUICE, "record", "--upstream", "ftp://127.0.0.1/", "--out", WORK])
    check(r.returncode == 2, "record: an --upstream that is not http(s) is refused (%s)" % r.stderr.strip()[:100])
    for s in (rec, up):
        s.stop()
    evil.close()


# ---------------------------------------------------------------- record

def capture_end(path):
    last = open(path, "rb").read().splitlines()[-1]
    return json.loads(last).get("end")


def case_record():
    up = Server([ONE, "--gap", "200"])
    out = os.path.join(WORK, "rec-caps")
    rec = Server(["--upstream", up.url, "--out", out, "--max-body", "1048576", "--idle-timeout", "2",
                  "--max-capture", "1048576"], cmd="record")
    st, body = request(rec.port, "POST", "/v1/chat/completions", [], b"x" * (2 << 20))
    check(st == 413, "record: a body over --max-body is answered 413 (got %d)" % st)
    # a client that hangs up mid-stream
    s = socket.create_connection(("127.0.0.1", rec.port))
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(STREAM) + STREAM)
    s.recv(100)
    s.close()
    time.sleep(1.5)
    files = sorted(os.listdir(out))
    end = capture_end(os.path.join(out, files[-1])) if files else None
    check(end == "client_closed", "record: a client that hangs up mid-stream: the capture ends %r" % end)
    # an idle connection is closed
    s = socket.create_connection(("127.0.0.1", rec.port))
    s.settimeout(10)
    t0 = time.monotonic()
    try:
        closed = s.recv(10) == b""
    except (socket.timeout, ConnectionResetError):
        closed = False
    took = time.monotonic() - t0
    s.close()
    check(closed and took < 6, "record: an idle connection is closed after --idle-timeout 2 (%.1f s)" % took)
    rec.stop()
    up.stop()
    # the server's own waits are not the client's idleness: an answer whose
    # first byte takes 2.5 s, through serve and record with --idle-timeout 1
    want = open(ONE, "rb").read()
    up = Server([ONE, "--ttft", "2500", "--idle-timeout", "1"])
    out = os.path.join(WORK, "rec-slow")
    rec = Server(["--upstream", up.url, "--out", out, "--idle-timeout", "1"], cmd="record")
    for name, port in (("serve", up.port), ("record", rec.port)):
        st, body = request(port, "POST", "/v1/chat/completions", [], STREAM)
        check(st == 200 and body == want, "%s: an answer whose first byte takes 2.5 s is whole under "
              "--idle-timeout 1 (%d, %d of %d bytes)" % (name, st, len(body), len(want)))
    rec.stop()
    files = os.listdir(out)
    end = capture_end(os.path.join(out, files[0])) if files else None
    check(end == "complete", "record: its capture ends %r" % end)
    # a second run into the same --out numbers its captures after the first's
    rec = Server(["--upstream", up.url, "--out", out], cmd="record")
    request(rec.port, "POST", "/v1/chat/completions", [], STREAM)
    rec.stop()
    up.stop()
    files = sorted(os.listdir(out))
    check(files == ["0001-openai-chat.capture.jsonl", "0002-openai-chat.capture.jsonl"] and
          capture_end(os.path.join(out, files[0])) == "complete",
          "record: a second run into the same --out writes over nothing (%s)" % files)
    # while a client that stops reading a long answer is still timed out
    big = os.path.join(WORK, "big.sse")
    ev = 'data: {"choices":[{"index":0,"delta":{"content":"%s"}}]}\n\n' % ("y" * 1000)
    open(big, "w").write(ev * 8000 + "data: [DONE]\n\n")
    one = Server([big, "--idle-timeout", "1"])
    up = Server([big])  # record's upstream keeps the default: only record times out
    rec = Server(["--upstream", up.url, "--out", os.path.join(WORK, "rec-big"), "--idle-timeout", "1"],
                 cmd="record")
    for name, srv in (("serve", one), ("record", rec)):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" %
                  len(STREAM) + STREAM)
        s.recv(100)
        base = srv.fds()
        t0 = time.monotonic()
        while srv.fds() >= base and time.monotonic() - t0 < 8:
            time.sleep(0.2)
        took = time.monotonic() - t0
        got = 100 + len(recv_all(s))
        s.close()
        check(took < 5 and got < os.path.getsize(big),
              "%s: a client that stops reading an 8 MB answer is closed after --idle-timeout 1 "
              "(%.1f s, %d KB sent)" % (name, took, got // 1024))
    for s in (rec, up, one):
        s.stop()
    endless = FakeUpstream(endless=True)
    out2 = os.path.join(WORK, "rec-endless")
    rec = Server(["--upstream", "http://127.0.0.1:%d" % endless.port, "--out", out2, "--max-capture", "1048576"],
                 cmd="record")
    request(rec.port, "POST", "/v1/chat/completions", [], STREAM, timeout=30)
    time.sleep(0.5)
    rec.stop()
    endless.close()
    files = os.listdir(out2)
    size = sum(os.path.getsize(os.path.join(out2, f)) for f in files)
    end = capture_end(os.path.join(out2, files[0])) if files else None
    check(len(files) == 1 and end == "max_capture" and size < 3 << 20,
          "record: an endless upstream stops at --max-capture 1 MiB (%d KB written, end %r)" % (size // 1024, end))


# ---------------------------------------------------------------- import

def case_import():
    bad = [("abc", "not an HTTP status"), ("99999999999", "not an HTTP status"), ("99", "not an HTTP status")]
    for code, want in bad:
        p = os.path.join(WORK, "status.yaml")
        open(p, "w").write("interactions:\n- request: {uri: 'https://x/v1/chat/completions', method: POST}\n"
                           "  response: {status: {code: %s}, headers: {Content-Type: [text/event-stream]}, "
                           "body: {string: 'data: [DONE]'}}\n" % code)
        r = run([SLUICE, "capture", "import", p, "--out", os.path.join(WORK, "st")])
        check(r.returncode == 1 and want in r.stderr, "capture import: a cassette status %s is refused (%s)" % (code, r.stderr.strip()[:120]))
    har = os.path.join(WORK, "status.har")
    json.dump({"log": {"entries": [{"request": {"url": "https://x/v1/chat/completions", "method": "POST"},
                                    "response": {"status": 4294967496, "content": {"mimeType": "text/event-stream", "text": "x"}}}]}},
              open(har, "w"))
    r = run([SLUICE, "capture", "import", har, "--out", os.path.join(WORK, "st")])
    check(r.returncode == 1 and "not an HTTP status" in r.stderr, "capture import: a HAR status 4294967496 is refused (%s)" % r.stderr.strip()[:120])
    imp = os.path.join(SRC, "tests", "import")
    for d in ("a", "b"):
        os.makedirs(os.path.join(WORK, d), exist_ok=True)
        open(os.path.join(WORK, d, "same.yaml"), "wb").write(open(os.path.join(imp, "anthropic-plain.yaml"), "rb").read())
    out = os.path.join(WORK, "same-out")
    r = run([SLUICE, "capture", "import", os.path.join(WORK, "a", "same.yaml"),
                        os.path.join(WORK, "b", "same.yaml"), "--out", out])
    files = sorted(os.listdir(out))
    check(r.returncode == 0 and len(files) == 2, "capture import: two inputs named alike give two captures: %s" % files)


# ---------------------------------------------------------------- caps

def padded(n, mark=""):
    """A streaming request body of n bytes (n > 100)."""
    head = b'{"model":"m","stream":true,"mark":"%s","pad":"' % mark.encode()
    return head + b"x" * (n - len(head) - 2) + b'"}'


def held_upload(port, body, part):
    """A socket that has sent the head and body[:part] of a request."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body[:part])
    return s


def finish_upload(s, body, part):
    s.sendall(body[part:])
    got = recv_all(s)
    s.close()
    return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else 0


def server_sockets(srv):
    """The sockets the server process holds (its listener, accepted
    connections, any upstream one), as their /proc links."""
    d = "/proc/%d/fd" % srv.p.pid
    out = set()
    for f in os.listdir(d):
        try:
            link = os.readlink(os.path.join(d, f))
        except OSError:
            continue  # closed meanwhile
        if link.startswith("socket:"):
            out.add(link)
    return out


def closed_by_peer(s):
    """Whether the server has closed (or reset) this idle connection."""
    s.setblocking(False)
    try:
        return s.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.settimeout(10)


def hold_connections(srv, n):
    """n idle connections the server has accepted and kept. The connection
    of the request before may still count against --max-connections until
    libmicrohttpd has cleaned it up in its own thread, after the client saw
    it close: one of the n is then closed at once, and the check's extra
    connection would take its slot when it frees. So: open them, wait until
    the server holds them (sockets new in its /proc fds, at most 10 s), and
    open again any it closed."""
    held = []
    for _ in range(20):
        before = server_sockets(srv)
        new = [socket.create_connection(("127.0.0.1", srv.port), timeout=10)
               for _ in range(n - len(held))]
        for _ in range(100):  # each accepted, or closed at once
            if len(server_sockets(srv) - before) + sum(map(closed_by_peer, new)) >= len(new):
                break
            time.sleep(0.1)
        time.sleep(0.2)
        held += new
        for s in [s for s in held if closed_by_peer(s)]:
            s.close()
            held.remove(s)
        if len(held) == n:
            break
    return held


def check_caps(name, srv, big, held, over):
    """413 over --max-body (big bytes); 503 for an upload of `over` bytes
    while `held` bytes of another are held, which is then answered 200, and
    the next one too; --max-connections 4."""
    port = srv.port
    st, body = request(port, "POST", "/v1/chat/completions", [], padded(big))
    check(st == 413 and b"max-body" in body, "%s: a body over --max-body is answered 413 (got %d)" % (name, st))
    first = padded(over)
    a = held_upload(port, first, held)
    time.sleep(0.5)
    st, body = request(port, "POST", "/v1/chat/completions", [], padded(over))
    check(st == 503 and b"max-buffered" in body,
          "%s: an upload past --max-buffered while %d bytes of another are held: 503 (got %d)" % (name, held, st))
    st = finish_upload(a, first, held)
    st2, _ = request(port, "POST", "/v1/chat/completions", [], padded(over))
    check(st == 200 and st2 == 200, "%s: the held upload is answered %d, the next one %d (want 200)" % (name, st, st2))
    idle = hold_connections(srv, 4)
    t0 = time.monotonic()
    st, _ = request(port, "POST", "/v1/chat/completions", [], STREAM)
    took = time.monotonic() - t0
    check(st == 0 and took < 3, "%s: a fifth connection past --max-connections 4 is closed unanswered "
          "(status %d, %.1f s)" % (name, st, took))
    for s in idle:
        s.close()
    time.sleep(0.5)
    st, _ = request(port, "POST", "/v1/chat/completions", [], STREAM)
    check(st == 200, "%s: once they close, a request is answered (got %d)" % (name, st))


def case_caps():
    caps = ["--max-connections", "4"]
    srv = Server([ONE, "--max-body", "100000", "--max-buffered", "12000", "--log-size", "3"] + caps)
    # serve holds at most 8 KiB of a body: two held ones pass 12000 bytes
    check_caps("serve", srv, 100001, 10000, 20000)
    for i in range(5):
        request(srv.port, "POST", "/v1/chat/completions?n=%d" % i, [], STREAM)
    st, log = request(srv.port, "GET", "/_sluice/log")
    paths = [e.get("path") for e in json.loads(log)] if st == 200 else None
    want = ["/v1/chat/completions?n=%d" % i for i in (2, 3, 4)]
    check(paths == want, "serve: --log-size 3 keeps the last three requests (%s)" % paths)
    up = Server([ONE])
    rec = Server(["--upstream", up.url, "--out", os.path.join(WORK, "caps-rec"), "--max-body", "2000000",
                  "--max-buffered", "1000000"] + caps, cmd="record")
    # record holds a whole body (past 64 KiB in a file): 600000 + 900000 bytes pass 1000000
    check_caps("record", rec, 2000001, 600000, 900000)
    for s in (srv, rec, up):
        rc, err = s.stop()
        check(rc == 0, "the server ends cleanly (exit %d)" % rc)


# ---------------------------------------------------------------- memory

def upload(port, n, results, i):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    item = b'{"role":"user","content":"hi"},'  # an array of small objects: a costly tree
    body = b'{"model":"m","stream":true,"messages":[' + item * ((n - 70) // len(item)) + b'{}]}'
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
    view = memoryview(body)
    for k in range(0, len(body), 1 << 20):
        s.sendall(view[k:k + (1 << 20)])
    results[i] = recv_all(s)
    s.close()


def concurrent_uploads(port, n=16 << 20, k=8):
    res = [None] * k
    ts = [threading.Thread(target=upload, args=(port, n, res, i)) for i in range(k)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return res


def case_memory():
    srv = Server([ONE])
    res = concurrent_uploads(srv.port)
    peak = srv.rss_peak_kb()
    ok = all(r and r.startswith(b"HTTP/1.1 200") and b"[DONE]" in r for r in res)
    st, log = request(srv.port, "GET", "/_sluice/log")
    check(ok and peak < 100 * 1024,
          "serve: 8 uploads of 16 MiB at once answered; peak RSS %.1f MB (under 100)" % (peak / 1024))
    check(st == 200 and len(log) < 64 * 1024 and log.count(b'"body_bytes":1677') == 8 and
          log.count(b'"model":"m","stream":true') == 8,
          "serve: the log of 128 MiB of requests is %d bytes (each body: its size, model, stream)" % len(log))
    up = Server([ONE])
    rec = Server(["--upstream", up.url, "--out", os.path.join(WORK, "mem-rec")], cmd="record")
    res = concurrent_uploads(rec.port)
    peak_r = rec.rss_peak_kb()
    ok = all(r and r.startswith(b"HTTP/1.1 200") and b"[DONE]" in r for r in res)
    check(ok and peak_r < 100 * 1024,
          "record: 8 uploads of 16 MiB at once forwarded; peak RSS %.1f MB (under 100)" % (peak_r / 1024))
    print("figures: serve peak RSS %.1f MB, record peak RSS %.1f MB (16 MiB x 8 concurrent uploads; "
          "VmHWM)" % (peak / 1024, peak_r / 1024))
    for s in (srv, rec, up):
        s.stop()


def main():
    import shutil
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    globals()["case_" + CASE]()


run_and_exit(main, procs)
