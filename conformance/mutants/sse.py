"""The stream codec's framings (DESIGN.md §2 sse: the WHATWG event-stream
parser, NDJSON and the .chunks.jsonl lines), written again in Python from the
spec text (HTML 9.2.6) and conformance/suites/sse/README.md, with one known
bug switched on by name: a mutant for the conformance suites. Without a bug
name it is the control, which must pass every case it is run on.

    python3 sse.py [BUG]

It works on bytes, a byte at a time, as they arrive: an event goes out in the
feed that brings its blank line, a limit error in the feed that brings the
first byte beyond the cap. provider.py reads its streams with SSEParser.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption, FilterError  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = (
    "bom-every-chunk",
    "id-nul",
    "retry-lenient",
    "dispatch-at-eof",
)

BOM = b"\xef\xbb\xbf"
DEFAULT_MAX = 8 << 20
CR, LF = 13, 10


def size_option(options, key):
    v = options.get(key, DEFAULT_MAX)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise BadOption("%s must be a non-negative integer" % key)
    return v


def check_keys(options, allowed):
    for k in options:
        if k not in allowed:
            raise BadOption("unknown option %r" % k)


class Limit(FilterError):
    def __init__(self, offset, what):
        FilterError.__init__(self, "limit", "%s past its cap" % what, offset)


class SSEParser:
    """The WHATWG algorithm, incremental. on_event(type, data, id) and
    on_retry(digits) are called as fields and blank lines complete (during
    on_event, data_start is the offset of the event's first data line).
    Offsets count every byte of the stream, a BOM too."""

    def __init__(self, max_line=DEFAULT_MAX, max_event=DEFAULT_MAX, bug=None):
        self.max_line, self.max_event, self.bug = max_line, max_event, bug
        self.pos = 0             # the offset of the next byte
        self.start = b""         # the first bytes, while they may be a BOM
        self.started = False
        self.line = bytearray()
        self.line_start = 0
        self.after_cr = False
        self.data, self.type, self.last_id = bytearray(), b"", b""
        self.data_start = 0      # the offset of the event's first data line
        self.value_at = None     # a data line's value start, once known
        self.on_event = self.on_retry = None

    # -- bytes in --

    def feed(self, chunk):
        if self.bug == "bom-every-chunk" and self.started and chunk.startswith(BOM):
            chunk = chunk[3:]    # the bug: a BOM stripped at every chunk
            self.pos += 3
        if not self.started:
            self.start += chunk
            if len(self.start) < 3 and BOM.startswith(self.start):
                return
            chunk, self.start, self.started = self.start, b"", True
            if chunk.startswith(BOM):
                chunk = chunk[3:]
                self.pos += 3
        for b in chunk:
            self._byte(b)

    def finish(self):
        """The unfinished last line (bytes): never dispatched (the spec)."""
        if not self.started:
            chunk, self.start, self.started = self.start, b"", True
            for b in chunk:
                self._byte(b)
        rest = bytes(self.line)
        if self.bug == "dispatch-at-eof":
            if rest:
                self._line_end()
            self._dispatch()  # the bug: the end of the stream taken as a blank line
            rest = b""
        return rest

    def _byte(self, b):
        at = self.pos
        self.pos += 1
        if b == LF and self.after_cr:
            self.after_cr = False
            return
        self.after_cr = b == CR
        if b in (CR, LF):
            self._check_data(at, True)
            self._line_end()
            return
        if not self.line:
            self.line_start = at
        i = len(self.line)
        if self.max_line and i >= self.max_line:
            self._check_data(at, False)
            raise Limit(at, "a line")
        self.line.append(b)
        if i == 5 and self.line[:5] == b"data:":
            self.value_at = 6 if b == 32 else 5
        if i >= 5:
            self._check_data(at, False)

    def _check_data(self, at, line_end):
        """A data line's value past the room left in the event's data buffer
        (each value and its LF count)."""
        if not self.max_event:
            return
        line = self.line
        if line_end and (line == b"data" or line == b"data:"):
            v = len(line)
        elif line[:5] == b"data:" and self.value_at is not None:
            v = self.value_at
        else:
            return
        room = self.max_event - len(self.data)
        if at - self.line_start - v >= room and at - self.line_start >= v:
            raise Limit(at, "an event's data")

    # -- lines --

    def _line_end(self):
        line = bytes(self.line)
        self.line = bytearray()
        self.value_at = None
        if not line:
            self._dispatch()
            return
        if line[:1] == b":":
            return
        name, sep, value = line.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            if not self.data:
                self.data_start = self.line_start
            self.data += value + b"\n"
        elif name == b"event":
            self.type = value
        elif name == b"id":
            if b"\0" not in value or self.bug == "id-nul":
                self.last_id = value
        elif name == b"retry":
            digits = self._retry(value)
            if digits is not None and self.on_retry:
                self.on_retry(digits)

    def _retry(self, value):
        if self.bug == "retry-lenient":
            try:  # the bug: Python's int() takes signs, spaces, _ and other digits
                n = int(value.decode("utf-8"))
            except ValueError:
                return None
            return str(n) if n >= 0 else None
        if value and all(48 <= c <= 57 for c in value):
            return value.decode("ascii")
        return None

    def _dispatch(self):
        data, self.data, typ, self.type = self.data, bytearray(), self.type, b""
        if data and self.on_event:
            self.on_event(typ or b"message", bytes(data[:-1]), self.last_id)


class SSE:
    """The sse filter: events out, the unfinished last line to dropped."""
    binary = True

    def __init__(self, options, bug):
        check_keys(options, ("max_line", "max_event"))
        self.p = SSEParser(size_option(options, "max_line"), size_option(options, "max_event"),
                           bug)
        self.out = []
        self.p.on_event = lambda t, d, i: self.out.append(
            {"type": "event", "event": t, "data": d, "id": i})
        self.p.on_retry = lambda digits: self.out.append({"type": "retry", "retry": digits})

    def _take(self):
        out, self.out = self.out, []
        return out

    def feed(self, chunk):
        self.p.feed(chunk)
        return {"events": self._take()}

    def finish(self):
        rest = self.p.finish()
        return {"dropped": rest, "events": self._take()}


class Lines:
    """ndjson (a last line without LF is dropped) and chunks (it is the last
    record, complete: false): a record per LF, one CR before it dropped,
    blank lines skipped."""
    binary = True

    def __init__(self, options, last_is_record):
        check_keys(options, ("max_line",))
        self.max_line = size_option(options, "max_line")
        self.last_is_record = last_is_record
        self.line, self.pos, self.line_start = bytearray(), 0, 0

    def _record(self, line, complete, out):
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip(b" \t\r"):
            out.append({"type": "record", "data": bytes(line), "complete": complete})

    def feed(self, chunk):
        out = []
        for b in chunk:
            at = self.pos
            self.pos += 1
            if b == LF:
                self._record(bytes(self.line), True, out)
                self.line = bytearray()
                continue
            if not self.line:
                self.line_start = at
            if self.max_line and len(self.line) >= self.max_line:
                raise Limit(at, "a line")
            self.line.append(b)
        return {"events": out}

    def finish(self):
        out, rest = [], bytes(self.line)
        if self.last_is_record:
            self._record(rest, False, out)
            return {"events": out}
        return {"dropped": rest, "events": out}


if __name__ == "__main__":
    sys.exit(mutant.main("sse", BUGS, lambda options, bug: SSE(options, bug),
                         extra={"ndjson": lambda o: Lines(o, False),
                                "chunks": lambda o: Lines(o, True)}))
