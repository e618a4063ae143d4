#!/usr/bin/env python3
"""Writes the capture suite's JSON files (filter "capture", sluice.h).

Each case is a capture file in one of the four formats (.sse and .ndjson
bodies, .chunks.jsonl recordings, sluice record's .capture.jsonl) and the
body and pieces a reader must give for it. The expected pieces are worked
out here from the format's rules, written again in Python (where an SSE
event ends, how a recorder's line was framed on the wire, what a recorded
line holds); nothing here runs the library.

Run from anywhere:  python3 conformance/suites/capture/make_cases.py
"""
import base64
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the suites
sys.path.insert(0, os.path.dirname(HERE))
from casefiles import case_entry, spec, write_suite  # noqa: E402

NO_TIME = None


def dumps(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"))


def sse_pieces(body):
    """Where a server's events end: after each blank line, by the SSE line
    rules (CRLF, LF, or a lone CR); the rest is the last piece."""
    pieces, start, i, line_len, n = [], 0, 0, 0, len(body)
    while i < n:
        c = body[i:i + 1]
        if c in (b"\r", b"\n"):
            end = i + 1
            if c == b"\r" and body[i + 1:i + 2] == b"\n":
                end = i + 2
            if line_len == 0:
                pieces.append(body[start:end])
                start = end
            line_len = 0
            i = end
        else:
            line_len += 1
            i += 1
    if start < n:
        pieces.append(body[start:])
    return pieces


def ndjson_pieces(body):
    pieces, start = [], 0
    while True:
        k = body.find(b"\n", start)
        if k < 0:
            break
        pieces.append(body[start:k + 1])
        start = k + 1
    if start < len(body):
        pieces.append(body[start:])
    return pieces


def expect(pieces, metas, times=None):
    """The answer: META events first, then one piece event per piece."""
    evs = [{"type": "meta", "name": k, "data": v} for k, v in metas]
    off = 0
    for i, p in enumerate(pieces):
        t = times[i] if times else NO_TIME
        evs.append({"type": "piece", "offset": off, "t": t, "data": spec(p)})
        off += len(p)
    body = b"".join(pieces)
    out = {"events": evs}
    if body:
        out["text"] = spec(body)
    return out


def raw_case(cid, body, fmt, source, options=None, chunks=None):
    pieces = sse_pieces(body) if fmt == "sse" else ndjson_pieces(body)
    return case_entry(cid, body, expect(pieces, [("format", fmt)]), source, options,
                      chunks=chunks)


# ---------------- chunks: how each line went over the wire ----------------

def wire(line_obj, endpoint):
    line = dumps(line_obj).encode()
    if endpoint in ("ollama-chat", "ollama-generate"):
        return line + b"\n"
    head = b""
    if endpoint in ("anthropic", "openai-responses"):
        head = b"event: " + line_obj.get("type", "message").encode() + b"\n"
    end = b"\r\n\r\n" if endpoint == "gemini" else b"\n\n"
    return head + b"data: " + line + end


DONE = b"data: [DONE]\n\n"


def chunks_case(cid, objs, endpoint, source, done=False, lf_last=False, options=None,
                fmt="chunks"):
    """A .chunks.jsonl file of objs (no LF after the last line unless
    lf_last), read as pieces on the wire; done: a [DONE] piece ends it."""
    text = b"\n".join(dumps(o).encode() for o in objs) + (b"\n" if lf_last else b"")
    pieces = [wire(o, endpoint) for o in objs] + ([DONE] if done else [])
    return case_entry(cid, text, expect(pieces, [("format", fmt)]), source, options)


def oa(delta, finish=None, index=0, model="gpt-x"):
    return {"object": "chat.completion.chunk", "model": model,
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


# ---------------- recorded ----------------

def header(headers=None, status=200, endpoint="openai-chat", timed=True, request=None):
    h = {"sluice_capture": 1, "endpoint": endpoint,
         "request": request or {"method": "POST", "path": "/v1/chat/completions"},
         "response": {"status": status, "headers": headers or
                      {"Content-Type": "text/event-stream"}}}
    if not timed:
        h["timed"] = False
    return h


def recorded_text(h, lines):
    return (dumps(h) + "\n" + "".join(dumps(x) + "\n" for x in lines)).encode()


def header_metas(h):
    resp = h["response"]
    m = [("format", "recorded"), ("status", str(resp["status"]))]
    m += [("header", "%s: %s" % kv) for kv in resp["headers"].items()]
    if "request" in h:
        m.append(("request", dumps(h["request"])))
    if "endpoint" in h:
        m.append(("endpoint", h["endpoint"]))
    return m


def piece(t, data=None, b64=None):
    d = {"t": t}
    if b64 is not None:
        d["data_b64"] = base64.b64encode(b64).decode()
    else:
        d["data"] = data
    return d


SSE_BODY = b'data: {"a":1}\n\ndata: {"b":2}\n\n'


def cases_raw():
    c = []
    src = "sluice.h capture: a piece of an sse body ends after each blank line (WHATWG line ends)"
    c.append(raw_case("y_sse_lf", SSE_BODY + b"data: [DONE]\n\n", "sse", src))
    c.append(raw_case("y_sse_crlf", b"data: a\r\n\r\ndata: b\r\n\r\n", "sse", src))
    c.append(raw_case("y_sse_lone_cr", b"data: a\r\rdata: b\r\r", "sse", src))
    c.append(raw_case("y_sse_cr_then_crlf", b"data: a\r\r\ndata: b\n\n", "sse",
                      src + "; a CR ends the blank line, an LF right after it belongs to it"))
    c.append(raw_case("y_sse_cr_at_the_end", b"data: a\r\r", "sse", src,
                      chunks=[b"data: a\r", b"\r"]))
    c.append(raw_case("y_sse_comment_piece", b": keep-alive\n\ndata: x\n\n", "sse",
                      src + "; a keep-alive comment is a piece of its own, as servers flush it"))
    c.append(raw_case("y_sse_no_last_blank_line", b"event: a\ndata: 1\n\nevent: b\ndata: 2\n",
                      "sse", "captures/README.md: Anthropic's fixtures end without the blank "
                      "line; the rest of the file is the last piece"))
    c.append(raw_case("y_sse_bom", b"\xef\xbb\xbfdata: 1\n\n", "sse",
                      src + "; the BOM is a byte of the body"))
    c.append(raw_case("y_sse_leading_blank_lines", b"\n\ndata: 1\n\n", "sse", src))
    c.append(raw_case("y_sse_forced_on_json", b'{"a":1}\n{"b":2}\n', "sse", src,
                      options={"format": "sse"}))
    c.append(raw_case("y_sse_empty", b"", "sse", "an empty file is an empty sse body"))
    c.append(raw_case("y_sse_whitespace_only", b"\n \n", "sse", src))
    c.append(raw_case("y_sse_invalid_utf8", b"data: \xff\xfe\n\ndata: \xc3\n\n", "sse",
                      "pieces are bytes; a body need not be UTF-8"))
    src = "sluice.h capture: an ndjson piece is a line with its LF"
    ol = b'{"model":"m","response":"a","done":false}\n{"model":"m","response":"","done":true}\n'
    c.append(raw_case("y_ndjson_lines", ol, "ndjson", src))
    c.append(raw_case("y_ndjson_last_line_without_lf", ol[:-1], "ndjson", src))
    c.append(raw_case("y_ndjson_crlf", ol.replace(b"\n", b"\r\n"), "ndjson", src))
    c.append(raw_case("y_ndjson_forced", b"a\nb", "ndjson", src, options={"format": "ndjson"}))
    c.append(case_entry("n_sse_piece_over_cap", b"data: 123456789\n\n",
                        {"error": {"code": "limit", "offset": 8}},
                        "sluice.h capture: a piece over max_piece is SLUICE_LIMIT",
                        {"format": "sse", "max_piece": 8}))
    c.append(case_entry("n_ndjson_piece_over_cap", b"12\n123456789\n",
                        {"error": {"code": "limit", "offset": 11}},
                        "sluice.h capture: a piece over max_piece is SLUICE_LIMIT at the first "
                        "byte beyond it", {"format": "ndjson", "max_piece": 8}))
    return c


def cases_chunks():
    c = []
    src = ("captures/README.md: a .chunks.jsonl line is the JSON after data:; OpenAI-style "
           "providers as data: LINE and a blank line")
    full = [oa({"role": "assistant", "content": ""}), oa({"content": "Hi"}), oa({}, "stop")]
    c.append(chunks_case("y_chunks_openai_complete_gets_done", full, "openai-chat",
                         src + "; every choice finished: the [DONE] the recorder dropped",
                         done=True))
    c.append(chunks_case("y_chunks_openai_truncated_no_done", full[:2], "openai-chat",
                         src + "; a choice never finished: no [DONE] is made up"))
    c.append(chunks_case("y_chunks_openai_lf_after_last", full, "openai-chat", src, done=True,
                         lf_last=True))
    two = [oa({"content": "a"}, index=0), oa({"content": "b"}, index=1),
           oa({}, "stop", index=0)]
    c.append(chunks_case("y_chunks_openai_n2_one_unfinished", two, "openai-chat",
                         src + "; choice 1 never finished: no [DONE]"))
    comp = [{"object": "text_completion", "model": "m",
             "choices": [{"text": "x", "index": 0, "finish_reason": "stop"}]}]
    c.append(chunks_case("y_chunks_completions_done", comp, "openai-completions", src,
                         done=True))
    anth = [{"type": "message_start", "message": {"model": "claude-x", "content": []}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "Hi"}},
            {"type": "message_stop"}]
    c.append(chunks_case("y_chunks_anthropic_event_lines", anth, "anthropic",
                         "captures/README.md: Anthropic uses event: <json.type> and data: "
                         "<line>, no [DONE]"))
    resp = [{"type": "response.created", "sequence_number": 0,
             "response": {"model": "gpt-r", "output": []}},
            {"type": "response.output_text.delta", "sequence_number": 1, "delta": "x"},
            {"type": "response.completed", "sequence_number": 2, "response": {"output": []}}]
    c.append(chunks_case("y_chunks_responses_event_lines", resp, "openai-responses",
                         "captures/README.md: the Responses API uses event: <json.type>, no "
                         "[DONE]"))
    gem = [{"candidates": [{"content": {"parts": [{"text": "x"}], "role": "model"},
                            "finishReason": "STOP", "index": 0}], "modelVersion": "g"}]
    c.append(chunks_case("y_chunks_gemini_crlf", gem, "gemini",
                         "anchors/sse-and-providers.md: Gemini frames its SSE with CRLF"))
    oll = [{"model": "m", "message": {"role": "assistant", "content": "x"}, "done": False},
           {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True}]
    c.append(chunks_case("y_chunks_ollama_forced_bare_lines", oll, "ollama-chat",
                         "anchors/sse-and-providers.md: Ollama streams NDJSON, no SSE",
                         options={"format": "chunks"}))
    err_first = [{"error": {"message": "retrying", "type": "warning"}}] + full
    text = b"\n".join(dumps(o).encode() for o in err_first)
    pieces = [b"data: " + dumps(err_first[0]).encode() + b"\n\n"] + \
        [wire(o, "openai-chat") for o in full] + [DONE]
    c.append(case_entry("y_chunks_error_line_before_the_provider_is_known", text,
                        expect(pieces, [("format", "chunks")]),
                        "a line that tells no provider is framed as plain data: until one "
                        "does"))
    text = (b"\n" + dumps(full[0]).encode() + b"\n\n" + dumps(full[1]).encode() + b"\r\n" +
            dumps(full[2]).encode())
    c.append(case_entry("y_chunks_blank_lines_and_crlf", text,
                        expect([wire(o, "openai-chat") for o in full] + [DONE],
                               [("format", "chunks")]),
                        "sluice.h chunks framing: blank lines skipped, a CR before the LF "
                        "removed"))
    bad = dumps(full[0]).encode() + b"\n" + b'{"a":1,}' + b"\n"
    c.append(case_entry("n_chunks_line_not_json", bad,
                        {"error": {"code": "capture_format", "offset": bad.rindex(b"}")}},
                        "sluice.h capture: a malformed line fails at its byte",
                        {"format": "chunks"}))
    bad = dumps(full[0]).encode() + b"\n[1,2]\n"
    c.append(case_entry("n_chunks_line_not_an_object", bad,
                        {"error": {"code": "capture_format", "offset": len(bad) - 6}},
                        "sluice.h capture: every line is one JSON object", {"format": "chunks"}))
    return c


def cases_recorded():
    c = []
    src = "FORMAT.md Recorded captures: a header line, then {t, data} pieces, then {t, end}"
    h = header()
    lines = [piece(0.012, 'data: {"a":1}\n\n'), piece(0.5, 'data: [DO'), piece(0.500001, "NE]\n\n"),
             {"t": 0.6, "end": "complete"}]
    text = recorded_text(h, lines)
    ex = expect([b'data: {"a":1}\n\n', b"data: [DO", b"NE]\n\n"], header_metas(h),
                times=[12000, 500000, 500001])
    ex["events"].append({"type": "meta", "name": "end", "data": "complete"})
    c.append(case_entry("y_recorded_timed_pieces", text, ex, src + "; t in microseconds"))
    # bytes that are not UTF-8, as data_b64
    lines = [piece(0.001, b64=b"data: \xff\n\n"), {"t": 0.002, "end": "client_closed"}]
    text = recorded_text(h, lines)
    ex = expect([b"data: \xff\n\n"], header_metas(h), times=[1000])
    ex["events"].append({"type": "meta", "name": "end", "data": "client_closed"})
    c.append(case_entry("y_recorded_data_b64", text, ex, src + "; data_b64 for bytes"))
    # untimed: re-cut by events
    hu = header(timed=False)
    lines = [piece(0, 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n')]
    ex = expect(sse_pieces(SSE_BODY + DONE), header_metas(hu))
    c.append(case_entry("y_recorded_untimed_cut_by_events", recorded_text(hu, lines), ex,
                        "an imported recording carries no times: its body is cut by events"))
    hn = header(headers={"Content-Type": "application/x-ndjson"}, endpoint="ollama-chat",
                timed=False)
    body = b'{"done":false,"message":{"content":"x"}}\n{"done":true,"message":{"content":""}}\n'
    lines = [piece(0, body.decode())]
    ex = expect(ndjson_pieces(body), header_metas(hn))
    c.append(case_entry("y_recorded_untimed_ndjson_by_lines", recorded_text(hn, lines), ex,
                        "an imported NDJSON recording is cut by lines (Content-Type)"))
    hg = header(headers={"Content-Type": "text/event-stream", "Content-Encoding": "gzip"},
                timed=False)
    gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    lines = [piece(0, b64=gz), piece(0, b64=b"\x01\x02")]
    ex = expect([gz, b"\x01\x02"], header_metas(hg))
    c.append(case_entry("y_recorded_untimed_gzip_as_recorded", recorded_text(hg, lines), ex,
                        "a gzip-encoded body is not text: its pieces stay as recorded (the "
                        "caller decodes)"))
    # the header's older name for the endpoint
    hf = header()
    del hf["endpoint"]
    hf["family"] = "anthropic"
    text = recorded_text(hf, [piece(0.1, "x")])
    metas = [m for m in header_metas(hf)] + [("endpoint", "anthropic")]
    c.append(case_entry("y_recorded_family_is_the_endpoint", text, expect([b"x"], metas, [100000]),
                        "captures written before the endpoint key name it \"family\""))
    # errors
    body = b'{"t":0.1,"data":"x"}\n'
    c.append(case_entry("n_recorded_piece_without_a_header", body,
                        {"error": {"code": "capture_format", "offset": 0}},
                        src + "; the first line must be the header", {"format": "recorded"}))
    text = recorded_text(h, [{"t": 0.1, "end": "complete"}, piece(0.2, "x")])
    at = text.rindex(b'{"t":0.2')
    c.append(case_entry("n_recorded_piece_after_end", text,
                        {"error": {"code": "capture_format", "offset": at}},
                        src + "; nothing follows the end line"))
    text = recorded_text(h, [{"t": 0.1, "data_b64": "eA"}])
    at = text.rindex(b'"eA"')
    c.append(case_entry("n_recorded_bad_base64", text,
                        {"error": {"code": "capture_format", "offset": at}},
                        "sluice.h sluice_base64_decode: canonical base64 only"))
    text = recorded_text(h, [{"t": -1, "data": "x"}])
    at = text.rindex(b'{"t":-1')
    c.append(case_entry("n_recorded_negative_time", text,
                        {"error": {"code": "capture_format", "offset": at}}, src))
    text = recorded_text(h, [{"t": 1, "data": "x", "end": "complete"}])
    at = text.rindex(b'{"t":1,')
    c.append(case_entry("n_recorded_data_and_end", text,
                        {"error": {"code": "capture_format", "offset": at}}, src))
    for st in (99, 600, "200", 1e3):
        hb = header(status=st)
        text = recorded_text(hb, [])
        c.append(case_entry("n_recorded_status_%s" % str(st).replace(".", "_"), text,
                            {"error": {"code": "capture_format", "offset": 0}},
                            "a recorded status is an integer from 100 to 599"))
    text = recorded_text(h, [{"t": 0.1, "data": "x"}])[:-1] + b"\n{oops\n"
    at = text.rindex(b"{oops") + 1
    c.append(case_entry("n_recorded_line_not_json", text,
                        {"error": {"code": "capture_format", "offset": at}},
                        "sluice.h capture: a malformed line fails at its byte"))
    return c


def main():
    notes = {
        "raw.json": "sse and ndjson bodies: where a server's pieces end",
        "chunks.json": ".chunks.jsonl recordings: each line as its server framed it",
        "recorded.json": "sluice record's .capture.jsonl: header, timed pieces, end",
    }
    write_suite(HERE, "capture", notes, {"raw.json": cases_raw(), "chunks.json": cases_chunks(),
                                          "recorded.json": cases_recorded()}, "capture")


if __name__ == "__main__":
    main()
