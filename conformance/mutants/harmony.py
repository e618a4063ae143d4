"""The harmony filter (DESIGN.md §2, gpt-oss), written again in Python from the
design, with one known bug switched on by name: a mutant for the conformance
suites (without a name: the control, which must pass every case).

    python3 harmony.py [BUG]

It works on bytes (tokens are exact bytes, the header bound counts bytes).
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import mutant  # noqa: E402  (the adapter on the path)
from sluice_adapter import BadOption  # noqa: E402

# The bugs, by name (conformance/mutants/mutants.json describes each).
BUGS = ("fold-channel", "header-code-points", "header-cuts-utf8", "per-chunk",
        "partial-token-lost", "first-channel", "end-no-reset", "utf8-replace",
        "release-header", "leak-tokens")

START, CHANNEL, MESSAGE, END, RETURN, CALL, CONSTRAIN = (
    b"<|start|>", b"<|channel|>", b"<|message|>", b"<|end|>", b"<|return|>", b"<|call|>",
    b"<|constrain|>")
TOKENS = (START, CHANNEL, MESSAGE, END, RETURN, CALL, CONSTRAIN)
STOPS = (END, RETURN, CALL)
WS = b" \t\n\r\f\v"
PREAMBLE = {"text": "text", "thought": "thought", "other": "other"}


def is_cont(b):
    return b & 0xC0 == 0x80


def code_points(s):
    return sum(1 for b in s if not is_cont(b))


class Harmony:
    binary = True

    def __init__(self, options, bug=None):
        if not isinstance(options, dict):
            raise BadOption("options must be an object")
        for k in options:
            if k not in ("commentary_preamble", "max_header"):
                raise BadOption("unknown option %s" % k)
        pre = options.get("commentary_preamble", "text")
        if pre not in PREAMBLE:
            raise BadOption("commentary_preamble must be text, thought or other")
        mh = options.get("max_header", 256)
        if isinstance(mh, bool) or not isinstance(mh, int) or not 32 <= mh <= 4096:
            raise BadOption("max_header must be 32 to 4096")
        self.bug, self.preamble, self.max_header = bug, pre, mh
        self.tokens = TOKENS if bug != "leak-tokens" else (START, CHANNEL, MESSAGE, END)
        self.sink = "text"
        self.in_header = False
        self.head = b""
        self.held = b""
        self.out = None

    def emit(self, ch, s):
        if s:
            self.out[ch] += s

    # ---- tokens ----
    def token_at(self, p, c, final):
        rest = p[c:c + 13]
        for t in self.tokens:
            if rest.startswith(t):
                return "full", t
            if t.startswith(rest) and not final:
                return "partial", None
        return "none", None

    # ---- the header ----
    def parts(self):
        """[kind, token start, text start, text end] of each part of the header."""
        h, out, i = self.head, [], 0
        while i < len(h):
            tok = next((t for t in (START, CHANNEL, CONSTRAIN) if h.startswith(t, i)), None)
            if tok:
                out.append([tok, i, i + len(tok), i + len(tok)])
                i += len(tok)
                continue
            if out:
                out[-1][3] = i + 1
            i += 1
        return out

    def name_of(self, part):
        h = self.head
        b = part[2]
        while b < part[3] and h[b] in WS:
            b += 1
        e = b
        while e < part[3] and h[e] not in WS and h[e] != ord("<"):
            e += 1
        return b, e

    def words(self, part):
        return self.head[part[2]:part[3]].split()

    def route(self, parts):
        chans = [i for i, p in enumerate(parts) if p[0] == CHANNEL]
        if self.bug == "first-channel":
            last = chans[0] if chans else None
        else:
            last = chans[-1] if chans else None
        rcpt = any(w.startswith(b"to=") for i, p in enumerate(parts)
                   if p[0] == START or (last is not None and i >= last) for w in self.words(p))
        if last is None:
            return "other" if rcpt else "text"
        b, e = self.name_of(parts[last])
        name = self.head[b:e]
        if self.bug == "fold-channel":
            name = name.lower()
        if name == b"analysis":
            return "thought"
        if name == b"final":
            return "text"
        if name == b"commentary":
            return "other" if rcpt else self.preamble
        return "thought"

    def close_header(self, complete):
        parts = self.parts()
        ch = self.route(parts)
        h = self.head
        if self.bug == "release-header":
            # the header went out as markup as it arrived; only its tail is left
            h = h[self.released:]
            if complete:
                self.emit("markup", h)
            else:
                self.emit(ch, h)  # too late to tell header words from content
        elif complete:
            self.emit("markup", h)
        else:
            for p in parts:
                _, i = self.name_of(p)
                while True:  # recipients right after the name are header words too
                    j = i
                    while j < p[3] and h[j] in WS:
                        j += 1
                    e = j
                    while e < p[3] and h[e] not in WS:
                        e += 1
                    if j < p[3] and h[j:e].startswith(b"to="):
                        i = e
                    else:
                        break
                while i < p[3] and h[i] in WS:
                    i += 1
                self.emit("markup", h[p[1]:i])
                self.emit(ch, h[i:p[3]])
        self.head = b""
        self.in_header = False
        return ch

    def open_header(self, tok):
        self.in_header = True
        self.head = tok
        self.released = 0
        self.release_head()

    def release_head(self):
        if self.bug == "release-header":
            self.emit("markup", self.head[self.released:])
            self.released = len(self.head)

    def head_room(self):
        if self.bug == "header-code-points":
            return self.max_header - code_points(self.head)
        return self.max_header - len(self.head)

    def literal(self, p):
        if not p:
            return
        if not self.in_header:
            self.emit(self.sink, p)
            return
        room = self.head_room()
        if self.bug == "header-code-points":
            k, cps = 0, 0
            while k < len(p) and (is_cont(p[k]) or cps < room):
                cps += 0 if is_cont(p[k]) else 1
                k += 1
        else:
            k = min(len(p), room)
        self.head += p[:k]
        if k == len(p):
            self.release_head()
            return
        moved = b""
        if is_cont(p[k]) and self.bug != "header-cuts-utf8":
            h = self.head
            b = 0
            while b < 3 and b < len(h) and is_cont(h[-1 - b]):
                b += 1
            if b < len(h):
                lead = h[-1 - b]
                need = 0 if lead >= 0xF5 else 4 if lead >= 0xF0 else 3 if lead >= 0xE0 \
                    else 2 if lead >= 0xC2 else 0
                if need > b + 1:
                    moved = h[-(b + 1):]
                    self.head = h[:-(b + 1)]
        self.release_head()
        ch = self.close_header(False)
        self.sink = ch
        self.emit(ch, moved)
        self.emit(ch, p[k:])

    def on_token(self, t):
        if not self.in_header:
            if t in (START, CHANNEL):
                self.open_header(t)
                return
            if t in STOPS and not (self.bug == "end-no-reset" and t == END):
                self.sink = "text"
            self.emit("markup", t)
            return
        if t == MESSAGE:
            self.sink = self.close_header(True)
            self.emit("markup", t)
        elif t in STOPS:
            self.close_header(False)
            self.sink = "text"
            self.emit("markup", t)
        elif t == START:
            self.close_header(False)
            self.open_header(t)
        else:
            over = (code_points(self.head) if self.bug == "header-code-points"
                    else len(self.head)) + len(t) > self.max_header
            if over:
                self.sink = self.close_header(False)
                self.on_token(t)
                return
            self.head += t
            self.release_head()

    def process(self, p, final):
        i = 0
        while i < len(p):
            c = p.find(b"<", i)
            if c < 0:
                c = len(p)
            self.literal(p[i:c])
            if c >= len(p):
                return len(p)
            m, t = self.token_at(p, c, final)
            if m == "partial":
                return c
            if m == "full":
                self.on_token(t)
                i = c + len(t)
                continue
            self.literal(p[c:c + 1])
            i = c + 1
        return len(p)

    def start(self):
        self.out = {"text": b"", "thought": b"", "other": b"", "markup": b"", "dropped": b""}

    def feed(self, data):
        self.start()
        if self.bug == "utf8-replace":
            data = bytes(data).decode("utf-8", "replace").encode("utf-8")
        s = self.held + bytes(data)
        used = self.process(s, self.bug == "per-chunk")
        self.held = s[used:]
        return self.out

    def finish(self):
        self.start()
        if self.held and self.bug != "partial-token-lost":
            self.process(self.held, True)
        self.held = b""
        if self.in_header:
            self.close_header(False)
        return self.out


if __name__ == "__main__":
    sys.exit(mutant.main("harmony", BUGS, Harmony))
