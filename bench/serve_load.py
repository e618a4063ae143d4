"""serve_load.py SLUICE [--connections N] [--seconds S] [--capture FILE]:
a bounded load test of `sluice serve` on 127.0.0.1 (a benchmark: it prints
figures, and exits 1 only if a stream differs or the server fails).

N clients (Python's http.client, one thread each) stream the same capture
over and over for S seconds, the server pacing each piece (--gap) so that
about N streams are open at once. Every stream must equal the capture byte
for byte. The server's resident memory is sampled each second
(/proc/PID/status): it must stay flat, since serve shares one copy of the
capture and a connection holds only its position and one piece.
"""
import argparse
import http.client
import os
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("sluice")
ap.add_argument("--connections", type=int, default=200)
ap.add_argument("--seconds", type=float, default=30)
ap.add_argument("--capture", default=os.path.join(os.path.dirname(__file__), "..", "corpus",
                                                  "captures", "openai-chat-text-usage-done.sse"))
ap.add_argument("--gap", default="40", help="milliseconds between pieces")
a = ap.parse_args()

want = open(a.capture, "rb").read()
srv = subprocess.Popen([a.sluice, "serve", a.capture, "--gap", a.gap, "--deadline",
                        str(a.seconds + 60)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
url = srv.stdout.readline().split("listening on http://")[1].strip()
host, port = url.split(":")
port = int(port)

stop_at = time.monotonic() + a.seconds
lock = threading.Lock()
stats = {"streams": 0, "bad": 0, "errors": 0, "bytes": 0, "open": 0, "max_open": 0}


def client():
    while time.monotonic() < stop_at:
        try:
            c = http.client.HTTPConnection(host, port, timeout=30)
            c.request("POST", "/v1/chat/completions", body=b'{"stream": true}')
            r = c.getresponse()
            with lock:
                stats["open"] += 1
                stats["max_open"] = max(stats["max_open"], stats["open"])
            body = r.read()
            c.close()
            with lock:
                stats["open"] -= 1
                stats["streams"] += 1
                stats["bytes"] += len(body)
                stats["bad"] += body != want
        except Exception:
            with lock:
                stats["errors"] += 1


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


threads = [threading.Thread(target=client, daemon=True) for _ in range(a.connections)]
t0 = time.monotonic()
for t in threads:
    t.start()
samples = []
while time.monotonic() < stop_at:
    time.sleep(1)
    samples.append(rss_kb(srv.pid))
for t in threads:
    t.join(timeout=60)
took = time.monotonic() - t0
srv.terminate()
srv.wait(timeout=30)
half = len(samples) // 2
print("sluice serve under load: %d clients for %.0f s (%s, --gap %s ms)" %
      (a.connections, a.seconds, os.path.basename(a.capture), a.gap))
print("  streams completed   %d (%.1f per second), %d byte for byte, %d differed, %d errors" %
      (stats["streams"], stats["streams"] / took, stats["streams"] - stats["bad"], stats["bad"],
       stats["errors"]))
print("  open at once        up to %d" % stats["max_open"])
print("  server RSS (KB)     first %d, last %d, min %d, max %d; median of the first half %d, "
      "of the second half %d" % (samples[0], samples[-1], min(samples), max(samples),
                                 sorted(samples[:half])[half // 2],
                                 sorted(samples[half:])[(len(samples) - half) // 2]))
sys.exit(1 if stats["bad"] or stats["errors"] or not stats["streams"] else 0)
