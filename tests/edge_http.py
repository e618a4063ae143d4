"""edge_http.py: what tests/edge_check.py and tests/edge_load.py share."""


def dechunk(b):
    """A chunked HTTP/1.1 body decoded; None when it is cut short or
    malformed."""
    out = b""
    while b:
        line, _, b = b.partition(b"\r\n")
        try:
            n = int(line.split(b";")[0], 16)
        except ValueError:
            return None
        if n == 0:
            return out
        out += b[:n]
        b = b[n + 2:]
    return None


results = {"pass": 0, "fail": 0}


def check(ok, what):
    results["pass" if ok else "fail"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)


def run_and_exit(fn, procs):
    """Runs fn, kills the process group of every server left in procs,
    prints "N passed, M failed" and exits 1 on a failure."""
    import os
    import signal
    import sys
    try:
        fn()
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    print("%d passed, %d failed" % (results["pass"], results["fail"]))
    sys.exit(1 if results["fail"] else 0)


def recv_all(s, limit=None):
    """What the peer sends until it closes (or a socket error, or past
    limit bytes when given)."""
    got = b""
    try:
        while limit is None or len(got) <= limit:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except OSError:
        pass
    return got
