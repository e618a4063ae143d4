"""sdk_check.py SLUICE SRC: the provider SDKs a middleware is written
against (the `openai` and `@anthropic-ai/sdk` npm packages, pinned in
conformance/peers/package-lock.json), pointed at `sluice serve` by their
base URL, read each capture as the provider sent it, and each fault
surfaces in them as it would from the provider.

The text, reasoning and tool arguments each client yields are compared with
what the capture holds, computed here from the raw capture, and with what
`sluice replay` makes of it (its events, choice 0). Servers listen on 127.0.0.1,
end by themselves (--max-requests, --deadline), and every client has a
timeout.
"""
import json
import os
import subprocess
import sys
import time

SLUICE, SRC = sys.argv[1], sys.argv[2]
CAPS = os.path.join(SRC, "corpus", "captures")
PEERS = os.path.join(SRC, "conformance", "peers")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def chunks_of(name):
    """The provider chunks (JSON) of a capture, in order."""
    raw = open(os.path.join(CAPS, name), "rb").read().decode()
    if name.endswith(".chunks.jsonl"):
        return [json.loads(l) for l in raw.split("\n") if l.strip()]
    out = []
    for line in raw.splitlines():
        if line.startswith("data:"):
            payload = line[5:].strip()
            if payload and payload != "[DONE]":
                out.append(json.loads(payload))
    return out


def expected(name, family):
    """What the provider sent: text, reasoning, tool arguments."""
    text = reasoning = tools = ""
    for c in chunks_of(name):
        if family == "openai-chat":
            for ch in c.get("choices") or []:
                if ch.get("index") != 0:
                    continue
                d = ch.get("delta") or {}
                content = d.get("content")
                if isinstance(content, str):
                    text += content
                for key in ("reasoning_content", "reasoning"):
                    if isinstance(d.get(key), str):
                        reasoning += d[key]
                for t in d.get("tool_calls") or []:
                    tools += (t.get("function") or {}).get("arguments") or ""
        elif family == "anthropic":
            if c.get("type") == "content_block_delta":
                d = c["delta"]
                text += d.get("text", "") if d["type"] == "text_delta" else ""
                reasoning += d.get("thinking", "") if d["type"] == "thinking_delta" else ""
                tools += d.get("partial_json", "") if d["type"] == "input_json_delta" else ""
        elif family == "openai-responses":
            t = c.get("type")
            if t == "response.output_text.delta":
                text += c["delta"]
            elif t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                reasoning += c["delta"]
            elif t == "response.function_call_arguments.delta":
                tools += c["delta"]
    return {"text": text, "reasoning": reasoning, "tool_args": tools}


def replayed(name):
    """What `sluice replay` makes of the capture (its events, choice 0): the
    text, reasoning and tool arguments deltas."""
    r = subprocess.run([SLUICE, "replay", "-q", "--output", "jsonl", os.path.join(CAPS, name)],
                       capture_output=True, timeout=60)
    got = {"text": "", "reasoning": "", "tool_args": ""}
    key = {"text": "text", "reasoning": "reasoning", "arguments": "tool_args"}
    for line in r.stdout.decode().splitlines():
        ev = json.loads(line)
        if ev.get("type") == "delta" and ev.get("choice") == 0 and ev.get("kind") in key:
            got[key[ev["kind"]]] += ev["text"]
    return got


def serve(args):
    p = subprocess.Popen([SLUICE, "serve"] + args + ["--max-requests", "1", "--deadline", "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = p.stdout.readline().split("listening on ")[-1].strip()
    return p, url


def client(family, url, timeout_ms=20000):
    r = subprocess.run(["node", os.path.join(PEERS, "sdk_client.mjs"), family, url, str(timeout_ms)],
                       capture_output=True, text=True, timeout=90)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"error": {"class": "no output", "message": r.stderr[-300:]}}


def one(cap, family, fault=(), timeout_ms=20000):
    p, url = serve([os.path.join(CAPS, cap)] + list(fault))
    t0 = time.monotonic()
    got = client(family, url, timeout_ms)
    took = time.monotonic() - t0
    p.wait(timeout=70)
    return got, took


def main():
    captures = {
        "openai-chat": ["openai-chat-text-usage-done.sse", "openai-chat-tool-calls.sse",
                        "openai-chat-refusal.sse", "openai-chat-n3-multiple-choices.sse",
                        "openai-chat-max-tokens-length.sse", "openai-chat-text.chunks.jsonl",
                        "deepseek-chat-reasoning_content.chunks.jsonl", "groq-qwen3-reasoning.chunks.jsonl"],
        "anthropic": ["anthropic-messages-basic.sse", "anthropic-messages-tool-use.sse",
                      "anthropic-thinking-signature.chunks.jsonl"],
        "openai-responses": ["openai-responses-reasoning-summary.chunks.jsonl"],
    }
    for family, names in captures.items():
        for cap in names:
            want = expected(cap, family)
            got, _ = one(cap, family)
            same = got.get("error") is None and all(got.get(k) == v for k, v in want.items())
            check(same, "%s through the %s SDK: text, reasoning and tool arguments as sent (%d, %d, %d characters)%s"
                  % (cap, family, len(want["text"]), len(want["reasoning"]), len(want["tool_args"]),
                     "" if same else ": got %s" % json.dumps(got)[:300]))
            rep = replayed(cap)
            same = got.get("error") is None and all(got.get(k) == rep[k] for k in want)
            check(same, "%s through the %s SDK: the same text, reasoning and tool arguments as sluice replay%s"
                  % (cap, family, "" if same else ": replay gave %s" % json.dumps(rep)[:300]))

    # Faults, as the SDKs report them from a real provider.
    for family, cap in (("openai-chat", "openai-chat-text-usage-done.sse"),
                        ("anthropic", "anthropic-messages-basic.sse")):
        full = expected(cap, family)["text"]
        got, _ = one(cap, family, ["--status", "429"])
        check((got["error"] or {}).get("class") == "RateLimitError" and got["error"]["status"] == 429,
              "%s --status 429: the SDK raises RateLimitError (429)" % family)
        got, _ = one(cap, family, ["--status", "500"])
        check((got["error"] or {}).get("status") == 500, "%s --status 500: the SDK raises a 500 error (%s)"
              % (family, (got["error"] or {}).get("class")))
        got, _ = one(cap, family, ["--error-after", "300"])
        check((got["error"] or {}).get("class") == "APIError" and "injected" in got["error"]["message"],
              "%s --error-after: the SDK raises APIError with the provider's error event" % family)
        got, _ = one(cap, family, ["--drop-after", "300"])
        check(got["error"] is not None and full.startswith(got["text"]),
              "%s --drop-after: the stream fails in the SDK (%s: %s)" % (family, (got["error"] or {}).get("class"),
                                                                         (got["error"] or {}).get("message")))
        got, _ = one(cap, family, ["--cut-after", "300"])
        check(got["error"] is None and full.startswith(got["text"]) and got["text"] != full,
              "%s --cut-after: the SDK ends quietly with a short answer (%d of %d characters): "
              "a truncated stream looks like a complete one to this client" % (family, len(got["text"]), len(full)))
        got, took = one(cap, family, ["--stall-after", "300", "--stall-for", "3"])
        check(got["error"] is not None and took >= 2.9,
              "%s --stall-after: the SDK waits out the stall (%.1f s) and then fails" % (family, took))
        got, _ = one(cap, family, ["--gzip"])
        check(got["error"] is None and got["text"] == full, "%s --gzip: the SDK decodes it; same text" % family)
        got, _ = one(cap, family, ["--rechunk", "bytes"])
        check(got["error"] is None and got["text"] == full,
              "%s --rechunk bytes: a byte per write; the SDK's parser gives the same text" % family)
    print("%d checks failed" % len(failures) if failures else "every check passed")
    sys.exit(1 if failures else 0)


main()
