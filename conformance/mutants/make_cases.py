#!/usr/bin/env python3
"""Writes the golden cases that pin the classes of bugs the mutants stand for:
conformance/suites/<filter>/mutation-classes.json.

Every expected answer here is stated by hand from DESIGN.md (the comment or
the source of each case says why), then checked against the reference
through `sluice proto` before a file is written: a case the reference
disagrees with stops the script, so neither side is taken on trust.

    python3 conformance/mutants/make_cases.py --sluice build/sluice [--check]

With --check the files are compared with what would be written, not written.
Each case's source names its class ("mutation class <name>: ..."), the name
the mutant table of the README uses.
"""
import argparse
import base64
import functools
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "suites")

KELVIN, LONG_S, DOTLESS_I, DOTTED_I = "\u212a", "\u017f", "\u0131", "\u0130"


def ev_thought(tag, text, complete=True):
    return {"type": "thought", "tag": tag, "text": text, "complete": complete}


def suite(filter_name, cases, **fields):
    """A case file: the filter, what it is for, its cases."""
    doc = {"filter": filter_name,
           "comment": "the classes of %s bugs the mutants of conformance/mutants/ stand for, "
                      "at least three independent cases each" % filter_name}
    doc.update(fields)
    doc["cases"] = cases
    return doc


def case(cid, inp, expect, source, options=None, chunks=None, note=None):
    c = {"id": cid}
    if options is not None:
        c["options"] = options
    c["input"] = inp
    if chunks is not None:
        c["chunks"] = chunks
    c["expect"] = expect
    c["source"] = "mutation class " + source
    c["features"] = [source.split(":")[0]]  # the class is the case's feature (FORMAT.md)
    if note:
        c["note"] = note
    return c


# ---------------------------------------------------------------- think --

def step_one_cases(grace, block, opts):
    """Cases of anchored think that clean's step 1 shares: opts(grace=,
    max_block=, only_closing=) gives each filter's options."""
    return [
        case("y_mc_grace_two_byte_chars", "\u00e9" * 5 + "<think>x</think>y",
             {"text": "\u00e9" * 5 + "y", "thought": "x", "markup": "<think></think>",
              "events": [ev_thought("<think>", "x")]},
             grace + ": the tag starts at index 5 (byte 10), grace 6", options=opts(grace=6)),
        case("n_mc_max_block_two_byte_chars", "<think>" + "\u00e9" * 6 + "</think>x",
             {"error": {"code": "limit", "offset": 15}},
             block + ": 6 code points, 12 bytes, max_block 8 (offset 7 + 8)",
             options=opts(max_block=8)),
        case("n_mc_max_block_expect_only_closing_keep", "\U0001f914" * 3 + "</think>a",
             {"error": {"code": "limit", "offset": 8}},
             block + ": expect_only_closing with missing_close keep holds the text; 3 code "
             "points, 12 bytes, max_block 8", options=opts(max_block=8, only_closing=True)),
        case("n_mc_max_block_offset_in_bytes", "<think>" + "\u00e9" * 3 + "</think>",
             {"error": {"code": "limit", "offset": 9}},
             block + ": max_block 2 holds one two-byte character; byte 9 does not fit",
             options=opts(max_block=2)),
    ]


def think_options(grace=None, max_block=None, only_closing=False):
    o = {"mode": "anchored"}
    if grace is not None:
        o["grace_period"] = grace
    if only_closing:
        o.update(expect_only_closing=True, missing_close="keep")
    if max_block is not None:
        o["max_block"] = max_block
    return o


def clean_options(grace=None, max_block=None, only_closing=False):
    o = {"endpoint": {"removeThinking": True}}
    if grace is not None:
        o["endpoint"]["openingTagGracePeriod"] = grace
    if only_closing:
        o["endpoint"]["expectOnlyClosingThinkTag"] = True  # missing_close keep is clean's default
    if max_block is not None:
        o["sluice"] = {"max_block": max_block}
    return o


def think_cases():
    out = []
    fold = ("unicode-case-folding: DESIGN §2 think folds ASCII case only; Python's "
            "re.IGNORECASE (the proxy's matching, SOURCES.md §think) also folds %s")
    # Each a different character that re.IGNORECASE folds and ASCII does not.
    out.append(case("y_mc_fold_long_s", "<rea%soning>r</rea%soning>x" % (LONG_S, LONG_S),
                    {"text": "<rea%soning>r</rea%soning>x" % (LONG_S, LONG_S)},
                    fold % "U+017F LATIN SMALL LETTER LONG S to s"))
    out.append(case("y_mc_fold_dotless_i", "a<th%snk>b</th%snk>c" % (DOTLESS_I, DOTLESS_I),
                    {"text": "a<th%snk>b</th%snk>c" % (DOTLESS_I, DOTLESS_I)},
                    fold % "U+0131 LATIN SMALL LETTER DOTLESS I to i"))
    out.append(case("y_mc_fold_dotted_capital_i",
                    "<TH%sNKING>x</TH%sNKING>" % (DOTTED_I, DOTTED_I),
                    {"text": "<TH%sNKING>x</TH%sNKING>" % (DOTTED_I, DOTTED_I)},
                    fold % "U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE to i"))
    out.append(case("y_mc_fold_kelvin_closing_tag_is_hidden",
                    "<think>a</thin%s>b</think>c" % KELVIN,
                    {"text": "c", "thought": "a</thin%s>b" % KELVIN, "markup": "<think></think>",
                     "events": [ev_thought("think", "a</thin%s>b" % KELVIN)]},
                    fold % "U+212A KELVIN SIGN to k: a closing tag with it does not close the "
                    "block"))
    out.append(case("y_mc_fold_kelvin_anchored", "<thin%s>x</thin%s>y" % (KELVIN, KELVIN),
                    {"text": "<thin%s>x</thin%s>y" % (KELVIN, KELVIN)},
                    fold % "U+212A KELVIN SIGN to k, in anchored mode",
                    options={"mode": "anchored"}))

    custom = ("custom-tag-case-folding: DESIGN §2 think: tags are ASCII case-insensitive by "
              "default, the names given in `tags` as much as the default ones")
    out.append(case("y_mc_custom_tag_upper", "a<SCRATCH>s</Scratch>b",
                    {"text": "ab", "thought": "s", "markup": "<SCRATCH></Scratch>",
                     "events": [ev_thought("scratch", "s")]},
                    custom, options={"tags": ["scratch"]}))
    out.append(case("y_mc_custom_tag_name_with_capitals", "<plan>p</PLAN>done",
                    {"text": "done", "thought": "p", "markup": "<plan></PLAN>",
                     "events": [ev_thought("Plan", "p")]},
                    custom + " (a name with capitals matches lower case; the record keeps the "
                    "configured name)", options={"tags": ["Plan"]}))
    out.append(case("y_mc_custom_tag_start_in", "notes</SCRATCH>answer",
                    {"text": "answer", "thought": "notes", "markup": "</SCRATCH>",
                     "events": [ev_thought("scratch", "notes")]},
                    custom + " (the closing tag of a start_in block)",
                    options={"tags": ["scratch"], "start_in": "scratch"}))
    out.append(case("y_mc_custom_tags_two_names", "<NOTES>n</notes>1<Draft>d</DRAFT>2",
                    {"text": "12", "thought": "nd", "markup": "<NOTES></notes><Draft></DRAFT>",
                     "events": [ev_thought("notes", "n"), ev_thought("draft", "d")]},
                    custom + " (two custom names)", options={"tags": ["notes", "draft"]}))
    out.append(case("y_mc_custom_tag_case_sensitive_option", "<SCRATCH>x</SCRATCH>",
                    {"text": "<SCRATCH>x</SCRATCH>"},
                    custom + "; with case_insensitive false they must match exactly",
                    options={"tags": ["scratch"], "case_insensitive": False}))

    pairs = ("pair-case-folding: DESIGN §2 think: `pairs` replace the names with literal "
             "strings, matched ASCII case-insensitively like tags (case_insensitive defaults "
             "to true in both modes)")
    out.append(case("y_mc_pair_fold_brackets", "[think]a[/Think]b",
                    {"text": "b", "thought": "a", "markup": "[think][/Think]",
                     "events": [ev_thought("[THINK]", "a")]},
                    pairs, options={"pairs": [["[THINK]", "[/THINK]"]]}))
    out.append(case("y_mc_pair_fold_words", "begin x end y",
                    {"text": " y", "thought": " x ", "markup": "beginend",
                     "events": [ev_thought("BEGIN", " x ")]},
                    pairs + " (letters only, no brackets)",
                    options={"pairs": [["BEGIN", "END"]]}))
    out.append(case("y_mc_pair_fold_start_in_close", "t<|END|>a",
                    {"text": "a", "thought": "t", "markup": "<|END|>",
                     "events": [ev_thought("<|channel|>analysis<|message|>", "t")]},
                    pairs + " (the closing string of a start_in block)",
                    options={"pairs": [["<|channel|>analysis<|message|>", "<|end|>"]],
                             "start_in": "<|channel|>analysis<|message|>"}))

    longest = ("longest-match: DESIGN §2 think: when several tags could start at one "
               "position, the longest that matches wins (the filter waits for the bytes that "
               "decide it); taking the first tag that completes is wrong")
    out.append(case("y_mc_longest_triple_bracket", "[[[x]]]y",
                    {"text": "y", "thought": "x", "markup": "[[[]]]",
                     "events": [ev_thought("[[[", "x")]},
                    longest, options={"pairs": [["[[", "]]"], ["[[[", "]]]"]]}))
    out.append(case("y_mc_longest_nested_literal", "<t><u>x</u></t>y",
                    {"text": "y", "thought": "x", "markup": "<t><u></u></t>",
                     "events": [ev_thought("<t><u>", "x")]},
                    longest + " (a pair whose opening string starts with another's)",
                    options={"pairs": [["<t>", "</t>"], ["<t><u>", "</u></t>"]]}))
    out.append(case("y_mc_longest_single_char_pair", "<<a>>b",
                    {"text": "b", "thought": "a", "markup": "<<>>",
                     "events": [ev_thought("<<", "a")]},
                    longest + " (one-character opening strings; the shorter listed first)",
                    options={"pairs": [["<", ">"], ["<<", ">>"]]}))

    order = ("event-order: DESIGN §2 think: each block yields its thought record when it "
             "closes, so records come in the order of the blocks, whatever their names")
    out.append(case("y_mc_order_names_interleaved",
                    "<think>a</think><thought>b</thought><think>c</think>",
                    {"thought": "abc", "markup": "<think></think><thought></thought><think></think>",
                     "events": [ev_thought("think", "a"), ev_thought("thought", "b"),
                                ev_thought("think", "c")]},
                    order))
    out.append(case("y_mc_order_unterminated_last", "<thought>a</thought>x<think>b</think>y<thought>c",
                    {"text": "xy", "thought": "abc",
                     "markup": "<thought></thought><think></think><thought>",
                     "events": [ev_thought("thought", "a"), ev_thought("think", "b"),
                                ev_thought("thought", "c", False)]},
                    order + "; the unterminated block's record comes last, at the end"))
    out.append(case("y_mc_order_pairs_interleaved", "{{a}}[[b]]{{c}}",
                    {"thought": "abc", "markup": "{{}}[[]]{{}}",
                     "events": [ev_thought("{{", "a"), ev_thought("[[", "b"), ev_thought("{{", "c")]},
                    order + " (pairs)", options={"pairs": [["[[", "]]"], ["{{", "}}"]]}))

    nest = ("nesting: DESIGN §2 think: a block closes only at the closing tag of its own "
            "name; a closing tag of another name is hidden text (clark-agent closes any "
            "block with any name)")
    out.append(case("y_mc_nesting_other_pair_close_is_hidden", "[[a}}b]]c",
                    {"text": "c", "thought": "a}}b", "markup": "[[]]",
                     "events": [ev_thought("[[", "a}}b")]},
                    nest + " (pairs)", options={"pairs": [["[[", "]]"], ["{{", "}}"]]}))

    grace = ("grace-code-points: DESIGN §1 counting and §2 think anchored: the grace window "
             "counts code points, not bytes (a byte-counting port disagrees, SOURCES.md "
             "§think)")
    out.append(case("y_mc_grace_three_byte_chars", "\u601d\u8003\u4e2d\u3002<think>x</think>y",
                    {"text": "\u601d\u8003\u4e2d\u3002y", "thought": "x",
                     "markup": "<think></think>", "events": [ev_thought("<think>", "x")]},
                    grace + ": the tag starts at index 4 (byte 12), grace 4",
                    options={"mode": "anchored", "grace_period": 4}))
    out.append(case("y_mc_grace_four_byte_char", "a\U0001f914b<think>x</think>y",
                    {"text": "a\U0001f914by", "thought": "x", "markup": "<think></think>",
                     "events": [ev_thought("<think>", "x")]},
                    grace + ": the tag starts at index 3 (byte 6), grace 3",
                    options={"mode": "anchored", "grace_period": 3}))
    out.append(case("y_mc_grace_default_window_cjk", "\u5b57" * 60 + "<think>x</think>y",
                    {"text": "\u5b57" * 60 + "y", "thought": "x", "markup": "<think></think>",
                     "events": [ev_thought("<think>", "x")]},
                    grace + ": the tag starts at index 60 (byte 180), the default grace 100",
                    options={"mode": "anchored"}))

    block = ("max-block-bytes: DESIGN §1 counting: sizes that bound memory (max_block) count "
             "bytes; limit at the first byte of the block that does not fit")
    out.append(case("n_mc_max_block_three_byte_chars", "<think>" + "\u20ac" * 4 + "</think>x",
                    {"error": {"code": "limit", "offset": 17}},
                    block + ": 4 code points, 12 bytes, max_block 10 (offset 7 + 10)",
                    options={"mode": "anchored", "max_block": 10}))
    out.append(case("y_mc_max_block_bytes_exact", "<think>" + "\u00e9" * 6 + "</think>x",
                    {"text": "x", "thought": "\u00e9" * 6, "markup": "<think></think>",
                     "events": [ev_thought("<think>", "\u00e9" * 6)]},
                    block + ": 12 bytes fit max_block 12 exactly",
                    options={"mode": "anchored", "max_block": 12}))
    out += step_one_cases(grace, block, think_options)
    return suite("think", out)


# -------------------------------------------------------------- harmony --

def harmony_cases():
    out = []
    fold = ("channel-name-case: DESIGN §2 harmony and the harmony suite's decisions: the "
            "channel name is matched exactly and case-sensitively; an unknown name, %s, "
            "routes to THOUGHT (fail closed)")
    out.append(case("y_mc_channel_final_upper", "<|channel|>FINAL<|message|>secret",
                    {"thought": "secret", "markup": "<|channel|>FINAL<|message|>"},
                    fold % "FINAL"))
    out.append(case("y_mc_channel_commentary_capital_with_recipient",
                    "<|channel|>Commentary to=functions.f<|message|>{}<|call|>after",
                    {"text": "after", "thought": "{}",
                     "markup": "<|channel|>Commentary to=functions.f<|message|><|call|>"},
                    fold % "Commentary (with a recipient)"))
    out.append(case("y_mc_channel_commentary_upper_preamble",
                    "<|channel|>COMMENTARY<|message|>Checking.<|end|>ok",
                    {"text": "ok", "thought": "Checking.",
                     "markup": "<|channel|>COMMENTARY<|message|><|end|>"},
                    fold % "COMMENTARY (without a recipient)"))
    out.append(case("y_mc_channel_final_mixed_nonstrict", "<|channel|>fInal Hello<|end|>",
                    {"thought": "Hello", "markup": "<|channel|>fInal <|end|>"},
                    fold % "fInal (a header resolved in non-strict mode)"))

    out.append(case("y_mc_last_channel_counts", "<|channel|>analysis<|channel|>final<|message|>x",
                    {"text": "x", "markup": "<|channel|>analysis<|channel|>final<|message|>"},
                    "header-routing: DESIGN §2 harmony: the last <|channel|> of a header counts "
                    "(an analysis part before a final one does not hide the answer)"))

    bound = ("header-bound-bytes: DESIGN §1 counting and §2 harmony: max_header counts the "
             "header's bytes (tokens included) and never cuts a UTF-8 character; past it the "
             "header is resolved in non-strict mode and the rest is content of its channel")
    out.append(case("y_mc_header_bound_two_byte_words", "<|channel|>final " + "\u00e9" * 8
                    + "<|message|>x",
                    {"text": "\u00e9" * 8 + "x", "markup": "<|channel|>final <|message|>"},
                    bound + ": 17 bytes of header then 8 two-byte characters (25 code points, "
                    "33 bytes) pass max_header 32 inside the eighth; it moves to the content",
                    options={"max_header": 32}))
    out.append(case("y_mc_header_bound_cjk_recipient",
                    "<|channel|>commentary to=functions.\u601d\u8003\u601d\u8003<|message|>{}"
                    "<|call|>",
                    {"other": "\u8003\u601d\u8003{}",
                     "markup": "<|channel|>commentary to=functions.\u601d<|message|><|call|>"},
                    bound + ": 35 bytes, then four three-byte characters (39 code points, 47 "
                    "bytes) against max_header 40: one fits, the recipient ends there",
                    options={"max_header": 40}))
    out.append(case("y_mc_header_bound_emoji_analysis", "<|channel|>analysis " + "\U0001f914" * 4
                    + "<|message|>t",
                    {"thought": "\U0001f914" * 4 + "t", "markup": "<|channel|>analysis <|message|>"},
                    bound + ": 20 bytes then four emoji (24 code points, 36 bytes) against "
                    "max_header 32: three fit exactly",
                    options={"max_header": 32}))
    out.append(case("y_mc_header_bound_default_cjk_role",
                    "<|start|>assistant to=functions." + "\u5b57" * 80 + "<|message|>{}<|call|>",
                    {"other": "\u5b57" * 6 + "{}",
                     "markup": "<|start|>assistant to=functions." + "\u5b57" * 74
                     + "<|message|><|call|>"},
                    bound + ": the default 256: 32 bytes of role part, then 80 three-byte "
                    "characters (112 code points, 272 bytes); 224 bytes of room hold 74 whole "
                    "characters and two bytes of the 75th, which moves to the content"))
    return suite("harmony", out, options={})


# -------------------------------------------------------------- monitor --

def ev_stop(reason, offset):
    return {"type": "stop", "reason": reason, "offset": offset}


def monitor_cases():
    out = []
    crlf = ("crlf-across-chunks: DESIGN §2 monitor, profile current (weighted): a line break "
            "weighs 8 and \\r\\n is one line break, 8 in all, however the chunks cut it; "
            "checkpoints are positions, so the verdict cannot depend on the chunking")
    out.append(case("y_mc_crlf_single_pair", "ab\r\nyz", {"text": "ab\r\nyz"},
                    crlf + ": at p = 4 the trailing \\r\\n weighs 8, under the threshold 16",
                    options={"profile": "current", "whitespace_threshold": 16,
                             "whitespace_interval": 4, "repetition_interval": 0}))
    out.append(case("y_mc_crlf_stop_not_early", "\r\n\r\nz",
                    {"text": "\r\n\r\n", "dropped": "z", "events": [ev_stop("whitespace", 4)]},
                    crlf + ": 8 at p = 2, 16 at p = 4, where it stops (threshold 16)",
                    options={"profile": "current", "whitespace_threshold": 16,
                             "whitespace_interval": 2, "repetition_interval": 0}))
    out.append(case("y_mc_crlf_weighted_option_on_seed", "a\r\n\r\n  b", {"text": "a\r\n\r\n  b"},
                    crlf + ": weighted on the seed profile; 8 + 8 + 1 + 1 = 18 at p = 7, under "
                    "24", options={"weighted": True, "whitespace_threshold": 24,
                                   "whitespace_interval": 7}))
    t = "x" + "\r\n" * 60 + "\t" * 7 + "ok"
    out.append(case("y_mc_crlf_pairs_and_tabs_under_512", t, {"text": t},
                    crlf + ": at p = 128 sixty \\r\\n (480) and seven tabs (28) weigh 508, under "
                    "512", options={"profile": "current"}))

    reps = ("repetition-table: DESIGN §2 monitor, profile seed: reps(L) = (100 + 8(L - 1)) / L "
            "for L up to 30 (for L = 7 to 10: 21, 19, 18, 17; the 2025-06-29 document's "
            "table says 20, 18, 17, 16 and contradicts the code, SOURCES.md §monitor)")
    filler = "qwertyuiopasdfghjklz"  # 20 lower-case letters, none in the blocks
    for L, block in ((8, "ABCDEFGH"), (9, "MNOPQRSTU")):
        r = (100 + 8 * (L - 1)) // L
        t = filler + block * (r - 1)
        out.append(case("y_mc_seed_reps_L%d_one_short" % L, t, {"text": t},
                        reps + ": %d copies of a %d-code-point block are one short of "
                        "reps(%d) = %d" % (r - 1, L, L, r),
                        options={"profile": "seed", "repetition_interval": len(t)}))

    chain = ("phase2-every-occurrence: DESIGN §2 monitor, phase 2 tries each earlier "
             "occurrence of the last 10 code points starting at or after n - 10 - thr, "
             "overlapping ones too (the original walks a chain of non-overlapping occurrences "
             "and misses these; the monitor suite's README)")
    for name, unit, note in (
            ("period5", "vwxyz" + "ab" + "vwxyzvwxyz",
             "a 17-code-point block whose last 10 (vwxyzvwxyz) have period 5: the nearest "
             "occurrence, 12 back, overlaps the one 17 back that repeats (reps(17) = 13)"),
            ("period2", "km" + "QRS" + "kmkmkmkmkm",
             "a 15-code-point block ending in kmkmkmkmkm (period 2): the occurrence 15 back, "
             "which repeats (reps(15) = 14), overlaps the nearer one 13 back"),
            ("period4", "rspq" + "ZZ" + "pqrspqrspq",
             "a 16-code-point block ending in pqrspqrspq (period 4): the occurrence 16 back "
             "(reps(16) = 13) overlaps the nearer one 12 back")):
        r = (100 + 8 * (len(unit) - 1)) // len(unit)
        t = filler + unit * r
        out.append(case("y_mc_phase2_overlapping_marker_" + name, t,
                        {"text": t, "events": [ev_stop("repetition", len(t))]},
                        chain + ": " + note, options={"repetition_interval": len(t)}))
    return suite("monitor", out)


# ---------------------------------------------------------------- clean --

def clean_cases():
    out = []
    think = {"removeThinking": True}
    grace = ("grace-code-points: DESIGN §1 counting and §2 clean step 1: "
             "openingTagGracePeriod counts code points, not bytes (SOURCES.md §think: a "
             "byte-counting port disagrees)")
    out.append(case("y_mc_grace_leading_ideographic_spaces",
                    "\u3000\u3000" + "\u00e9" * 3 + "<think>x</think>y",
                    {"text": "\u00e9" * 3 + "y", "thought": "x", "markup": "<think></think>",
                     "dropped": "\u3000\u3000", "events": [ev_thought("<think>", "x")]},
                    grace + ": the window counts from the start of the response, whitespace "
                    "included (step 1 comes before the left strip); the tag starts at index 5 "
                    "(byte 12), grace 5",
                    options={"endpoint": dict(think, openingTagGracePeriod=5)}))
    out.append(case("y_mc_grace_emoji_then_trim", "\U0001f914\U0001f914<think>x</think>\nok\n",
                    {"text": "\U0001f914\U0001f914\nok", "thought": "x",
                     "markup": "<think></think>", "dropped": "\n",
                     "events": [ev_thought("<think>", "x")]},
                    grace + ": the tag starts at index 2 (byte 8), grace 2",
                    options={"endpoint": dict(think, openingTagGracePeriod=2,
                                              trimBeginningAndEndLineBreaks=True)}))

    fold = ("unicode-case-folding: DESIGN §2 think (clean's step 1) folds ASCII case only; "
            "the proxy's re.IGNORECASE also folds %s (SOURCES.md §think)")
    out.append(case("y_mc_fold_dotless_i", "<th%snk>a</th%snk>b" % (DOTLESS_I, DOTLESS_I),
                    {"text": "<th%snk>a</th%snk>b" % (DOTLESS_I, DOTLESS_I)},
                    fold % "U+0131 DOTLESS I to i", options={"endpoint": think}))
    out.append(case("y_mc_fold_long_s_custom_tag", "<rea%soning>r</reasoning>x" % LONG_S,
                    {"text": "<rea%soning>r</reasoning>x" % LONG_S},
                    fold % "U+017F LONG S to s (a custom startThinkTag)",
                    options={"endpoint": dict(think, startThinkTag="<reasoning>",
                                              endThinkTag="</reasoning>")}))
    out.append(case("y_mc_fold_kelvin_closing_tag", "<think>a</thin%s>b" % KELVIN,
                    {"text": "<think>a</thin%s>b" % KELVIN},
                    fold % "U+212A KELVIN SIGN to k: the closing tag does not match, so the "
                    "block is unterminated and the text comes back",
                    options={"endpoint": think}))

    block = ("max-block-bytes: DESIGN §1 counting: sluice.max_block bounds memory and counts "
             "bytes; limit at the first byte of the block that does not fit")
    out.append(case("n_mc_max_block_after_text", "Hi <think>" + "\u20ac" * 4 + "</think>x",
                    {"error": {"code": "limit", "offset": 20}},
                    block + ": 4 code points, 12 bytes from offset 10, max_block 10",
                    options={"endpoint": think, "sluice": {"max_block": 10}}))

    out += step_one_cases(grace, block, clean_options)

    ws = ("max-whitespace: the clean suite's README: sluice.max_whitespace caps every run of "
          "whitespace in the text after step 6 (held or not, so the verdict does not depend "
          "on the chunking); limit at the first input byte past the cap")
    trim = {"trimBeginningAndEndLineBreaks": True}
    out.append(case("n_mc_max_whitespace_run_after_prefix", "Note: hi     there",
                    {"error": {"code": "limit", "offset": 12}},
                    ws + ": a run of 5 spaces from offset 8, after a removed prefix, cap 4",
                    options={"endpoint": trim, "node": {
                        "removeCustomTextFromResponseStart": True,
                        "responseStartTextToRemove": ["Note:"]},
                        "sluice": {"max_whitespace": 4}}))
    out.append(case("n_mc_max_whitespace_ideographic_run", "a\u3000\u3000b",
                    {"error": {"code": "limit", "offset": 5}},
                    ws + ": two U+3000 are 6 bytes from offset 1, cap 4",
                    options={"endpoint": trim, "sluice": {"max_whitespace": 4}}))
    out.append(case("n_mc_max_whitespace_newlines", "x\n\n\n\n\ny",
                    {"error": {"code": "limit", "offset": 5}},
                    ws + ": 5 line feeds from offset 1, cap 4",
                    options={"endpoint": trim, "sluice": {"max_whitespace": 4}}))

    both = ("assistant-globals: DESIGN §2 clean step 6: Assistant: is removed only when both "
            "globals, chatCompleteAddUserAssistant and chatCompleteAddMissingAssistant, are set "
            "(seed 000 tests them together)")
    out.append(case("y_mc_assistant_first_global_only", "Assistant: hi",
                    {"text": "Assistant: hi"},
                    both + ": the first alone, the second false",
                    options={"globals": {"chatCompleteAddUserAssistant": True,
                                         "chatCompleteAddMissingAssistant": False}}))
    out.append(case("y_mc_assistant_second_global_absent", "  Assistant:hello",
                    {"text": "Assistant:hello", "dropped": "  "},
                    both + ": the first alone, the second not given; the left strip still runs",
                    options={"globals": {"chatCompleteAddUserAssistant": True}}))
    out.append(case("y_mc_assistant_after_timestamp", "[Sent less than a minute ago] Assistant: x",
                    {"text": "Assistant: x", "dropped": "[Sent less than a minute ago] "},
                    both + ": the timestamp of step 5 goes, the Assistant: of step 6 stays",
                    options={"node": {"addDiscussionIdTimestampsForLLM": True},
                             "globals": {"chatCompleteAddUserAssistant": True,
                                         "chatCompleteAddMissingAssistant": False}}))
    out.append(case("y_mc_assistant_second_global_only", "Assistant: ok",
                    {"text": "Assistant: ok"},
                    both + ": the second alone",
                    options={"globals": {"chatCompleteAddMissingAssistant": True}}))
    return suite("clean", out)


# ----------------------------------------------------------------- json --

def ev_repair(kind, offset):
    return {"type": "repair", "kind": kind, "offset": offset}


def json_cases():
    out = []

    def ok(text, value, truncated, events=()):
        return {"text": text, "value": value, "truncated": truncated, "events": list(events)}

    order = ("closing-order: DESIGN §2 json: a truncated value is closed in stack order, the "
             "innermost container first (seed 002's _fixTruncatedObject counts braces and "
             "brackets and closes them by kind)")
    out.append(case("y_mc_close_object_in_array", '[{"a": 1',
                    ok('[{"a":1}]', [{"a": 1}], True, [ev_repair("unclosed_container", 8)]),
                    order + ": an object in an array"))
    out.append(case("y_mc_close_array_in_object_in_array", '[{"k": [1, 2',
                    ok('[{"k":[1,2]}]', [{"k": [1, 2]}], True,
                       [ev_repair("unclosed_container", 12)]),
                    order + ": an array in an object in an array"))
    out.append(case("y_mc_close_after_open_string", '{"a": [{"b": "x',
                    ok('{"a":[{"b":"x"}]}', {"a": [{"b": "x"}]}, True,
                       [ev_repair("unclosed_string", 15), ev_repair("unclosed_container", 15)]),
                    order + ", after the open string is closed first"))
    out.append(case("y_mc_close_dangling_key_in_array", '[{"a": [], "b"',
                    ok('[{"a":[],"b":null}]', [{"a": [], "b": None}], True,
                       [ev_repair("unclosed_container", 14), ev_repair("missing_value", 14)]),
                    order + ", after a dangling key is completed with null"))

    snap = ("snapshots-per-feed: DESIGN §2 json and FORMAT.md: incremental mode yields a "
            "snapshot after every feed (compared feed by feed in the streaming sessions and "
            "the recorded chunking); an implementation that sends none, or sends each one a "
            "chunk late, fails")
    inc = {"incremental": True}
    t = '{"city": "Paris", "days": [1, 2]}'
    out.append(case("y_mc_snapshots_tool_arguments", t,
                    ok('{"city":"Paris","days":[1,2]}', {"city": "Paris", "days": [1, 2]}, False),
                    snap + ": tool-call arguments in three deltas", options=inc,
                    chunks=['{"city": "Pa', 'ris", "days": [1', ', 2]}']))
    t = '{"q": [1, {"r": "s'
    out.append(case("y_mc_snapshots_truncated", t,
                    ok('{"q":[1,{"r":"s"}]}', {"q": [1, {"r": "s"}]}, True,
                       [ev_repair("unclosed_string", 18), ev_repair("unclosed_container", 18)]),
                    snap + ": a stream cut off inside a string", options=inc,
                    chunks=['{"q"', ': [1, {', '"r": "s']))
    t = '[true, null, "x"]'
    out.append(case("y_mc_snapshots_token_per_chunk", t,
                    ok('[true,null,"x"]', [True, None, "x"], False),
                    snap + ": one token per chunk", options=inc,
                    chunks=["[", "true", ", ", "null", ", ", '"x"', "]"]))

    cap = ("max-bytes-bytes: DESIGN §1 counting: max_bytes bounds memory and counts input "
           "bytes, not code points; limit at offset max_bytes")
    t = '{"a": "' + "\u00e9" * 4 + '"}'
    out.append(case("n_mc_max_bytes_two_byte_chars", t, {"error": {"code": "limit", "offset": 14}},
                    cap + ": 13 code points, 17 bytes, max_bytes 14", options={"max_bytes": 14}))
    out.append(case("n_mc_max_bytes_cjk", '["\u601d\u8003", "\u4e2d"]',
                    {"error": {"code": "limit", "offset": 12}},
                    cap + ": 11 code points, 17 bytes, max_bytes 12", options={"max_bytes": 12}))
    out.append(case("n_mc_max_bytes_emoji", '"\U0001f914\U0001f914"',
                    {"error": {"code": "limit", "offset": 8}},
                    cap + ": 4 code points, 10 bytes, max_bytes 8", options={"max_bytes": 8}))
    out.append(case("n_mc_max_bytes_inside_a_character", '["ab", "\u00e9\u20ac"]',
                    {"error": {"code": "limit", "offset": 9}},
                    cap + ": byte 9 is the second byte of \u00e9 (12 code points, 15 bytes, "
                    "max_bytes 9)", options={"max_bytes": 9}))
    out.append(case("y_mc_max_bytes_exact_multibyte", t,
                    ok('{"a":"' + "\u00e9" * 4 + '"}', {"a": "\u00e9" * 4}, False),
                    cap + ": the same 17 bytes fit max_bytes 17", options={"max_bytes": 17}))

    utf8 = ("utf8: DESIGN §1 split invariance: a chunk may end inside a UTF-8 character; "
            "the character is whole in the value for every chunking (decoding each chunk on "
            "its own makes U+FFFD)")
    out.append(case("y_mc_utf8_cjk_string", '{"k": "\u601d\u8003"}',
                    ok('{"k":"\u601d\u8003"}', {"k": "\u601d\u8003"}, False), utf8))
    out.append(case("y_mc_utf8_emoji_key", '{"\U0001f914": 1}',
                    ok('{"\U0001f914":1}', {"\U0001f914": 1}, False), utf8 + " (in a key)"))
    out.append(case("y_mc_utf8_truncated_string", '["\u00e9',
                    ok('["\u00e9"]', ["\u00e9"], True,
                       [ev_repair("unclosed_string", 4), ev_repair("unclosed_container", 4)]),
                    utf8 + " (a string cut off after it)"))

    flag = ("truncated-flag: DESIGN §2 json: the truncated flag says the input was cut off "
            "and completed, whatever was completed: a string, a literal, a container")
    out.append(case("y_mc_truncated_top_string", '"hello',
                    ok('"hello"', "hello", True, [ev_repair("unclosed_string", 6)]),
                    flag + ": a string at the top, no container to close"))
    out.append(case("y_mc_truncated_top_string_escape", '"a\\"b',
                    ok('"a\\"b"', 'a"b', True, [ev_repair("unclosed_string", 5)]),
                    flag + ": a string at the top, with an escaped quote"))
    out.append(case("y_mc_truncated_top_string_spaces", '  "x',
                    ok('"x"', "x", True, [ev_repair("unclosed_string", 4)]),
                    flag + ": a string at the top after spaces"))
    out.append(case("y_mc_truncated_top_literal", "tru",
                    ok("true", True, True, [ev_repair("truncated_literal", 0)]),
                    flag + ": a literal at the top"))
    return suite("json", out, options={})


# ------------------------------------------------------------------ sse --

def ev_sse(data, typ="message", eid=""):
    return {"type": "event", "event": typ, "data": data, "id": eid}


def sse_cases():
    out = []
    bom = "\ufeff"
    once = ("bom-once: WHATWG HTML 9.2.6: one U+FEFF is stripped at the start of the stream; "
            "one later, at any chunk, is an ordinary character (the suite's README: a BOM is "
            "the three bytes EF BB BF)")
    out.append(case("y_mc_bom_before_event_field", "data: a\n\n" + bom + "event: x\ndata: b\n\n",
                    {"events": [ev_sse("a"), ev_sse("b")]},
                    once + ": before a later line it makes an unknown field name, so the "
                    "event keeps the type message"))
    out.append(case("y_mc_bom_inside_value", "data: " + bom + "v\n\n",
                    {"events": [ev_sse(bom + "v")]},
                    once + ": inside a value it is data"))
    out.append(case("y_mc_bom_after_cr", "data: a\r" + bom + "data: b\r\r",
                    {"events": [ev_sse("a")]},
                    once + ": after a CR line end, its line is an unknown field"))
    out.append(case("y_mc_bom_in_id", "id: " + bom + "1\ndata: x\n\n",
                    {"events": [ev_sse("x", eid=bom + "1")]},
                    once + ": inside an id it is part of the id"))

    nul = ("id-nul: WHATWG HTML 9.2.6: an id field whose value holds U+0000 NULL is ignored; "
           "the last event id stays")
    out.append(case("y_mc_id_nul_only", "id: \0\ndata: a\n\n", {"events": [ev_sse("a")]},
                    nul + ": a NUL alone"))
    out.append(case("y_mc_id_nul_inside_keeps_last", "id: 7\n\nid: x\0y\ndata: b\n\n",
                    {"events": [ev_sse("b", eid="7")]},
                    nul + ": inside the value; the id of an earlier field stays"))
    out.append(case("y_mc_id_nul_at_end", "id: a\0\ndata: z\n\ndata: w\n\n",
                    {"events": [ev_sse("z"), ev_sse("w")]},
                    nul + ": at the end of the value, for every later event too"))

    digits = ("retry-digits: WHATWG HTML 9.2.6: retry sets the reconnection time only when its "
              "value is ASCII digits (0-9), nothing else; the digits go out as written")
    out.append(case("y_mc_retry_plus_sign", "retry: +100\ndata: a\n\n",
                    {"events": [ev_sse("a")]}, digits + ": a sign is not a digit"))
    out.append(case("y_mc_retry_leading_zeros", "retry: 007\n",
                    {"events": [{"type": "retry", "retry": "007"}]},
                    digits + ": leading zeros are digits, passed on as written"))
    out.append(case("y_mc_retry_underscore", "retry: 1_000\n", {"events": []},
                    digits + ": an underscore between digits (Python's int() takes it)"))
    out.append(case("y_mc_retry_second_space", "retry:  25\n", {"events": []},
                    digits + ": only one space is stripped; the second is no digit"))
    out.append(case("y_mc_retry_arabic_indic_digit", "retry: \u0663\n", {"events": []},
                    digits + ": U+0663 ARABIC-INDIC DIGIT THREE is a digit to Unicode, not to SSE"))

    eof = ("end-of-stream: WHATWG HTML 9.2.6: at the end of the stream an unfinished event is "
           "discarded, never dispatched; a last line without its end goes to dropped (the "
           "suite's README)")
    out.append(case("y_mc_eof_event_type_and_data", "event: done\ndata: x\n",
                    {"events": []}, eof + ": a complete line, no blank line after it"))
    out.append(case("y_mc_eof_two_data_lines", "data: a\n\ndata: b\ndata: c\n",
                    {"events": [ev_sse("a")]}, eof + ": two data lines, no blank line"))
    out.append(case("y_mc_eof_crlf_event", "data: a\r\n\r\ndata: b\r\n",
                    {"events": [ev_sse("a")]}, eof + ": CRLF line ends"))
    out.append(case("y_mc_eof_unfinished_line_with_id", "id: 3\ndata: a\n\ndata: q",
                    {"events": [ev_sse("a", eid="3")], "dropped": "data: q"},
                    eof + ": a last line without its end"))
    return suite("sse", out)


# ------------------------------------------------------------- provider --

@functools.lru_cache(maxsize=None)
def suite_generator(name):
    """A suite's own generator (conformance/suites/NAME/make_cases.py) as a module."""
    path = os.path.join(SUITES, name, "make_cases.py")
    spec = importlib.util.spec_from_file_location(name + "_suite_cases", path)
    mod = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True
    spec.loader.exec_module(mod)
    return mod


def provider_helpers():
    """The stream builders of the provider suite's own generator."""
    return suite_generator("provider")


def channels_of(events, choice=0):
    """The expected answer: choice's channels (the pipeline suite's mapping of the
    provider's deltas), the empty ones left out, and the events."""
    out = {k: v for k, v in suite_generator("pipeline").channels(events, choice).items() if v}
    out["events"] = events
    return out


def provider_cases():
    P = provider_helpers()
    sse, chat, D, F, U, E, END, TC = P.sse, P.chat, P.D, P.F, P.U, P.E, P.END, P.TC
    out = []

    def errchunk(err, choices):
        return {"object": "chat.completion.chunk", "model": "m", "error": err, "choices": choices}

    fin = ("error-finish: the provider suite's README: an error chunk is read to its end; its "
           "choices still finish (OpenRouter sends finish_reason error with the error)")
    two = [{"index": 0, "delta": {}, "finish_reason": "error"},
           {"index": 1, "delta": {}, "finish_reason": "error"}]
    ev = [D("text", "A"), D("text", "x", 1), E("502", "gone"), F("error"), F("error", 1), END(True)]
    out.append(case("y_mc_error_chunk_finishes_two_choices",
                    sse(chat({"content": "A"}), chat({"content": "x"}, index=1),
                        errchunk({"code": 502, "message": "gone"}, two), done=False),
                    channels_of(ev), fin + ": two choices"))
    ev = [E("rate_limited", "slow down"), D("text", "!"), F("length"), END()]
    out.append(case("y_mc_error_chunk_with_content_then_done",
                    sse(errchunk({"code": "rate_limited", "message": "slow down"},
                                 [{"index": 0, "delta": {"content": "!"}, "finish_reason": "length"}])),
                    channels_of(ev), fin + ": content and a finish after the error, then [DONE]"))
    ev = [D("text", "a"), D("text", "b", 1), F("stop"), E("server_error", "boom"), F("error", 1),
          END(True)]
    out.append(case("y_mc_error_chunk_second_choice",
                    sse(chat({"content": "a"}), chat({"content": "b"}, index=1), chat({}, "stop"),
                        errchunk({"type": "server_error", "message": "boom", "code": None},
                                 [{"index": 1, "delta": {}, "finish_reason": "error"}]),
                        done=False),
                    channels_of(ev), fin + ": the error's code null, its type said instead"))

    end = ("end-marker: the provider suite's README: end says truncated false only when the "
           "provider's end marker came ([DONE], message_stop); a finish is no end marker")
    ev = [D("text", "A"), D("text", "x", 1), F("stop"), F("stop", 1), END(True)]
    out.append(case("y_mc_no_done_after_every_choice_finished",
                    sse(chat({"content": "A"}), chat({"content": "x"}, index=1), chat({}, "stop"),
                        chat({}, "stop", index=1), done=False),
                    channels_of(ev), end + ": every choice finished, no [DONE]"))
    usage = {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}
    ev = [D("text", "a"), F("length"), U(usage), END(True)]
    out.append(case("y_mc_no_done_after_usage",
                    sse(chat({"content": "a"}), chat({}, "length"),
                        {"object": "chat.completion.chunk", "choices": [], "usage": usage},
                        done=False),
                    channels_of(ev), end + ": a usage chunk after the finish, no [DONE]"))
    anth = [{"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}]
    ev = [U({"input_tokens": 1}), D("text", "hi"), F("end_turn"), END(True)]
    out.append(case("y_mc_anthropic_stop_reason_without_message_stop",
                    sse(*anth, done=False, events=True), channels_of(ev),
                    end + ": Anthropic's stop_reason, no message_stop"))

    rf = ("reasoning-fields: the provider suite's README: reasoning comes as reasoning_content "
          "(DeepSeek) or reasoning (Groq, OpenRouter, newer vLLM); both are read")
    ev = [D("reasoning", "think"), D("reasoning", "ing"), D("text", "done"), F("stop"), END()]
    out.append(case("y_mc_reasoning_field_then_content",
                    sse(chat({"reasoning": "think"}), chat({"reasoning": "ing"}),
                        chat({"content": "done"}), chat({}, "stop")),
                    channels_of(ev), rf + ": reasoning, then content"))
    ev = [D("reasoning", "why", 1), D("text", "a"), F("stop"), F("stop", 1), END()]
    out.append(case("y_mc_reasoning_field_second_choice",
                    sse(chat({"reasoning": "why"}, index=1), chat({"content": "a"}),
                        chat({}, "stop"), chat({}, "stop", index=1)),
                    channels_of(ev), rf + ": in choice 1"))
    ev = [D("reasoning", "vllm"), F("stop"), END()]
    out.append(case("y_mc_reasoning_field_after_null_reasoning_content",
                    sse(chat({"reasoning_content": None, "reasoning": "vllm"}), chat({}, "stop")),
                    channels_of(ev), rf + ": reasoning_content null, reasoning a string"))

    sig = ("signature: the provider suite's README: Anthropic's signature_delta carries no "
           "thinking text (it checks the thinking, it is not shown)")

    def anthropic(*blocks, stop="end_turn"):
        evs = [{"type": "message_start", "message": {"id": "m"}}]
        for i, (kind, deltas) in enumerate(blocks):
            start = {"type": kind}
            if kind == "tool_use":
                start.update(id="t%d" % i, name="f")
            evs.append({"type": "content_block_start", "index": i, "content_block": start})
            for d in deltas:
                evs.append({"type": "content_block_delta", "index": i, "delta": d})
            evs.append({"type": "content_block_stop", "index": i})
        evs += [{"type": "message_delta", "delta": {"stop_reason": stop}}, {"type": "message_stop"}]
        return sse(*evs, done=False, events=True)

    signature = {"type": "signature_delta", "signature": "EqQBCkYIBxgC"}
    ev = [D("text", "ok"), F("end_turn"), END()]
    out.append(case("y_mc_signature_only_thinking_block",
                    anthropic(("thinking", [signature]), ("text", [{"type": "text_delta", "text": "ok"}])),
                    channels_of(ev), sig + ": a thinking block with a signature and no text"))
    ev = [D("reasoning", "a"), D("reasoning", "b"), D("text", "c"), F("end_turn"), END()]
    out.append(case("y_mc_signature_two_thinking_blocks",
                    anthropic(("thinking", [{"type": "thinking_delta", "thinking": "a"}, signature]),
                              ("thinking", [{"type": "thinking_delta", "thinking": "b"},
                                            {"type": "signature_delta", "signature": "Zm9v"}]),
                              ("text", [{"type": "text_delta", "text": "c"}])),
                    channels_of(ev), sig + ": two thinking blocks, a signature each"))
    ev = [D("reasoning", "plan"), TC(0, "t1", "f"), D("arguments", "{}", index=0),
          F("tool_use"), END()]
    out.append(case("y_mc_signature_before_tool_use",
                    anthropic(("thinking", [{"type": "thinking_delta", "thinking": "plan"}, signature]),
                              ("tool_use", [{"type": "input_json_delta", "partial_json": "{}"}]),
                              stop="tool_use"),
                    channels_of(ev), sig + ": then a tool call"))
    return suite("provider", out)


# ------------------------------------------------------------- pipeline --

def pipeline_cases():
    P = provider_helpers()
    sse, chat, D, F, END, jsonl = P.sse, P.chat, P.D, P.F, P.END, P.jsonl
    out = []
    harm = jsonl({"content": "<|channel|>analysis<|message|>hm<|end|>", "stop": False},
                 {"content": "<|start|>assistant<|channel|>final<|message|>Hi", "stop": True})
    raw = [D("text", "<|channel|>analysis<|message|>hm<|end|>"),
           D("text", "<|start|>assistant<|channel|>final<|message|>Hi"), F(""), END()]
    model = ("harmony-model: DESIGN §2 harmony: harmony is switched on by the model name "
             "llama.cpp/gpt-oss exactly (seed 004), or explicitly; no other name")
    for cid, name in (("y_mc_harmony_off_openai_gpt_oss_120b", "openai/gpt-oss-120b"),
                      ("y_mc_harmony_off_llamacpp_gpt_oss_20b", "llama.cpp/gpt-oss-20b"),
                      ("y_mc_harmony_off_bare_gpt_oss", "gpt-oss"),
                      ("y_mc_harmony_off_ollama_tag", "ollama/gpt-oss:20b")):
        out.append(case(cid, harm, channels_of(raw), model + ": " + name,
                        options={"model": name}))

    off = ("harmony-off: the pipeline suite's README: harmony: false wins over the model name "
           "llama.cpp/gpt-oss")
    think = [{"filter": "think"}]
    out.append(case("y_mc_harmony_false_with_think",
                    jsonl({"content": "<think>a</think><|channel|>final<|message|>b", "stop": True}),
                    channels_of([D("reasoning", "a"), D("text", "<|channel|>final<|message|>b"),
                                 D("markup", "<think></think>"), F(""), END()]),
                    off + ", with a think filter after it",
                    options={"model": "llama.cpp/gpt-oss", "harmony": False, "filters": think}))
    out.append(case("y_mc_harmony_false_openai_stream",
                    sse(chat({"content": "<|channel|>analysis<|message|>x"}),
                        chat({"content": "<|end|>y"}), chat({}, "stop")),
                    channels_of([D("text", "<|channel|>analysis<|message|>x"), D("text", "<|end|>y"),
                                 F("stop"), END()]),
                    off + ", over OpenAI chunks",
                    options={"model": "llama.cpp/gpt-oss", "harmony": False}))
    out.append(case("y_mc_harmony_false_two_choices",
                    sse(chat({"content": "<|channel|>final<|message|>p"}),
                        chat({"content": "<|channel|>analysis<|message|>q"}, index=1),
                        chat({}, "stop"), chat({}, "stop", index=1)),
                    channels_of([D("text", "<|channel|>final<|message|>p"),
                                 D("text", "<|channel|>analysis<|message|>q", 1),
                                 F("stop"), F("stop", 1), END()]),
                    off + ", two choices",
                    options={"model": "llama.cpp/gpt-oss", "harmony": False}))

    shown = ("choice-channels: the pipeline suite's README: the channels show the choice of the "
             "provider's choice option, the others only in the events")
    n2 = sse(chat({"content": "a<think>x</think>b"}), chat({"content": "c<think>y</think>d"}, index=1),
             chat({}, "stop"), chat({}, "stop", index=1))
    ev = [D("reasoning", "x"), D("text", "ab"), D("markup", "<think></think>"),
          D("reasoning", "y", 1), D("text", "cd", 1), D("markup", "<think></think>", 1),
          F("stop"), F("stop", 1), END()]
    out.append(case("y_mc_choice_1_through_think", n2, channels_of(ev, 1), shown + ": choice 1",
                    options={"provider": {"choice": 1}, "filters": think}))
    n3 = sse(chat({"content": "zero"}), chat({"content": "one"}, index=1),
             chat({"content": "two"}, index=2), chat({}, "stop"), chat({}, "stop", index=1),
             chat({}, "stop", index=2))
    ev = [D("text", "zero"), D("text", "one", 1), D("text", "two", 2), F("stop"), F("stop", 1),
          F("stop", 2), END()]
    out.append(case("y_mc_choice_2_of_three", n3, channels_of(ev, 2), shown + ": choice 2 of 3",
                    options={"provider": {"choice": 2}}))
    ev = [D("text", "zero"), D("text", "one", 1), D("text", "two", 2), F("stop"), F("stop", 1),
          F("stop", 2), END()]
    out.append(case("y_mc_choice_1_of_three_named", n3, channels_of(ev, 1),
                    shown + ": choice 1, the provider forced by name too",
                    options={"provider": {"provider": "openai", "choice": 1}}))

    order = ("stage-order: DESIGN §2 pipelines: the filters run in the order given, each fed the "
             "TEXT of the one before")
    mon = {"filter": "monitor", "options": {"max_length": 4}}
    body = jsonl({"content": "<think>abc</think>defgh", "stop": True})
    # a feed's deltas: each filter's own kinds as it releases them (the think filter's
    # reasoning and markup), the monitor's stop where it is raised, then what the last
    # filter released, kind by kind (as stages.json's y_monitor_stops has them)
    ev = [D("reasoning", "abc"), D("markup", "<think></think>"),
          {"type": "stop", "reason": "max_length", "offset": 4}, D("text", "defg"), D("dropped", "h"),
          F(""), END()]
    out.append(case("y_mc_order_think_then_monitor", body, channels_of(ev),
                    order + ": the monitor counts what the think filter shows",
                    options={"filters": think + [mon]}))
    # the think filter holds "<thi" (a tag may still come) until the choice finishes
    ev = [{"type": "stop", "reason": "max_length", "offset": 4},
          D("dropped", "nk>abc</think>defgh"), D("text", "<thi"), F(""), END()]
    out.append(case("y_mc_order_monitor_then_think", body, channels_of(ev),
                    order + ": the think filter sees what the monitor lets through",
                    options={"filters": [mon] + think}))
    outer = {"filter": "think", "options": {"tags": ["a"]}}
    inner = {"filter": "think", "options": {"tags": ["b"]}}
    body = jsonl({"content": "<a><b>x</b></a>y", "stop": True})
    ev = [D("reasoning", "<b>x</b>"), D("text", "y"), D("markup", "<a></a>"), F(""), END()]
    out.append(case("y_mc_order_outer_tag_first", body, channels_of(ev),
                    order + ": the outer block's filter first hides the inner tags whole",
                    options={"filters": [outer, inner]}))
    trim = {"filter": "clean", "options": {"endpoint": {"trimBeginningAndEndLineBreaks": True}}}
    body = jsonl({"content": "<think>p</think>\n\nHello  ", "stop": True})
    ev = [D("reasoning", "p"), D("text", "Hello"), D("markup", "<think></think>"),
          D("dropped", "\n\n"), D("dropped", "  "), F(""), END()]
    out.append(case("y_mc_order_think_then_trim", body, channels_of(ev),
                    order + ": the trim sees the text after the block",
                    options={"filters": think + [trim]}))
    return suite("pipeline", out)


FILES = {"think": think_cases, "harmony": harmony_cases, "monitor": monitor_cases,
         "clean": clean_cases, "json": json_cases, "sse": sse_cases, "provider": provider_cases,
         "pipeline": pipeline_cases}


# ------------------------------------------------------------- checking --

def to_bytes(v):
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, dict):
        if "hex" in v:
            return bytes.fromhex(v["hex"])
        return base64.b64decode(v["b64"])
    return b"".join(to_bytes(x) for x in v)


def field(ans, k):
    if k in ans:
        return ans[k].encode("utf-8")
    if k + "_b64" in ans:
        return base64.b64decode(ans[k + "_b64"])
    return None


def check(sluice, doc):
    """Every case's answer from the reference, compared with its expect."""
    lines = []
    for i, c in enumerate(doc["cases"]):
        data = to_bytes(c["input"])
        req = {"id": i, "filter": c.get("filter", doc["filter"]),
               "options": c.get("options", doc.get("options", {})),
               "chunks_b64": [base64.b64encode(data).decode("ascii")]}
        lines.append(json.dumps(req))
    p = subprocess.run([sluice, "proto"], input=("\n".join(lines) + "\n").encode(),
                       stdout=subprocess.PIPE, check=True)
    bad = 0
    for c, line in zip(doc["cases"], p.stdout.decode().split("\n")):
        ans, exp = json.loads(line), c["expect"]
        why = []
        if "error" in exp:
            err = ans.get("error", {})
            if ans["ok"] or err.get("code") != exp["error"]["code"] or (
                    "offset" in exp["error"] and err.get("offset") != exp["error"]["offset"]):
                why.append("error: expected %s, got %s" % (exp["error"], ans.get("error", "ok")))
        elif not ans["ok"]:
            why.append("failed: %s" % ans["error"])
        else:
            for k in ("text", "thought", "other", "markup", "dropped"):
                want = to_bytes(exp.get(k, ""))
                if field(ans, k) != want:
                    why.append("%s: expected %r, got %r" % (k, want, field(ans, k)))
            # snapshots are compared feed by feed by the runner, not listed in a case
            evs = [dict(e) for e in ans["events"] if e.get("type") != "snapshot"]
            for e in evs:
                for k in ("text", "data"):
                    if k + "_b64" in e:
                        e[k] = base64.b64decode(e.pop(k + "_b64")).decode("utf-8", "replace")
            if evs != exp.get("events", []):
                why.append("events: expected %s, got %s" % (exp.get("events", []), evs))
            for k in ("value", "truncated"):
                if k in exp and ans.get(k) != exp[k]:
                    why.append("%s: expected %s, got %s" % (k, exp[k], ans.get(k)))
        if why:
            bad += 1
            print("%s/%s:\n  %s" % (doc["filter"], c["id"], "\n  ".join(why)), file=sys.stderr)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--check", action="store_true", help="compare the files, do not write")
    args = ap.parse_args()
    bad = 0
    with open(os.path.join(HERE, "mutants.json"), encoding="utf-8") as f:
        classes = {mu["class"] for mu in json.load(f)["mutants"]}
    for name, make in FILES.items():
        doc = make()
        ids = [c["id"] for c in doc["cases"]]
        assert len(ids) == len(set(ids)), name
        for c in doc["cases"]:
            cls = c["source"][len("mutation class "):].split(":")[0]
            if cls not in classes:
                print("%s/%s: no mutant of class %s" % (name, c["id"], cls), file=sys.stderr)
                bad += 1
        n = check(args.sluice, doc)
        bad += n
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        path = os.path.join(SUITES, name, "mutation-classes.json")
        if args.check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    print("%s is not what make_cases.py writes" % path, file=sys.stderr)
                    bad += 1
        elif not n:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print("%s: %d cases%s" % (path, len(ids), ", %d disagree" % n if n else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
