"""Serve the sluice filter protocol around your own streaming filter.

The protocol (conformance/FORMAT.md) is JSON lines on stdin and stdout; this
module does all of it: reading requests, decoding chunks (UTF-8 cut anywhere,
raw bytes in base64), batch answers and streaming sessions, flushing every
line, errors. You write the filter:

    from sluice_adapter import serve, Unsupported

    class Upper:
        def __init__(self, options):          # the request's "options"
            if options:
                raise Unsupported("no options")
        def feed(self, text):                 # str: whole characters only
            return {"text": text.upper()}     # what this feed releases
        def finish(self):
            return {}                         # the rest, at the end

    serve({"upper": Upper})

feed() and finish() return a dict of channels ("text", "thought", "other",
"markup", "dropped"; missing ones are empty) and optionally "events" (a list
of event dicts, FORMAT.md); a json filter's finish() adds "value" and
"truncated", or "unloadable" ({"reason", "offset"}) in place of "value" for
valid JSON a reader with doubles cannot load. Raise Unsupported for what you do not
implement (the case counts as skipped), BadOption for a bad option, or
FilterError(code, message, offset) for a filter error.

Text: chunks are decoded incrementally, so feed() never sees half a
character; bytes that are not UTF-8 arrive as lone surrogates
(errors="surrogateescape") and go back out as the same bytes. A filter with
`binary = True` gets and returns bytes instead.

Another implementation wrapped for `sluice diff` may not express every
field: a filter with `fields = ("text", "thought")` answers only those
(channels, "events", "value", "truncated"), and only they are compared;
`event_types = ("event",)` and `event_keys = ("event", "data")` say which
events, and which of their keys, it reports.

Standard library only; Python 3.8 or later.
"""

import base64
import codecs
import json
import sys

CHANNELS = ("text", "thought", "other", "markup", "dropped")
FIELDS = CHANNELS + ("events", "value", "truncated")
# The json filter's result: "value", or "unloadable" in its place (valid JSON
# a reader with doubles cannot load: {"reason": ..., "offset": ...}), which
# is expressed with "value".
RESULT = ("value", "unloadable", "truncated")


class FilterError(Exception):
    def __init__(self, code, message, offset=0):
        super().__init__(message)
        self.code, self.message, self.offset = code, message, offset


class Unsupported(FilterError):
    def __init__(self, message="not supported by this implementation"):
        super().__init__("unsupported", message)


class BadOption(FilterError):
    def __init__(self, message):
        super().__init__("bad_option", message)


def _as_bytes(value, binary):
    if binary:
        return bytes(value)
    return value.encode("utf-8", "surrogateescape")


def _bytes_field(obj, key, data):
    """key: a string when the bytes are UTF-8, else key_b64."""
    try:
        obj[key] = data.decode("utf-8")
    except UnicodeDecodeError:
        obj[key + "_b64"] = base64.b64encode(data).decode("ascii")


def _event(ev, binary):
    out = {}
    for k, v in ev.items():
        if k in ("text", "data", "event", "id") and isinstance(v, (str, bytes, bytearray)):
            _bytes_field(out, k, _as_bytes(v, binary if not isinstance(v, str) else False))
        else:
            out[k] = v
    return out


class _Session:
    def __init__(self, factory, options):
        self.filter = factory(options)
        self.binary = getattr(self.filter, "binary", False)
        self.fields = frozenset(getattr(self.filter, "fields", FIELDS))
        self.decoder = None if self.binary else codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def _answer(self, released):
        released = released or {}
        out = {"ok": True}
        for ch in CHANNELS:
            if ch in self.fields:
                _bytes_field(out, ch, _as_bytes(released.get(ch, b"" if self.binary else ""), self.binary))
        if "events" in self.fields:
            out["events"] = [_event(e, self.binary) for e in released.get("events", [])]
        for k in RESULT:
            if k in released and ("value" if k == "unloadable" else k) in self.fields:
                out[k] = released[k]
        return self.expresses(out)

    def expresses(self, out):
        for k in ("event_types", "event_keys"):
            if getattr(self.filter, k, None) is not None:
                out[k] = list(getattr(self.filter, k))
        return out

    def feed(self, chunk):
        data = chunk if self.binary else self.decoder.decode(chunk)
        return self._answer(self.filter.feed(data) if data else {})

    def finish(self):
        released = {}
        if not self.binary:
            rest = self.decoder.decode(b"", final=True)
            if rest:
                released = self.filter.feed(rest) or {}
        end = self.filter.finish() or {}
        for ch in CHANNELS:
            if ch in end:
                released[ch] = released.get(ch, b"" if self.binary else "") + end[ch]
        released["events"] = list(released.get("events", [])) + list(end.get("events", []))
        for k in RESULT:
            if k in end:
                released[k] = end[k]
        return self._answer(released)


def _merge(total, part):
    for ch in CHANNELS:
        key = ch if ch in part else ch + "_b64"
        if key not in part:
            continue
        data = part[ch].encode("utf-8") if ch in part else base64.b64decode(part[key])
        total[ch] = total.get(ch, b"") + data
    if "events" in part:
        total.setdefault("events", []).extend(part["events"])
    for k in RESULT:
        if k in part:
            total[k] = part[k]


def _error(code, message, offset=0):
    return {"ok": False, "error": {"code": code, "message": message, "offset": offset}}


def _write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _serve_line(filters, line):
    try:
        req = json.loads(line)
    except ValueError as e:
        _write(dict(id=None, **_error("bad_request", "invalid JSON: %s" % e)))
        return
    rid = req.get("id") if isinstance(req, dict) else None
    try:
        if not isinstance(req, dict) or not isinstance(req.get("filter"), str):
            raise FilterError("bad_request", "a request needs a string \"filter\"")
        if "chunks_b64" in req:
            chunks = [base64.b64decode(c, validate=True) for c in req["chunks_b64"]]
        else:
            chunks = [c.encode("utf-8", "surrogatepass") for c in req.get("chunks", [])]
        factory = filters.get(req["filter"])
        if factory is None:
            raise FilterError("unsupported_filter", "no filter %r here" % req["filter"])
    except FilterError as e:
        _write(dict(id=rid, **_error(e.code, e.message, e.offset)))
        return
    except (ValueError, TypeError) as e:
        _write(dict(id=rid, **_error("bad_request", str(e))))
        return
    stream = req.get("stream") is True
    total = {}
    at = 0 if chunks else "finish"  # where a failure happens, for a session
    try:
        session = _Session(factory, req.get("options") or {})
        for i, chunk in enumerate(chunks):
            at = i
            part = session.feed(chunk)
            if stream:
                _write(dict(id=rid, feed=i, **part))
            else:
                _merge(total, part)
        at = "finish"
        part = session.finish()
    except FilterError as e:
        answer = _error(e.code, e.message, e.offset)
        _write(dict(id=rid, feed=at, **answer) if stream else dict(id=rid, **answer))
        return
    if stream:
        _write(dict(id=rid, feed="finish", **part))
        return
    _merge(total, part)
    out = {"ok": True}
    for ch in CHANNELS:
        if ch in total:
            _bytes_field(out, ch, total[ch])
    if "events" in total:
        out["events"] = total["events"]
    for k in RESULT:
        if k in total:
            out[k] = total[k]
    _write(dict(id=rid, **session.expresses(out)))


def serve(filters, stdin=None):
    """Serves the protocol on stdin and stdout until stdin ends.
    filters: {"name": factory}, a factory taking the options dict."""
    stdin = stdin or sys.stdin.buffer
    for raw in stdin:
        line = raw.rstrip(b"\r\n")
        if line:
            _serve_line(filters, line.decode("utf-8", "surrogateescape"))
