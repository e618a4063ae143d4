"""A small thinking-block filter in Python, served through sluice_adapter:
channel mode with the default tag names, for the think suite. What it does
not implement (options, anchored mode) it answers as unsupported.

    sluice conform --suite think --impl "python3 conformance/adapters/examples/think_filter.py"
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sluice_adapter import serve, Unsupported  # noqa: E402

NAMES = ("thought", "thinking", "think", "reasoning", "reflection")
OPENS = ["<%s>" % n for n in NAMES]


def ascii_lower(s):
    # ASCII only: str.lower() would also fold U+212A KELVIN SIGN to "k"
    return s.translate(_LOWER)


_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class Think:
    def __init__(self, options):
        if options not in ({}, {"mode": "channel"}):
            raise Unsupported("only channel mode with the default tags")
        self.held = ""     # a possible partial tag
        self.inside = None  # the open block's name
        self.hidden = ""   # the open block's text, for its record

    def _candidates(self):
        return ["</%s>" % self.inside] if self.inside else OPENS

    def feed(self, text):
        out = {"text": "", "thought": "", "markup": "", "events": []}
        s, i, start = self.held + text, 0, 0
        self.held = ""
        while i < len(s):
            if s[i] != "<":
                i += 1
                continue
            rest = ascii_lower(s[i:])
            tag = next((t for t in self._candidates() if rest.startswith(t)), None)
            if tag is None:
                if any(t.startswith(rest) for t in self._candidates()):
                    self._route(out, s[start:i])
                    self.held = s[i:]  # may still become a tag
                    return out
                i += 1
                continue
            self._route(out, s[start:i])
            out["markup"] += s[i:i + len(tag)]
            if self.inside:
                out["events"].append({"type": "thought", "tag": self.inside,
                                      "text": self.hidden, "complete": True})
                self.inside, self.hidden = None, ""
            else:
                self.inside = tag[1:-1]
            i = start = i + len(tag)
        self._route(out, s[start:])
        return out

    def _route(self, out, part):
        if self.inside:
            out["thought"] += part
            self.hidden += part
        else:
            out["text"] += part

    def finish(self):
        out = {"text": "", "thought": "", "events": []}
        self._route(out, self.held)  # a partial tag at the end is content
        if self.inside:
            out["events"].append({"type": "thought", "tag": self.inside,
                                  "text": self.hidden, "complete": False})
        return out


serve({"think": Think})
