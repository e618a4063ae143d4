"""A protocol server that knows only batch requests, as older implementations
and quick prototypes do: the think filter of conformance/adapters/examples/,
served with "stream" ignored, so a streaming session gets one batch answer.

    sluice conform --suite think --impl "python3 tests/impl/batch_only_think.py"

The runner must say once that streaming sessions are not implemented, run the
batch modes, and end without waiting out a timeout per session (tests/
CMakeLists.txt, broken_batch_only).
"""
import json
import os
import runpy
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "conformance", "adapters"))
import sluice_adapter  # noqa: E402

_serve_line = sluice_adapter._serve_line


def batch_only(filters, line):
    try:
        req = json.loads(line)
    except ValueError:
        req = None
    if isinstance(req, dict) and "stream" in req:
        del req["stream"]
        line = json.dumps(req)
    _serve_line(filters, line)


sluice_adapter._serve_line = batch_only
runpy.run_path(os.path.join(ROOT, "conformance", "adapters", "examples", "think_filter.py"),
               run_name="__main__")
