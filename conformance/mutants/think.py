"""The think filter (DESIGN.md §2, both modes, and the reasoning formats of
"think formats"), written again in Python from the design, with one known
bug switched on by name: a mutant for the conformance suites. Without a bug name it is the control, which must pass every case it
is run on (conformance/mutants/run_mutants.py checks that first).

    python3 think.py [BUG]

It works on characters (the adapter decodes UTF-8 as it arrives, invalid
bytes as lone surrogates), so a tag, a grace window or a hold-back is decided
on whole characters; sizes that DESIGN §1 counts in bytes are counted on the
characters' UTF-8 encoding.
"""
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption, FilterError  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = (
    "per-chunk",
    "partial-tag-lost",
    "unicode-fold",
    "grace-bytes",
    "leftmost-shortest",
    "custom-tags-case",
    "pairs-case",
    "max-block-code-points",
    "hold-extra-byte",
    "release-early",
    "buffer-all",
    "utf8-replace",
    "records-grouped",
    "cross-close",
    "grace-tag-end",
    # the reasoning formats (FormatCore)
    "format-open-shown",
    "format-implicit-end-ignored",
    "format-second-block-as-first",
    "format-start-state-ignored",
    "format-thinking-ignored",
    "format-wrappers-anywhere",
)

DEFAULT_TAGS = ("thought", "thinking", "think", "reasoning", "reflection")
KEYS = {"mode", "tags", "pairs", "case_insensitive", "start_in", "start_tag", "end_tag",
        "grace_period", "expect_only_closing", "missing_close", "max_block", "format", "thinking"}

# The reasoning formats, restated from DESIGN.md "think formats" and the
# suites' README: opening, closing and implicit-end strings, the answer's
# opening and closing wrappers, where the stream starts ("inside" the block
# the template opened, "outside" with blocks anywhere, "first": outside, a
# block only as the first thing but whitespace), what follows the first
# block ("text", or "blocks" again), and the family's default for thinking.
FORMATS = {
    "deepseek-r1": (["<think>"], ["</think>"], [], [], [], "inside", "text", True),
    "qwen3": (["<think>"], ["</think>"], ["<tool_call>"], [], [], "inside", "text", True),
    "deepseek-v3.1": (["<think>"], ["</think>"], [], [], [], "inside", "text", False),
    "glm-4.5": (["<think>"], ["</think>"], ["<tool_call>"], [], [], "outside", "text", True),
    "kimi-k2": (["<think>"], ["</think>"],
                ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"], [], [],
                "inside", "text", True),
    "minimax-m2": (["<think>"], ["</think>"], [], [], [], "inside", "text", True),
    "mistral": (["[THINK]"], ["[/THINK]"], [], [], [], "outside", "text", True),
    "granite": (["Here is my thought process:", "Here's my thought process:"],
                ["Here is my response:", "Here's my response:"], [], [], [], "first", "text",
                True),
    "hunyuan": (["<think>"], ["</think>"], ["<tool_calls>"], ["<answer>"], ["</answer>"],
                "outside", "text", True),
    "ernie-4.5": (["<think>"], ["</think>"], [], ["<response>"], ["</response>"], "inside",
                  "text", True),
    "olmo3": (["<think>"], ["</think>"], [], [], [], "inside", "blocks", True),
    "seed-oss": (["<seed:think>"], ["</seed:think>"], [], [], [], "inside", "text", True),
    "step3": ([], ["</think>"], [], [], [], "inside", "text", True),
    "cohere-command": (["<|START_THINKING|>"], ["<|END_THINKING|>"],
                       ["<|START_RESPONSE|>", "<|START_TEXT|>", "<|START_ACTION|>"],
                       ["<|START_RESPONSE|>", "<|START_TEXT|>"],
                       ["<|END_RESPONSE|>", "<|END_TEXT|>"], "inside", "text", True),
}
BLANK = " \t\n\r"
CHANNEL_ONLY = ("tags", "pairs", "start_in")
ANCHORED_ONLY = ("start_tag", "end_tag", "grace_period", "expect_only_closing",
                 "missing_close", "max_block")

NONE, PARTIAL, FULL = 0, 1, 2
SEEK, BLOCK, CLOSE_ONLY, PASS = "seek", "block", "close_only", "pass"


def nbytes(s):
    return len(s.encode("utf-8", "surrogateescape"))


def ascii_fold(c):
    return chr(ord(c) + 32) if "A" <= c <= "Z" else c


_re_cache = {}


def re_fold_equal(a, b):
    """Python's re.IGNORECASE on one character each."""
    key = (a, b)
    if key not in _re_cache:
        _re_cache[key] = re.fullmatch(re.escape(a), b, re.IGNORECASE) is not None
    return _re_cache[key]


def get_bool(o, k, d):
    v = o.get(k, d)
    if not isinstance(v, bool):
        raise BadOption("%s must be a boolean" % k)
    return v


def get_uint(o, k, d):
    v = o.get(k, d)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise BadOption("%s must be a non-negative integer" % k)
    return v


def get_str(o, k, d):
    v = o.get(k, d)
    if v is not None and (not isinstance(v, str) or "\0" in v):
        raise BadOption("%s must be a string without NUL" % k)
    return v


def literal_ok(s):
    return s and nbytes(s) <= 256


class Block:
    def __init__(self, open_, close, tag, ci):
        self.open, self.close, self.tag, self.ci = open_, close, tag, ci


class ThinkCore:
    """The scanner of both modes. sink.emit(channel, text) and sink.event(dict)
    receive the output; a limit raises FilterError."""

    def __init__(self, o, bug, sink):
        self.bug, self.sink = bug, sink
        self.emit, self.event = sink.emit, sink.event
        self.mode = o["mode"]
        ci = o["case_insensitive"]
        self.blocks = []
        if self.mode == "anchored":
            op = o.get("start_tag") or "<think>"
            self.blocks.append(Block(op, o.get("end_tag") or "</think>", op, ci))
        elif o.get("pairs"):
            for op, cl in o["pairs"]:
                self.blocks.append(Block(op, cl, op, ci and bug != "pairs-case"))
        else:
            names = o.get("tags") or DEFAULT_TAGS
            custom = bool(o.get("tags"))
            for n in names:
                self.blocks.append(Block("<%s>" % n, "</%s>" % n, n,
                                         ci and not (custom and bug == "custom-tags-case")))
        self.inside = None
        if o.get("start_in") is not None:
            for i, b in enumerate(self.blocks):
                if b.tag == o["start_in"]:
                    self.inside = i
                    break
            else:
                raise BadOption("start_in names no configured tag")
        self.thought = ""  # hidden text of the current block, for its record
        self.grace = o.get("grace_period", 100)
        self.max_block = o.get("max_block", 0)
        self.missing_close = o.get("missing_close", "empty")
        self.phase = CLOSE_ONLY if o.get("expect_only_closing") else SEEK
        self.cp = 0  # code points consumed while seeking
        self.open_seen = ""
        self.block = ""  # held block text (anchored)
        self.block_size = 0  # its size as max_block counts it
        self.held = ""
        self.consumed = 0  # input bytes before self.held
        self.early = 0  # release-early: bytes of the held tail already sent as markup

    # ---- patterns ----
    def active(self):
        if self.mode == "channel":
            if self.inside is None:
                return [(b.open, i) for i, b in enumerate(self.blocks)]
            if self.bug == "cross-close":
                return [(b.close, i) for i, b in enumerate(self.blocks)]
            return [(self.blocks[self.inside].close, self.inside)]
        if self.phase == SEEK:
            return [(self.blocks[0].open, 0)]
        if self.phase in (BLOCK, CLOSE_ONLY):
            return [(self.blocks[0].close, 0)]
        return None

    def char_eq(self, a, p, ci):
        if a == p:
            return True
        if not ci:
            return False
        if self.bug == "unicode-fold":
            return re_fold_equal(p, a)
        return ascii_fold(a) == ascii_fold(p)

    def match_at(self, s, c, final):
        avail = len(s) - c
        best, best_len, pending = None, 0, 0
        for pat, idx in self.active():
            ci = self.blocks[idx].ci
            k = min(len(pat), avail)
            if not all(self.char_eq(s[c + m], pat[m], ci) for m in range(k)):
                continue
            if k == len(pat):
                if self.bug == "leftmost-shortest":
                    if best is None or len(pat) < best_len:
                        best, best_len = (pat, idx), len(pat)
                elif best is None or len(pat) > best_len:
                    best, best_len = (pat, idx), len(pat)
            elif not final:
                pending = max(pending, len(pat))
        if self.bug == "leftmost-shortest" and best is not None:
            return FULL, best
        if pending > (best_len if best else 0):
            return PARTIAL, None
        return (FULL, best) if best else (NONE, None)

    def may_start(self, ch):
        for pat, idx in self.active():
            if self.char_eq(ch, pat[0], self.blocks[idx].ci):
                return True
        return False

    # ---- routing ----
    def at(self, s, i):
        """The input byte offset of s[i] in the current process call."""
        return self.consumed + nbytes(s[:i])

    def hold_block(self, s, a, b):
        x = s[a:b]
        if not x:
            return
        size = len(x) if self.bug == "max-block-code-points" else nbytes(x)
        if self.max_block and self.block_size + size > self.max_block:
            room = self.max_block - self.block_size
            off = self.at(s, a) + (nbytes(x[:room]) if self.bug == "max-block-code-points"
                                   else room)
            raise FilterError("limit", "a thinking block exceeded max_block", off)
        self.block += x
        self.block_size += size

    def content(self, s, a, b):
        if a >= b:
            return
        if self.early:  # release-early: those bytes went out as markup already
            a += self.early
            self.early = 0
            if a >= b:
                return
        x = s[a:b]
        if self.mode == "channel":
            if self.inside is None:
                self.emit("text", x)
            else:
                self.emit("thought", x)
                self.thought += x
        elif self.phase == BLOCK:
            self.hold_block(s, a, b)
        elif self.phase == CLOSE_ONLY:
            if self.missing_close == "keep":
                self.hold_block(s, a, b)
            else:
                self.emit("thought", x)
                self.thought += x
        else:
            self.emit("text", x)

    def record(self, b, complete):
        self.event({"type": "thought", "tag": b.tag, "text": self.thought, "complete": complete})
        self.thought = ""

    def on_tag(self, which, tag):
        if self.early:
            tag = tag[self.early:]
            self.early = 0
        if self.mode == "channel":
            self.emit("markup", tag)
            if self.inside is None:
                self.inside = which
                self.thought = ""
            else:
                self.record(self.blocks[self.inside], True)
                self.inside = None
            return
        if self.phase == SEEK:
            self.phase = BLOCK
            self.open_seen = tag
            return
        if self.phase == BLOCK:
            self.emit("markup", self.open_seen)
        if self.block:
            self.emit("thought", self.block)
            self.thought += self.block
        self.block = ""
        self.emit("markup", tag)
        self.phase = PASS
        self.record(self.blocks[0], True)

    # ---- the scan ----
    def seek_count(self, text):
        for ch in text:
            if self.phase != SEEK:
                return
            self.cp += nbytes(ch) if self.bug == "grace-bytes" else 1
            if self.cp > self.grace:
                self.phase = PASS

    def process(self, s, final):
        """Decides what it can of s; returns how many characters it consumed."""
        i = run = 0
        n = len(s)
        seeking = self.mode == "anchored"
        while i < n:
            if self.active() is None:
                break
            c = i
            while c < n and not self.may_start(s[c]):
                c += 1
            if seeking and self.phase == SEEK:
                self.seek_count(s[i:c])
                if self.phase == SEEK and c < n and self.cp > self.grace:
                    self.phase = PASS
                if self.phase != SEEK:
                    break
            if c >= n:
                break
            m, best = self.match_at(s, c, final)
            if m == NONE:
                if seeking and self.phase == SEEK:
                    self.seek_count(s[c])
                i = c + 1
                continue
            if m == FULL and seeking and self.phase == SEEK and self.bug == "grace-tag-end":
                if self.cp + len(best[0]) > self.grace:
                    self.phase = PASS
                    break
            self.content(s, run, c)
            if m == PARTIAL:
                return self.hold_from(s, run, c)
            pat, which = best
            self.on_tag(which, s[c:c + len(pat)])
            i = run = c + len(pat)
        self.content(s, run, n)
        return n

    def hold_from(self, s, run, c):
        if self.bug == "hold-extra-byte" and c > run:
            self.take_back(s[c - 1])  # one character more than the partial tag
            return c - 1
        if self.bug == "release-early" and self.mode == "channel" and not self.early:
            self.sink.emit("markup", s[c])
            self.early = 1
        return c

    def take_back(self, ch):
        """hold-extra-byte: the last character routed goes back into the hold."""
        if self.mode == "anchored" and (self.phase == BLOCK or (
                self.phase == CLOSE_ONLY and self.missing_close == "keep")):
            self.block = self.block[:-len(ch)]
            self.block_size -= nbytes(ch)
            return
        if (self.mode == "channel" and self.inside is not None) or self.phase == CLOSE_ONLY:
            self.sink.unemit("thought", ch)
            self.thought = self.thought[:-len(ch)]
            return
        self.sink.unemit("text", ch)
        if self.mode == "anchored" and self.phase == SEEK:
            self.cp -= 1

    def feed(self, text):
        s = self.held + text
        used = self.process(s, False)
        self.consumed += nbytes(s[:used])
        self.held = s[used:]

    def finish(self):
        if self.held and self.bug != "partial-tag-lost":
            self.process(self.held, True)
        self.held = ""
        if self.mode == "channel":
            if self.inside is not None:
                self.record(self.blocks[self.inside], False)
            return
        if self.phase == BLOCK:
            self.emit("text", self.open_seen + self.block)
        elif self.phase == CLOSE_ONLY:
            if self.missing_close == "keep":
                self.emit("text", self.block)
            else:
                self.record(self.blocks[0], False)


class FormatCore:
    """A model family's reasoning format, on characters. Parts of the stream:
    "lead" (inside the block the template opened, nothing but whitespace yet:
    an opening tag is markup), "first" (outside, nothing but whitespace yet:
    only here may a block open), "answer" (the answer, nothing but whitespace
    yet: a wrapper that opens it is markup), "out" (outside, blocks or a
    wrapped answer open anywhere), "in", "wrapped" (until the wrapper that
    closes the answer), "done" (text)."""

    def __init__(self, o, bug, sink):
        self.bug, self.emit, self.event = bug, sink.emit, sink.event
        self.name = o["format"]
        (self.opens, self.closes, self.ends, self.aopen, self.aclose, starts, later,
         default) = FORMATS[self.name]
        if bug == "format-implicit-end-ignored":
            self.ends = []
        thinking = o.get("thinking")
        if thinking is None or bug == "format-thinking-ignored":
            thinking = default
        self.answer = "answer" if self.aopen else "done"
        self.after = ("out" if later == "blocks" or bug == "format-second-block-as-first"
                      else self.answer)
        if bug == "format-start-state-ignored":
            starts = "outside"
        if not thinking:
            self.state = self.answer
        elif starts == "inside":
            self.state = "lead" if self.opens and bug != "format-open-shown" else "in"
        else:
            self.state = "first" if starts == "first" else "out"
        self.thought = ""
        self.held = ""

    def patterns(self):
        """(string, kind) pairs the state reads."""
        if self.state in ("lead", "first"):
            return [(x, "open") for x in self.opens]
        if self.bug == "format-wrappers-anywhere" and self.state in ("answer", "wrapped", "done"):
            return [(x, "wrapper") for x in self.aopen + self.aclose]
        if self.state == "answer":
            return [(x, "aopen") for x in self.aopen]
        if self.state == "out":
            return [(x, "open") for x in self.opens] + [(x, "aopen") for x in self.aopen]
        if self.state == "in":
            return [(x, "close") for x in self.closes] + [(x, "end") for x in self.ends]
        if self.state == "wrapped":
            return [(x, "aclose") for x in self.aclose]
        return []

    def match(self, s, c, final):
        """Leftmost-longest at s[c:]: ("full", (string, kind)), ("partial", None)
        when a longer string may still come, or ("none", None)."""
        avail = len(s) - c
        best, pending = None, 0
        for pat, kind in self.patterns():
            k = min(len(pat), avail)
            if s[c:c + k] != pat[:k]:
                continue
            if k == len(pat):
                if best is None or len(pat) > len(best[0]):
                    best = (pat, kind)
            elif not final:
                pending = max(pending, len(pat))
        if pending > (len(best[0]) if best else 0):
            return "partial", None
        return ("full", best) if best else ("none", None)

    def content(self, x):
        if not x:
            return
        if self.state in ("lead", "in"):
            self.emit("thought", x)
            self.thought += x
        else:
            self.emit("text", x)

    def end_block(self):
        self.event({"type": "thought", "tag": self.name, "text": self.thought, "complete": True})
        self.thought = ""
        self.state = self.after

    def tag(self, pat, kind):
        """Returns the characters the tag consumed (an implicit end none: it is
        read again in the state it leads to)."""
        if kind == "end":
            self.end_block()
            return 0
        self.emit("markup", pat)
        if kind == "open":
            if self.state != "lead":
                self.thought = ""
            self.state = "in"
        elif kind == "close":
            self.end_block()
        elif kind == "wrapper":
            self.state = "done"  # format-wrappers-anywhere: markup wherever, state kept
        elif kind == "aopen":
            self.state = "wrapped"
        else:
            self.state = "done"
        return len(pat)

    def process(self, s, final):
        i = run = 0
        n = len(s)
        while i < n:
            if self.state in ("lead", "first") or (
                    self.state == "answer" and self.bug != "format-wrappers-anywhere"):
                k = i
                while k < n and s[k] in BLANK:
                    k += 1
                if k == n:
                    break
                self.content(s[run:k])
                m, best = self.match(s, k, final)
                if m == "partial":
                    return k
                if m == "full":
                    i = run = k + self.tag(*best)
                else:
                    self.state = {"lead": "in", "first": self.answer}.get(self.state, "done")
                    i = run = k
                continue
            pats = self.patterns()
            if not pats:
                break
            firsts = {p[0] for p, _ in pats}
            c = i
            while c < n and s[c] not in firsts:
                c += 1
            if c >= n:
                break
            m, best = self.match(s, c, final)
            if m == "none":
                i = c + 1
                continue
            self.content(s[run:c])
            if m == "partial":
                return c
            i = run = c + self.tag(*best)
        self.content(s[run:n])
        return n

    def feed(self, text):
        s = self.held + text
        used = self.process(s, False)
        self.held = s[used:]

    def finish(self):
        if self.held and self.bug != "partial-tag-lost":
            self.process(self.held, True)
        self.held = ""
        if self.state in ("lead", "in"):
            self.event({"type": "thought", "tag": self.name, "text": self.thought,
                        "complete": False})


def format_options(o):
    """The format options, checked as the reference checks them; None when o
    names no model family's format."""
    name = o.get("format")
    if name is not None and not isinstance(name, str):
        raise BadOption("format must be a string")
    if name is not None and name not in FORMATS and name not in ("none", "generic", "gpt-oss"):
        raise BadOption("no reasoning format %r" % name)
    if name == "gpt-oss":
        raise BadOption("gpt-oss is harmony: use the harmony filter")
    thinking = o.get("thinking")
    if thinking is not None and not isinstance(thinking, bool):
        raise BadOption("thinking must be a boolean")
    if name not in FORMATS:
        if thinking is not None:
            raise BadOption("thinking applies to a model family's format")
        if name == "generic" and o.get("mode", "channel") != "channel":
            raise BadOption("generic is channel mode")
        return None
    for k in o:
        if k not in ("format", "thinking", "mode"):
            raise BadOption("%s does not apply to a family's format" % k)
    if o.get("mode", "channel") != "channel":
        raise BadOption("a family's format is read in channel mode")
    return {"format": name, "thinking": thinking}


def think_options(o):
    """The protocol's think options, checked as the reference checks them."""
    if not isinstance(o, dict):
        raise BadOption("options must be an object")
    for k in o:
        if k not in KEYS:
            raise BadOption("unknown option %s" % k)
    fmt = format_options(o)
    if fmt is not None:
        return fmt
    mode = o.get("mode", "channel")
    if mode not in ("channel", "anchored"):
        raise BadOption("mode must be channel or anchored")
    for k in (ANCHORED_ONLY if mode == "channel" else CHANNEL_ONLY):
        if k in o:
            raise BadOption("%s does not apply to mode %s" % (k, mode))
    r = {"mode": mode, "case_insensitive": get_bool(o, "case_insensitive", True),
         "start_in": get_str(o, "start_in", None), "start_tag": get_str(o, "start_tag", None),
         "end_tag": get_str(o, "end_tag", None), "grace_period": get_uint(o, "grace_period", 100),
         "expect_only_closing": get_bool(o, "expect_only_closing", False),
         "max_block": get_uint(o, "max_block", 0)}
    mc = o.get("missing_close", "empty")
    if mc not in ("empty", "keep"):
        raise BadOption("missing_close must be empty or keep")
    r["missing_close"] = mc
    for k in ("start_tag", "end_tag"):
        if r[k] is not None and not literal_ok(r[k]):
            raise BadOption("%s must be 1 to 256 bytes" % k)
    if "tags" in o and "pairs" in o:
        raise BadOption("give either tags or pairs")
    if "tags" in o:
        t = o["tags"]
        if not isinstance(t, list) or not t or len(t) > 64:
            raise BadOption("tags must be a list of 1 to 64 names")
        for n in t:
            if (not isinstance(n, str) or not n or nbytes(n) > 64
                    or any(ord(ch) <= 0x20 or ch in "<>/\x7f" for ch in n)):
                raise BadOption("bad tag name")
        r["tags"] = t
    if "pairs" in o:
        p = o["pairs"]
        if not isinstance(p, list) or not p or len(p) > 64:
            raise BadOption("pairs must be a list of 1 to 64 pairs")
        for q in p:
            if (not isinstance(q, list) or len(q) != 2
                    or not all(isinstance(x, str) and "\0" not in x and literal_ok(x) for x in q)):
                raise BadOption("a pair is [open, close]")
        r["pairs"] = p
    return r


class Collect:
    """What one feed (or finish) released."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.out = {"text": "", "thought": "", "other": "", "markup": "", "dropped": "",
                    "events": []}

    def emit(self, ch, s):
        self.out[ch] += s

    def event(self, ev):
        self.out["events"].append(ev)

    def unemit(self, ch, s):
        assert self.out[ch].endswith(s)
        self.out[ch] = self.out[ch][:-len(s)]

    def take(self):
        out = self.out
        self.reset()
        return out


class Think:
    """The protocol filter object around ThinkCore, with the bugs that live
    outside the scanner (chunking, buffering, decoding, event order)."""

    def __init__(self, options, bug=None):
        self.bug = bug
        self.opts = think_options(options)
        self.col = Collect()
        self.core = self.new_core()
        if bug == "utf8-replace":
            self.binary = True
        self.grouped = {}  # records-grouped
        self.buffer = ""  # buffer-all

    def new_core(self):
        if "format" in self.opts:
            return FormatCore(self.opts, self.bug, self.col)
        return ThinkCore(self.opts, self.bug, self.col)

    def released(self, out):
        if self.bug == "records-grouped":
            for ev in out["events"]:
                self.grouped.setdefault(ev["tag"], []).append(ev)
            out["events"] = []
        return out

    def feed(self, text):
        if self.bug == "utf8-replace":
            text = bytes(text).decode("utf-8", "replace")
        if self.bug == "buffer-all":
            self.buffer += text
            return {}
        if self.bug == "per-chunk":
            self.core.feed(text)
            self.core.finish()
            self.core = self.new_core()
            return self.encode(self.released(self.col.take()))
        self.core.feed(text)
        return self.encode(self.released(self.col.take()))

    def finish(self):
        if self.bug == "buffer-all":
            self.core.feed(self.buffer)
        self.core.finish()
        out = self.released(self.col.take())
        if self.bug == "records-grouped":
            out["events"] = [ev for evs in self.grouped.values() for ev in evs]
        return self.encode(out)

    def encode(self, out):
        if self.bug != "utf8-replace":
            return out
        for k in ("text", "thought", "other", "markup", "dropped"):
            out[k] = out[k].encode("utf-8")
        for ev in out["events"]:
            ev["text"] = ev["text"].encode("utf-8")
        return out


if __name__ == "__main__":
    sys.exit(mutant.main("think", BUGS, Think))
