"""The clean filter (DESIGN.md §2, seed 000: the proxy's seven steps), written
again in Python from the design, with one known bug switched on by name: a
mutant for the conformance suites (without a name: the control, which must
pass every case). Step 1 is think.py's anchored mode, composed.

    python3 clean.py [BUG]
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption, FilterError  # noqa: E402
from think import Collect, ThinkCore, nbytes  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each). The
# think ones are think.py's, in step 1.
BUGS = ("ascii-whitespace", "js-whitespace", "grace-bytes", "max-block-code-points",
        "unicode-fold", "trim-per-chunk", "prefix-buffer-100", "max-whitespace-held",
        "strip-once", "assistant-one-flag")
THINK_BUGS = ("grace-bytes", "max-block-code-points", "unicode-fold")

ASCII_SPACE = " \t\n\r\x0b\x0c"
JS_SPACE = ASCII_SPACE + "\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    chr(c) for c in range(0x2000, 0x200B))
SECTIONS = {
    "endpoint": ("removeThinking", "startThinkTag", "endThinkTag", "openingTagGracePeriod",
                 "expectOnlyClosingThinkTag", "removeCustomTextFromResponseStartEndpointWide",
                 "responseStartTextToRemoveEndpointWide", "trimBeginningAndEndLineBreaks"),
    "node": ("removeCustomTextFromResponseStart", "responseStartTextToRemove",
             "addDiscussionIdTimestampsForLLM"),
    "globals": ("chatCompleteAddUserAssistant", "chatCompleteAddMissingAssistant"),
    "sluice": ("missing_close", "max_block", "max_whitespace"),
}
TIMESTAMP, ASSISTANT = "[Sent less than a minute ago]", "Assistant:"
PENDING, MATCH, NOMATCH = 0, 1, 2


def options(o):
    if not isinstance(o, dict):
        raise BadOption("options must be an object")
    sec = {}
    for k, v in o.items():
        if k not in SECTIONS:
            raise BadOption("unknown option %s" % k)
        if not isinstance(v, dict):
            raise BadOption("%s must be an object" % k)
        for kk in v:
            if kk not in SECTIONS[k]:
                raise BadOption("unknown option %s in %s" % (kk, k))
        sec[k] = v
    flat = {}
    for k, v in sec.items():
        flat.update(v)

    def get(key, kind, default):
        v = flat.get(key, default)
        if kind == "bool" and not isinstance(v, bool):
            raise BadOption("%s must be a boolean" % key)
        if kind == "uint" and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise BadOption("%s must be a non-negative integer" % key)
        if kind == "str" and v is not None and (not isinstance(v, str) or "\0" in v):
            raise BadOption("%s must be a string" % key)
        if kind == "strs":
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list) or len(v) > 256 or not all(
                    isinstance(x, str) and "\0" not in x for x in v):
                raise BadOption("%s must be a string or an array of strings" % key)
        return v

    r = {k: get(k, "bool", False) for k in (
        "removeThinking", "expectOnlyClosingThinkTag",
        "removeCustomTextFromResponseStartEndpointWide", "trimBeginningAndEndLineBreaks",
        "removeCustomTextFromResponseStart", "addDiscussionIdTimestampsForLLM",
        "chatCompleteAddUserAssistant", "chatCompleteAddMissingAssistant")}
    r["startThinkTag"] = get("startThinkTag", "str", None)
    r["endThinkTag"] = get("endThinkTag", "str", None)
    for k in ("startThinkTag", "endThinkTag"):
        if r[k] is not None and not (r[k] and nbytes(r[k]) <= 256):
            raise BadOption("%s must be 1 to 256 bytes" % k)
    r["openingTagGracePeriod"] = get("openingTagGracePeriod", "uint", 100)
    r["responseStartTextToRemoveEndpointWide"] = get("responseStartTextToRemoveEndpointWide",
                                                     "strs", [])
    r["responseStartTextToRemove"] = get("responseStartTextToRemove", "strs", [])
    mc = flat.get("missing_close", "keep")
    if mc not in ("keep", "empty"):
        raise BadOption("missing_close must be keep or empty")
    r["missing_close"] = mc
    r["max_block"] = get("max_block", "uint", 0)
    r["max_whitespace"] = get("max_whitespace", "uint", 0)
    return r


class Clean:
    def __init__(self, opts, bug=None):
        o = options(opts)
        self.bug = bug
        self.col = Collect()
        self.is_space = {"ascii-whitespace": lambda c: c in ASCII_SPACE,
                         "js-whitespace": lambda c: c in JS_SPACE}.get(bug, str.isspace)
        node = o["responseStartTextToRemove"] if o["removeCustomTextFromResponseStart"] else []
        endp = ([self.strip_both(x) for x in o["responseStartTextToRemoveEndpointWide"]]
                if o["removeCustomTextFromResponseStartEndpointWide"] else [])
        self.steps = [node, endp, [TIMESTAMP] if o["addDiscussionIdTimestampsForLLM"] else [],
                      [ASSISTANT] if o["chatCompleteAddUserAssistant"] and (
                          o["chatCompleteAddMissingAssistant"] or bug == "assistant-one-flag")
                      else []]  # the bug: the rule on the first global alone
        self.both_lists = bool(node) and bool(endp)
        self.step = 0
        self.strip = True  # step 2
        self.hold = ""
        self.trim = o["trimBeginningAndEndLineBreaks"]
        self.max_ws = o["max_whitespace"]
        self.ws = ""  # trailing whitespace held by step 7
        self.run_start = self.run_len = 0  # the current whitespace run (stage bytes)
        self.stage_in = 0  # bytes that entered the stage (text out of step 1)
        self.stage_done = 0  # stage bytes before the body text being looked at
        self.gap_at = self.gap_len = 0  # the removed think block, as an input range
        self.think_out = 0  # bytes step 1 emitted, on every channel
        self.think = None
        if o["removeThinking"]:
            to = {"mode": "anchored", "case_insensitive": True,
                  "start_tag": o["startThinkTag"], "end_tag": o["endThinkTag"],
                  "grace_period": o["openingTagGracePeriod"],
                  "expect_only_closing": o["expectOnlyClosingThinkTag"],
                  "missing_close": o["missing_close"], "max_block": o["max_block"]}
            self.think = ThinkCore(to, bug if bug in THINK_BUGS else None, self)

    def strip_both(self, s):
        i, j = 0, len(s)
        while i < j and self.is_space(s[i]):
            i += 1
        while j > i and self.is_space(s[j - 1]):
            j -= 1
        return s[i:j]

    # ---- step 1's sink ----
    def emit(self, ch, s):
        if not s:
            return
        self.think_out += nbytes(s)
        if ch != "text":
            self.col.emit(ch, s)
            return
        at = self.think_out - nbytes(s)  # the input offset of this text
        if at > self.stage_in and not self.gap_len:
            self.gap_at, self.gap_len = self.stage_in, at - self.stage_in
        self.stage_feed(s)

    def event(self, ev):
        self.col.event(ev)

    # ---- steps 2 to 6 ----
    def stage_feed(self, s):
        self.stage_in += nbytes(s)
        if self.step == 4 and not self.strip and not self.hold:
            self.body(s)
            return
        s = self.hold + s
        used = self.prefix(s, False)
        self.hold = s[used:]
        if self.bug == "prefix-buffer-100" and len(self.hold) >= (200 if self.both_lists else 100):
            # WilmerAI's streaming buffer: "enough" at 100 characters
            s, self.hold = self.hold, ""
            self.step, self.strip = 4, False
            self.body(s)

    def drop(self, s):
        self.col.emit("dropped", s)
        self.stage_done += nbytes(s)

    def prefix(self, s, final):
        i, n = 0, len(s)
        while self.step < 4 or self.strip:
            if self.strip:
                start = i
                while i < n and self.is_space(s[i]):
                    i += 1
                self.drop(s[start:i])
                if i == n and not final:
                    return i
                self.strip = False
            if self.step == 4:
                break
            verdict, length = NOMATCH, 0
            for cand in self.steps[self.step]:
                rest = s[i:]
                if len(rest) >= len(cand):
                    if rest.startswith(cand):
                        verdict, length = MATCH, len(cand)
                        break
                elif not final and cand.startswith(rest):
                    verdict = PENDING
                    break
            if verdict == PENDING:
                return i
            if verdict == MATCH:
                self.drop(s[i:i + length])
                i += length
                self.strip = self.bug != "strip-once"
            self.step += 1
        self.body(s[i:])
        return n

    # ---- step 7 ----
    def input_offset(self, stage_index):
        return stage_index + (self.gap_len if self.gap_len and stage_index >= self.gap_at else 0)

    def body(self, s):
        if not s:
            return
        if not self.trim:
            self.col.emit("text", s)
            self.stage_done += nbytes(s)
            return
        at = self.stage_done + nbytes(self.ws)  # stage index of s[0]
        text_end = 0
        for k, c in enumerate(s):
            if self.is_space(c):
                if self.run_len == 0:
                    self.run_start = at
                self.run_len += nbytes(c)
                if self.bug != "max-whitespace-held" and self.max_ws and self.run_len > self.max_ws:
                    raise FilterError("limit", "a run of whitespace exceeded max_whitespace",
                                      self.input_offset(self.run_start + self.max_ws))
            else:
                text_end = k + 1
                self.run_len = 0
            at += nbytes(c)
        if text_end:
            if self.ws:
                self.col.emit("text", self.ws)
            self.col.emit("text", s[:text_end])
            self.stage_done += nbytes(self.ws) + nbytes(s[:text_end])
            self.ws = ""
        self.ws += s[text_end:]
        if self.bug == "max-whitespace-held" and self.max_ws and nbytes(self.ws) > self.max_ws:
            # the cap on what happens to be held: a run followed by text in the
            # same chunk is never held
            raise FilterError("limit", "held whitespace exceeded max_whitespace",
                              self.input_offset(self.stage_done + self.max_ws))
        if self.bug == "trim-per-chunk":
            self.drop(self.ws)  # each chunk's trailing whitespace, trimmed on its own
            self.ws = ""

    # ---- the filter object ----
    def feed(self, text):
        if self.think:
            self.think.feed(text)
        else:
            self.stage_feed(text)
        return self.col.take()

    def finish(self):
        if self.think:
            self.think.finish()
        s, self.hold = self.hold, ""
        self.prefix(s, True)
        self.drop(self.ws)
        self.ws = ""
        return self.col.take()


if __name__ == "__main__":
    sys.exit(mutant.main("clean", BUGS, Clean))
