"""The sluice Python package served over the filter protocol (conformance/FORMAT.md).

    build/sluice conform --impl "python3 bindings/python/examples/proto_server.py"

checks the package against every golden suite in every split mode, as any
other implementation would be checked. It is a few lines over the protocol
adapter (conformance/adapters/sluice_adapter.py): every filter the library
has, by name, fed bytes (the runner cuts characters and sends invalid UTF-8),
each answer taken from the Output the package returns.
"""

import base64
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "conformance", "adapters"))

import sluice  # noqa: E402
from sluice_adapter import FilterError, serve  # noqa: E402


def _bytes_fields(event):
    """An event's byte strings as the protocol sends them: a str when they
    are UTF-8, else KEY_b64 (the adapter does this for text, data, event and
    id; the protocol asks it of every byte field)."""
    if not any(type(v) is bytes for v in event.values()):
        return event  # repairs, stops, ...: nothing to convert
    out = {}
    for k, v in event.items():
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                if k not in ("text", "data", "event", "id"):
                    out[k + "_b64"] = base64.b64encode(v).decode("ascii")
                    continue
        out[k] = v
    return out


def _depth(value):
    """How deep containers nest in a value (0 for a scalar), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


# The protocol answers invalid_json for a value jansson cannot read inside
# the answer object (FORMAT.md): nesting past 2048 levels, the answer's own
# level included.
JANSSON_DEPTH = 2048


class Served:
    binary = True

    def __init__(self, name, options):
        try:
            self.filter = sluice.Filter(name, **options)
            self.filter.feed(b"")  # bytes in and out, even when no chunk comes
        except sluice.Error as e:
            raise FilterError(e.status, e.message, e.offset)

    def _answer(self, call, *args):
        try:
            out = call(*args)
        except sluice.Error as e:
            raise FilterError(e.status, e.message, e.offset)
        answer = {ch: getattr(out, ch) for ch in sluice.CHANNELS}
        answer["events"] = [_bytes_fields(e) for e in out.events]
        if out.unloadable is not None:  # valid JSON jansson cannot load: the mark, no value
            answer["unloadable"], answer["truncated"] = out.unloadable, out.truncated
        elif out.truncated is not None:  # the json filter's value (which may be null)
            if _depth(out.value) + 1 > JANSSON_DEPTH:
                raise FilterError("invalid_json", "the value nests deeper than jansson reads",
                                  self.filter.fed)
            answer["value"], answer["truncated"] = out.value, out.truncated
        return answer

    def feed(self, data):
        return self._answer(self.filter.feed, data)

    def finish(self):
        return self._answer(self.filter.finish)


class _AnyFilter(dict):
    """Every name is served; the library answers unsupported_filter itself."""

    def get(self, name, default=None):
        return lambda options: Served(name, options)

    def __contains__(self, name):
        return True


if __name__ == "__main__":
    # answers carry values up to 2047 levels deep, and json.dumps (in the
    # adapter) recurses once a level
    sys.setrecursionlimit(JANSSON_DEPTH + 1000)
    serve(_AnyFilter())
