#!/usr/bin/env python3
"""Checks that `sluice replay` prints, for a real capture, the text and the
reasoning the provider sent, and calls the stream truncated exactly when it
lacks its end marker.

The expectation is computed here from the raw capture, independently of the
library: its own small SSE reader (the WHATWG rules: a blank line dispatches,
an unfinished last event is dropped) and JSON-lines reader, then Python's
json module and a join of each provider's text and reasoning fields of
choice 0 (refusals count as text).

usage: replay_expect.py SLUICE CAPTURE...
"""
import json
import subprocess
import sys


def sse_payloads(s):
    """The data of each dispatched event."""
    out, data = [], None
    lines = s.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    complete = lines[:-1]  # the last piece has no line end: not a line
    for line in complete:
        if line == "":
            if data is not None:
                out.append("\n".join(data))
            data = None
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                data = (data or []) + [value]
    return out


def payloads(raw):
    s = raw.decode("utf-8")
    if s.lstrip().startswith("{"):
        return [line for line in s.split("\n") if line.strip()], True
    return sse_payloads(s), False


def expect(objs, done, lines):
    text, reasoning, kind, finished, last_type = [], [], None, False, None
    for o in objs:
        if "choices" in o:
            kind = "openai"
            for c in o["choices"]:
                if c.get("index", 0) != 0:
                    continue
                if c.get("finish_reason"):
                    finished = True
                if isinstance(c.get("text"), str):  # the legacy completions endpoint
                    text.append(c["text"])
                d = c.get("delta") or {}
                content = d.get("content")
                if isinstance(content, str):
                    text.append(content)
                elif isinstance(content, list):
                    for part in content:
                        if part.get("type") == "text":
                            text.append(part.get("text", ""))
                        elif part.get("type") == "thinking":
                            for t in part.get("thinking", []):
                                reasoning.append(t.get("text", ""))
                r = d.get("reasoning_content")
                if not (isinstance(r, str) and r):
                    r = d.get("reasoning")
                if isinstance(r, str):
                    reasoning.append(r)
                if isinstance(d.get("refusal"), str):
                    text.append(d["refusal"])
        elif str(o.get("type", "")).startswith("response.") or o.get("type") == "error" and "code" in o:
            kind = "responses"
            last_type = o["type"]
            if o["type"] == "response.output_text.delta":
                text.append(o["delta"])
            elif o["type"] in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                reasoning.append(o["delta"])
        elif "-" in str(o.get("type", "")):
            kind = "cohere"
            last_type = o["type"]
            msg = (o.get("delta") or {}).get("message") or {}
            if o["type"] == "content-delta":
                c = msg.get("content") or {}
                text.append(c.get("text", ""))
                reasoning.append(c.get("thinking", ""))
            elif o["type"] == "tool-plan-delta":
                reasoning.append(msg.get("tool_plan", ""))
        elif "type" in o:
            kind = "anthropic"
            last_type = o["type"]
            if o["type"] == "content_block_delta":
                d = o["delta"]
                if d["type"] == "text_delta":
                    text.append(d["text"])
                elif d["type"] == "thinking_delta":
                    reasoning.append(d["thinking"])
        elif "candidates" in o:
            kind = "gemini"
            for c in o["candidates"]:
                if c.get("index", 0) != 0:
                    continue
                if c.get("finishReason"):
                    finished = True
                for p in c.get("content", {}).get("parts", []):
                    if "text" in p:
                        (reasoning if p.get("thought") else text).append(p["text"])
        elif "stop" in o and "content" in o:
            kind = "llamacpp"
            text.append(o["content"])
            finished = finished or o["stop"] is True
        elif "done" in o:
            kind = "ollama"
            finished = finished or o["done"] is True
            text.append(o.get("response", "") or (o.get("message") or {}).get("content", ""))
            reasoning.append(o.get("thinking", "") or (o.get("message") or {}).get("thinking", ""))
    if kind == "openai":
        complete = done or (lines and finished)
    elif kind in ("responses",):
        complete = last_type in ("response.completed", "response.incomplete", "response.failed")
    elif kind == "anthropic":
        complete = last_type == "message_stop"
    elif kind == "cohere":
        complete = last_type == "message-end"
    else:
        complete = finished
    return "".join(text), "".join(reasoning), not complete


def check(sluice, capture):
    raw = open(capture, "rb").read()
    data, lines = payloads(raw)
    done = "[DONE]" in data
    objs = [json.loads(d) for d in data if d != "[DONE]"]
    text, reasoning, truncated = expect(objs, done, lines)

    def replay(*args):
        p = subprocess.run([sluice, "replay", "-q", capture] + list(args), capture_output=True)
        if p.returncode != 0:
            sys.exit("replay %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.decode()))
        return p.stdout

    failures = 0
    for name, want, got in (("text", text, replay("--channel", "text")),
                            ("reasoning", reasoning, replay("--channel", "thought"))):
        if got != want.encode("utf-8"):
            failures += 1
            print("%s: the %s differs: replay printed %d bytes, the provider sent %d"
                  % (capture, name, len(got), len(want.encode("utf-8"))))
    end = [json.loads(line) for line in replay("--output", "jsonl").decode().splitlines()][-1]
    if end != {"type": "end", "truncated": truncated}:
        failures += 1
        print("%s: the end is %s; the capture %s its end marker" % (capture, end, "lacks" if truncated else "has"))
    if not failures:
        print("%s: text %d bytes, reasoning %d bytes, %s, as the provider sent"
              % (capture, len(text.encode()), len(reasoning.encode()), "truncated" if truncated else "complete"))
    return failures


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    failed = sum(check(sys.argv[1], c) > 0 for c in sys.argv[2:])
    print("%d captures, %d failed" % (len(sys.argv) - 2, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
