"""edge_load.py SLUICE SRC WORK serve|record [--connections N] [--seconds S]:
a bounded load and fault test of one server on 127.0.0.1 (issue 28).

N clients stream a capture over and over for S seconds (through record:
client -> record -> serve); every fifth stream hangs up after its first
bytes. Meanwhile slowloris clients send a request a byte at a time, and
idle clients send nothing. Checked: every whole stream is byte-identical
to the capture; the server answers through it all; the idle and slowloris
connections are closed by --idle-timeout; resident memory stays flat
(sampled each second, VmRSS); descriptors come back to the baseline; the
server ends cleanly. Prints figures and "N passed, M failed".
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from edge_http import check, dechunk, recv_all, run_and_exit

ap = argparse.ArgumentParser()
ap.add_argument("sluice")
ap.add_argument("src")
ap.add_argument("work")
ap.add_argument("server", choices=["serve", "record"])
ap.add_argument("--connections", type=int, default=300)
ap.add_argument("--seconds", type=float, default=10)
ap.add_argument("--no-memory", action="store_true",
                help="leave memory unchecked (the sanitizer build's shadow memory and quarantine)")
a = ap.parse_args()

CAP = os.path.join(a.src, "corpus", "captures", "openai-chat-text-usage-done.sse")
WANT = open(CAP, "rb").read()
procs = []


def start(args, cmd):
    p = subprocess.Popen([a.sluice, cmd] + args + ["--deadline", str(a.seconds + 120)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    procs.append(p)
    line = p.stdout.readline().decode()
    if "listening on http://" not in line:
        raise SystemExit("%s did not start" % cmd)
    return p, int(line.rsplit(":", 1)[1])


def status(pid, field):
    for l in open("/proc/%d/status" % pid):
        if l.startswith(field + ":"):
            return int(l.split()[1])
    return -1


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


REQ = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
       b"Content-Type: application/json\r\nContent-Length: 27\r\n\r\n"
       b'{"model":"m","stream":true}')


def one_stream(port, hang_up):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        s.sendall(REQ)
        got = recv_all(s, 300 if hang_up else None)
        if hang_up and len(got) > 300:
            return "hung up"
        head, _, body = got.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            return "status %r" % head[:20]
        got = dechunk(body)
        return "ok" if got == WANT else "cut short" if got is None else "differs"
    finally:
        s.close()


def client(port, stop_at, stats, lock, k):
    n = 0
    while time.monotonic() < stop_at:
        n += 1
        try:
            r = one_stream(port, n % 5 == 0)
        except OSError as e:
            r = "error %s" % e.__class__.__name__
        with lock:
            stats[r] = stats.get(r, 0) + 1


def slowloris(port, stop_at, closed):
    """Sends a request a byte every 0.5 s until stop_at, then stops
    sending: the server must close it within its idle timeout."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        i = 0
        while time.monotonic() < stop_at and i < len(REQ) - 1:
            s.sendall(REQ[i:i + 1])
            i += 1
            time.sleep(0.5)
        t0 = time.monotonic()
        r = s.recv(100)
        closed.append((r == b"" or r.startswith(b"HTTP/1.1 408"), time.monotonic() - t0))
    except OSError:
        closed.append((True, 0))
    finally:
        s.close()


def main():
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    idle = "3"
    up, up_port = start([CAP, "--gap", "20", "--idle-timeout", idle, "--max-connections", "1024"], "serve")
    srv, port = up, up_port
    if a.server == "record":
        srv, port = start(["--upstream", "http://127.0.0.1:%d" % up_port, "--out",
                           os.path.join(a.work, "captures"), "--idle-timeout", idle,
                           "--max-connections", "1024"], "record")
    pid = srv.pid
    one_stream(port, False)  # warm up
    time.sleep(0.3)
    base_fds, base_rss = fds(pid), status(pid, "VmRSS")
    stop_at = time.monotonic() + a.seconds
    stats, lock = {}, threading.Lock()
    closed = []
    ts = [threading.Thread(target=client, args=(port, stop_at, stats, lock, k), daemon=True)
          for k in range(a.connections)]
    ts += [threading.Thread(target=slowloris, args=(port, stop_at - a.seconds / 2, closed), daemon=True)
           for _ in range(20)]
    for t in ts:
        t.start()
    rss = []
    while time.monotonic() < stop_at:
        time.sleep(1)
        rss.append(status(pid, "VmRSS"))
    for t in ts:
        t.join(60)
    deadline = time.monotonic() + 15
    while fds(pid) > base_fds and time.monotonic() < deadline:
        time.sleep(0.2)
    end_fds = fds(pid)
    whole = stats.get("ok", 0)
    bad = {k: v for k, v in stats.items() if k not in ("ok", "hung up")}
    print("figures: %s, %d connections, %.0f s: %d whole streams (%.0f/s), %d hung up, other %s; "
          "RSS %d -> max %d KB; descriptors %d -> %d" %
          (a.server, a.connections, a.seconds, whole, whole / a.seconds, stats.get("hung up", 0), bad,
           base_rss, max(rss), base_fds, end_fds))
    check(whole > a.connections and not bad,
          "%s: %d whole streams, every one byte-identical to the capture (other outcomes: %s)" %
          (a.server, whole, bad))
    half = len(rss) // 2
    check(a.no_memory or max(rss) < 128 * 1024 and max(rss[half:]) - max(rss[:half]) < 16 * 1024,
          "%s: resident memory flat under load (%d KB at rest, at most %d KB in the first half, "
          "%d KB in the second)" % (a.server, base_rss, max(rss[:half]), max(rss[half:])))
    check(len(closed) == 20 and all(c for c, _ in closed) and max(t for _, t in closed) < 8,
          "%s: 20 slowloris clients closed by --idle-timeout %s once they stop (%s)" %
          (a.server, idle, sorted(round(t, 1) for _, t in closed)[-3:]))
    check(end_fds <= base_fds, "%s: descriptors back to the baseline (%d -> %d)" % (a.server, base_fds, end_fds))
    check(one_stream(port, False) == "ok", "%s: answers after it all" % a.server)
    for p in procs[::-1]:
        os.killpg(p.pid, signal.SIGTERM)
        check(p.wait(timeout=30) == 0, "the server ends cleanly on SIGTERM")


run_and_exit(main, procs)
