#!/usr/bin/env python3
"""Writes the monitor's golden suites (the *.json files beside this script).

The inputs are long (hundreds to thousands of code points), so they are built
here rather than typed. Every expected verdict is stated by hand from the rule
it tests (the band cases: "stop at n" at the threshold, "none" one short) and
checked against model(), DESIGN §2's monitor written out literally; the
false-positive probes take the model's verdict, which is the point of them.
Run it from anywhere: python3 gen_cases.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CUR = [340, 170, 114, 86, 69, 58, 50, 44, 40, 36, 33, 31, 29, 27, 26, 25, 24, 23, 22, 21]


def reps(current, L):
    if current:
        return CUR[L - 1] if L <= 20 else 20
    return (100 + 8 * (L - 1)) // L if L <= 30 else 10


def match(s, L, r, quasi):
    n = len(s)
    p = s[n - L:]
    if not quasi:
        return r * L <= n and s.endswith(p * r)
    count, pos = 1, n - L
    while count < r and pos > 0:
        q = s.rfind(p, 0, pos)
        if q < 0 or pos - (q + L) >= L:
            break
        count, pos = count + 1, q
    return count >= r


def detect(s, current, quasi):
    n = len(s)
    thr = n // 10
    for L in range(1, min(10, thr) + 1):
        if L * reps(current, L) > n:
            break
        if match(s, L, reps(current, L), quasi):
            return True
    if thr <= 10:
        return False
    m = s[n - 10:]
    for pos in range(n - 11, max(0, n - 10 - thr) - 1, -1):
        if s[pos:pos + 10] == m and match(s, n - pos - 10, reps(current, n - pos - 10), quasi):
            return True
    return False


def ws(s, weighted):
    t = s.rstrip()  # Python's str.isspace() set, as DESIGN §1
    tail = s[len(t):]
    if not weighted:
        return len(tail)
    w = 0
    for i, c in enumerate(tail):
        if c == "\n":
            w += 0 if i > 0 and tail[i - 1] == "\r" else 8
        elif c == "\r":
            w += 8
        elif c == "\t":
            w += 4
        else:
            w += 1
    return w


def model(s, opts):
    """(reason, offset) or None, over the code points of s."""
    current = opts.get("profile") == "current"
    quasi = opts.get("quasi", current)
    weighted = opts.get("weighted", current)
    wthr = opts.get("whitespace_threshold") or (512 if current else 128)
    wsi = opts.get("whitespace_interval", 128)
    rpi = opts.get("repetition_interval", 512)
    maxlen = opts.get("max_length", 0)
    for p in range(1, len(s) + 1):
        if maxlen and p == maxlen:
            return ("max_length", p)
        if wsi and p % wsi == 0 and ws(s[:p], weighted) >= wthr:
            return ("whitespace", p)
        if rpi and p % rpi == 0 and detect(s[:p], current, quasi):
            return ("repetition", p)
    return None


class Rand:
    def __init__(self, seed):
        self.x = seed

    def __call__(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.x >> 33) % n


def filler(n, seed, alphabet="abcdefghijklmnopqrstuvwxyz"):
    r = Rand(seed)
    return "".join(alphabet[r(len(alphabet))] for _ in range(n))


def case(cid, text, opts, expect, source, note=None):
    got = model(text, opts)
    assert got == expect, (cid, got, expect)
    ex = {"text": text if not expect else text[:expect[1]]}
    if expect:
        ex["dropped"] = text[expect[1]:]
        ex["events"] = [{"type": "stop", "reason": expect[0], "offset": expect[1]}]
    for k in list(ex):
        if ex[k] == "":
            del ex[k]
    c = {"id": cid, "input": text, "options": opts, "expect": ex, "source": source}
    if note:
        c["note"] = note
    return c


def write(name, cases, about):
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
        json.dump({"filter": "monitor", "cases": cases}, f, indent=1,
                  ensure_ascii=False)
        f.write("\n")
    return len(cases)


total = 0
# ---- repetition bands: each table region at the threshold and one short ----
bands = []
for prof in ("seed", "current"):
    cur = prof == "current"
    for L in (1, 2, 3, 5, 7, 10, 11, 15, 20, 21, 30, 31, 64, 100):
        r = reps(cur, L)
        P = filler(L, 1000 + L, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for short in (0, 1):
            k = r - short
            n = max(r * L + 20, 10 * L + 10, 120)
            text = filler(n - k * L, 7 + L) + P * k
            opts = {"profile": prof, "repetition_interval": n}
            exp = None if short else ("repetition", n)
            tag = "short" if short else "at"
            phase = "phase 1" if L <= 10 else "phase 2"
            bands.append(case(
                f"y_band_{prof}_L{L}_{tag}_threshold", text, opts, exp,
                f"DESIGN §2 monitor, profile {prof}: reps({L}) = {r} ({phase}); "
                + ("exactly reps copies fire" if not short else "one copy short does not fire"),
                note=f"{k} copies of a {L}-code-point block after {n - k * L} code points of "
                     f"filler; one check, at p = {n}"))
total += write("bands", bands, "repetition thresholds of both profiles, each table region")

# ---- phase 2 marker search, quasi repeats ----
p2 = []
C = "0123456789ABCDEFGHIJ0123456789"  # the marker (last 10) also occurs inside C
t = filler(120, 3) + C * 11
p2.append(case("y_phase2_marker_inside_period", t, {"repetition_interval": len(t)},
               ("repetition", len(t)),
               "DESIGN §2 phase 2: the nearest earlier marker gives C of 20 (no repeat); the next "
               "one, 30 back, gives the repeating C (seed reps(30) = 11)"))
t = filler(120, 4) + C * 10
p2.append(case("y_phase2_marker_inside_period_short", t, {"repetition_interval": len(t)}, None,
               "DESIGN §2 phase 2: ten copies of a 30-code-point block are one short of reps(30) = 11"))
t = filler(400, 5) + ("[marker01]" + "q") * 2
p2.append(case("y_phase2_marker_twice_no_repeat", t,
               {"repetition_interval": len(t)}, None,
               "DESIGN §2 phase 2: a marker that recurs without enough repeats does not fire"))
adv = "".join("[marker01]" + filler(10, 100 + i) for i in range(60))
p2.append(case("y_phase2_adversarial_marker_every_20", adv, {}, None,
               "DESIGN §2: the adversary of the original (10-character marker every 20), 1200 code "
               "points, checks at 512 and 1024 find no repeat"))
p2.append(case("y_phase2_adversarial_marker_every_20_current", adv, {"profile": "current"}, None,
               "DESIGN §2: the same adversary under the current profile (quasi)"))
# quasi: foo1foo2... with pseudo-random digits as gaps (no exact period)
digits = filler(200, 9, "0123456789")
q = "".join("foo" + digits[i] for i in range(113)) + "foo"
p2.append(case("y_quasi_foo_digits_current", q, {"profile": "current", "repetition_interval": len(q)},
               ("repetition", len(q)),
               "SOURCES.md §monitor (llm7shi) 20251207-quasi-repetition: foo1foo2... fires quasi, reps(3) = 114"))
p2.append(case("y_quasi_foo_digits_seed", q, {"repetition_interval": len(q)}, None,
               "DESIGN §2 profile seed: exact matching only; foo1foo2... does not fire"))
q2 = "".join("foo" + digits[i] for i in range(112)) + "foo"
p2.append(case("y_quasi_foo_digits_one_short", q2, {"profile": "current", "repetition_interval": len(q2)},
               None, "DESIGN §2 quasi: 113 copies are one short of reps(3) = 114"))
q3 = "".join("foo" + digits[i] for i in range(60)) + "foo+++" + "".join("foo" + digits[i] for i in range(60)) + "foo"
p2.append(case("y_quasi_gap_equal_to_pattern_breaks", q3, {"profile": "current", "repetition_interval": len(q3)},
               None, "DESIGN §2 quasi: a gap as long as the pattern ('+++' after foo) breaks the chain"))
Cq = "The quick brown fox jumps"  # 25 code points
gaps = filler(40, 11, "0123456789!?")
body = "".join(Cq + gaps[i:i + 1 + (i % 3)] for i in range(18)) + Cq + Cq
pre = filler(300, 12)
t = pre + body
p2.append(case("y_quasi_phase2_long_pattern_current", t, {"profile": "current", "repetition_interval": len(t)},
               ("repetition", len(t)),
               "DESIGN §2 phase 2 with quasi matching: 20 copies of a 25-code-point sentence, gaps of 1 "
               "to 3, the last two adjacent (reps(25) = 20)"))
p2.append(case("y_quasi_phase2_long_pattern_seed", t, {"repetition_interval": len(t)}, None,
               "DESIGN §2 profile seed: the same text, exact matching, does not fire"))
body = "".join(Cq + gaps[i:i + 1 + (i % 3)] for i in range(17)) + Cq + Cq
t = pre + body
p2.append(case("y_quasi_phase2_long_pattern_one_short", t, {"profile": "current", "repetition_interval": len(t)},
               None, "DESIGN §2 quasi: 19 copies, one short of reps(25) = 20"))
p2.append(case("y_quasi_option_on_seed", q, {"quasi": True, "repetition_interval": len(q)},
               ("repetition", len(q)),
               "design decision: quasi is an option; the seed table reps(3) = 38 with quasi matching"))
p2.append(case("y_quasi_option_off_current", q, {"profile": "current", "quasi": False,
                                                 "repetition_interval": len(q)}, None,
               "design decision: quasi can be turned off in the current profile"))
t = filler(600, 14) + "xy" * 60
p2.append(case("y_checkpoint_default_512", t, {}, None,
               "DESIGN §2: repetition is checked only at multiples of 512; at 512 the text was "
               "filler, and the repeat ends at 720 between checkpoints (SOURCES.md §monitor: loops that finish "
               "between checkpoints are missed)"))
t = filler(450, 15) + "xy" * 100
p2.append(case("y_checkpoint_default_512_fires", filler(300, 15) + "xy" * 150, {},
               ("repetition", 512),
               "DESIGN §2: at p = 512 the text ends with 106 copies of 'xy' (reps(2) = 54); TEXT is "
               "cut at 512, the rest DROPPED"))
total += write("phase2_quasi", p2, "the phase-2 marker search and quasi repeats")

# ---- whitespace ----
W = []
kinds = [("space", " "), ("tab", "\t"), ("newline", "\n"), ("cr", "\r"), ("vt", "\x0b"),
         ("ff", "\x0c"), ("fs", "\x1c"), ("nel", "\x85"), ("nbsp", "\xa0"),
         ("ideographic", "\u3000"), ("line_sep", "\u2028"), ("thin", "\u2009")]
for name, ch in kinds:
    W.append(case(f"y_ws_seed_{name}_128", ch * 128 + "tail", {}, ("whitespace", 128),
                  f"DESIGN §2 profile seed: trailing whitespace of 128 code points stops at a 128 "
                  f"checkpoint, whatever its kind (U+{ord(ch):04X}, Python str.isspace)"))
W.append(case("y_ws_seed_127_short", "x" + " " * 127 + "y", {}, None,
              "DESIGN §2 profile seed: 127 trailing spaces at p = 128 are one short"))
W.append(case("y_ws_seed_not_at_checkpoint", "x" * 10 + " " * 200, {}, None,
              "DESIGN §2: whitespace is checked only at multiples of 128 (118 trailing at 128, "
              "and the stream ends at 210)"))
W.append(case("y_ws_seed_second_checkpoint", "x" * 100 + " " * 200, {}, ("whitespace", 256),
              "DESIGN §2: at 128 only 28 trailing, at 256 there are 156"))
for name, unit, w in (("newline", "\n", 8), ("tab", "\t", 4), ("crlf", "\r\n", 8), ("cr", "\r", 8),
                      ("space", " ", 1), ("ideographic", "\u3000", 1)):
    k = 512 // w
    cps = k * len(unit)
    p = -(-cps // 128) * 128
    text = "x" * (p - cps) + unit * k + "end"
    W.append(case(f"y_ws_current_{name}_weight_{w}", text, {"profile": "current", "repetition_interval": 0}, ("whitespace", p),
                  f"DESIGN §2 profile current: {name} weighs {w}; {k} of them reach 512 at p = {p}"))
    text = "x" * (p - cps + len(unit)) + unit * (k - 1) + "end"
    W.append(case(f"y_ws_current_{name}_one_short", text, {"profile": "current", "repetition_interval": 0}, None,
                  f"DESIGN §2 profile current: {k - 1} x {name} weigh {512 - w}, one short "
                  "(repetition checks off to isolate the rule)"))
W.append(case("y_ws_current_cr_at_checkpoint_then_lf", "x" * 64 + "\n" * 63 + "\r\n" + "z",
              {"profile": "current"}, ("whitespace", 128),
              "DESIGN §2: at p = 128 the text ends with a lone \\r (its \\n comes after the "
              "checkpoint): 63*8 + 8 = 512"))
W.append(case("y_ws_current_mixed", "x" * 29 + "\n" * 50 + "\t" * 25 + " " * 12 + "\r\n" * 6 + "e",
              {"profile": "current"}, ("whitespace", 128),
              "DESIGN §2 profile current: at p = 128 the trailing run weighs 50*8 + 25*4 + 12 + 6*8 = 560"))
W.append(case("y_ws_seed_vs_current_spaces", "x" + " " * 300, {"profile": "current"}, None,
              "DESIGN §2: 300 spaces weigh 300 < 512 (the seed profile stops at 128)"))
W.append(case("y_ws_seed_same_spaces", "x" + " " * 300, {}, ("whitespace", 256),
              "DESIGN §2 profile seed: at 128 there are 127 trailing spaces, at 256 there are 255"))
W.append(case("y_ws_threshold_option", "x" * 120 + " " * 8 + "y", {"whitespace_threshold": 8},
              ("whitespace", 128), "design decision: the whitespace threshold is an option"))
W.append(case("y_ws_interval_option", "x" * 10 + " " * 128 + "y", {"whitespace_interval": 2},
              ("whitespace", 138), "design decision: the whitespace interval is an option"))
W.append(case("y_ws_off", " " * 300, {"whitespace_interval": 0, "repetition_interval": 0}, None,
              "design decision: interval 0 turns a check off"))
W.append(case("y_ws_weighted_option_on_seed", "x" * 112 + "\n" * 16 + "y", {"weighted": True},
              ("whitespace", 128), "design decision: weighting is an option; 16 newlines weigh 128"))
total += write("whitespace", W, "trailing whitespace: every kind and weight, both profiles")

# ---- length, code points, order of the rules ----
Lc = []
Lc.append(case("y_maxlen_multibyte", "héllo wörld", {"max_length": 5}, ("max_length", 5),
               "DESIGN §2: max_length counts code points; TEXT is the first 5"))
Lc.append(case("y_maxlen_equal_to_input", "abc", {"max_length": 3}, ("max_length", 3),
               "DESIGN §2: p equals max_length at the last code point"))
Lc.append(case("y_maxlen_longer_than_input", "abc", {"max_length": 4}, None,
               "DESIGN §2: a stream shorter than max_length is not stopped"))
Lc.append(case("y_maxlen_emoji", "🙂🙃🙂", {"max_length": 1}, ("max_length", 1),
               "DESIGN §1 counting: a 4-byte sequence is one code point"))
Lc.append(case("y_maxlen_zero_is_none", "abc", {"max_length": 0}, None,
               "design decision: max_length 0 means no limit"))
Lc.append(case("y_maxlen_before_whitespace", " " * 200, {"max_length": 128}, ("max_length", 128),
               "DESIGN §2: rule order at one position: max_length before whitespace"))
Lc.append(case("y_whitespace_before_repetition", " " * 600, {"profile": "current"},
               ("whitespace", 512),
               "DESIGN §2: rule order: at p = 512, 512 spaces weigh 512 (whitespace) and are also "
               "340 repeats of ' ' (repetition); whitespace is checked first"))
Lc.append(case("y_utf8_a340_current", "あ" * 340 + "い", {"profile": "current", "repetition_interval": 340},
               ("repetition", 340),
               "SOURCES.md §monitor: counting in code points, あ x 340 fires reps(1) = 340 (on bytes it "
               "would not)"))
Lc.append(case("y_utf8_a339_current", "い" + "あ" * 339, {"profile": "current", "repetition_interval": 340},
               None, "DESIGN §2 profile current: 339 copies are one short"))
Lc.append(case("y_utf8_a339_seed", "い" + "あ" * 339, {"repetition_interval": 340}, ("repetition", 340),
               "DESIGN §2 profile seed: reps(1) = 100"))
Lc.append(case("y_utf8_text_cut_in_code_points", "é" * 600, {}, ("repetition", 512),
               "DESIGN §2: the stop offset is in code points and TEXT is cut after the 512th é "
               "(1024 bytes)"))
total += write("length", Lc, "max_length, code-point counting, the order of the rules")

# invalid bytes need byte strings: written by hand
inv = [
    {"id": "y_invalid_byte_counts_one", "input": ["a", {"hex": "ff"}, "bc"], "options": {"max_length": 2},
     "expect": {"text": ["a", {"hex": "ff"}], "dropped": "bc",
                "events": [{"type": "stop", "reason": "max_length", "offset": 2}]},
     "source": "DESIGN §1 counting: an invalid byte is one code point and passes through"},
    {"id": "y_cut_sequence_is_two_code_points", "input": [{"hex": "e2 82"}, "a"], "options": {"max_length": 1},
     "expect": {"text": {"hex": "e2"}, "dropped": [{"hex": "82"}, "a"],
                "events": [{"type": "stop", "reason": "max_length", "offset": 1}]},
     "source": "DESIGN §1 counting: a broken sequence E2 82 is two code points; the cut falls between them"},
    {"id": "y_cut_sequence_at_end", "input": ["ab", {"hex": "f0 9f 99"}], "options": {"max_length": 4},
     "expect": {"text": ["ab", {"hex": "f0 9f"}], "dropped": {"hex": "99"},
                "events": [{"type": "stop", "reason": "max_length", "offset": 4}]},
     "source": "DESIGN §1 counting: a sequence cut by the end of the stream is one code point per byte"},
    {"id": "y_hold_back_partial_sequence", "input": "a🙂b", "options": {},
     "expect": {"text": "a🙂b", "max_held": 3},
     "source": "DESIGN §1 latency: the monitor holds back only an incomplete UTF-8 sequence"},
    {"id": "y_empty_input", "input": "", "options": {}, "expect": {},
     "source": "DESIGN §1: empty input, no verdict"},
]
path = os.path.join(HERE, "bytes.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump({"filter": "monitor", "cases": inv}, f, indent=1)
    f.write("\n")
total += len(inv)

# ---- false positives users reported, with each profile's verdict ----
fp = []
def both(cid, text, src, rpi=None):
    for prof in ("seed", "current"):
        opts = {"profile": prof}
        if rpi:
            opts["repetition_interval"] = rpi
        fp.append(case(f"y_fp_{cid}_{prof}", text, opts, model(text, opts),
                       f"{src}; verdict of the {prof} profile by DESIGN §2's rules"))
lst = "".join(f"{i}. item\n" for i in range(1, 51))
both("numbered_list_50", lst, "SOURCES.md §monitor: numbered lists '{i}. item' from 50 items (current fires)", len(lst))
lst = "".join(f"{i}. item\n" for i in range(1, 120))
both("numbered_list_119_default_checkpoints", lst, "SOURCES.md §monitor: a long numbered list at the default checkpoints")
tab = "| # | a | b |\n|---|---|---|\n" + "".join(f"| {i} |   |   |\n" for i in range(1, 37))
both("index_table_36", tab, "SOURCES.md §monitor: index tables '| {i} |   |   |' from 36 rows", len(tab))
code = "    x = x + 1\n" * 27
both("code_lines_27", code, "SOURCES.md §monitor: 27 identical code lines (current fires)", len(code))
code = "    x = x + 1\n" * 14
both("code_lines_14", code, "SOURCES.md §monitor: 14 identical lines (legacy/seed fires)", len(code))
code = "    x = x + 1\n" * 13
both("code_lines_13", code, "SOURCES.md §monitor: 13 identical lines, one under the seed's reps(14) = 14", len(code))
sep = "intro\n" + "-" * 340
both("separator_340", sep, "SOURCES.md §monitor: a separator of 340 '-' (current fires)", len(sep))
sep = "intro\n" + "-" * 120
both("separator_120", sep, "SOURCES.md §monitor: a markdown rule of 120 '-' (seed reps(1) = 100)", len(sep))
dots = "Wait" + "." * 120
both("ellipsis_run", dots, "vLLM PR #40097 review: '...' runs trigger low repeat counts", len(dots))
steps = "".join(f"step number {i}.\n" for i in range(1, 60))
both("counter_lines", steps, "SOURCES.md §monitor false negative: a counter at the end of each line", len(steps))
total += write("false_positives", fp, "reported false positives and negatives, both profiles")

# ---- the detector's shortcuts, at every checkpoint (repetition_interval 1) ----
# The detector skips lengths whose copy cannot end where it must (masks of
# the last 20 distances), compares a run of one code point once for every
# length, and looks for quasi copies by the code point before C's trailing
# run. Each verdict is the rule's; the cases pin them at every position.
EV = {"repetition_interval": 1, "whitespace_interval": 0}
dp = []
# seed profile, exact: L = 1 needs 100 copies
dp.append(case("y_run_one_code_point", "." * 100, dict(EV), ("repetition", 100),
               "DESIGN §2 phase 1: a run of one code point, L = 1, r = 100"))
dp.append(case("y_run_one_code_point_short", "." * 99, dict(EV), None,
               "DESIGN §2 phase 1: one copy short of r = 100"))
# current profile, quasi: C = "xy-----" (L = 7, a trailing run of 5 inside C), r = 50
unit = "xy-----"
dp.append(case("y_quasi_trailing_run_in_c", unit * 50, dict(EV, profile="current"),
               ("repetition", 350), "DESIGN §2 phase 1 quasi: C ends with a run; 50 copies of L = 7"))
dp.append(case("y_quasi_trailing_run_in_c_short", (unit * 50)[:-1], dict(EV, profile="current"),
               None, "DESIGN §2 phase 1 quasi: the 50th copy one code point short"))
# the same copies with a one-code-point gap between them (shorter than L): quasi copies
gap = "".join(unit + "z" for _ in range(68)) + unit
dp.append(case("y_quasi_gaps_trailing_run", gap, dict(EV, profile="current", quasi=True,
               repetition_interval=len(gap)), ("repetition", len(gap)),
               "DESIGN §2 quasi: copies of a C ending in a run, one code point apart"))
# text that never loops: every length ruled out at every checkpoint
calm = filler(400, 31)
dp.append(case("y_no_loop_every_checkpoint", calm, dict(EV, profile="current"), None,
               "DESIGN §2: no repeat in text that does not loop, at every checkpoint"))
total += write("detector_paths", dp, "the detector's shortcuts at every checkpoint")

# ---- options ----
opts_cases = [
    {"id": "n_option_profile_value", "input": "x", "options": {"profile": "legacy"},
     "expect": {"error": {"code": "bad_option"}}, "source": "DESIGN §1: bad option values are reported"},
    {"id": "n_option_unknown_key", "input": "x", "options": {"interval": 5},
     "expect": {"error": {"code": "bad_option"}}, "source": "DESIGN §1: unknown option keys are reported"},
    {"id": "n_option_negative", "input": "x", "options": {"max_length": -1},
     "expect": {"error": {"code": "bad_option"}}, "source": "DESIGN §1: wrong option types are reported"},
    {"id": "n_max_history", "input": "a" * 300, "options": {"max_history": 100},
     "expect": {"error": {"code": "limit", "offset": 100}},
     "source": "DESIGN §1 memory: the monitor's history cap fails cleanly with limit, at the "
               "code point that does not fit (fuzz_monitor found the offset was the chunk's start)"},
    {"id": "n_max_history_multibyte", "input": "\u00e9" * 150, "options": {"max_history": 100},
     "expect": {"error": {"code": "limit", "offset": 200}},
     "source": "DESIGN §1: the offset is in bytes: the 101st code point starts at byte 200"},
]
with open(os.path.join(HERE, "options.json"), "w", encoding="utf-8") as f:
    json.dump({"filter": "monitor", "cases": opts_cases}, f, indent=1)
    f.write("\n")
total += len(opts_cases)
print(total, "cases")
