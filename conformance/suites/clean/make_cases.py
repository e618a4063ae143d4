#!/usr/bin/env python3
"""Writes the clean suite's JSON files from the case list below.

The expected channels come from `model()`, an independent model of the
proxy's non-streaming path (seed 000, post_process_llm_output) written in
Python from the seed and DESIGN.md, not from clean.c: think removal, then
str.lstrip(), the prefix lists, the timestamp, "Assistant:", str.strip().
Cases that also give `want` (the text a reader can check by eye) are
asserted against the model before anything is written, so a mistake in the
model shows up here rather than in the suite. `max_held` values are derived
by hand (see README.md, "Latency") and checked by the runner.

Run from anywhere:  python3 conformance/suites/clean/make_cases.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TIMESTAMP = "[Sent less than a minute ago]"


def ascii_fold(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def think_model(s, ep, sl):
    """Anchored think removal: (text, thought, markup, events)."""
    if not ep.get("removeThinking", False):
        return s, "", "", []
    start = ep.get("startThinkTag", "<think>")
    end = ep.get("endThinkTag", "</think>")
    grace = ep.get("openingTagGracePeriod", 100)
    folded = ascii_fold(s)
    if ep.get("expectOnlyClosingThinkTag", False):
        j = folded.find(ascii_fold(end))
        if j < 0:
            if sl.get("missing_close", "keep") == "keep":
                return s, "", "", []
            return "", s, "", [{"type": "thought", "tag": start, "text": s, "complete": False}]
        th = s[:j]
        return (s[j + len(end):], th, s[j:j + len(end)],
                [{"type": "thought", "tag": start, "text": th, "complete": True}])
    i = folded.find(ascii_fold(start))
    if i < 0 or i > grace:
        return s, "", "", []
    j = folded.find(ascii_fold(end), i + len(start))
    if j < 0:
        return s, "", "", []
    th = s[i + len(start):j]
    return (s[:i] + s[j + len(end):], th, s[i:i + len(start)] + s[j:j + len(end)],
            [{"type": "thought", "tag": start, "text": th, "complete": True}])


def model(opts, s):
    ep = opts.get("endpoint", {})
    nd = opts.get("node", {})
    gl = opts.get("globals", {})
    sl = opts.get("sluice", {})
    text, thought, markup, events = think_model(s, ep, sl)
    dropped = []

    def lstrip(t):
        k = len(t) - len(t.lstrip())
        dropped.append(t[:k])
        return t[k:]

    def as_list(v):
        return [v] if isinstance(v, str) else list(v or [])

    text = lstrip(text)
    if nd.get("removeCustomTextFromResponseStart", False):
        for p in as_list(nd.get("responseStartTextToRemove")):
            if text.startswith(p):
                dropped.append(p)
                text = lstrip(text[len(p):])
                break
    if ep.get("removeCustomTextFromResponseStartEndpointWide", False):
        for p in as_list(ep.get("responseStartTextToRemoveEndpointWide")):
            p = p.strip()
            if text.startswith(p):
                dropped.append(p)
                text = lstrip(text[len(p):])
                break
    if nd.get("addDiscussionIdTimestampsForLLM", False) and text.startswith(TIMESTAMP):
        dropped.append(TIMESTAMP)
        text = text[len(TIMESTAMP):]
        if text.startswith(" "):
            dropped.append(" ")
            text = text[1:]
        text = lstrip(text)
    if (gl.get("chatCompleteAddUserAssistant", False)
            and gl.get("chatCompleteAddMissingAssistant", False)
            and text.startswith("Assistant:")):
        dropped.append("Assistant:")
        text = lstrip(text[len("Assistant:"):])
    if ep.get("trimBeginningAndEndLineBreaks", False):
        text = lstrip(text)
        k = len(text) - len(text.rstrip())
        tail = text[len(text) - k:]
        text = text[:len(text) - k]
    else:
        tail = ""
    return {"text": text, "thought": thought, "markup": markup,
            "dropped": "".join(dropped) + tail, "events": events}


def enc(s):
    """A str (invalid bytes as surrogateescape) to a case byte string."""
    b = s.encode("utf-8", "surrogateescape")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


def raw(h):
    return bytes.fromhex(h).decode("utf-8", "surrogateescape")


# ---- option builders -------------------------------------------------------

def O(think=None, node=None, ep=None, ts=False, asst=False, trim=False, sluice=None,
      node_on=True, ep_on=True, ep_extra=None):
    o = {}
    e = {}
    n = {}
    if think is not None:
        e["removeThinking"] = True
        e.update(think)
    if ep is not None:
        e["removeCustomTextFromResponseStartEndpointWide"] = ep_on
        e["responseStartTextToRemoveEndpointWide"] = ep
    if trim:
        e["trimBeginningAndEndLineBreaks"] = True
    if ep_extra:
        e.update(ep_extra)
    if node is not None:
        n["removeCustomTextFromResponseStart"] = node_on
        n["responseStartTextToRemove"] = node
    if ts:
        n["addDiscussionIdTimestampsForLLM"] = True
    if e:
        o["endpoint"] = e
    if n:
        o["node"] = n
    if asst:
        o["globals"] = {"chatCompleteAddUserAssistant": True,
                        "chatCompleteAddMissingAssistant": True}
    if sluice:
        o["sluice"] = sluice
    return o


ALL = dict(think={}, node=["Note:"], ep=["Bot:"], ts=True, asst=True, trim=True)
LONG150 = "PREFIX-" + "x" * 136 + "-END:"
LONG250 = "ENDPOINT-" + "y" * 235 + "-END:"

suites = {}


def case(suite, cid, opts, inp, source, want=None, max_held=None, note=None, chunks=None,
         error=None, offset=None):
    c = {"id": cid, "options": opts, "input": enc(inp), "source": source}
    if error is not None:
        c["expect"] = {"error": {"code": error}}
        if offset is not None:
            c["expect"]["error"]["offset"] = offset
    else:
        m = model(opts, inp)
        if want is not None:
            assert m["text"] == want, (cid, m["text"], want)
        ex = {}
        for k in ("text", "thought", "markup", "dropped"):
            if m[k]:
                ex[k] = enc(m[k])
        if m["events"]:
            ex["events"] = [dict(ev, text=enc(ev["text"])) for ev in m["events"]]
        # conservation, checked on the model too
        total = sum(len(m[k].encode("utf-8", "surrogateescape"))
                    for k in ("text", "thought", "markup", "dropped"))
        assert total == len(inp.encode("utf-8", "surrogateescape")), cid
        if max_held is not None:
            ex["max_held"] = max_held
        c["expect"] = ex
    if note:
        c["note"] = note
    if chunks:
        c["chunks"] = [enc(x) for x in chunks]
    suites.setdefault(suite, []).append(c)


S2 = "DESIGN §2 clean step 2 (left strip)"
S3 = "DESIGN §2 clean step 3 (node prefixes); seed 000 step 3"
S4 = "DESIGN §2 clean step 4 (endpoint prefixes, candidates stripped); seed 000 step 4"
S5 = "DESIGN §2 clean step 5 (timestamp); seed 000 step 5"
S6 = "DESIGN §2 clean step 6 (Assistant:, both globals); seed 000 step 6"
S7 = "DESIGN §2 clean step 7 (trimBeginningAndEndLineBreaks); seed 000 step 7"
S1 = "DESIGN §2 clean step 1 and 'think, anchored mode'; seed 000 step 1"
WS = "DESIGN §1 whitespace: Python str.isspace() set"
LAT = "DESIGN §1 latency and §2 clean: release as soon as no rule can change the text"
ANC = "SOURCES.md §think (WilmerAI, where the paths still differ)"

# ---- basics ------------------------------------------------------------------
B = "basics"
case(B, "y_all_flags_off_identity", {}, "Hello <think>x</think> Assistant: world  \n",
     "design decision: with every flag off only step 2 acts, and this text has no leading "
     "whitespace", want="Hello <think>x</think> Assistant: world  \n", max_held=0)
case(B, "y_all_flags_off_explicit_false", {
    "endpoint": {"removeThinking": False, "removeCustomTextFromResponseStartEndpointWide": False,
                 "responseStartTextToRemoveEndpointWide": ["Hello"],
                 "trimBeginningAndEndLineBreaks": False},
    "node": {"removeCustomTextFromResponseStart": False, "responseStartTextToRemove": "Hello",
             "addDiscussionIdTimestampsForLLM": False},
    "globals": {"chatCompleteAddUserAssistant": False, "chatCompleteAddMissingAssistant": False}},
    "Hello [Sent less than a minute ago] Assistant: <think>a</think>\n",
    "seed 000: every rule is gated by its flag", want="Hello [Sent less than a minute ago] "
    "Assistant: <think>a</think>\n", max_held=0)
case(B, "y_all_flags_off_still_left_strips", {}, " \n\tHello",
     S2 + "; non-streaming always left-strips (SOURCES.md §think, WilmerAI)", want="Hello")
case(B, "y_empty_input", {}, "", "design decision: empty in, empty out", want="")
case(B, "y_empty_input_all_rules", O(**ALL), "", "design decision: empty in, empty out",
     want="")
case(B, "y_only_whitespace", {}, " \n\t\r\n ", S2 + ": a response that is entirely whitespace",
     want="")
case(B, "y_only_whitespace_all_rules", O(**ALL), "\n\n   \u3000\n",
     S2 + ", " + S7 + ": entirely whitespace", want="")
case(B, "y_trailing_whitespace_kept_without_trim", {}, "Hi there \n\n",
     S7 + ": trailing whitespace stays without the flag", want="Hi there \n\n")
case(B, "y_every_rule", O(**ALL),
     " \n<think>plan</think>\n Note: Bot:  [Sent less than a minute ago] Assistant: hi there \n",
     "seed 000 steps 1-7 in order", want="hi there")
case(B, "y_every_rule_none_matches", O(**ALL), "Plain answer.",
     "seed 000 steps 1-7: nothing to remove", want="Plain answer.")
case(B, "y_inner_whitespace_untouched", O(**ALL), "a  \n\n  b",
     S7 + ": strip touches only the ends", want="a  \n\n  b")
case(B, "y_invalid_utf8_passes", O(**ALL), raw("ff") + "x" + raw("c3"),
     "DESIGN §1 counting: an invalid byte is one code point and passes through unchanged",
     want=raw("ff") + "x" + raw("c3"))

# ---- whitespace set -------------------------------------------------------------
W = "whitespace"
SPACES = [("tab", "\t"), ("lf", "\n"), ("vt", "\x0b"), ("ff", "\x0c"), ("cr", "\r"),
          ("fs_1c", "\x1c"), ("gs_1d", "\x1d"), ("rs_1e", "\x1e"), ("us_1f", "\x1f"),
          ("space", " "), ("nel_0085", "\u0085"), ("nbsp_00a0", "\u00a0"),
          ("ogham_1680", "\u1680"), ("enquad_2000", "\u2000"), ("hair_200a", "\u200a"),
          ("line_sep_2028", "\u2028"), ("para_sep_2029", "\u2029"),
          ("nnbsp_202f", "\u202f"), ("mmsp_205f", "\u205f"), ("ideo_3000", "\u3000")]
for name, ch in SPACES:
    assert ch.isspace()
    case(W, "y_left_strip_" + name, {}, ch + ch + "x" + ch, WS + "; " + S2, want="x" + ch)
for name, ch in [("nel_0085", "\u0085"), ("nbsp_00a0", "\u00a0"), ("line_sep_2028", "\u2028"),
                 ("ideo_3000", "\u3000"), ("us_1f", "\x1f")]:
    case(W, "y_trim_trailing_" + name, O(trim=True), "x" + ch + " " + ch, WS + "; " + S7,
         want="x")
for name, ch in [("zwsp_200b", "\u200b"), ("bom_feff", "\ufeff"), ("mongolian_180e", "\u180e"),
                 ("nul", "\x00"), ("del_7f", "\x7f")]:
    assert not ch.isspace()
    case(W, "y_not_whitespace_" + name, O(trim=True), ch + "x" + ch,
         WS + ": this code point is not in the set, so no strip removes it", want=ch + "x" + ch)
case(W, "y_truncated_nbsp_lead_is_text", O(trim=True), " " + raw("c2") + "x ",
     WS + "; DESIGN §1: an incomplete sequence is invalid bytes, not whitespace",
     want=raw("c2") + "x")
case(W, "y_truncated_3000_lead_is_text", {}, raw("e380") + "x",
     WS + "; an incomplete U+3000 is not whitespace", want=raw("e380") + "x")
case(W, "y_trailing_truncated_space_keeps_run", O(trim=True), "x \n" + raw("e280"),
     S7 + "; a trailing partial code point is not whitespace, so the run before it is "
     "not trailing", want="x \n" + raw("e280"))
case(W, "y_unicode_whitespace_between_rules", O(node=["Note:"], asst=True),
     "\u3000Note:\u2028\u00a0Assistant:\u0085hi", WS + "; " + S3 + "; " + S6, want="hi")

# ---- node prefixes -------------------------------------------------------------
N = "node"
case(N, "y_node_string", O(node="Note:"), "Note: hi", S3 + ": a string is a one-item list",
     want="hi")
case(N, "y_node_array_first", O(node=["Note:", "Bot:"]), "Note: hi", S3, want="hi")
case(N, "y_node_array_second", O(node=["Note:", "Bot:"]), "Bot: hi", S3, want="hi")
case(N, "y_node_first_match_wins_short_first", O(node=["Hello", "Hello World"]),
     "Hello World!", S3 + ": the first listed match wins, not the longest", want="World!")
case(N, "y_node_first_match_wins_long_first", O(node=["Hello World", "Hello"]),
     "Hello World!", S3 + ": the first listed match wins", want="!")
case(N, "y_node_only_one_removal", O(node=["Note:"]), "Note: Note: hi",
     S3 + ": one removal per step", want="Note: hi")
case(N, "y_node_no_match", O(node=["Note:"]), "Notes: hi", S3, want="Notes: hi")
case(N, "y_node_case_sensitive", O(node=["Note:"]), "note: hi", S3 + ": str.startswith",
     want="note: hi")
case(N, "y_node_flag_off", O(node=["Note:"], node_on=False), "Note: hi",
     S3 + ": gated by removeCustomTextFromResponseStart", want="Note: hi")
case(N, "y_node_empty_list", O(node=[]), "Note: hi", S3, want="Note: hi")
case(N, "y_node_after_left_strip", O(node=["Note:"]), "\n\n  Note:\thi",
     S2 + " then " + S3 + ": the prefix matches only after the left strip", want="hi")
case(N, "y_node_candidate_not_stripped", O(node=[" Note:"]), " Note: hi",
     S3 + ": node candidates are not stripped, and the text is, so a candidate that "
     "starts with whitespace never matches", want="Note: hi")
case(N, "y_node_candidate_trailing_space", O(node=["Note: "]), "Note:hi",
     S3 + ": the candidate's own trailing space must be there", want="Note:hi")
case(N, "y_node_candidate_trailing_space_match", O(node=["Note: "]), "Note:   hi",
     S3 + ": removal, then left strip", want="hi")
case(N, "y_node_empty_candidate_wins", O(node=["", "Note:"]), "Note: hi",
     S3 + ": str.startswith('') is true, so an empty first candidate matches and ends the "
     "step", want="Note: hi")
case(N, "y_node_whole_input", O(node=["Note:"]), "Note:", S3, want="")
case(N, "y_node_input_is_proper_prefix", O(node=["Note:"]), "Note",
     S3 + ": the stream ended before the candidate could match", want="Note")
case(N, "y_node_unicode", O(node=["Ответ:", "回答："]), "回答：  你好",
     S3 + ": prefixes are UTF-8 strings", want="你好")
case(N, "y_node_long_150", O(node=[LONG150]), LONG150 + " body",
     S3 + "; prefix longer than 100 characters", want="body")
case(N, "y_node_long_250", O(node=["short", LONG250]), LONG250 + "\nbody",
     S3 + "; prefix longer than 200 characters", want="body")
case(N, "y_node_long_near_miss", O(node=[LONG150]), LONG150[:-1] + "! body",
     S3 + "; a long candidate that fails on its last byte", want=LONG150[:-1] + "! body")
case(N, "y_node_with_trim", O(node=["Note:"], trim=True), "Note: hi \n", S3 + "; " + S7,
     want="hi")

# ---- endpoint prefixes ---------------------------------------------------------
E = "endpoint"
case(E, "y_endpoint_string", O(ep="Bot:"), "Bot: hi", S4, want="hi")
case(E, "y_endpoint_array", O(ep=["AI:", "Bot:"]), "Bot: hi", S4, want="hi")
case(E, "y_endpoint_candidate_stripped", O(ep=["  Bot:  "]), "Bot:hi",
     S4 + ": the candidate is stripped to \"Bot:\" before matching", want="hi")
case(E, "y_endpoint_candidate_unicode_stripped", O(ep=["\u3000Bot:\u00a0\n"]), "Bot:\u00a0hi",
     S4 + "; " + WS, want="hi")
case(E, "y_endpoint_whitespace_candidate_is_empty", O(ep=["   ", "Bot:"]), "Bot: hi",
     S4 + ": a candidate of whitespace strips to the empty string, which every text starts "
     "with, so it wins and nothing is removed", want="Bot: hi")
case(E, "y_endpoint_flag_off", O(ep=["Bot:"], ep_on=False), "Bot: hi",
     S4 + ": gated by removeCustomTextFromResponseStartEndpointWide", want="Bot: hi")
case(E, "y_node_then_endpoint", O(node=["Note:"], ep=["Bot:"]), "Note: Bot: hi",
     S3 + " then " + S4, want="hi")
case(E, "y_endpoint_not_before_node", O(node=["Note:"], ep=["Bot:"]), "Bot: Note: hi",
     S3 + " then " + S4 + ": the node step sees \"Bot:\" and passes; it does not run again",
     want="Note: hi")
case(E, "y_endpoint_same_prefix_twice", O(node=["Bot:"], ep=["Bot:"]), "Bot: Bot: Bot: hi",
     S3 + " and " + S4 + ": one removal each", want="Bot: hi")
case(E, "y_endpoint_long_230_with_node", O(node=["Note:"], ep=[LONG250]),
     "Note: " + LONG250 + " hi", S4 + "; prefix longer than 200 characters with both lists on",
     want="hi")
case(E, "y_endpoint_first_match_wins", O(ep=["Bot", "Bot:"]), "Bot: hi",
     S4 + ": first listed match", want=": hi")
case(E, "y_endpoint_prefix_after_think", O(think={}, ep=["Bot:"]),
     "<think>x</think>\nBot: hi", S1 + " then " + S4, want="hi")

# ---- timestamp ----------------------------------------------------------------
T = "timestamp"
case(T, "y_timestamp_space", O(ts=True), TIMESTAMP + " hi", S5, want="hi")
case(T, "y_timestamp_no_space", O(ts=True), TIMESTAMP + "hi", S5, want="hi")
case(T, "y_timestamp_more_whitespace", O(ts=True), TIMESTAMP + "  \n hi",
     S5 + ": one space, then the left strip takes the rest", want="hi")
case(T, "y_timestamp_flag_off", {}, TIMESTAMP + " hi", S5, want=TIMESTAMP + " hi")
case(T, "y_timestamp_once", O(ts=True), TIMESTAMP + " " + TIMESTAMP + " hi",
     S5 + ": removed once", want=TIMESTAMP + " hi")
case(T, "y_timestamp_truncated", O(ts=True), "[Sent less than a minute ago",
     S5 + ": a proper prefix at the end is text", want="[Sent less than a minute ago")
case(T, "y_timestamp_other_text", O(ts=True), "[Sent 5 minutes ago] hi",
     S5 + ": only the fixed placeholder", want="[Sent 5 minutes ago] hi")
case(T, "y_timestamp_after_prefixes", O(node=["Note:"], ep=["Bot:"], ts=True),
     "Note: Bot: " + TIMESTAMP + " hi", S3 + ", " + S4 + ", " + S5, want="hi")
case(T, "y_timestamp_before_assistant", O(ts=True, asst=True),
     TIMESTAMP + " Assistant: hi", S5 + " then " + S6, want="hi")
case(T, "y_timestamp_not_after_assistant", O(ts=True, asst=True),
     "Assistant: " + TIMESTAMP + " hi", S5 + " then " + S6 + ": step 5 ran before step 6",
     want=TIMESTAMP + " hi")
case(T, "y_timestamp_after_think", O(think={}, ts=True),
     "<think>a</think>" + TIMESTAMP + " hi", S1 + " then " + S5, want="hi")

# ---- Assistant: -----------------------------------------------------------------
A = "assistant"
case(A, "y_assistant_removed", O(asst=True), "Assistant: hi", S6, want="hi")
case(A, "y_assistant_newlines", O(asst=True), "Assistant:\n\nhi", S6, want="hi")
case(A, "y_assistant_only_user_global", {"globals": {"chatCompleteAddUserAssistant": True}},
     "Assistant: hi", S6 + ": both globals are needed", want="Assistant: hi")
case(A, "y_assistant_only_missing_global",
     {"globals": {"chatCompleteAddMissingAssistant": True}}, "Assistant: hi",
     S6 + ": both globals are needed", want="Assistant: hi")
case(A, "y_assistant_lowercase", O(asst=True), "assistant: hi", S6 + ": case-sensitive",
     want="assistant: hi")
case(A, "y_assistant_space_before_colon", O(asst=True), "Assistant : hi", S6,
     want="Assistant : hi")
case(A, "y_assistant_once", O(asst=True), "Assistant: Assistant: hi", S6 + ": removed once",
     want="Assistant: hi")
case(A, "y_assistant_whole", O(asst=True), "Assistant:", S6, want="")
case(A, "y_assistant_after_strip", O(asst=True), "\n \u00a0Assistant: hi", S2 + " then " + S6,
     want="hi")
case(A, "y_assistant_not_mid_text", O(asst=True), "Hi. Assistant: there", S6 + ": a prefix only",
     want="Hi. Assistant: there")

# ---- trim ----------------------------------------------------------------------
R = "trim"
case(R, "y_trim_both_ends", O(trim=True), "\n\n  hi there \n\n", S7, want="hi there")
case(R, "y_trim_off_keeps_end", {}, "\n hi \n", S7 + ": off by default", want="hi \n")
case(R, "y_trim_inner_run_released", O(trim=True), "a \n \n b", S7 + ": an inner run is text",
     want="a \n \n b")
case(R, "y_trim_only_whitespace", O(trim=True), " \u3000 \n", S7, want="")
case(R, "y_trim_after_think_block", O(think={}, trim=True), "Hi<think>x</think>  \n",
     S1 + " then " + S7, want="Hi")
case(R, "y_trim_whitespace_before_unterminated_think", O(think={}, trim=True), "Hi \n<think>x",
     S1 + " (unterminated, restored) then " + S7, want="Hi \n<think>x")
case(R, "n_trim_max_whitespace", O(trim=True, sluice={"max_whitespace": 4}), "hi" + " " * 10,
     "design decision: the held trailing run is capped by sluice.max_whitespace "
     "(SLUICE_LIMIT), reported at the first input byte that does not fit", error="limit",
     offset=6)
case(R, "n_trim_max_whitespace_after_block", O(think={}, trim=True, sluice={"max_whitespace": 4}),
     "hi  <think>plan</think>    x", "design decision: max_whitespace caps every run in the "
     "body, held or not (a run followed by text in the same chunk is never held, so a cap on "
     "the hold would depend on the chunking); the run joins across the removed block, and the "
     "offset is an input offset: the 5th space of the run is input byte 25",
     error="limit", offset=25)
case(R, "n_trim_max_whitespace_inner_run", O(trim=True, sluice={"max_whitespace": 4}),
     "a     b", "design decision: max_whitespace caps inner runs too, so the verdict does not "
     "depend on whether a chunk ends inside the run", error="limit", offset=5)
case(R, "y_trim_max_whitespace_not_reached", O(trim=True, sluice={"max_whitespace": 4}),
     "hi    x    ", "design decision: sluice.max_whitespace counts each run on its own",
     want="hi    x")

# ---- think -----------------------------------------------------------------------
K = "think"
case(K, "y_think_block_at_start", O(think={}), "<think>plan</think>\nHi", S1, want="Hi")
case(K, "y_think_text_before_kept", O(think={}), "Hi <think>a</think> there",
     S1 + ": text before the opening tag is kept", want="Hi  there")
case(K, "y_think_only_first_block", O(think={}), "<think>a</think>b<think>c</think>",
     S1 + ": one block", want="b<think>c</think>")
case(K, "y_think_stray_close", O(think={}), "a</think>b", S1, want="a</think>b")
case(K, "y_think_unterminated_restored", O(think={}), "<think>abc",
     S1 + ": an unterminated block gives the text back", want="<think>abc")
case(K, "y_think_unterminated_restored_then_strip", O(**ALL), "\n <think>Assistant: abc \n",
     S1 + " then " + S2 + " and " + S7 + ": the restored text goes through the other steps",
     want="<think>Assistant: abc")
case(K, "y_think_case_insensitive", O(think={}), "<THINK>a</Think>b",
     S1 + ": ASCII case-insensitive; the markup keeps the tags as written", want="b")
case(K, "y_think_kelvin_not_folded", O(think={}), "<thin\u212a>a</think>b",
     S1 + "; FORMAT.md think decisions: case folding is ASCII only (the proxy's "
     "re.IGNORECASE folds U+212A)", want="<thin\u212a>a</think>b")
case(K, "y_think_custom_tags", O(think={"startThinkTag": "<reasoning>",
                                       "endThinkTag": "</reasoning>"}),
     "<reasoning>r</reasoning>\n<think>t</think>", S1 + ": startThinkTag/endThinkTag",
     want="<think>t</think>")
case(K, "y_think_grace_inside", O(think={"openingTagGracePeriod": 5}), "12345<think>a</think>b",
     S1 + ": the tag starts at index 5 <= 5", want="12345b")
case(K, "y_think_grace_outside", O(think={"openingTagGracePeriod": 5}), "123456<think>a</think>b",
     S1 + ": the tag starts at index 6 > 5", want="123456<think>a</think>b")
case(K, "y_think_grace_zero_leading_space", O(think={"openingTagGracePeriod": 0}),
     " <think>a</think>b",
     S1 + " then " + S2 + ": think removal sees the raw text, so the space puts the tag "
     "outside a zero window", want="<think>a</think>b")
case(K, "y_think_default_grace_100", O(think={}), "x" * 100 + "<think>a</think>b",
     S1 + ": default openingTagGracePeriod 100", want="x" * 100 + "b")
case(K, "y_think_default_grace_101", O(think={}), "x" * 101 + "<think>a</think>b",
     S1 + ": default openingTagGracePeriod 100", want="x" * 101 + "<think>a</think>b")
case(K, "y_think_off_keeps_tags", O(trim=True), "<think>a</think>b",
     S1 + ": gated by removeThinking", want="<think>a</think>b")
case(K, "y_think_expect_only_closing", O(think={"expectOnlyClosingThinkTag": True}),
     "reasoning here</think>\n\nAnswer", S1 + ": expectOnlyClosingThinkTag", want="Answer")
case(K, "y_think_expect_only_closing_missing_keep",
     O(think={"expectOnlyClosingThinkTag": True}), "Answer only\n",
     "SOURCES.md §think (WilmerAI): with no closing tag the proxy returns the text since "
     "67c0886; sluice's default missing_close is \"keep\"", want="Answer only\n")
case(K, "y_think_expect_only_closing_missing_empty",
     O(think={"expectOnlyClosingThinkTag": True}, sluice={"missing_close": "empty"}),
     "Answer only\n", "seed 000 step 1 (before 67c0886): an empty string; sluice.missing_close "
     "\"empty\" (hidden as THOUGHT, record complete false)", want="")
case(K, "y_think_expect_only_closing_second_close_kept",
     O(think={"expectOnlyClosingThinkTag": True}), "a</think>b</think>c",
     S1 + ": only the first closing tag", want="b</think>c")
case(K, "y_think_then_assistant", O(think={}, asst=True), "<think>x</think>Assistant: hi",
     S1 + " then " + S6 + ": the prefix matches only after think removal", want="hi")
case(K, "y_think_splits_prefix", O(think={}, asst=True), "Assi<think>x</think>stant: hi",
     S1 + " then " + S6 + ": the prefix is whole only once the block is gone", want="hi")
case(K, "y_think_splits_node_prefix", O(think={}, node=["Note:"]), "No<think>x</think>te:hi",
     S1 + " then " + S3, want="hi")
case(K, "y_think_then_strip", O(think={}), "<think>x</think>\n\n  Hi", S1 + " then " + S2,
     want="Hi")
case(K, "y_think_leading_ws_then_block", O(think={}, asst=True),
     "\n\n<think>x</think>\nAssistant: hi", S1 + " then " + S2 + " and " + S6, want="hi")
case(K, "y_think_block_after_prefix_kept_position", O(think={}, node=["Note:"]),
     "Note: <think>x</think>hi", S1 + " then " + S3 + ": the block goes first, then the prefix",
     want="hi")
case(K, "n_think_max_block", O(think={}, sluice={"max_block": 8}), "<think>0123456789</think>x",
     "design decision: the held block is capped by sluice.max_block (SLUICE_LIMIT), at the "
     "first byte that does not fit", error="limit", offset=15)

# ---- options ------------------------------------------------------------------
P = "options"
for cid, opts, what in [
    ("n_option_unknown_top", {"endpoints": {}}, "unknown top-level key"),
    ("n_option_unknown_endpoint", {"endpoint": {"removeThinkng": True}}, "unknown endpoint key"),
    ("n_option_unknown_node", {"node": {"returnToUser": True}}, "unknown node key"),
    ("n_option_unknown_globals", {"globals": {"chatCompleteAddUser": True}}, "unknown global"),
    ("n_option_wrong_type_bool", {"endpoint": {"removeThinking": "true"}}, "a string for a bool"),
    ("n_option_wrong_type_grace", {"endpoint": {"openingTagGracePeriod": -1}}, "negative"),
    ("n_option_wrong_type_list", {"node": {"responseStartTextToRemove": [1]}}, "a number"),
    ("n_option_wrong_type_section", {"node": []}, "a section that is not an object"),
    ("n_option_missing_close_value", {"sluice": {"missing_close": "drop"}}, "bad value"),
    ("n_option_empty_think_tag", {"endpoint": {"removeThinking": True, "startThinkTag": ""}},
     "an empty tag"),
]:
    case(P, cid, opts, "x", "filter protocol: unknown keys and wrong types are bad_option ("
         + what + ")", error="bad_option")

# ---- latency --------------------------------------------------------------------
L = "latency"
case(L, "y_latency_plain_text_zero", O(node=["Note:"], asst=True), "Hello world",
     LAT + ": 'H' can start no candidate, so nothing is held", want="Hello world",
     max_held=0)
case(L, "y_latency_left_strip_zero", {}, "  \n Hello",
     LAT + ": whole whitespace code points are dropped at once", want="Hello", max_held=0)
case(L, "y_latency_nbsp_one", {}, "\u00a0Hi", LAT + ": only the lead byte of U+00A0 waits",
     want="Hi", max_held=1)
case(L, "y_latency_ideographic_two", {}, "\u3000Hi", LAT + ": two bytes of U+3000 wait",
     want="Hi", max_held=2)
case(L, "y_latency_released_on_mismatch", O(node=["Note:"]), "Nothing to see",
     LAT + ": \"Not\" is held until \"h\" rules \"Note:\" out", want="Nothing to see",
     max_held=3)
case(L, "y_latency_match", O(node=["Note:"]), "Note: hi",
     LAT + ": \"Note\" waits for its last byte", want="hi", max_held=4)
case(L, "y_latency_long_prefix_match", O(node=[LONG150]), LONG150 + " body",
     LAT + ": the hold is bounded by the candidate, not by a fixed buffer",
     want="body", max_held=len(LONG150) - 1)
case(L, "y_latency_long_prefix_early_miss", O(ep=[LONG250]), "ENDPOXNT body",
     LAT + ": a long candidate is ruled out after 5 bytes, not after 100 or 200 characters",
     want="ENDPOXNT body", max_held=5)
case(L, "y_latency_first_match_wins_waits", O(node=["Hello World", "Hello"]), "Hello there",
     LAT + ": the earlier candidate must be ruled out first", want="there", max_held=6)
case(L, "y_latency_later_candidate", O(node=["Hello there", "Hi"]), "Hi!",
     LAT, want="!", max_held=1)
case(L, "y_latency_timestamp", O(ts=True), TIMESTAMP + "  hi",
     LAT, want="hi", max_held=len(TIMESTAMP) - 1)
case(L, "y_latency_assistant", O(asst=True), "Assistant: hi", LAT, want="hi", max_held=9)
case(L, "y_latency_trim_inner_run", O(trim=True), "Hi   there",
     LAT + ": with step 7 on, a whitespace run waits for what follows it", want="Hi   there",
     max_held=3)
case(L, "y_latency_no_trim_no_hold", {}, "Hi   there \n",
     LAT + ": without step 7 trailing whitespace is not held", want="Hi   there \n",
     max_held=0)
case(L, "y_latency_think_block_held", O(think={}), "<think>ab</think>c",
     LAT + "; DESIGN §1 memory: the anchored block is held until its closing tag",
     want="c", max_held=16)
case(L, "y_latency_think_no_tag", O(think={}), "Hello",
     LAT + ": text that cannot start the opening tag passes at once", want="Hello",
     max_held=0)
case(L, "y_latency_steps_in_sequence", O(node=["ab"], ep=["cd"]), "ab cd ef",
     LAT + ": each step holds at most its own candidates", want="ef", max_held=1)

case(L, "y_latency_expect_only_closing_keep", O(think={"expectOnlyClosingThinkTag": True}),
     "abc</think>d", LAT + "; missing_close \"keep\": everything before the closing tag may "
     "have to be given back, so it is held", want="d", max_held=10)
case(L, "y_latency_expect_only_closing_empty",
     O(think={"expectOnlyClosingThinkTag": True}, sluice={"missing_close": "empty"}),
     "abc</think>d", LAT + "; missing_close \"empty\": hidden text streams, only a partial "
     "closing tag waits", want="d", max_held=7)
case(L, "y_latency_prefix_across_block", O(think={}, asst=True),
     "Assi<think>x</think>stant: hi", LAT + ": \"Assi\" waits in the prefix stage while the "
     "think filter holds the block; the holds add up", want="hi", max_held=19)
case(L, "y_latency_recorded_prefix_cut", O(node=["Note:"], trim=True), "Note: hi there \n",
     LAT + ": a prefix cut across recorded chunks", want="hi there",
     chunks=["No", "te", ": h", "i there ", "\n"], max_held=4)
case(L, "y_latency_recorded_nbsp_cut", O(asst=True), "\u00a0Assistant:\u00a0hi",
     LAT + "; " + WS + ": U+00A0 cut between its two bytes on both sides of the prefix",
     want="hi", chunks=[raw("c2"), raw("a0") + "Assistant:" + raw("c2"), raw("a0") + "hi"],
     max_held=9)

# ---- where the proxy's two paths disagree ----------------------------------------------
D = "paths"
case(D, "y_path_left_strip_without_prefix_rules", O(think={}), "\n\n  Hi",
     ANC + ": non-streaming always left-strips, streaming only while prefix buffering is on; "
     "sluice always does (step 2)", want="Hi")
case(D, "y_path_trailing_trim_streaming", O(trim=True), "Hi\n\n  ",
     ANC + ": trimBeginningAndEndLineBreaks strips trailing whitespace only when not "
     "streaming; sluice strips it in every chunking by holding the run", want="Hi",
     chunks=["H", "i\n", "\n ", " "])
case(D, "y_path_prefix_over_100", O(node=[LONG150]), LONG150 + "\nbody",
     ANC + ": a prefix over 100 characters is stripped only when not streaming; sluice "
     "strips it in every chunking", want="body",
     chunks=[LONG150[:50], LONG150[50:120], LONG150[120:] + "\nbody"])
case(D, "y_path_prefix_over_200_both_lists", O(node=["Note:"], ep=[LONG250]),
     LONG250 + " body",
     ANC + ": with both lists on the proxy buffers 200 characters; sluice strips a longer "
     "prefix in every chunking", want="body")
case(D, "y_path_grace_code_points", O(think={"openingTagGracePeriod": 10}),
     "é" * 10 + "<think>a</think>b",
     ANC + ": the grace window counts code points (the tag starts at index 10, byte 20); a "
     "byte-counting port would keep the block", want="é" * 10 + "b")
case(D, "y_path_grace_code_points_outside", O(think={"openingTagGracePeriod": 10}),
     "é" * 11 + "<think>a</think>b",
     ANC + ": code points, index 11 > 10", want="é" * 11 + "<think>a</think>b")
case(D, "y_path_expect_only_closing_keep", O(think={"expectOnlyClosingThinkTag": True}),
     "magistral reply without a closing tag",
     "SOURCES.md §think (WilmerAI): before 67c0886 the proxy returned \"\" (emptying "
     "magistral-2509 replies); sluice keeps the text by default",
     want="magistral reply without a closing tag")

total = 0
for name, cases in suites.items():
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), name
    doc = {"filter": "clean", "cases": cases}
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as fp:
        json.dump(doc, fp, ensure_ascii=False, indent=1)
        fp.write("\n")
    total += len(cases)
print(f"{total} cases in {len(suites)} files")
