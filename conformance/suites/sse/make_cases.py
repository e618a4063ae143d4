#!/usr/bin/env python3
"""Writes the sse suite's JSON files (filters sse, ndjson, chunks).

The expected answers come from `sse_model()` and `lines_model()`, models of
the WHATWG event-stream algorithm (HTML 9.2.6) and of the two JSON-lines
framings written in Python from the spec text and DESIGN.md, not from
lib/src/frame/. Cases that also give `want` (the events as the anchor
document lists them, checked by eye) are asserted against the model before
anything is written, so a mistake in the model shows here first.

Run from anywhere:  python3 conformance/suites/sse/make_cases.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the suites
sys.path.insert(0, os.path.dirname(HERE))
from casefiles import case_entry, spec, write_suite  # noqa: E402

DEFAULT_MAX = 8 << 20
WHATWG = "WHATWG HTML 9.2.6 (docs/SOURCES.md §sse)"
ANCHOR = "anchor sse edge case"


class Limit(Exception):
    def __init__(self, offset):
        Exception.__init__(self, offset)
        self.offset = offset



def sse_model(b, max_line=DEFAULT_MAX, max_event=DEFAULT_MAX):
    """(events, dropped) for the byte string b, or raises Limit."""
    events = []
    pos = 3 if b.startswith(b"\xef\xbb\xbf") else 0
    data, typ, last_id = bytearray(), b"", b""

    def too_long(start, line):
        at = start + max_line
        if max_event and line.startswith(b"data:"):
            v = 6 if len(line) > 5 and line[5:6] == b" " else 5
            if v + (max_event - len(data)) < max_line:
                at = start + v + (max_event - len(data))
        raise Limit(at)

    n = len(b)
    while True:
        j = pos
        while j < n and b[j] not in (10, 13):
            j += 1
        line = b[pos:j]
        if max_line and len(line) > max_line:
            too_long(pos, line)
        if j == n:
            return events, line
        if not line:
            if data:
                events.append({"type": "event", "event": spec(typ or b"message"),
                               "data": spec(bytes(data[:-1])), "id": spec(last_id)})
            data, typ = bytearray(), b""
        elif line[0:1] != b":":
            if b":" in line:
                name, value = line.split(b":", 1)
                if value.startswith(b" "):
                    value = value[1:]
            else:
                name, value = line, b""
            if name == b"data":
                if max_event and len(data) + len(value) + 1 > max_event:
                    room = max_event - len(data)
                    v = len(line) - len(value)  # where the value starts
                    raise Limit(pos + v + min(room, len(value)))
                data += value + b"\n"
            elif name == b"event":
                typ = value
            elif name == b"id":
                if b"\0" not in value:
                    last_id = value
            elif name == b"retry":
                if value and all(48 <= c <= 57 for c in value):
                    events.append({"type": "retry", "retry": value.decode()})
        pos = j + 2 if b[j] == 13 and j + 1 < n and b[j + 1] == 10 else j + 1


def lines_model(b, last_is_record, max_line=DEFAULT_MAX):
    """(events, dropped) for ndjson (last_is_record False) or chunks."""
    events = []
    pos = 0

    def record(line, complete):
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip(b" \t\r"):
            events.append({"type": "record", "data": spec(line), "complete": complete})

    while True:
        j = b.find(b"\n", pos)
        line = b[pos:] if j < 0 else b[pos:j]
        if max_line and len(line) > max_line:
            raise Limit(pos + max_line)
        if j < 0:
            break
        record(line, True)
        pos = j + 1
    tail = b[pos:]
    if last_is_record:
        record(tail, False)
        return events, b""
    return events, tail


def expect_of(filt, b, opts):
    mx = {k: opts.get(k, DEFAULT_MAX) for k in ("max_line", "max_event")}
    try:
        if filt == "sse":
            events, dropped = sse_model(b, mx["max_line"], mx["max_event"])
        else:
            events, dropped = lines_model(b, filt == "chunks", mx["max_line"])
    except Limit as e:
        return {"error": {"code": "limit", "offset": e.offset}}
    out = {"events": events}
    if dropped:
        out["dropped"] = spec(dropped)
    return out


FILES = {
    "whatwg.json": "the WHATWG rules, one case per edge case of the anchor (20 cases and their variants)",
    "parser-tests.json": "what eventsource-parser's tests cover: comments, BOMs, splits, odd fields",
    "servers.json": "the shapes real servers send: keep-alive comments, CRLF, field order, padding",
    "limits.json": "bounded memory: max_line and max_event fail with limit at an exact offset; option errors",
    "lines.json": "the JSON-lines framings: ndjson (Ollama) and chunks (.chunks.jsonl)",
}

CASES = []


def case(file, cid, inp, source, want=None, opts=None, chunks=None, filt="sse", note=None):
    CASES.append(dict(file=file, id=cid, input=inp, source=source, want=want, opts=opts or {},
                      chunks=chunks, filter=filt, note=note))


def ev(data, typ="message", eid=""):
    return {"type": "event", "event": typ, "data": data, "id": eid}


W = "whatwg.json"
case(W, "y_value_one_space_stripped", b"data: a\n\n", ANCHOR + " 1", [ev("a")])
case(W, "y_value_no_space", b"data:a\n\n", ANCHOR + " 2: the space is optional", [ev("a")])
case(W, "y_value_only_one_space_stripped", b"data:  a\n\n", ANCHOR + " 3", [ev(" a")])
case(W, "y_value_tab_kept", b"data:\ta\n\n", ANCHOR + " 4: only U+0020 is stripped",
     [ev("\ta")])
case(W, "y_value_split_at_first_colon", b'data: {"k":"b:c"}\n\n', ANCHOR + " 5",
     [ev('{"k":"b:c"}')])
case(W, "y_line_ends_cr_only", b"data: a\rdata: b\r\r", ANCHOR + " 6", [ev("a\nb")])
case(W, "y_line_ends_mixed", b"data:test\r\ndata\ndata:test\r\r\n",
     ANCHOR + " 7 (WPT format-newlines)", [ev("test\n\ntest")])
case(W, "y_crlf_split_across_feeds", b"data: A\r\ndata: B\r\ndata: C\r\n\n",
     ANCHOR + " 8 (eventsource-parser #17): a CR at the end of a chunk", [ev("A\nB\nC")],
     chunks=[b"data: A\r\n", b"data: B\r", b"\n", b"data: C\r\n", b"\n"])
case(W, "y_blank_line_crlf_split", b"data: one\r\r\n", ANCHOR + " 9: one event, not two",
     [ev("one")], chunks=[b"data: one\r", b"\r", b"\n"])
case(W, "y_bom_stripped_once", b"\xef\xbb\xbfdata:1\n\n\xef\xbb\xbfdata:2\n\ndata:3\n\n",
     ANCHOR + " 10: a later BOM makes its line an unknown field", [ev("1"), ev("3")])
case(W, "y_two_leading_boms", "\ufeff\ufeffdata:1\n\ndata:2\n\ndata:3\n\n".encode(),
     ANCHOR + " 11: only one BOM is stripped", [ev("2"), ev("3")])
case(W, "y_comments_ignored", b": ping\ndata: a\n:\n\n", ANCHOR + " 12", [ev("a")])
case(W, "y_comment_block_dispatches_nothing", b": keep-alive\n\n", ANCHOR + " 12", [])
case(W, "y_data_without_colon_dispatches_empty", b"data\n\n",
     ANCHOR + " 13: an empty data field still dispatches", [ev("")])
case(W, "y_two_empty_data_lines", b"data\ndata\n\n", ANCHOR + " 13", [ev("\n")])
case(W, "y_data_colon_empty_value", b"data:\n\n", ANCHOR + " 13", [ev("")])
case(W, "y_field_names_exact", b"data:abc\n data\ndata\nfoobar:xxx\njustsometext\n:c\nData:x\ndata:123\n\n",
     ANCHOR + " 14: names are compared exactly", [ev("abc\n\n123")])
case(W, "y_field_parsing_wpt",
     b"data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n\n",
     ANCHOR + " 15 (WPT format-field-parsing)", [ev("\0\n 2\n1\n3\n\n4")])
case(W, "y_event_type_resets_after_dispatch", b"event: add\ndata: x\n\ndata: y\n\n",
     ANCHOR + " 16", [ev("x", "add"), ev("y")])
case(W, "y_empty_event_type_is_message", b"event:\ndata: z\n\n", ANCHOR + " 16", [ev("z")])
case(W, "y_id_without_data_sets_id_only", b"id: 7\nevent: foo\n\ndata: x\n\n",
     ANCHOR + " 17: the id persists, the type does not", [ev("x", eid="7")])
case(W, "y_id_with_nul_ignored", b"id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n",
     ANCHOR + " 17: an id holding NUL is ignored", [ev("a", eid="1"), ev("b", eid="1")])
case(W, "y_id_without_value_resets", b"id: 5\ndata: a\n\nid\ndata: b\n\n",
     ANCHOR + " 17: an empty id resets the last event id", [ev("a", eid="5"), ev("b", eid="")])
case(W, "y_retry_digits_only", b"retry: 1000\nretry: 10x\nretry:\n",
     ANCHOR + " 18: only the first sets the reconnection time; no events",
     [{"type": "retry", "retry": "1000"}])
case(W, "y_eof_unfinished_line_dropped", b"data: a\n\ndata: b",
     ANCHOR + " 19: the event at the end of the stream is not dispatched", [ev("a")])
case(W, "y_eof_unfinished_event_dropped", b"data: a\n\ndata: b\n",
     ANCHOR + " 19: a complete line without the blank line still does not dispatch", [ev("a")])
case(W, "y_multiline_json", b'data: {"a":\ndata: 1}\n\n', ANCHOR + " 20", [ev('{"a":\n1}')])
case(W, "y_done_is_plain_data", b"data: [DONE]\n\n",
     ANCHOR + " 20: a sentinel for the application, not for SSE", [ev("[DONE]")])
case(W, "y_empty_stream", b"", WHATWG, [])
case(W, "y_blank_lines_only", b"\n\n\r\n\r", WHATWG + ": dispatching nothing is not an error", [])
case(W, "y_id_persists_across_events", b"id: x\ndata: 1\n\ndata: 2\n\nid: y\ndata: 3\n\n",
     WHATWG + ": the last event ID buffer is not reset by a dispatch",
     [ev("1", eid="x"), ev("2", eid="x"), ev("3", eid="y")])
case(W, "y_id_set_after_data", b"data: 1\nid: late\n\n",
     WHATWG + ": the id in effect at dispatch counts", [ev("1", eid="late")])
case(W, "y_event_last_one_wins", b"event: a\nevent: b\ndata: 1\n\n", WHATWG, [ev("1", "b")])
case(W, "y_event_type_without_data_cleared", b"event: a\n\ndata: 1\n\n",
     WHATWG + ": an empty dispatch clears the type too", [ev("1")])
case(W, "y_retry_leading_zeros", b"retry: 007\n",
     WHATWG + ": any ASCII digits; the value is given as written",
     [{"type": "retry", "retry": "007"}])
case(W, "y_retry_two_spaces_ignored", b"retry:  5\n",
     WHATWG + ": the second space is part of the value, which is then not all digits", [])
case(W, "y_retry_between_events", b"data: a\nretry: 3\n\n",
     WHATWG + ": retry takes effect when its line is read, before the dispatch",
     [{"type": "retry", "retry": "3"}, ev("a")])
case(W, "y_retry_no_colon_ignored", b"retry\n", WHATWG + ": an empty value is not digits", [])
case(W, "y_cr_then_lf_then_cr", b"data: a\r\n\rdata: b\n\n",
     WHATWG + ": CRLF ends one line, the lone CR a blank one", [ev("a"), ev("b")])
case(W, "y_lf_cr_is_two_line_ends", b"data: a\n\rdata: b\r\n\r\n",
     WHATWG + ": LF then CR is two line ends (a blank line between)", [ev("a"), ev("b")])
case(W, "y_unknown_field_with_value", b"foo: bar\ndata: a\n\n", WHATWG, [ev("a")])
case(W, "y_space_before_colon_is_name", b"data : a\n\n",
     WHATWG + ": \"data \" is another name", [])
case(W, "y_name_only_field_other", b"event\ndata: a\n\n",
     WHATWG + ": \"event\" without a colon sets an empty type", [ev("a")])
case(W, "y_nul_in_data_kept", b"data: a\0b\n\n", WHATWG + ": data is bytes, NUL included",
     [ev("a\0b")])
case(W, "y_invalid_utf8_in_data_kept", b"data: \xff\xfe\n\n",
     "design: the parser works on bytes; decoding is the application's", [ev({"hex": "fffe"})])
case(W, "y_utf8_value_split_by_chunks", "data: caf\u00e9 \U0001f600\n\n".encode(),
     "eventsource-parser: multibyte text split across feeds",
     [ev("caf\u00e9 \U0001f600")],
     chunks=[b"data: caf\xc3", b"\xa9 \xf0\x9f", b"\x98", b"\x80\n", b"\n"])
case(W, "y_bom_split_across_feeds", b"\xef\xbb\xbfdata: a\n\n",
     WHATWG + ": the BOM is recognised whatever the cuts", [ev("a")],
     chunks=[b"\xef", b"\xbb", b"\xbfdata: a\n\n"])
case(W, "y_bom_prefix_then_line", b"\xef\xbbdata: a\n\ndata: b\n\n",
     WHATWG + ": two BOM bytes that are not a BOM start the first line", [ev("b")])
case(W, "y_bom_prefix_at_eof_dropped", b"\xef\xbb",
     WHATWG + ": a BOM prefix at the end is an unfinished line", [])
case(W, "y_bom_only", b"\xef\xbb\xbf", WHATWG, [])
case(W, "y_bom_then_blank", b"\xef\xbb\xbf\ndata: x\n\n", WHATWG, [ev("x")])
case(W, "y_crlf_at_chunk_end_then_data", b"data: a\r\ndata: b\r\n\r\n",
     WHATWG + ": a CR that ends a chunk, then LF", [ev("a\nb")],
     chunks=[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"])
case(W, "y_trailing_cr_at_eof", b"data: a\r\r",
     WHATWG + ": a CR is a complete line end, even as the last byte", [ev("a")])

P = "parser-tests.json"
EP = "eventsource-parser v4.1.0 tests (anchor)"
case(P, "y_named_events", b"event: foo\ndata: 1\n\nevent: bar\ndata: 2\n\n", EP,
     [ev("1", "foo"), ev("2", "bar")])
case(P, "y_id_and_retry", b"id: 1\nretry: 2500\ndata: x\n\n", EP,
     [{"type": "retry", "retry": "2500"}, ev("x", eid="1")])
case(P, "y_heartbeat_comment", b": \xe2\x99\xa5\n\ndata: a\n\n", EP + ": a heart comment",
     [ev("a")])
case(P, "y_multiline_data_yhoo", b"data: YHOO\ndata: +2\ndata: 10\n\n", EP,
     [ev("YHOO\n+2\n10")])
case(P, "y_blank_lines_before_first_event", b"\n\n\ndata: a\n\n", EP, [ev("a")])
case(P, "y_comment_300_colons", b":" * 300 + b"\ndata: a\n\n", EP, [ev("a")])
case(P, "y_comment_with_nul", b":\0\ndata: a\n\n", EP, [ev("a")])
case(P, "y_comment_ended_by_cr", b": hi\rdata: a\r\r", EP, [ev("a")])
case(P, "y_comment_over_2kb_split", b": " + b"x" * 2500 + b"\ndata: a\n\n",
     EP + ": a comment over 2 KB split across chunks", [ev("a")],
     chunks=[b": " + b"x" * 1000, b"x" * 1000, b"x" * 500 + b"\ndata: a\n\n"])
case(P, "y_colon_data_is_comment", b":data:fail\n\n", EP, [])
case(P, "y_trailing_data_without_terminator", b"data:5", EP + ": never emitted", [])
case(P, "y_event_empty_value", b"event:\ndata: a\n\n",
     EP + " reports undefined; the spec says message", [ev("a")])
case(P, "y_retry_errors_ignored", b"retry:\nretry: 2000x\ndata: a\n\n",
     EP + " reports an error; the spec ignores the field", [ev("a")])
case(P, "y_data_empty_string", b"data:\n\n", EP, [ev("")])
case(P, "y_data_data_newline", b"data\ndata\n\n", EP, [ev("\n")])
case(P, "y_id_only_block", b"id: 3\n\n", EP + ": an id alone fires no event", [])
case(P, "y_unknown_fields_between_data", b"data: abc\nfoo: x\n\ndata: 123\n\n", EP,
     [ev("abc"), ev("123")])
case(P, "y_json_error_body_is_unknown_field", b'{"error": {"message": "bad key"}}\n\n',
     EP + ": a non-SSE body is an unknown field named {\"error\"", [])
case(P, "y_large_message", b"data: " + b"0123456789" * 2000 + b"\n\n",
     EP + ": a large message, split anywhere", [ev("0123456789" * 2000)])
case(P, "y_bom_decoded_form", "\ufeffdata: a\n\n".encode(),
     EP + ": the decoded BOM is the same three bytes", [ev("a")])
case(P, "y_id_reset_not_after_block", b"id: 1\ndata: a\n\ndata: b\n\n",
     EP + " resets the id after each block; the spec keeps it",
     [ev("a", eid="1"), ev("b", eid="1")])

S = "servers.json"
case(S, "y_openrouter_processing_comments",
     b': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {"choices":[]}\n\ndata: [DONE]\n\n',
     "SOURCES.md §sse: OpenRouter keep-alive comments", [ev('{"choices":[]}'), ev("[DONE]")])
case(S, "y_deepseek_keep_alive", b": keep-alive\n\n: keep-alive\n\ndata: {}\n\n",
     "anchor provider table: DeepSeek keep-alive comments while queued", [ev("{}")])
case(S, "y_gemini_crlf_separators",
     b'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}\r\n\r\ndata: {"candidates":[]}\r\n\r\n',
     "anchor provider table: Gemini alt=sse frames events with CRLF",
     [ev('{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}'), ev('{"candidates":[]}')])
case(S, "y_gemini_crlf_cut_between_cr_and_lf", b"data: a\r\n\r\ndata: b\r\n\r\n",
     "CRLF framing cut between CR and LF", [ev("a"), ev("b")],
     chunks=[b"data: a\r", b"\n\r", b"\n", b"data: b\r\n\r", b"\n"])
case(S, "y_data_before_event_line", b'data: {"type":"ping"}\nevent: ping\n\n',
     "servers that write data: before event: (field order is free)",
     [ev('{"type":"ping"}', "ping")])
case(S, "y_anthropic_no_blank_line_after_last",
     b'event: ping\ndata: {"type": "ping"}\n\nevent: message_stop\ndata: {"type":"message_stop"}',
     "corpus/captures/anthropic-messages-basic.sse ends this way: the last event is not dispatched",
     [ev('{"type": "ping"}', "ping")])
case(S, "y_whitespace_padding_after_json", b'data: {"a":1}      \n\n',
     "anthropic-sdk fixtures pad JSON with spaces; the value keeps them", [ev('{"a":1}      ')])
case(S, "y_anthropic_named_events",
     b'event: message_start\ndata: {"type":"message_start"}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta"}\n\n',
     "anchor provider table: Anthropic sends event: and data:",
     [ev('{"type":"message_start"}', "message_start"),
      ev('{"type":"content_block_delta"}', "content_block_delta")])
case(S, "y_responses_without_event_lines",
     b'data: {"type":"response.created"}\n\ndata: {"type":"response.completed"}\n\n',
     "issue 11: Responses-compatible servers that send no event: lines",
     [ev('{"type":"response.created"}'), ev('{"type":"response.completed"}')])
case(S, "y_llamacpp_error_field_dropped", b'error: {"code":500,"message":"oops"}\n\n',
     "anchor provider table: old llama.cpp sends error: as a field, which the spec ignores", [])
case(S, "y_openai_error_chunk", b'data: {"error":{"message":"boom","type":"server_error"}}\n\n',
     "anchor provider table: OpenAI mid-stream error", [ev('{"error":{"message":"boom","type":"server_error"}}')])
case(S, "y_cohere_hyphen_event_names",
     b'event: content-delta\ndata: {"type":"content-delta"}\n\nevent: message-end\ndata: {"type":"message-end"}\n\n',
     "Cohere v2 event names", [ev('{"type":"content-delta"}', "content-delta"),
                               ev('{"type":"message-end"}', "message-end")])
case(S, "y_openai_usage_then_done",
     b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: {"choices":[],"usage":{"total_tokens":3}}\n\ndata: [DONE]\n\n',
     "corpus/captures/openai-chat-text-usage-done.sse shape",
     [ev('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'),
      ev('{"choices":[],"usage":{"total_tokens":3}}'), ev("[DONE]")])
case(S, "y_events_cut_mid_json", b'data: {"a":"b"}\n\ndata: {"c":"d"}\n\n',
     "network chunks that cut a JSON payload", [ev('{"a":"b"}'), ev('{"c":"d"}')],
     chunks=[b'data: {"a', b'":"b"}\n', b'\ndata: {"c":', b'"d"}\n\n'])
case(S, "y_event_per_chunk", b"data: 1\n\ndata: 2\n\n", "one event per network chunk",
     [ev("1"), ev("2")], chunks=[b"data: 1\n\n", b"data: 2\n\n"])
case(S, "y_id_lines_from_server", b"id: 0\ndata: a\n\nid: 1\ndata: b\n\n",
     "servers that number their events", [ev("a", eid="0"), ev("b", eid="1")])
case(S, "y_retry_then_events", b"retry: 3000\n\ndata: a\n\n",
     "servers that announce a reconnection time first",
     [{"type": "retry", "retry": "3000"}, ev("a")])
case(S, "y_tab_padding_before_value", b"data:\t{}\n\n", "a tab is not the optional space",
     [ev("\t{}")])

L = "limits.json"
LIM = "design: bounded memory, limit at the first byte beyond the cap (DESIGN.md §1 Memory)"
case(L, "n_line_over_max_line", b"data: 0123456789abcdef\n\n", LIM, opts={"max_line": 16})
case(L, "y_line_at_max_line", b"data: 0123456789\n\n", LIM, [ev("0123456789")],
     opts={"max_line": 16})
case(L, "n_unterminated_line_over_max_line", b"data: a\n\ndata: xxxxxxxxxxxxxxxxxxxx", LIM,
     opts={"max_line": 10})
case(L, "n_comment_over_max_line", b": " + b"c" * 40 + b"\ndata: a\n\n",
     LIM + ": a comment is a line too", opts={"max_line": 32})
case(L, "n_event_over_max_event", b"data: 1234\ndata: 5678\n\n", LIM,
     opts={"max_event": 8})
case(L, "y_event_at_max_event", b"data: 123\ndata: 567\n\n",
     LIM + ": the data buffer (values and their LFs) may hold max_event bytes",
     [ev("123\n567")], opts={"max_event": 8})
case(L, "n_event_cap_at_line_end", b"data: 1234\ndata: 567\n\n",
     LIM + ": the LF after a value is what breaks the cap", opts={"max_event": 8})
case(L, "n_data_cap_before_line_cap", b"data: 12\ndata: 3456789abcdefghij\n\n",
     LIM + ": a long data line breaks max_event before max_line",
     opts={"max_line": 16, "max_event": 6})
case(L, "y_caps_reset_per_event", b"data: 1234\n\ndata: 5678\n\n",
     LIM + ": each event has its own data cap", [ev("1234"), ev("5678")],
     opts={"max_event": 5})
case(L, "y_no_caps", b"data: " + b"z" * 100 + b"\n\n", LIM + ": 0 means no cap",
     [ev("z" * 100)], opts={"max_line": 0, "max_event": 0})
case(L, "n_cap_with_bom", b"\xef\xbb\xbfdata: 0123456789\n\n",
     LIM + ": offsets count the BOM", opts={"max_line": 8})
case(L, "n_unknown_option", b"data: a\n\n", "design: unknown options are refused",
     opts={"max_lines": 3})
case(L, "n_negative_max_line", b"data: a\n\n", "design: sizes are non-negative integers",
     opts={"max_line": -1})
case(L, "n_max_event_not_integer", b"data: a\n\n", "design: sizes are non-negative integers",
     opts={"max_event": "8"})

N = "lines.json"
NS = "DESIGN.md §2 sse: NDJSON (Ollama)"
CS = "DESIGN.md §2 sse: the .chunks.jsonl recording format"
case(N, "y_ndjson_records", b'{"a":1}\n{"b":2}\n', NS, filt="ndjson")
case(N, "y_ndjson_crlf", b'{"a":1}\r\n{"b":2}\r\n', NS + ": a CR before the LF is dropped",
     filt="ndjson")
case(N, "y_ndjson_blank_lines_skipped", b'\n{"a":1}\n\n \t\n{"b":2}\n', NS, filt="ndjson")
case(N, "y_ndjson_last_line_without_lf_dropped", b'{"a":1}\n{"done":tr', NS +
     ": a last line without LF is the cut-off end of a truncated stream", filt="ndjson")
case(N, "y_ndjson_ollama_shape",
     b'{"model":"m","response":"\\u003cthink\\u003e","done":false}\n{"model":"m","response":"","done":true,"done_reason":"stop"}\n',
     "corpus/captures/ollama-generate-deepseek-r1-think-tags.ndjson shape", filt="ndjson")
case(N, "y_ndjson_split_lines", b'{"a":"xyz"}\n{"b":2}\n', NS,
     chunks=[b'{"a"', b':"x', b'yz"}', b'\n{"b":2}\n'], filt="ndjson")
case(N, "n_ndjson_line_over_max_line", b'{"a":1}\n{"b":"0123456789"}\n', NS,
     opts={"max_line": 10}, filt="ndjson")
case(N, "y_ndjson_empty", b"", NS, filt="ndjson")
case(N, "n_ndjson_unknown_option", b"{}\n", "design: unknown options are refused",
     opts={"max_event": 3}, filt="ndjson")
case(N, "y_chunks_last_line_is_record", b'{"a":1}\n{"b":2}', CS +
     ": the recorder writes no LF after the last chunk", filt="chunks")
case(N, "y_chunks_trailing_lf", b'{"a":1}\n{"b":2}\n', CS, filt="chunks")
case(N, "y_chunks_single_line", b'{"type":"ping"}', CS, filt="chunks")
case(N, "y_chunks_last_line_crlf", b'{"a":1}\r\n{"b":2}\r', CS, filt="chunks")
case(N, "y_chunks_whitespace_last_line_skipped", b'{"a":1}\n  ', CS, filt="chunks")
case(N, "n_chunks_last_line_over_max_line", b'{"a":1}\n{"b":"0123456789"}', CS,
     opts={"max_line": 10}, filt="chunks")
case(N, "y_chunks_invalid_utf8_kept", b'{"a":"\xff"}\n', CS + ": records are bytes",
     filt="chunks")


def main():
    by_file = {}
    for c in CASES:
        inp = c["input"]
        if c["chunks"] is not None:
            assert b"".join(c["chunks"]) == inp, c["id"]
        opts = c["opts"]
        bad = [k for k in opts if k not in ("max_line", "max_event")] or \
              [k for k, v in opts.items() if not isinstance(v, int) or v < 0]
        if c["filter"] != "sse" and "max_event" in opts:
            bad = ["max_event"]
        if bad:
            expect = {"error": {"code": "bad_option"}}
        else:
            expect = expect_of(c["filter"], inp, opts)
        if c["want"] is not None:
            assert expect.get("events") == c["want"], (c["id"], expect, c["want"])
        assert (c["id"][0] == "n") == ("error" in expect), c["id"]
        by_file.setdefault(c["file"], []).append(case_entry(
            c["id"], inp, expect, c["source"], opts, c["filter"] if c["filter"] != "sse" else None,
            c["chunks"]))
    write_suite(HERE, "sse", FILES, by_file, "sse")


if __name__ == "__main__":
    main()
