"""The stream monitor (DESIGN.md §2, seed 004), written again in Python from the
design (the detector literally, as DESIGN states it), with one known bug
switched on by name: a mutant for the conformance suites (without a name: the
control, which must pass every case).

    python3 monitor.py [BUG]

Positions are code points: the adapter decodes UTF-8 as it arrives, an
invalid byte as one lone surrogate, which is one code point as DESIGN §1
counts it.
"""
import bisect
import itertools
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption, FilterError  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = ("check-per-feed", "crlf-per-chunk", "bytes", "ascii-whitespace", "doc-reps-table",
        "drops-after-stop", "chain-phase2", "hold-until-checkpoint")

CURRENT = (340, 170, 114, 86, 69, 58, 50, 44, 40, 36, 33, 31, 29, 27, 26, 25, 24, 23, 22, 21)
DOC_SEED = {7: 20, 8: 18, 9: 17, 10: 16}  # the 2025-06-29 document's table
KEYS = ("profile", "max_length", "whitespace_interval", "repetition_interval",
        "whitespace_threshold", "quasi", "weighted", "max_history")
ASCII_SPACE = " \t\n\r\x0b\x0c"
WEIGHT = {"\n": 8, "\r": 8, "\t": 4}  # profile current; any other whitespace weighs 1


def nbytes(s):
    return len(s.encode("utf-8", "surrogateescape"))


class Monitor:
    def __init__(self, options, bug=None):
        o = options
        if not isinstance(o, dict):
            raise BadOption("options must be an object")
        for k, v in o.items():
            if k not in KEYS:
                raise BadOption("unknown option %s" % k)
            if k in ("quasi", "weighted"):
                if not isinstance(v, bool):
                    raise BadOption("%s must be a boolean" % k)
            elif k == "profile":
                if v not in ("seed", "current"):
                    raise BadOption("profile must be seed or current")
            elif isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise BadOption("%s must be a non-negative integer" % k)
        self.bug = bug
        cur = o.get("profile", "seed") == "current"
        self.current = cur
        self.quasi = o.get("quasi", cur)
        self.weighted = o.get("weighted", cur)
        self.threshold = o.get("whitespace_threshold", 0) or (512 if cur else 128)
        self.wsi = o.get("whitespace_interval", 128)
        self.rpi = o.get("repetition_interval", 512)
        self.max_length = o.get("max_length", 0)
        self.max_history = o.get("max_history", 0)
        self.s = ""  # the stream so far
        self.pos = 0  # its length as positions count (code points; bytes for "bytes")
        self.stopped = False
        self.released = 0  # characters of s released as text
        self.feed_starts = set()  # crlf-per-chunk: where each feed began
        self.next_ws = self.wsi  # check-per-feed: where the next checks are due
        self.next_rep = self.rpi

    # ---- rules ----
    def reps(self, L):
        if self.current:
            return CURRENT[L - 1] if L <= 20 else 20
        if self.bug == "doc-reps-table" and L in DOC_SEED:
            return DOC_SEED[L]
        return (100 + 8 * (L - 1)) // L if L <= 30 else 10

    def match(self, s, L, r):
        """S ends with its last L code points repeated r times: back to back
        (exact), or each copy the nearest before the next with a gap shorter
        than L (quasi)."""
        p = s[len(s) - L:]
        if not self.quasi:
            return r * L <= len(s) and s.endswith(p * r)
        copies, end = 1, len(s) - L  # end: where the earliest copy found starts
        while copies < r:
            before = s.rfind(p, 0, end)
            if before < 0 or end - before - L >= L:
                return False
            copies, end = copies + 1, before
        return True

    def detect(self, s):
        n = len(s)
        thr = n // 10
        for L in range(1, min(10, thr) + 1):
            if L * self.reps(L) > n:
                break
            if self.match(s, L, self.reps(L)):
                return True
        if thr <= 10:
            return False
        m = s[n - 10:]
        low = max(0, n - 10 - thr)
        pos = n - 11
        while pos >= low:
            if s[pos:pos + 10] == m:
                if self.match(s, n - pos - 10, self.reps(n - pos - 10)):
                    return True
                if self.bug == "chain-phase2":
                    pos -= 10  # the original's chain: the next occurrence may not overlap
                    continue
            pos -= 1
        return False

    def is_space(self, c):
        if self.bug == "ascii-whitespace":
            return c in ASCII_SPACE
        return c.isspace()

    def trailing_ws(self, end):
        """The trailing whitespace of s[:end]: its count, or its weight."""
        s, i = self.s, end
        while i > 0 and self.is_space(s[i - 1]):
            i -= 1
        if not self.weighted:
            return end - i
        w = 0
        for j in range(i, end):
            c = s[j]
            after_cr = c == "\n" and j > i and s[j - 1] == "\r"
            if after_cr and self.bug == "crlf-per-chunk" and j in self.feed_starts:
                after_cr = False  # the previous chunk is gone
            w += 0 if after_cr else WEIGHT.get(c, 1)  # \r\n is one line break
        return w

    def verdict(self, due, end):
        """The rule that stops the stream at s[:end], of those due there, or None."""
        if "max_length" in due:
            return "max_length"
        if "whitespace" in due and self.trailing_ws(end) >= self.threshold:
            return "whitespace"
        if "repetition" in due and self.detect(self.s[:end]):
            return "repetition"
        return None

    # ---- feeding ----
    def advance(self, start, text):
        """[(position, end index, rules due)] at the checkpoints text passes,
        in order; moves self.pos past text."""
        lo = self.pos
        if self.bug == "check-per-feed":
            # llm7shi: each call checks at most once per rule, on all it has
            hi, end = lo + len(text), start + len(text)
            out = []
            if self.max_length and lo < self.max_length <= hi:
                out.append((self.max_length, start + self.max_length - lo, {"max_length"}))
            due = set()
            if self.wsi and hi >= self.next_ws:
                self.next_ws += self.wsi
                due.add("whitespace")
            if self.rpi and hi >= self.next_rep:
                self.next_rep += self.rpi
                due.add("repetition")
            if due:
                out.append((hi, end, due))
            self.pos = hi
            return out
        hi = lo + (nbytes(text) if self.bug == "bytes" else len(text))
        ps = set()
        if self.max_length and lo < self.max_length <= hi:
            ps.add(self.max_length)
        for x in (self.wsi, self.rpi):
            if x:
                ps.update(range((lo // x + 1) * x, hi + 1, x))
        cum = None
        if ps and self.bug == "bytes":  # the bytes after each character
            cum = list(itertools.accumulate(nbytes(c) for c in text))
        out = []
        for p in sorted(ps):
            due = {r for r, x in (("whitespace", self.wsi), ("repetition", self.rpi))
                   if x and p % x == 0}
            if p == self.max_length:
                due.add("max_length")
            end = start + (bisect.bisect_left(cum, p - lo) + 1 if cum else p - lo)
            out.append((p, end, due))
        self.pos = hi
        return out

    def feed(self, text):
        out = {"text": "", "dropped": "", "events": []}
        if self.stopped:
            if self.bug != "drops-after-stop":
                out["dropped"] = text
            return out
        start = len(self.s)
        self.feed_starts.add(start)
        self.s += text
        if self.rpi and self.max_history and len(self.s) > self.max_history:
            limit_at = self.max_history  # index of the first character past the cap
        else:
            limit_at = None
        for p, end, due in self.advance(start, text):
            if limit_at is not None and end > limit_at:
                break
            reason = self.verdict(due, end)
            if reason:
                self.stopped = True
                out["text"] = self.s[self.released:end]
                if self.bug != "drops-after-stop":
                    out["dropped"] = self.s[end:]
                out["events"].append({"type": "stop", "reason": reason, "offset": p})
                self.released = len(self.s)
                self.s = ""
                return out
        if limit_at is not None:
            raise FilterError("limit", "the history exceeded max_history",
                              nbytes(self.s[:limit_at]))
        if self.bug == "hold-until-checkpoint":
            # text goes out when a whitespace check has passed over it
            p0 = self.pos - len(text)
            upto = start + (self.pos // self.wsi * self.wsi - p0) if self.wsi else len(self.s)
            upto = max(self.released, min(upto, len(self.s)))
        else:
            upto = len(self.s)
        out["text"] = self.s[self.released:upto]
        self.released = upto
        return out

    def finish(self):
        out = {"text": "" if self.stopped else self.s[self.released:]}
        return out


if __name__ == "__main__":
    sys.exit(mutant.main("monitor", BUGS, Monitor))
