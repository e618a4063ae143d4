"""A JSON repairer for one part of DESIGN.md §2 json, written again in Python,
with one known bug switched on by name: a mutant for the conformance suites
(without a name: the control, which must pass every case it does not skip).

    python3 json_subset.py [BUG]

The part it implements: a JSON value, possibly cut off anywhere but inside an
escape, a number or a literal, with trailing commas; JSON whitespace around
it. Every repair of that part is DESIGN's: the string closed first, a dangling
key or colon completed with null, a dangling comma dropped, the containers
closed in stack order, each repair an event at its input byte. Anything else
(prose, fences, comments, quotes of other kinds, bad escapes, invalid UTF-8,
options) it answers "unsupported", so such cases are skipped, never failed.
It sends everything at the end of the stream (run with --latency off).
"""
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import FilterError, Unsupported  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = ("close-counting", "utf8-replace", "drop-dangling-key", "string-left-open",
        "truncated-on-close")

WS = " \t\n\r"
ESCAPES = '"\\/bfnrt'
HEX = "0123456789abcdefABCDEF"
CLOSER = {"{": "}", "[": "]"}
# What the parser expects next: the top-level value; the first element or the
# closer after { or [; a comma or a closer after an element; an object's key
# after a comma; an array's element after a comma; a colon; an object's value.
TOP, FIRST, AFTER, OBJ_KEY, ARR_VAL, COLON, OBJ_VAL = (
    "top", "first", "after", "obj_key", "arr_val", "colon", "obj_val")


class Cut(Exception):
    """The input ended inside the value."""


class Parser:
    def __init__(self, s, bug):
        self.s, self.bug = s, bug
        self.cum = [0]  # byte offset of each character
        for ch in s:
            self.cum.append(self.cum[-1] + len(ch.encode("utf-8", "surrogateescape")))
        self.i = 0
        self.out = []
        self.events = []
        self.stack = []  # "{" or "["

    def at(self, i):
        return self.cum[i]

    def repair(self, kind, i):
        self.events.append({"type": "repair", "kind": kind, "offset": self.at(i)})

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else None

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in WS:
            self.i += 1

    def string(self, key=False):
        """A string from its opening quote; raises Cut at the end of the input.
        A key with U+0000 is not this model's part: the filter keeps it and
        marks the text unloadable (jansson keeps keys as C strings)."""
        s, i = self.s, self.i + 1
        while True:
            if i >= len(s):
                if not key and self.stack and s[self.i + 1:i].rstrip(WS)[-1:] in ("}", "]"):
                    # issue 27: the filter may read a missing quote before it
                    raise Unsupported("a cut string that ends in a closer")
                self.out.append(s[self.i:i])
                self.i = i
                raise Cut("string")
            c = s[i]
            if c == '"':
                self.out.append(s[self.i:i + 1])
                self.i = i + 1
                return
            if c == "\\":
                if i + 1 >= len(s):
                    raise Unsupported("a cut escape")
                e = s[i + 1]
                if e == "u":
                    h = s[i + 2:i + 6]
                    if len(h) < 4 or any(x not in HEX for x in h):
                        raise Unsupported("a cut or bad \\u escape")
                    cp = int(h, 16)
                    if key and cp == 0:
                        raise Unsupported("U+0000 in an object key (marked unloadable)")
                    if 0xD800 <= cp <= 0xDBFF:
                        low = s[i + 6:i + 12]
                        if not (low[:2] == "\\u" and len(low) == 6
                                and all(x in HEX for x in low[2:])
                                and 0xDC00 <= int(low[2:], 16) <= 0xDFFF):
                            raise Unsupported("a lone surrogate")
                        i += 12
                        continue
                    if 0xDC00 <= cp <= 0xDFFF:
                        raise Unsupported("a lone surrogate")
                    i += 6
                    continue
                if e not in ESCAPES:
                    raise Unsupported("an invalid escape")
                i += 2
                continue
            if ord(c) < 0x20 or 0xD800 <= ord(c) <= 0xDFFF:
                raise Unsupported("a control character or invalid UTF-8 in a string")
            i += 1

    def scalar(self):
        s, i = self.s, self.i
        for lit in ("true", "false", "null"):
            if s.startswith(lit, i):
                self.out.append(lit)
                self.i = i + len(lit)
                return
            if lit.startswith(s[i:]):
                raise Unsupported("a cut literal")

        def digits(j):
            """The end of one or more ASCII digits from j."""
            k = j
            while k < len(s) and "0" <= s[k] <= "9":
                k += 1
            if k == j:
                raise Unsupported("a cut or bad number")
            return k

        j = i + 1 if s[i:i + 1] == "-" else i
        if s[j:j + 1] == "0":
            j += 1
        elif s[j:j + 1].isdigit() and s[j].isascii():
            j = digits(j)
        else:
            raise Unsupported("not a JSON value")
        if s[j:j + 1] == ".":
            j = digits(j + 1)
        if s[j:j + 1] in ("e", "E"):
            j += 1
            if s[j:j + 1] in ("+", "-"):
                j += 1
            j = digits(j)
        if j < len(s) and (s[j].isdigit() or s[j] in ".eE"):
            raise Unsupported("a number with a leading zero")
        self.out.append(s[i:j])
        self.i = j

    def value(self):
        c = self.peek()
        if c == '"':
            self.string()
        elif c in ("{", "["):
            self.stack.append(c)
            if len(self.stack) > 64:
                raise Unsupported("deep nesting")
            self.out.append(c)
            self.i += 1
        else:
            self.scalar()

    def parse(self):
        """The repaired text, the events and whether the input was cut."""
        s = self.s
        self.ws()
        if self.i >= len(s):
            raise FilterError("empty", "the input is empty or only whitespace", self.at(len(s)))
        if s[self.i] not in '{["':
            self.scalar()  # a bare number or literal: all of the input
            self.ws()
            if self.i < len(s):
                raise Unsupported("text after a bare value")
            return "".join(self.out), self.events, False
        state, key, comma = TOP, False, None  # comma: a comma not yet followed by an element
        try:
            while True:
                self.ws()
                if self.i >= len(s):
                    raise Cut(state)
                c, top = s[self.i], self.stack[-1] if self.stack else None
                if state in (FIRST, AFTER, OBJ_KEY, ARR_VAL) and c == CLOSER.get(top):
                    if comma is not None:
                        self.repair("trailing_comma", comma)
                        comma = None
                    self.stack.pop()
                    self.out.append(c)
                    self.i += 1
                    if not self.stack:
                        break
                    state = AFTER
                elif state == AFTER:
                    if c != ",":
                        raise Unsupported("not the JSON subset this repairer knows")
                    comma = self.i
                    self.i += 1
                    state = OBJ_KEY if top == "{" else ARR_VAL
                elif state == COLON:
                    if c != ":":
                        raise Unsupported("a missing colon")
                    self.out.append(":")
                    self.i += 1
                    state = OBJ_VAL
                else:
                    if comma is not None:
                        self.out.append(",")
                        comma = None
                    if top == "{" and state in (FIRST, OBJ_KEY):
                        if c != '"':
                            raise Unsupported("an unquoted key")
                        key = True
                        self.string(key=True)
                        state = COLON
                        continue
                    key = False
                    depth = len(self.stack)
                    self.value()
                    if len(self.stack) > depth:
                        state = FIRST
                    elif not self.stack:
                        break
                    else:
                        state = AFTER
        except Cut as cut:
            return self.close(str(cut), key, comma)
        self.ws()
        if self.i < len(s):
            raise Unsupported("text after the value")
        return "".join(self.out), self.events, False

    def close(self, where, key, comma):
        end = len(self.s)
        if where == "string":
            if self.bug != "string-left-open":
                self.out.append('"')
            self.repair("unclosed_string", end)
            if not self.stack:
                # the bug: truncated is said only when a container closes
                return "".join(self.out), self.events, self.bug != "truncated-on-close"
            if key:
                where = COLON
        dangling = where in (COLON, OBJ_VAL)
        if dangling and self.bug == "drop-dangling-key":
            # untruncate-json: a key without a value goes, with its comma
            if self.out[-1] == ":":
                self.out.pop()
            if self.out[-1] == '"':
                self.out.pop()  # the quote that closed a cut key
            self.out.pop()
            if self.out[-1] == ",":
                self.out.pop()
            dangling = False
        elif dangling:
            self.out.append(":null" if where == COLON else "null")
        self.repair("unclosed_container", end)
        if dangling:
            self.repair("missing_value", end)
        if comma is not None:
            self.repair("trailing_comma", comma)
        if self.bug == "close-counting":
            # seed 002's _fixTruncatedObject: count what is open, then close
            # all the arrays, then all the objects
            self.out.append("]" * self.stack.count("[") + "}" * self.stack.count("{"))
        else:
            self.out.append("".join(CLOSER[c] for c in reversed(self.stack)))
        return "".join(self.out), self.events, True


def finite(x):
    v = float(x)
    if v in (float("inf"), float("-inf")):
        raise Unsupported("a number past a double's range")
    return v


def int64(x):
    v = int(x)
    if not -2 ** 63 <= v < 2 ** 63:
        raise Unsupported("an integer past 64 bits")
    return v


class Repairer:
    def __init__(self, options, bug=None):
        if options:
            raise Unsupported("no options here")
        self.bug = bug
        self.binary = bug == "utf8-replace"
        self.buf = ""

    def feed(self, text):
        if self.binary:  # each chunk decoded on its own
            text = bytes(text).decode("utf-8", "replace")
        self.buf += text
        return {}

    def finish(self):
        text, events, cut = Parser(self.buf, self.bug).parse()
        try:
            value = json.loads(text, parse_float=finite, parse_int=int64)
        except ValueError:
            raise FilterError("invalid_json", "the repaired text is not JSON: %s" % text,
                              len(self.buf.encode("utf-8", "surrogateescape")))
        out = {"text": text, "events": events, "value": value, "truncated": cut}
        if self.binary:
            out["text"] = text.encode("utf-8")
        return out


if __name__ == "__main__":
    sys.exit(mutant.main("json", BUGS, Repairer))
