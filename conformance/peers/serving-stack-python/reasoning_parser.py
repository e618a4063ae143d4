"""A serving stack's reasoning parser, sketched as a peer of sluice's think
filter: the template of conformance/peers/template-python applied to the
kind of parser vLLM and SGLang run per model family. Written for sluice from
the rules their base parsers follow (docs/SOURCES.md, think formats), not
copied from either:

- a start and an end token, and optionally a tool-call token that ends the
  reasoning and stays in the content;
- "force reasoning" when the chat template opened the block;
- the first start token is removed wherever it is, once; the end token ends
  the reasoning, and what follows is content;
- a delta that is, as a whole, a proper prefix of a marker is held; any
  other delta is decided on what has arrived, and nothing is flushed at the
  end.

Such a parser is fed model tokens, so its markers arrive whole; fed bytes cut
anywhere, it splits a marker and reads it as text. `sluice diff` shows that:
every case whose markers a chunking cuts is unstable (known.txt).

    python3 ../template-python/serve.py reasoning_parser.py
"""

from sluice_adapter import Unsupported

# sluice's format names: start token, end token, whether the stream starts
# inside, the tool-call token that ends reasoning (None: none).
FORMATS = {
    "deepseek-r1": ("<think>", "</think>", True, None),
    "qwen3": ("<think>", "</think>", True, "<tool_call>"),
    "deepseek-v3.1": ("<think>", "</think>", True, None),
    "glm-4.5": ("<think>", "</think>", False, "<tool_call>"),
    "kimi-k2": ("<think>", "</think>", True, "<|tool_calls_section_begin|>"),
    "minimax-m2": ("<think>", "</think>", True, None),
    "mistral": ("[THINK]", "[/THINK]", False, None),
    "hunyuan": ("<think>", "</think>", False, "<tool_calls>"),
    "seed-oss": ("<seed:think>", "</seed:think>", True, None),
    "step3": ("<think>", "</think>", True, None),
}


class ReasoningParser:
    fields = ("text", "thought")  # a serving stack returns content and reasoning only

    def __init__(self, options):
        name = options.get("format")
        if name not in FORMATS or set(options) - {"format", "thinking"}:
            raise Unsupported("only the formats of FORMATS")
        self.start, self.end, inside, self.tool = FORMATS[name]
        thinking = options.get("thinking", name != "deepseek-v3.1")
        self.identity = not thinking  # thinking off: everything is content
        self.reasoning = inside
        self.stripped = False
        self.buf = ""

    def feed(self, text):
        if self.identity:
            return {"text": text}
        self.buf += text
        cur = self.buf
        markers = [m for m in (self.start, self.end, self.tool) if m]
        if any(m.startswith(cur) and m != cur for m in markers):
            return {}  # the delta may be the start of a marker: wait
        self.buf = ""
        if not self.stripped and self.start in cur:
            cur = cur.replace(self.start, "", 1)
            self.stripped = True
            self.reasoning = True
        if self.reasoning and self.end in cur:
            i = cur.index(self.end)
            self.reasoning = False
            return {"thought": cur[:i], "text": cur[i + len(self.end):]}
        if self.reasoning and self.tool and self.tool in cur:
            i = cur.index(self.tool)
            self.reasoning = False
            return {"thought": cur[:i], "text": cur[i:]}
        return {"thought": cur} if self.reasoning else {"text": cur}

    def finish(self):
        return {}  # a held prefix of a marker is not flushed


FILTERS = {"think": ReasoningParser}
