"""The provider adapter for OpenAI chat completions and Anthropic Messages over
SSE (DESIGN.md §2 providers, conformance/suites/provider/README.md), written
again in Python on sse.py's parser, with one known bug switched on by name: a
mutant for the conformance suites. Without a bug name it is the control,
which must pass every case it is run on.

    python3 provider.py [BUG]

Other providers, JSON-lines framings and shapes it does not know (Mistral's
content parts, the legacy completions endpoint) are answered "unsupported",
so those cases are skipped. Events go out in the feed that completes their
SSE event, as the reference sends them.
"""
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption, FilterError, Unsupported  # noqa: E402
from sse import SSEParser, size_option, check_keys  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = (
    "error-drops-finish",
    "finish-is-end",
    "reasoning-content-only",
    "signature-as-thinking",
)

PROVIDERS = ("auto", "openai", "completions", "responses", "anthropic", "ollama", "gemini",
             "cohere", "llamacpp", "mistral", "deepseek", "groq", "vllm", "openrouter")
OPENAI_LIKE = ("openai", "mistral", "deepseek", "groq", "vllm", "openrouter")
ANTHROPIC_TYPES = ("message_start", "message_delta", "message_stop", "content_block_start",
                   "content_block_delta", "content_block_stop", "ping")
MAX_CHOICES = 64


class Num(str):
    """A JSON number as written (usage is passed on compacted, digits kept)."""


def compact(v):
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + compact(x)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(compact(x) for x in v) + "]"
    if isinstance(v, Num):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def no_constant(name):
    raise ValueError("not JSON: " + name)


def lone_surrogate(v):
    if isinstance(v, str):
        return any(0xD800 <= ord(ch) <= 0xDFFF for ch in v)
    if isinstance(v, dict):
        return any(lone_surrogate(k) or lone_surrogate(x) for k, x in v.items())
    if isinstance(v, list):
        return any(lone_surrogate(x) for x in v)
    return False


def read_chunk(data):
    """A chunk's JSON object, or None when it is not one (RFC 8259: UTF-8,
    no lone surrogates, no NaN)."""
    try:
        v = json.loads(data.decode("utf-8"), parse_int=Num, parse_float=Num,
                       parse_constant=no_constant)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(v, dict) or lone_surrogate(v):
        return None
    return v


def text(v):
    return v if isinstance(v, str) else None


class Provider:
    binary = True

    def __init__(self, options, bug):
        check_keys(options, ("provider", "framing", "choice", "max_line", "max_event"))
        name = options.get("provider", "auto")
        framing = options.get("framing", "auto")
        if name not in PROVIDERS:
            raise BadOption("unknown provider %r" % (name,))
        if framing not in ("auto", "sse", "ndjson", "chunks"):
            raise BadOption("unknown framing %r" % (framing,))
        self.choice = size_option(options, "choice") if "choice" in options else 0
        if name != "auto" and name != "anthropic" and name not in OPENAI_LIKE:
            raise Unsupported("only OpenAI chat and Anthropic here")
        if framing not in ("auto", "sse"):
            raise Unsupported("only SSE here")
        self.forced = {"auto": None, "anthropic": "anthropic"}.get(name, "openai")
        self.bug = bug
        self.framing_known = framing == "sse"
        self.sse = SSEParser(size_option(options, "max_line"), size_option(options, "max_event"))
        self.sse.on_event = self._event
        self.endpoint = self.forced
        self.done = False
        self.out = []
        self.calls = {}      # choice -> {call index seen}
        self.last_call = {}  # choice -> the last call index (index-less arguments)
        self.blocks = {}     # Anthropic content block index -> tool call index
        self.finished = set()

    # -- framing --

    def feed(self, chunk):
        if not self.framing_known:
            lead = chunk.lstrip(b" \t\r\n\xef\xbb\xbf")
            if lead[:1] == b"{":
                raise Unsupported("JSON-lines framings are not implemented here")
            if lead:
                self.framing_known = True
        self.sse.feed(chunk)
        return self._take()

    def finish(self):
        rest = self.sse.finish()
        self.out.append({"type": "end", "truncated": not self._complete()})
        out = self._take()
        if rest:
            out["dropped"] = rest
        return out

    def _complete(self):
        if self.done:
            return True
        if self.bug == "finish-is-end":  # the bug: a finish taken for the end marker
            return bool(self.finished)
        return False

    def _take(self):
        out, self.out = self.out, []
        res = {"text": b"", "thought": b"", "other": b"", "events": out}
        for e in out:
            if e["type"] != "delta" or e["choice"] != self.choice:
                continue
            ch = {"text": "text", "refusal": "text", "reasoning": "thought"}.get(e["kind"], "other")
            res[ch] += e["text"].encode("utf-8")
        return res

    # -- chunks --

    def _event(self, typ, data, eid):
        if self.done:
            return
        at = self.sse.data_start
        if data == b"[DONE]" and self.endpoint != "anthropic":
            self.done = True
            return
        obj = read_chunk(data)
        if obj is None:
            raise FilterError("provider_format", "a chunk that is not a JSON object", at)
        if self.endpoint is None:
            self.endpoint = self._detect(obj, at)
            if self.endpoint is None:
                return  # an error chunk before the first that shows a provider
        if self.endpoint == "anthropic":
            self._anthropic(obj)
        else:
            self._openai(obj, at)

    def _detect(self, obj, at):
        t = obj.get("type")
        if isinstance(t, str) and (t in ANTHROPIC_TYPES or t == "error"):
            if t == "error":
                self._error(obj.get("error"))
                return None
            return "anthropic"
        if isinstance(t, str) and (t.startswith("response.") or "-" in t):
            raise Unsupported("Responses and Cohere are not implemented here")
        if "candidates" in obj or "promptFeedback" in obj or "done" in obj or (
                "content" in obj and "stop" in obj):
            raise Unsupported("Gemini, Ollama and llama.cpp are not implemented here")
        choices = obj.get("choices")
        if "object" in obj or (isinstance(choices, list) and any(
                isinstance(c, dict) and "delta" in c for c in choices)):
            return "openai"
        if isinstance(choices, list) and any(isinstance(c, dict) and "text" in c for c in choices):
            raise Unsupported("the legacy completions endpoint is not implemented here")
        if set(obj) == {"error"}:
            self._error(obj.get("error"))
            return None
        raise FilterError("provider_format", "a first chunk that shows no provider", at)

    def _error(self, err):
        if not isinstance(err, dict):
            return
        code = err.get("status") if isinstance(err.get("status"), str) else err.get("code")
        if code is None or isinstance(code, (dict, list)):
            code = err.get("type")
        code = "" if code is None else code if isinstance(code, str) else compact(code)
        msg = text(err.get("message")) or ""
        self.out.append({"type": "error", "code": code, "message": msg})

    def _delta(self, choice, kind, s, index=None):
        if isinstance(s, str) and s:
            e = {"type": "delta", "choice": choice, "kind": kind, "text": s}
            if kind == "arguments":
                e["index"] = index
            self.out.append(e)

    # -- OpenAI chat --

    def _openai(self, obj, at):
        errored = False
        for key, v in obj.items():
            if key == "error":
                self._error(v)
                errored = True
            elif key == "choices" and isinstance(v, list):
                for c in v:
                    if isinstance(c, dict):
                        self._choice(c, at, errored)
            elif key == "usage" and isinstance(v, dict):
                self.out.append({"type": "usage", "data": compact(v)})

    def _choice(self, c, at, errored):
        index = c.get("index", 0)
        if isinstance(index, Num) and index.isdigit():
            index = int(index)
        if not isinstance(index, int):
            index = 0
        if index >= MAX_CHOICES:
            raise FilterError("provider_format", "a choice index past 63", at)
        for key, v in c.items():
            if key == "delta" and isinstance(v, dict):
                self._chat_delta(index, v)
            elif key == "text":
                raise Unsupported("the legacy completions endpoint is not implemented here")
            elif key == "finish_reason" and isinstance(v, str):
                if errored and self.bug == "error-drops-finish":
                    continue  # the bug: an error chunk's choices are not read to the end
                self.out.append({"type": "finish", "choice": index, "reason": v})
                self.finished.add(index)

    def _chat_delta(self, index, d):
        reasoning_read = False
        for key, v in d.items():
            if key == "content":
                if isinstance(v, list):
                    raise Unsupported("content parts are not implemented here")
                self._delta(index, "text", v)
            elif key in ("reasoning_content", "reasoning") and isinstance(v, str):
                if key == "reasoning" and self.bug == "reasoning-content-only":
                    continue  # the bug: only DeepSeek's field is read
                if not reasoning_read:
                    self._delta(index, "reasoning", v)
                    reasoning_read = True
            elif key == "refusal":
                self._delta(index, "refusal", v)
            elif key == "tool_calls" and isinstance(v, list):
                for tc in v:
                    if isinstance(tc, dict):
                        self._tool_call(index, tc)

    def _tool_call(self, choice, tc):
        seen = self.calls.setdefault(choice, set())
        fn = tc.get("function") if isinstance(tc.get("function"), dict) else {}
        idx = tc.get("index")
        if isinstance(idx, Num) and idx.isdigit():
            idx = int(idx)
        elif "id" in tc or "name" in fn:
            idx = len(seen)  # a new call without an index
        else:
            idx = self.last_call.get(choice, 0)
        if idx not in seen:
            seen.add(idx)
            self.out.append({"type": "tool_call", "choice": choice, "index": idx,
                             "id": text(tc.get("id")) or "", "name": text(fn.get("name")) or ""})
        self.last_call[choice] = idx
        self._delta(choice, "arguments", fn.get("arguments"), idx)

    # -- Anthropic --

    def _anthropic(self, obj):
        t = obj.get("type")
        if t == "message_start":
            msg = obj.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
                self.out.append({"type": "usage", "data": compact(msg["usage"])})
        elif t == "content_block_start":
            self._block_start(obj)
        elif t == "content_block_delta":
            self._block_delta(obj)
        elif t == "message_delta":
            for key, v in obj.items():
                if key == "delta" and isinstance(v, dict) and isinstance(v.get("stop_reason"), str):
                    self.out.append({"type": "finish", "choice": 0, "reason": v["stop_reason"]})
                    self.finished.add(0)
                elif key == "usage" and isinstance(v, dict):
                    self.out.append({"type": "usage", "data": compact(v)})
        elif t == "message_stop":
            self.done = True
        elif t == "error":
            self._error(obj.get("error"))

    def _block_start(self, obj):
        b = obj.get("content_block")
        if not isinstance(b, dict):
            return
        kind = b.get("type")
        if kind == "text":
            self._delta(0, "text", b.get("text"))
        elif kind == "thinking":
            self._delta(0, "reasoning", b.get("thinking"))
        elif kind == "tool_use":
            idx = len(self.blocks)
            self.blocks[obj.get("index")] = idx
            self.out.append({"type": "tool_call", "choice": 0, "index": idx,
                             "id": text(b.get("id")) or "", "name": text(b.get("name")) or ""})

    def _block_delta(self, obj):
        d = obj.get("delta")
        if not isinstance(d, dict):
            return
        kind = d.get("type")
        if kind == "text_delta":
            self._delta(0, "text", d.get("text"))
        elif kind == "thinking_delta":
            self._delta(0, "reasoning", d.get("thinking"))
        elif kind == "signature_delta" and self.bug == "signature-as-thinking":
            self._delta(0, "reasoning", d.get("signature"))  # the bug
        elif kind == "input_json_delta":
            self._delta(0, "arguments", d.get("partial_json"), self.blocks.get(obj.get("index"), 0))


if __name__ == "__main__":
    sys.exit(mutant.main("provider", BUGS, lambda options, bug: Provider(options, bug)))
