"""sluice: split-invariant streaming filters for LLM output.

The sluice C library in Python. Every filter gives the same output for every
way its input is cut into chunks, and releases each byte as soon as no rule
can change it:

    import sluice

    with sluice.Think() as f:
        for chunk in stream:                  # str or bytes, cut anywhere
            out = f.feed(chunk)
            show(out.text)                    # what the user sees
            log(out.thought)                  # hidden reasoning, as it arrives
        show(f.finish().text)                 # what was held back (a partial tag)

    r = sluice.once(sluice.Think(), "a<think>b</think>c")
    r.text, r.thought, r.events               # 'ac', 'b', [{'type': 'thought', ...}]

Options are the filter protocol's (conformance/FORMAT.md), given as keyword
arguments and handed to the library as JSON, so every option the library
reads is here under its own name, `format` and `thinking` of think included
where the library has them. A bad option raises sluice.Error naming it.
"""

import codecs as _codecs
import json as _json

from ._error import Error
from ._sluice import Filter as _CFilter
from ._sluice import Output
from ._sluice import version as _version

__all__ = [
    "Error", "Output", "Filter", "Think", "Clean", "Harmony", "Monitor", "Json", "Sse", "Ndjson",
    "Chunks", "Provider", "Pipeline", "Detect", "Capture", "once", "sanitize_json", "Sanitized", "replay",
    "CHANNELS", "__version__",
]

__version__ = _version()

CHANNELS = ("text", "thought", "other", "markup", "dropped")


class Filter(_CFilter):
    """A filter by its protocol name: Filter("think", tags=["think"]).

    feed(data) -> Output: what this chunk (str or bytes; keep to one of them)
    released on each channel, the same type as the input, and its events.
    finish() -> Output: the end of the stream. held and fed count bytes.
    Used as a context manager, the filter is closed on leaving the block.
    """

    kind = None

    def __init__(self, *name, **options):
        if self.kind is not None:
            if name:
                raise TypeError("%s() takes options as keywords only" % type(self).__name__)
            name = self.kind
        elif len(name) != 1:
            raise TypeError("Filter() takes the filter's name, then its options as keywords")
        else:
            (name,) = name
        self.options = options
        super().__init__(name, _json.dumps(options) if options else None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        opts = ", ".join("%s=%r" % kv for kv in self.options.items())
        if self.kind is None:
            return "Filter(%r%s)" % (self.name if not self.closed else "?", ", " + opts if opts else "")
        return "%s(%s)" % (type(self).__name__, opts)

    def stream(self, chunks):
        """Feeds every chunk of an iterable and finishes: yields each call's Output."""
        for chunk in chunks:
            yield self.feed(chunk)
        yield self.finish()

    def events(self, chunks):
        """Feeds every chunk and finishes: yields the events as they come
        (a provider's or pipeline's deltas, tool calls, finish, end)."""
        for out in self.stream(chunks):
            yield from out.events


def _kind(name, doc):
    return type(name, (Filter,), {"kind": name.lower(), "__doc__": doc, "__module__": __name__})


Think = _kind("Think", """Removes thinking blocks: Think(tags=[...], pairs=[[open, close]],
    start_in=..., mode="channel"|"anchored", case_insensitive=..., and the anchored mode's
    start_tag, end_tag, grace_period, expect_only_closing, missing_close, max_block; a model
    family's format= and thinking= where the library has them). Hidden text goes to
    thought, tags to markup; each block ends with a {"type": "thought"} event.""")
Clean = _kind("Clean", """The response cleaner of a Python LLM proxy, configured with the
    proxy's own keys: Clean(endpoint={...}, node={...}, globals={...}, sluice={...}).""")
Harmony = _kind("Harmony", """The gpt-oss (harmony) template parser: analysis to thought,
    final to text, commentary with a recipient to other, tokens to markup.""")
Monitor = _kind("Monitor", """Stops a generation caught in a loop, in runaway whitespace or at
    a length: Monitor(profile="seed"|"current", max_length=...); a {"type": "stop"} event.""")
Json = _kind("Json", """The LLM JSON sanitizer: the repaired text on text, repairs as
    events, the value in Output.value after finish (incremental=True: snapshots). Valid
    JSON that a reader with doubles cannot load (1e400, a NUL in a key, nesting past
    2048) is kept, with Output.unloadable = {"reason": ..., "offset": ...}.""")
Sse = _kind("Sse", """A server-sent event stream by the WHATWG rules: {"type": "event"}s.""")
Ndjson = _kind("Ndjson", """JSON lines (Ollama's streams): a {"type": "record"} per line.""")
Chunks = _kind("Chunks", """The .chunks.jsonl recording format: a record per line.""")
Provider = _kind("Provider", """A provider's stream (SSE or JSON lines, detected) into
    deltas: Provider(provider="auto", framing="auto", choice=0). Text on text, reasoning on
    thought, tool-call arguments on other; {"type": "delta"|"tool_call"|"finish"|"usage"|
    "error"|"end"} events.""")
Pipeline = _kind("Pipeline", """A provider, then per choice a chain of text filters:
    Pipeline(filters=[{"filter": "think"}], model=..., arguments=True, provider=...).""")
Detect = _kind("Detect", """What a stream is: one {"type": "provider"} event.""")
Capture = _kind("Capture", """A capture file (.sse, .ndjson, .chunks.jsonl, .capture.jsonl)
    into the body it recorded (text) and its pieces ({"type": "piece"} events).""")


def _merge(parts):
    """One Output from several calls' Outputs (the channels joined, events in order)."""
    chans = [parts[0][i][:0].join(p[i] for p in parts) for i in range(5)]
    events = [e for p in parts for e in p.events]
    last = parts[-1]
    return Output(chans + [events, last.value, last.truncated, last.unloadable])


def once(filter, data, **options):
    """The whole input through a filter: the Output of feeding it once and finishing.

    filter is a new Filter, or a filter's name with its options as keywords:
    once("think", text, tags=["think"]). The channels are str, or bytes when
    data is bytes. The filter is closed afterwards.
    """
    f = Filter(filter, **options) if isinstance(filter, str) else filter
    if options and not isinstance(filter, str):
        raise TypeError("once(): options go to the filter's constructor")
    try:
        return _merge([f.feed(data), f.finish()])
    finally:
        f.close()


class Sanitized(tuple):
    """sanitize_json's result: the pair (value, repairs) it has always been,
    so `value, repairs = sanitize_json(text)` still unpacks, with the mark
    beside it: .unloadable is None, or {"reason": "number_overflow" |
    "nul_in_key" | "depth", "offset": input byte} when the text is valid
    JSON that a reader with doubles (jansson) cannot load; value is then
    Python's reading of it (1e400 as inf). As Output.unloadable."""

    def __new__(cls, value, repairs, unloadable=None):
        self = super().__new__(cls, (value, repairs))
        self.unloadable = unloadable
        return self

    value = property(lambda self: self[0])
    repairs = property(lambda self: self[1])

    def __reduce__(self):
        return type(self), (self[0], self[1], self.unloadable)

    def __repr__(self):
        return "Sanitized(value=%r, repairs=%r, unloadable=%r)" % (self[0], self[1], self.unloadable)


def sanitize_json(text, **options):
    """The JSON value an LLM meant: a Sanitized, which unpacks as (value,
    repairs), repairs being the {"type": "repair", "kind", "offset"} events in
    the order made, and has .unloadable (see Sanitized). Raises sluice.Error
    ("empty", "no_json", ...) when there is no value to salvage."""
    r = once(Json(**options), text)
    return Sanitized(r.value, [e for e in r.events if e["type"] == "repair"], r.unloadable)


def replay(path, binary=False, read_size=65536, **options):
    """A captured provider stream (any capture format) through a pipeline:
    the Output a user of that stack would get. Options are the pipeline's
    (filters=[{"filter": "think"}], model=..., ...). The body is read as
    UTF-8 text, invalid bytes kept as lone surrogates (binary=True: bytes)."""
    capture, pipe = Capture(), Pipeline(**options)
    decoder = None if binary else _codecs.getincrementaldecoder("utf-8")("surrogateescape")
    parts = []

    def body(out, final=False):
        data = out.text
        if decoder is not None:
            data = decoder.decode(data, final)
        if data or final:
            parts.append(pipe.feed(data))

    with capture, pipe, open(path, "rb") as fh:
        while True:
            chunk = fh.read(read_size)
            if not chunk:
                break
            body(capture.feed(chunk))
        body(capture.finish(), final=True)
        parts.append(pipe.finish())
        return _merge(parts)
