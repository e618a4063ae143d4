"""Speed of the sluice Python package, side by side, in one run (not a test).

    taskset -c 1 python3 bindings/python/bench.py [--mb N] [--reps N] [--lib build/libsluice-kit.so]

Rows, each at 4-byte and 64 KiB chunks, MB/s on this thread's CPU clock
(time.thread_time; medians of --reps runs) and as a multiple of the C row:

think (a dense text: a '<' every ~35 bytes, a <think> block every 1 to 3 KiB)
  C count             the library fed from C in this process, its output counted and
                      dropped (what `sluice bench think` measures)
  C collect           the same keeping each call's output (sluice_output, emptied
                      after each call): the least a program that uses it does
  C shim              the same through bindings/common/sluice_bind.c, the C half of
                      the package's feed
  sluice bytes        the package: Filter.feed(bytes) per chunk, an Output each call
  sluice str          the same fed str (returning str): Python's UTF-8 codec both ways
  ctypes+collector    a ctypes binding over libsluice-kit.so (--lib): feed, then the
                      five channels and the event count read back, a call each
  ctypes+callbacks    the same with the sink's emit as a Python callback
  python example      conformance/adapters/examples/think_filter.py, a small think
                      filter in pure Python (4-byte chunks only: it slices the rest of
                      the chunk at every '<', quadratic in the chunk's size)
  python design port  conformance/mutants/think.py's control: the whole filter
                      written again in Python from DESIGN.md
monitor (prose without a stop, profile seed)
  C count, C collect, sluice bytes, sluice str: as above
  monitor_port.py     bench/monitor_port.py, the literal Python port of seed 004's
                      monitor (checkpoints by position, as DESIGN.md makes them)

vs C: CPU time as a multiple of C collect's. ns/call: the time a call adds over C
collect, per chunk.
"""

import argparse
import ctypes
import os
import random
import runpy
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import sluice  # noqa: E402

WORDS = ["the", "model", "answer", "stream", "token", "while", "a < b", "<br>", "chunk", "filter",
         "reasoning", "naïve", "café", "—", "split", "is", "of", "and", "in", "<b>x</b>"]
PROSE = ["the", "model", "answer", "stream", "token", "while", "a", "chunk", "filter", "reasoning",
         "naïve", "café", "—", "split", "is", "of", "and", "in", "between", "thought", "we", "can",
         "see", "that", "it", "was", "not", "only", "for", "this", "reason", "when", "their"]


def dense_text(size, seed=5):
    """Words with a '<' every ~35 bytes and a think block every 1 to 3 KiB (as `sluice
    bench think`'s dense text)."""
    rng, out, n, next_tag, inside = random.Random(seed), [], 0, 0, False
    while n < size:
        if n >= next_tag:
            w = "</think>" if inside else "<think>"
            inside = not inside
            next_tag = n + rng.randint(1024, 3072)
        else:
            w = rng.choice(WORDS) + " "
        out.append(w)
        n += len(w.encode())
    return "".join(out).encode()[:size]


def prose_text(size, seed=7):
    rng, out, n = random.Random(seed), [], 0
    while n < size:
        w = rng.choice(PROSE) + (". " if rng.random() < 0.08 else " ")
        out.append(w)
        n += len(w.encode())
    return "".join(out).encode()[:size]


def chunks_of(data, size):
    return [data[i:i + size] for i in range(0, len(data), size)]


def measure(run, reps):
    """Median CPU and wall seconds of run() over reps runs, after a warm-up."""
    run()
    cpu, wall = [], []
    for _ in range(reps):
        c, w = time.thread_time(), time.perf_counter()
        run()
        cpu.append(time.thread_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


# ---- the rows ----

def c_row(name, data, size, sink):
    from sluice import _sluice
    return lambda: _sluice._bench(name, None, data, size, sink)


def binding_row(name, data, size, text=False):
    pieces = chunks_of(data, size)
    if text:  # str in and out (the input's decoding, the caller's, is not timed)
        import codecs
        dec = codecs.getincrementaldecoder("utf-8")()
        pieces = [dec.decode(p) for p in pieces]

    def run():
        f = sluice.Filter(name)
        for p in pieces:
            f.feed(p)
        f.finish()
    return run


class _Sink(ctypes.Structure):
    _fields_ = [("emit", ctypes.c_void_p), ("event", ctypes.c_void_p), ("user", ctypes.c_void_p)]


EMIT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char),
                        ctypes.c_size_t)


def ctypes_lib(path):
    lib = ctypes.CDLL(path)
    lib.sluice_output_sink.restype = _Sink
    lib.sluice_output_sink.argtypes = [ctypes.c_void_p]
    lib.sluice_output_channel.restype = ctypes.POINTER(ctypes.c_char)
    lib.sluice_output_channel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
    lib.sluice_output_event_count.restype = ctypes.c_size_t
    lib.sluice_output_event_count.argtypes = [ctypes.c_void_p]
    lib.sluice_output_reset.argtypes = [ctypes.c_void_p]
    lib.sluice_filter_new_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.c_size_t, ctypes.POINTER(_Sink), ctypes.c_void_p,
                                           ctypes.c_void_p]
    lib.sluice_feed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.sluice_finish.argtypes = [ctypes.c_void_p]
    lib.sluice_free.argtypes = [ctypes.c_void_p]
    return lib


def ctypes_collector_row(lib, data, size):
    """The fifteen-line ctypes binding: feed, then read what each channel got."""
    pieces = chunks_of(data, size)

    def run():
        out = ctypes.c_void_p()
        lib.sluice_output_new(ctypes.byref(out), None)
        sink = lib.sluice_output_sink(out)
        f = ctypes.c_void_p()
        lib.sluice_filter_new_json(ctypes.byref(f), b"think", None, 0, ctypes.byref(sink), None, None)
        n = ctypes.c_size_t()
        for p in pieces:
            lib.sluice_feed(f, p, len(p))
            for ch in range(5):
                ctypes.string_at(lib.sluice_output_channel(out, ch, ctypes.byref(n)), n.value)
            lib.sluice_output_event_count(out)
            lib.sluice_output_reset(out)
        lib.sluice_finish(f)
        lib.sluice_free(f)
        lib.sluice_output_free(out)
    return run


def ctypes_callback_row(lib, data, size):
    pieces = chunks_of(data, size)

    def run():
        got = [b"", b"", b"", b"", b""]

        def emit(user, ch, p, n):
            got[ch] += ctypes.string_at(p, n)
            return 0
        cb = EMIT(emit)
        sink = _Sink(ctypes.cast(cb, ctypes.c_void_p), None, None)
        f = ctypes.c_void_p()
        lib.sluice_filter_new_json(ctypes.byref(f), b"think", None, 0, ctypes.byref(sink), None, None)
        for p in pieces:
            lib.sluice_feed(f, p, len(p))
            got[:] = [b"", b"", b"", b"", b""]
        lib.sluice_finish(f)
        lib.sluice_free(f)
    return run


def adapter_filter(path, name):
    """A filter class from a protocol-server script, without serving."""
    sys.path.insert(0, os.path.join(ROOT, "conformance", "adapters"))
    sys.path.insert(0, os.path.dirname(path))
    import sluice_adapter
    serve, sluice_adapter.serve = sluice_adapter.serve, lambda *a, **k: None
    try:
        return runpy.run_path(path)[name]
    finally:
        sluice_adapter.serve = serve


def python_row(cls, data, size, binary=False):
    """A pure-Python filter driven as the adapter drives it: text decoded
    incrementally, one feed per chunk."""
    import codecs
    pieces = chunks_of(data, size)

    def run():
        f = cls({})
        dec = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        for p in pieces:
            s = dec.decode(p)
            if s:
                f.feed(s)
        f.finish()
    return run


def monitor_port_row(data, size):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import monitor_port
    return lambda: monitor_port.run(data, "seed", size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=1, help="MiB of each text (default 1)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libsluice-kit.so"),
                    help="libsluice-kit.so for the ctypes rows (skipped when missing)")
    a = ap.parse_args()
    size = int(a.mb * (1 << 20))
    lib = ctypes_lib(a.lib) if os.path.exists(a.lib) else None
    think_py = adapter_filter(os.path.join(ROOT, "conformance", "adapters", "examples", "think_filter.py"), "Think")
    sys.path.insert(0, os.path.join(ROOT, "conformance", "mutants"))
    import think as design_think

    print("sluice %s, Python %s, %.1f MiB per text, medians of %d runs, CPU clock (wall in brackets)"
          % (sluice.__version__, sys.version.split()[0], size / 1048576, a.reps))
    print("%-8s %-20s %6s %10s %10s %9s %12s" % ("filter", "implementation", "chunk", "MB/s", "[wall]",
                                                 "vs C", "ns/call"))
    texts = {"think": dense_text(size), "monitor": prose_text(size)}
    for filt in ("think", "monitor"):
        data = texts[filt]
        for chunk in (4, 65536):
            calls = (len(data) + chunk - 1) // chunk + 1
            rows = [("C count", c_row(filt, data, chunk, "count")),
                    ("C collect", c_row(filt, data, chunk, "collect")),
                    ("C shim", c_row(filt, data, chunk, "shim")),
                    ("sluice bytes", binding_row(filt, data, chunk)),
                    ("sluice str", binding_row(filt, data, chunk, text=True))]
            if filt == "think":
                if lib:
                    rows += [("ctypes+collector", ctypes_collector_row(lib, data, chunk)),
                             ("ctypes+callbacks", ctypes_callback_row(lib, data, chunk))]
                if chunk == 4:
                    rows.append(("python example", python_row(think_py, data, chunk)))
                rows.append(("python design port", python_row(design_think.Think, data, chunk)))
            else:
                rows.append(("monitor_port.py", monitor_port_row(data, chunk)))
            c_cpu = None
            for name, run in rows:
                cpu, wall = measure(run, a.reps)
                if name == "C collect":
                    c_cpu = cpu
                per_call = "" if c_cpu is None or name.startswith("C ") else "%.0f" % ((cpu - c_cpu) / calls * 1e9)
                print("%-8s %-20s %6d %10.1f %10.1f %8.2fx %12s" % (
                    filt, name, chunk, len(data) / cpu / 1e6, len(data) / wall / 1e6,
                    cpu / (c_cpu or cpu), per_call))
            print()
    print("vs C: CPU time as a multiple of C collect's; ns/call: what a call adds over it.")


if __name__ == "__main__":
    main()
