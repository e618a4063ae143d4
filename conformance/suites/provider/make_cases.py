#!/usr/bin/env python3
"""Writes the provider suite's JSON files.

Each case builds a provider's stream from Python objects (as its server
frames them: SSE with or without event: lines, NDJSON, or .chunks.jsonl) and
lists the events expected, written by hand from the provider's format (the
anchor's provider table and the captures in corpus/captures/). The channels
are derived from the expected delta events by the documented rule (the
channels show choice 0, or the "choice" option: text and refusal on text,
reasoning on thought, arguments on other), so a reader checks the events
only. Nothing here runs the library.

Run from anywhere:  python3 conformance/suites/provider/make_cases.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the suites
sys.path.insert(0, os.path.dirname(HERE))
from casefiles import case_entry, write_suite  # noqa: E402


def dumps(o):
    return json.dumps(o, ensure_ascii=False)


def compact(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"))


def sse(*chunks, done=True, events=False, crlf=False):
    """SSE body: one event per chunk (a dict, or raw text), then [DONE]."""
    nl = "\r\n" if crlf else "\n"
    out = []
    for c in chunks:
        data = c if isinstance(c, str) else dumps(c)
        head = ""
        if events and isinstance(c, dict) and "type" in c:
            head = "event: %s%s" % (c["type"], nl)
        out.append("%sdata: %s%s%s" % (head, data, nl, nl))
    if done:
        out.append("data: [DONE]" + nl + nl)
    return "".join(out)


def ndjson(*chunks):
    return "".join(dumps(c) + "\n" for c in chunks)


def jsonl(*chunks):
    return "\n".join(dumps(c) for c in chunks)


# expected events
def D(kind, text, choice=0, index=None):
    e = {"type": "delta", "choice": choice, "kind": kind, "text": text}
    if kind == "arguments":
        e["index"] = index if index is not None else 0
    return e


def TC(index, id="", name="", choice=0):
    return {"type": "tool_call", "choice": choice, "index": index, "id": id, "name": name}


def F(reason, choice=0):
    return {"type": "finish", "choice": choice, "reason": reason}


def U(obj):
    return {"type": "usage", "data": compact(obj)}


def E(code, message):
    return {"type": "error", "code": code, "message": message}


def END(truncated=False):
    return {"type": "end", "truncated": truncated}


CASES = []
FILES = {}


def case(file, cid, body, events, source, opts=None, dropped=None, error=None, chunks=None,
         note=None):
    CASES.append(dict(file=file, id=cid, body=body, events=events, source=source,
                      opts=opts or {}, dropped=dropped, error=error, chunks=chunks, note=note))


def chat(delta=None, finish=None, index=0, **top):
    c = {"object": "chat.completion.chunk", "model": "m",
         "choices": [{"index": index, "delta": delta or {}, "finish_reason": finish}]}
    c.update(top)
    return c


OPENAI = "anchor provider table: OpenAI chat.completions"
O = "openai.json"
FILES[O] = "OpenAI chat completions and the servers that copy them; the legacy completions endpoint"
case(O, "y_openai_text_done",
     sse(chat({"role": "assistant", "content": "", "refusal": None}), chat({"content": "Hel"}),
         chat({"content": "lo"}), chat({}, "stop")),
     [D("text", "Hel"), D("text", "lo"), F("stop"), END()],
     OPENAI + "; corpus/captures/openai-chat-text-usage-done.sse")
case(O, "y_openai_no_done_is_truncated",
     sse(chat({"content": "Hi"}), chat({}, "stop"), done=False),
     [D("text", "Hi"), F("stop"), END(True)],
     "issue 11: a stream without [DONE] is truncated, never a clean end")
case(O, "y_openai_usage_chunk_choices_empty",
     sse(chat({"content": "a"}), chat({}, "stop"),
         {"object": "chat.completion.chunk", "choices": [],
          "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}),
     [D("text", "a"), F("stop"), U({"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}),
      END()],
     OPENAI + ": with include_usage, a chunk with choices: [] and usage")
N2 = [chat({"content": "A"}, index=0), chat({"content": "x"}, index=1),
      chat({"content": "B"}, index=0), chat({"content": "y"}, index=1),
      chat({}, "stop", index=1), chat({}, "stop", index=0)]
case(O, "y_openai_n2_choices_kept_apart", sse(*N2),
     [D("text", "A"), D("text", "x", 1), D("text", "B"), D("text", "y", 1), F("stop", 1),
      F("stop"), END()],
     OPENAI + ": n > 1 choices interleave by index (corpus/captures/openai-chat-n3-multiple-choices.sse)")
case(O, "y_openai_choice_option_shows_choice_1", sse(*N2),
     [D("text", "A"), D("text", "x", 1), D("text", "B"), D("text", "y", 1), F("stop", 1),
      F("stop"), END()],
     "design: the channels show one choice, chosen by the choice option", opts={"choice": 1})
case(O, "y_deepseek_reasoning_content",
     sse(chat({"role": "assistant", "content": None, "reasoning_content": ""}),
         chat({"content": None, "reasoning_content": "Let me"}),
         chat({"content": None, "reasoning_content": " think"}),
         chat({"content": "Three", "reasoning_content": None}), chat({}, "stop")),
     [D("reasoning", "Let me"), D("reasoning", " think"), D("text", "Three"), F("stop"), END()],
     "anchor provider table: DeepSeek reasoning_content (corpus/captures/deepseek-chat-reasoning_content.chunks.jsonl)")
case(O, "y_groq_reasoning_field",
     sse(chat({"reasoning": "Okay"}), chat({"content": "Yes"}), chat({}, "stop")),
     [D("reasoning", "Okay"), D("text", "Yes"), F("stop"), END()],
     "anchor provider table: reasoning (Groq, newer vLLM, OpenRouter, Ollama /v1)")
case(O, "y_both_reasoning_fields_counted_once",
     sse(chat({"reasoning_content": "same", "reasoning": "same"}), chat({}, "stop")),
     [D("reasoning", "same"), F("stop"), END()],
     "design: servers that send reasoning_content and reasoning with the same text; the first counts")
case(O, "y_openai_tool_calls_by_index",
     sse(chat({"role": "assistant", "content": None, "tool_calls": [
         {"index": 0, "id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": ""}}]}),
         chat({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}),
         chat({"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}),
         chat({}, "tool_calls")),
     [TC(0, "call_1", "get_weather"), D("arguments", '{"city":', index=0),
      D("arguments", '"Paris"}', index=0), F("tool_calls"), END()],
     OPENAI + ": tool_calls by index (corpus/captures/openai-chat-tool-calls.sse)")
case(O, "y_openai_parallel_tool_calls",
     sse(chat({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{"}},
                              {"index": 1, "id": "b", "function": {"name": "g", "arguments": "["}}]}),
         chat({"tool_calls": [{"index": 1, "function": {"arguments": "]"}}]}),
         chat({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}),
         chat({}, "tool_calls")),
     [TC(0, "a", "f"), D("arguments", "{", index=0), TC(1, "b", "g"), D("arguments", "[", index=1),
      D("arguments", "]", index=1), D("arguments", "}", index=0), F("tool_calls"), END()],
     OPENAI + ": parallel calls, their arguments interleaved, kept apart by index")
case(O, "y_openai_tool_call_whole_without_index",
     sse(chat({"tool_calls": [{"id": "c1", "type": "function",
                               "function": {"name": "f", "arguments": "{\"a\":1}"}},
                              {"id": "c2", "type": "function",
                               "function": {"name": "g", "arguments": "{}"}}]}),
         chat({}, "tool_calls")),
     [TC(0, "c1", "f"), D("arguments", '{"a":1}', index=0), TC(1, "c2", "g"),
      D("arguments", "{}", index=1), F("tool_calls"), END()],
     "issue 11: a call whole in one chunk without index (each one a new call)")
case(O, "y_openai_index_less_arguments_continue_last_call",
     sse(chat({"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{\"a\""}}]}),
         chat({"tool_calls": [{"function": {"arguments": ":1}"}}]}), chat({}, "tool_calls")),
     [TC(0, "c1", "f"), D("arguments", '{"a"', index=0), D("arguments", ":1}", index=0),
      F("tool_calls"), END()],
     "design: without index, id or name, more arguments of the last call")
case(O, "y_openai_refusal",
     sse(chat({"role": "assistant", "content": None, "refusal": ""}), chat({"refusal": "I'm sorry"}),
         chat({"refusal": ", no."}), chat({}, "stop")),
     [D("refusal", "I'm sorry"), D("refusal", ", no."), F("stop"), END()],
     OPENAI + ": delta.refusal (corpus/captures/openai-chat-refusal.sse); shown as text")
case(O, "y_azure_content_filter_results",
     sse({"choices": [], "created": 0, "id": "", "model": "", "object": "",
          "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {
              "hate": {"filtered": False, "severity": "safe"}}}]},
         {"choices": [{"index": 0, "delta": {"content": "Once"}, "finish_reason": None,
                       "content_filter_results": {"violence": {"filtered": False, "severity": "safe"}}}],
          "object": "chat.completion.chunk"},
         {"choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter",
                       "content_filter_results": {"violence": {"filtered": True, "severity": "high"}}}],
          "object": "chat.completion.chunk"}),
     [D("text", "Once"), F("content_filter"), END()],
     "issue 11: content_filter_results (Azure) are metadata; the finish reason says the content was filtered")
case(O, "y_openrouter_error_in_chunk",
     sse(chat({"content": "Par"}),
         {"object": "chat.completion.chunk", "error": {"code": 502, "message": "Provider disconnected"},
          "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]},
         done=False),
     [D("text", "Par"), E("502", "Provider disconnected"), F("error"), END(True)],
     "anchor provider table: OpenRouter's mid-stream error with finish_reason error")
case(O, "y_openai_error_chunk_before_anything",
     sse({"error": {"message": "The server had an error", "type": "server_error", "param": None,
                    "code": None}}, done=False),
     [E("server_error", "The server had an error"), END(True)],
     OPENAI + ": data: {\"error\": ...} shows no provider; it is reported and the stream is truncated")
case(O, "y_openai_index_after_delta",
     sse('{"choices":[{"delta":{"content":"late"},"finish_reason":null,"index":1}]}',
         chat({}, "stop", index=1)),
     [D("text", "late", 1), F("stop", 1), END()],
     "design: members in any order; the delta is read once the index is known")
case(O, "y_mistral_content_parts",
     sse(chat({"role": "assistant", "content": [{"type": "thinking", "thinking": [
         {"type": "text", "text": "The user"}]}]}),
         chat({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": " asks."}]}]}),
         chat({"content": [{"type": "text", "text": "4"}]}), chat({"content": ""}, "stop")),
     [D("reasoning", "The user"), D("reasoning", " asks."), D("text", "4"), F("stop"), END()],
     "anchor provider table: Mistral content as an array of parts (corpus/captures/mistral-magistral-thinking.chunks.jsonl)")
case(O, "y_openai_data_after_done_ignored",
     sse(chat({"content": "a"}), chat({}, "stop")) + sse(chat({"content": "zzz"}), done=False),
     [D("text", "a"), F("stop"), END()],
     "design: a client stops reading at [DONE]")
case(O, "y_openai_done_only", "data: [DONE]\n\n", [END()],
     "design: [DONE] alone is a complete, empty stream")
case(O, "y_empty_body_is_truncated", "", [END(True)],
     "issue 11: no end marker, so truncated")
case(O, "y_openai_jsonl_recording_complete",
     jsonl(chat({"content": "Hi"}), chat({}, "stop"),
           {"object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 2}}),
     [D("text", "Hi"), F("stop"), U({"total_tokens": 2}), END()],
     "design: a .chunks.jsonl recording has no [DONE]; it is complete when every choice finished")
case(O, "y_openai_jsonl_recording_unfinished",
     jsonl(chat({"content": "Hi"}), chat({"content": " there"})),
     [D("text", "Hi"), D("text", " there"), END(True)],
     "design: a recording whose choices never finished is truncated")
case(O, "y_openai_jsonl_last_line_cut_off",
     jsonl(chat({"content": "Hi"})) + '\n{"object":"chat.completion.chunk","choices":[{"ind',
     [D("text", "Hi"), END(True)],
     "design: a last line without LF that is not complete JSON is the cut-off end of the recording",
     dropped='{"object":"chat.completion.chunk","choices":[{"ind')
case(O, "y_openrouter_processing_comments",
     ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" + sse(chat({"content": "ok"}), chat({}, "stop")),
     [D("text", "ok"), F("stop"), END()],
     "SOURCES.md §sse: OpenRouter keep-alive comments")
case(O, "y_openai_whitespace_padding",
     "data: " + dumps(chat({"content": "pad"})) + "     \n\ndata:  " + dumps(chat({}, "stop")) + "\n\ndata: [DONE]\n\n",
     [D("text", "pad"), F("stop"), END()],
     "issue 11: whitespace padding after the JSON")
case(O, "y_openai_escapes_decoded",
     'data: {"choices":[{"index":0,"delta":{"content":"\\u003cthink\\u003e"}}]}\n\n'
     'data: {"choices":[{"index":0,"delta":{"content":"a\\nb \\ud83d\\ude00"}}]}\n\n'
     + sse(chat({}, "stop")),
     [D("text", "<think>"), D("text", "a\nb \U0001f600"), F("stop"), END()],
     "RFC 8259: escapes decoded (\\u003c, \\n, a surrogate pair)")
case(O, "y_llamacpp_chat_final_chunk",
     sse(chat({"reasoning_content": "hm"}), chat({"content": "ok"}),
         {"choices": [{"finish_reason": "stop", "index": 0, "delta": {}}], "object": "chat.completion.chunk",
          "usage": {"completion_tokens": 2, "prompt_tokens": 5, "total_tokens": 7},
          "timings": {"prompt_n": 5, "predicted_n": 2}}),
     [D("reasoning", "hm"), D("text", "ok"), F("stop"), U({"completion_tokens": 2, "prompt_tokens": 5, "total_tokens": 7}), END()],
     "anchor provider table: llama.cpp's chat endpoint, usage and timings in the last chunk")
case(O, "y_completions_legacy",
     sse({"object": "text_completion", "choices": [{"text": "Once", "index": 0, "logprobs": None, "finish_reason": None}]},
         {"object": "text_completion", "choices": [{"text": " upon", "index": 0, "logprobs": None, "finish_reason": "length"}]}),
     [D("text", "Once"), D("text", " upon"), F("length"), END()],
     "issue 11: the legacy completions endpoint (choices[].text)")
case(O, "n_openai_invalid_json", 'data: {"choices":[}\n\n', None,
     "design: a chunk that is not JSON stops the stream at its offset",
     error={"code": "provider_format", "offset": 0})
case(O, "n_openai_chunk_not_an_object", sse(chat({"content": "a"}), done=False) + "data: hello\n\n", None,
     "design: a chunk that is neither JSON nor [DONE] is an error at its offset",
     error={"code": "provider_format", "offset": len(sse(chat({"content": "a"}), done=False).encode())})
case(O, "n_unknown_provider_chunk", 'data: {"foo": 1}\n\n', None,
     "design: a first chunk that shows no provider is an error (choose one with the provider option)",
     error={"code": "provider_format", "offset": 0})
case(O, "n_choice_index_64", sse(chat({"content": "a"}, index=64)), None,
     "design: choice indexes 0 to 63", error={"code": "provider_format", "offset": 0})
case(O, "n_invalid_utf8_in_chunk", b'data: {"choices":[{"delta":{"content":"\xff"}}]}\n\n', None,
     "RFC 8259: JSON text is UTF-8", error={"code": "provider_format", "offset": 0})
case(O, "n_lone_surrogate", 'data: {"choices":[{"delta":{"content":"\\ud800"}}]}\n\n', None,
     "RFC 8259 and jansson: a lone surrogate escape is not text", error={"code": "provider_format", "offset": 0})
case(O, "n_unknown_provider_option", "data: [DONE]\n\n", None,
     "design: the provider option names a provider", opts={"provider": "acme"},
     error={"code": "bad_option"})
case(O, "n_bad_framing_option", "data: [DONE]\n\n", None, "design: framings are auto, sse, ndjson, chunks",
     opts={"framing": "xml"}, error={"code": "bad_option"})
case(O, "n_line_over_max_line", sse(chat({"content": "0123456789"})), None,
     "DESIGN.md §1 Memory: the framing's caps apply", opts={"max_line": 40},
     error={"code": "limit", "offset": 40})
case(O, "y_forced_openai_on_bare_choices",
     sse({"choices": [{"delta": {"content": "x"}}]}, {"choices": [{"delta": {}, "finish_reason": "stop"}]}),
     [D("text", "x"), F("stop"), END()],
     "design: the provider option skips detection; a choice without index is choice 0",
     opts={"provider": "openai"})

A = "anthropic.json"
FILES[A] = "Anthropic Messages streams"
ANT = "anchor provider table: Anthropic Messages"


def ant(t, **kw):
    d = {"type": t}
    d.update(kw)
    return d


MSG_START = ant("message_start", message={"id": "msg_1", "type": "message", "role": "assistant",
                                         "content": [], "usage": {"input_tokens": 11, "output_tokens": 1}})
MSG_END = [ant("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None},
               usage={"output_tokens": 6}), ant("message_stop")]
case(A, "y_anthropic_text",
     sse(MSG_START, ant("content_block_start", index=0, content_block={"type": "text", "text": ""}),
         ant("ping"), ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"}),
         ant("content_block_delta", index=0, delta={"type": "text_delta", "text": " there"}),
         ant("content_block_stop", index=0), *MSG_END, done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Hello"), D("text", " there"),
      F("end_turn"), U({"output_tokens": 6}), END()],
     ANT + " (corpus/captures/anthropic-messages-basic.sse, with its last blank line)")
case(A, "y_anthropic_no_message_stop_is_truncated",
     sse(MSG_START, ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
         MSG_END[0], done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Hi"), F("end_turn"),
      U({"output_tokens": 6}), END(True)],
     "issue 11: no message_stop, so truncated")
case(A, "y_anthropic_last_event_without_blank_line",
     sse(MSG_START, ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
         MSG_END[0], done=False, events=True) + 'event: message_stop\ndata: {"type":"message_stop"}',
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Hi"), F("end_turn"),
      U({"output_tokens": 6}), END(True)],
     "corpus/captures/anthropic-messages-basic.sse: its last event has no blank line, so by the WHATWG rules it is never dispatched",
     dropped='data: {"type":"message_stop"}')
case(A, "y_anthropic_thinking_and_signature",
     sse(MSG_START, ant("content_block_start", index=0, content_block={"type": "thinking", "thinking": "", "signature": ""}),
         ant("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "925 / 5"}),
         ant("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": ""}),
         ant("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "EqQBCkYIBxgCKkA"}),
         ant("content_block_stop", index=0),
         ant("content_block_start", index=1, content_block={"type": "text", "text": ""}),
         ant("content_block_delta", index=1, delta={"type": "text_delta", "text": "185"}),
         ant("content_block_stop", index=1), *MSG_END, done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("reasoning", "925 / 5"), D("text", "185"),
      F("end_turn"), U({"output_tokens": 6}), END()],
     ANT + ": thinking_delta, an empty thinking delta, signature_delta ignored (corpus/captures/anthropic-thinking-signature.chunks.jsonl)")
case(A, "y_anthropic_redacted_thinking",
     sse(MSG_START, ant("content_block_start", index=0, content_block={"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
         ant("content_block_stop", index=0),
         ant("content_block_start", index=1, content_block={"type": "text", "text": ""}),
         ant("content_block_delta", index=1, delta={"type": "text_delta", "text": "ok"}),
         *MSG_END, done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "ok"), F("end_turn"), U({"output_tokens": 6}), END()],
     ANT + ": redacted thinking carries no text")
case(A, "y_anthropic_tool_use_input_json",
     sse(MSG_START, ant("content_block_start", index=0, content_block={"type": "text", "text": ""}),
         ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Checking."}),
         ant("content_block_start", index=1, content_block={"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
         ant("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": ""}),
         ant("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": "{\"loc"}),
         ant("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": "\": \"Paris\"}"}),
         ant("content_block_stop", index=1),
         ant("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 9}), ant("message_stop"),
         done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Checking."), TC(0, "toolu_1", "get_weather"),
      D("arguments", '{"loc', index=0), D("arguments", '": "Paris"}', index=0), F("tool_use"),
      U({"output_tokens": 9}), END()],
     ANT + ": tool_use blocks and input_json_delta (corpus/captures/anthropic-messages-tool-use.sse)")
case(A, "y_anthropic_two_tool_uses",
     sse(MSG_START,
         ant("content_block_start", index=0, content_block={"type": "tool_use", "id": "t0", "name": "a", "input": {}}),
         ant("content_block_start", index=1, content_block={"type": "tool_use", "id": "t1", "name": "b", "input": {}}),
         ant("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": "{}"}),
         ant("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": "[]"}),
         ant("message_stop"), done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), TC(0, "t0", "a"), TC(1, "t1", "b"),
      D("arguments", "{}", index=1), D("arguments", "[]", index=0), END()],
     "design: each tool_use block is a call, its arguments found by block index")
case(A, "y_anthropic_error_event",
     sse(MSG_START, ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
         ant("error", error={"type": "overloaded_error", "message": "Overloaded"}), done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Hi"), E("overloaded_error", "Overloaded"), END(True)],
     ANT + ": event: error mid-stream")
case(A, "y_anthropic_recording_jsonl",
     jsonl(MSG_START, ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}), *MSG_END),
     [U({"input_tokens": 11, "output_tokens": 1}), D("text", "Hi"), F("end_turn"), U({"output_tokens": 6}), END()],
     "design: the .chunks.jsonl form of the same stream")
case(A, "y_anthropic_data_before_event",
     'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}\nevent: content_block_delta\n\n'
     'data: {"type":"message_stop"}\nevent: message_stop\n\n',
     [D("text", "x"), END()], "issue 11: data: before event:")
case(A, "y_anthropic_ping_first",
     sse(ant("ping"), MSG_START, ant("message_stop"), done=False, events=True),
     [U({"input_tokens": 11, "output_tokens": 1}), END()],
     ANT + ": ping anywhere, the first chunk included")

R = "responses.json"
FILES[R] = "OpenAI Responses streams"
RES = "anchor provider table: OpenAI Responses"


def rs(t, **kw):
    d = {"type": t, "sequence_number": 0}
    d.update(kw)
    return d


CREATED = rs("response.created", response={"id": "resp_1", "status": "in_progress", "output": []})
RUSAGE = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
COMPLETED = rs("response.completed", response={"id": "resp_1", "status": "completed", "usage": RUSAGE})
case(R, "y_responses_text",
     sse(CREATED, rs("response.in_progress", response={"id": "resp_1"}),
         rs("response.output_item.added", output_index=0, item={"type": "message", "id": "msg_1"}),
         rs("response.output_text.delta", item_id="msg_1", output_index=0, delta="Hel"),
         rs("response.output_text.delta", item_id="msg_1", output_index=0, delta="lo"),
         rs("response.output_text.done", output_index=0, text="Hello"), COMPLETED, done=False, events=True),
     [D("text", "Hel"), D("text", "lo"), F("completed"), U(RUSAGE), END()],
     RES + ": output_text deltas, response.completed, no [DONE]")
case(R, "y_responses_without_event_lines",
     sse(CREATED, rs("response.output_text.delta", output_index=0, delta="Hi"), COMPLETED, done=False),
     [D("text", "Hi"), F("completed"), U(RUSAGE), END()],
     "issue 11: servers that send no event: lines")
case(R, "y_responses_reasoning_summary_then_text",
     sse(CREATED, rs("response.reasoning_summary_text.delta", output_index=0, summary_index=0, delta="**Calc", obfuscation="2aj"),
         rs("response.reasoning_summary_text.delta", output_index=0, summary_index=0, delta="ulating**"),
         rs("response.output_text.delta", output_index=1, delta="570"), COMPLETED, done=False, events=True),
     [D("reasoning", "**Calc"), D("reasoning", "ulating**"), D("text", "570"), F("completed"), U(RUSAGE), END()],
     RES + ": reasoning summaries (corpus/captures/openai-responses-reasoning-summary.chunks.jsonl)")
case(R, "y_responses_reasoning_text",
     sse(CREATED, rs("response.reasoning_text.delta", output_index=0, delta="raw"), COMPLETED, done=False),
     [D("reasoning", "raw"), F("completed"), U(RUSAGE), END()],
     RES + ": reasoning_text deltas (open models)")
case(R, "y_responses_function_call",
     sse(CREATED,
         rs("response.output_item.added", output_index=0, item={"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "calculator", "arguments": ""}),
         rs("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta="{\"a\":"),
         rs("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta="12}"),
         rs("response.function_call_arguments.done", item_id="fc_1", output_index=0, arguments="{\"a\":12}"),
         COMPLETED, done=False, events=True),
     [TC(0, "call_A", "calculator"), D("arguments", '{"a":', index=0), D("arguments", "12}", index=0),
      F("completed"), U(RUSAGE), END()],
     RES + ": function-call arguments by output_index")
case(R, "y_responses_error_then_failed",
     sse(CREATED, rs("error", error=None, code="insufficient_quota", message="You exceeded your current quota", param=None),
         rs("response.failed", response={"id": "resp_1", "status": "failed",
                                         "error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}),
         done=False, events=True),
     [E("insufficient_quota", "You exceeded your current quota"), F("failed"), END()],
     RES + ": an error event, then response.failed (corpus/captures/openai-responses-error.chunks.jsonl); reported once")
case(R, "y_responses_failed_without_error_event",
     sse(CREATED, rs("response.failed", response={"id": "resp_1", "status": "failed",
                                                  "error": {"code": "server_error", "message": "boom"}}), done=False),
     [E("server_error", "boom"), F("failed"), END()],
     "design: response.failed carries the error when no error event came")
case(R, "y_responses_incomplete",
     sse(CREATED, rs("response.output_text.delta", output_index=0, delta="cut"),
         rs("response.incomplete", response={"id": "resp_1", "status": "incomplete",
                                             "incomplete_details": {"reason": "max_output_tokens"}}), done=False),
     [D("text", "cut"), F("max_output_tokens"), END()],
     RES + ": response.incomplete with its reason")
case(R, "y_responses_truncated",
     sse(CREATED, rs("response.output_text.delta", output_index=0, delta="Hi"), done=False, events=True),
     [D("text", "Hi"), END(True)], "issue 11: no terminal event, so truncated")
case(R, "y_responses_two_in_a_row",
     sse(CREATED, rs("response.output_item.added", output_index=0, item={"type": "function_call", "call_id": "c1", "name": "f"}),
         rs("response.function_call_arguments.delta", output_index=0, delta="{}"), COMPLETED,
         CREATED, rs("response.output_item.added", output_index=1, item={"type": "function_call", "call_id": "c2", "name": "f"}),
         rs("response.function_call_arguments.delta", output_index=1, delta="[]"), COMPLETED, done=False),
     [TC(0, "c1", "f"), D("arguments", "{}", index=0), F("completed"), U(RUSAGE),
      TC(0, "c2", "f"), D("arguments", "[]", index=0), F("completed"), U(RUSAGE), END()],
     "corpus/captures/openai-responses-reasoning-summary.chunks.jsonl holds four responses in a row; tool indexes start again")
case(R, "y_responses_refusal",
     sse(CREATED, rs("response.refusal.delta", output_index=0, delta="No."), COMPLETED, done=False),
     [D("refusal", "No."), F("completed"), U(RUSAGE), END()], RES + ": refusal deltas")
case(R, "y_responses_error_after_completed_truncates",
     sse(CREATED, COMPLETED, rs("error", code="server_error", message="late"), done=False),
     [F("completed"), U(RUSAGE), E("server_error", "late"), END(True)],
     "design: the stream is complete only if its last chunk is a terminal event")

L = "ollama.json"
FILES[L] = "Ollama /api/generate and /api/chat (NDJSON)"
OLL = "anchor provider table: Ollama"


def og(response, done=False, **kw):
    d = {"model": "deepseek-r1:14b", "created_at": "2025-08-01T15:55:49Z", "response": response, "done": done}
    d.update(kw)
    return d


def oc(done=False, **msg):
    m = {"role": "assistant", "content": ""}
    m.update(msg)
    return {"model": "qwen3", "created_at": "2025-08-01T15:55:49Z", "message": m, "done": done}


case(L, "y_ollama_generate",
     ndjson(og("Rabbits"), og(" hop."), og("", True, done_reason="stop", context=[1, 2], prompt_eval_count=11, eval_count=2)),
     [D("text", "Rabbits"), D("text", " hop."), F("stop"), U({"prompt_eval_count": 11, "eval_count": 2}), END()],
     OLL + ": /api/generate response and done (corpus/captures/ollama-generate-deepseek-r1-think-tags.ndjson)")
case(L, "y_ollama_think_tags_escaped",
     '{"model":"m","response":"\\u003cthink\\u003e","done":false}\n{"model":"m","response":"hm\\u003c/think\\u003e\\n\\nHi","done":false}\n'
     '{"model":"m","response":"","done":true,"done_reason":"stop"}\n',
     [D("text", "<think>"), D("text", "hm</think>\n\nHi"), F("stop"), END()],
     OLL + ": without think, tags stay in the text, escaped by Go as \\u003c")
case(L, "y_ollama_generate_thinking_field",
     ndjson(og("", thinking="Let me"), og("Yes"), og("", True, done_reason="stop")),
     [D("reasoning", "Let me"), D("text", "Yes"), F("stop"), END()], OLL + ": thinking with think on")
case(L, "y_ollama_chat_content_and_thinking",
     ndjson(oc(thinking="Hmm"), oc(content="Hi"), oc(True, content="") | {"done_reason": "stop"}),
     [D("reasoning", "Hmm"), D("text", "Hi"), F("stop"), END()], OLL + ": /api/chat message.content and message.thinking")
case(L, "y_ollama_chat_tool_calls",
     ndjson(oc(tool_calls=[{"function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]),
            oc(True) | {"done_reason": "stop"}),
     [TC(0, "", "get_weather"), D("arguments", '{"city":"Paris","days":2}', index=0), F("stop"), END()],
     "Ollama /api/chat: whole tool calls, arguments as an object (given compacted)")
case(L, "y_ollama_error_line", ndjson(og("Hi"), {"error": "model runner has unexpectedly stopped"}),
     [D("text", "Hi"), E("", "model runner has unexpectedly stopped"), END(True)],
     OLL + ": a {\"error\": ...} line")
case(L, "y_ollama_truncated", ndjson(og("Hi"), og(" there")),
     [D("text", "Hi"), D("text", " there"), END(True)], "issue 11: no done: true, so truncated")
case(L, "y_ollama_no_done_reason", ndjson(og("Hi"), og("", True)),
     [D("text", "Hi"), F(""), END()], "design: older servers send no done_reason: an empty reason")
case(L, "y_ollama_ndjson_last_line_without_lf",
     ndjson(og("Hi")) + dumps(og("", True, done_reason="stop")),
     [D("text", "Hi"), END(True)],
     "DESIGN.md §2 sse: with ndjson framing a last line without LF is the cut-off end of the stream",
     opts={"framing": "ndjson"}, dropped=dumps(og("", True, done_reason="stop")))
case(L, "y_ollama_auto_last_line_without_lf",
     ndjson(og("Hi")) + dumps(og("", True, done_reason="stop")),
     [D("text", "Hi"), F("stop"), END()],
     "design: auto framing reads JSON lines as a recording, whose last line needs no LF")

G = "gemini.json"
FILES[G] = "Gemini streamGenerateContent with alt=sse"
GEM = "anchor provider table: Gemini"


def gc(parts, finish=None, index=None, usage=None):
    cand = {"content": {"parts": parts, "role": "model"}}
    if finish:
        cand["finishReason"] = finish
    if index is not None:
        cand["index"] = index
    d = {"candidates": [cand]}
    if usage:
        d["usageMetadata"] = usage
    return d


GU = {"promptTokenCount": 6, "candidatesTokenCount": 1, "totalTokenCount": 7}
case(G, "y_gemini_text_crlf",
     sse(gc([{"text": "Hel"}], usage={"promptTokenCount": 6}), gc([{"text": "lo"}]), gc([{"text": ""}], "STOP", usage=GU),
         done=False, crlf=True),
     [D("text", "Hel"), D("text", "lo"), F("STOP"), U(GU), END()],
     GEM + ": alt=sse with CRLF framing, finishReason, usage from the finishing chunk")
case(G, "y_gemini_thought_parts",
     sse(gc([{"text": "User asks", "thought": True}], index=0), gc([{"text": "hello"}], index=0),
         gc([{"text": ""}], "STOP", index=0, usage=GU), done=False, crlf=True),
     [D("reasoning", "User asks"), D("text", "hello"), F("STOP"), U(GU), END()],
     GEM + ": thought parts (corpus/captures/gemini-api-gemma4-thought-then-text.chunks.jsonl)")
case(G, "y_gemini_function_call",
     sse(gc([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "AY89a18a"}]),
         gc([{"text": ""}], "STOP"), done=False, crlf=True),
     [TC(0, "", "get_weather"), D("arguments", '{"city":"Paris"}', index=0), F("STOP"), END()],
     GEM + ": a whole functionCall; thoughtSignature ignored")
case(G, "y_gemini_two_candidates",
     sse({"candidates": [{"content": {"parts": [{"text": "A"}]}, "index": 0},
                         {"content": {"parts": [{"text": "B"}]}, "index": 1}]},
         {"candidates": [{"content": {"parts": [{"text": ""}]}, "index": 0, "finishReason": "STOP"},
                         {"content": {"parts": [{"text": ""}]}, "index": 1, "finishReason": "MAX_TOKENS"}]},
         done=False),
     [D("text", "A"), D("text", "B", 1), F("STOP"), F("MAX_TOKENS", 1), END()],
     "design: candidates kept apart by index, like choices")
case(G, "y_gemini_truncated", sse(gc([{"text": "Hi"}]), done=False, crlf=True),
     [D("text", "Hi"), END(True)], "issue 11: no finishReason, so truncated")
case(G, "y_gemini_error", sse({"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}, done=False),
     [E("RESOURCE_EXHAUSTED", "Resource exhausted"), END(True)], GEM + ": an error object")
case(G, "y_gemini_prompt_blocked",
     sse({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 6}}, done=False),
     [F("SAFETY"), U({"promptTokenCount": 6}), END()], "design: a blocked prompt finishes choice 0 with its blockReason")
PARTIAL = ("corpus/captures/gemini-vertex-thought-toolcall.chunks.jsonl and Vertex's FunctionCall "
           "and PartialArg (willContinue, jsonPath RFC 9535, string/number/bool/null values)")


def fcall(**kw):
    return gc([{"functionCall": kw}])


def pa(path, more=False, **value):
    d = {"jsonPath": path}
    d.update(value)
    if more:
        d["willContinue"] = True
    return d


case(G, "y_gemini_partial_args_assembled",
     jsonl(gc([{"text": "plan", "thought": True}]), fcall(name="read_screen", willContinue=True),
           fcall(partialArgs=[pa("$.id", True, stringValue="A")], willContinue=True),
           fcall(partialArgs=[pa("$.id", stringValue="")], willContinue=True),
           fcall(), gc([{"text": ""}], "STOP")),
     [D("reasoning", "plan"), TC(0, "", "read_screen"), D("arguments", '{"id":"A', index=0),
      D("arguments", '"', index=0), D("arguments", "}", index=0), F("STOP"), END()],
     PARTIAL + ": a string in two pieces; the part without willContinue closes the call")
case(G, "y_gemini_partial_args_nested",
     sse(fcall(name="f", willContinue=True),
         fcall(partialArgs=[pa("$.loc.city", True, stringValue="Par")], willContinue=True),
         fcall(partialArgs=[pa("$.loc.city", stringValue="is"), pa("$.loc.zip", numberValue=75001),
                            pa("$.flags[0]", boolValue=True), pa("$.flags[1]", nullValue="NULL_VALUE"),
                            pa("$.n", numberValue=3.5)], willContinue=True),
         fcall(), gc([{"text": ""}], "STOP"), done=False, crlf=True),
     [TC(0, "", "f"), D("arguments", '{"loc":{"city":"Par', index=0),
      D("arguments", 'is","zip":75001},"flags":[true,null],"n":3.5', index=0),
      D("arguments", "}", index=0), F("STOP"), END()],
     PARTIAL + ": nested names and indexes open and close containers as the path moves")
case(G, "y_gemini_partial_args_quoted_names_and_escapes",
     sse(fcall(name="f", willContinue=True),
         fcall(partialArgs=[pa("$['a b']", numberValue=1), pa("$[\"x\\\"y\"]", boolValue=False),
                            pa("$.s", stringValue="q\"\n\u00e9")]),
         gc([{"text": ""}], "STOP"), done=False, crlf=True),
     [TC(0, "", "f"), D("arguments", '{"a b":1,"x\\"y":false,"s":"q\\"\\n\u00e9"}', index=0),
      F("STOP"), END()],
     PARTIAL + ": bracketed names; a string's escapes kept as JSON; a part without "
     "willContinue ends the call")
case(G, "y_gemini_partial_args_next_call_ends_the_streamed_one",
     sse(fcall(name="a", willContinue=True), fcall(partialArgs=[pa("$.k", True, stringValue="v")],
                                                   willContinue=True),
         fcall(name="b", args={"z": 1}), gc([{"text": ""}], "STOP"), done=False, crlf=True),
     [TC(0, "", "a"), D("arguments", '{"k":"v', index=0), D("arguments", '"}', index=0),
      TC(1, "", "b"), D("arguments", '{"z":1}', index=1), F("STOP"), END()],
     PARTIAL + ": a named call that follows ends the one still streaming")
BAD_PATH_FIRST = sse(fcall(name="f", willContinue=True), done=False)
case(G, "n_gemini_partial_args_bad_path",
     BAD_PATH_FIRST + sse(fcall(partialArgs=[pa("$..x", numberValue=1)], willContinue=True),
                          done=False),
     None, PARTIAL + ": only paths of names and indexes can be written as they come",
     error={"code": "provider_format", "offset": len(BAD_PATH_FIRST.encode())})

C = "cohere.json"
FILES[C] = "Cohere v2 chat streams"
COH = "Cohere v2 chat streaming events"


def co(t, **kw):
    d = {"type": t}
    d.update(kw)
    return d


CEND = co("message-end", delta={"finish_reason": "COMPLETE", "usage": {"tokens": {"input_tokens": 3, "output_tokens": 2}}})
case(C, "y_cohere_text",
     sse(co("message-start", id="x", delta={"message": {"role": "assistant"}}),
         co("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}}),
         co("content-delta", index=0, delta={"message": {"content": {"text": "Hel"}}}),
         co("content-delta", index=0, delta={"message": {"content": {"text": "lo"}}}),
         co("content-end", index=0), CEND, done=False, events=True),
     [D("text", "Hel"), D("text", "lo"), F("COMPLETE"), U({"tokens": {"input_tokens": 3, "output_tokens": 2}}), END()],
     COH + ": content-delta and message-end")
case(C, "y_cohere_thinking",
     sse(co("message-start"), co("content-delta", index=0, delta={"message": {"content": {"thinking": "hmm"}}}),
         co("content-delta", index=1, delta={"message": {"content": {"text": "ok"}}}), CEND, done=False, events=True),
     [D("reasoning", "hmm"), D("text", "ok"), F("COMPLETE"), U({"tokens": {"input_tokens": 3, "output_tokens": 2}}), END()],
     COH + ": thinking content deltas")
case(C, "y_cohere_tool_plan_and_call",
     sse(co("message-start"), co("tool-plan-delta", delta={"message": {"tool_plan": "I will look"}}),
         co("tool-call-start", index=0, delta={"message": {"tool_calls": {"id": "get_1", "type": "function",
                                                                       "function": {"name": "get_weather", "arguments": ""}}}}),
         co("tool-call-delta", index=0, delta={"message": {"tool_calls": {"function": {"arguments": "{\"city\""}}}}),
         co("tool-call-delta", index=0, delta={"message": {"tool_calls": {"function": {"arguments": ":\"Paris\"}"}}}}),
         co("tool-call-end", index=0),
         co("message-end", delta={"finish_reason": "TOOL_CALL"}), done=False, events=True),
     [D("reasoning", "I will look"), TC(0, "get_1", "get_weather"), D("arguments", '{"city"', index=0),
      D("arguments", ':"Paris"}', index=0), F("TOOL_CALL"), END()],
     COH + ": tool-plan-delta, tool-call-start and tool-call-delta")
case(C, "y_cohere_truncated",
     sse(co("message-start"), co("content-delta", index=0, delta={"message": {"content": {"text": "Hi"}}}), done=False, events=True),
     [D("text", "Hi"), END(True)], "issue 11: no message-end, so truncated")

P = "llamacpp.json"
FILES[P] = "llama.cpp's /completion stream"
LLC = "anchor provider table: llama.cpp /completion"
case(P, "y_llamacpp_completion",
     sse({"content": "Once", "stop": False, "id_slot": 0}, {"content": " upon", "stop": False},
         {"content": "", "stop": True, "stop_type": "eos", "timings": {"predicted_n": 2}}, done=False),
     [D("text", "Once"), D("text", " upon"), F("eos"), END()], LLC + ": content, stop: true with stop_type")
case(P, "y_llamacpp_stopped_word",
     sse({"content": "a", "stop": False}, {"content": "", "stop": True, "stopped_eos": False, "stopped_word": True,
                                            "stopped_limit": False}, done=False),
     [D("text", "a"), F("word"), END()], LLC + ": older servers say why with stopped_* booleans")
case(P, "y_llamacpp_truncated", sse({"content": "a", "stop": False}, done=False),
     [D("text", "a"), END(True)], "issue 11: no stop: true, so truncated")
case(P, "y_llamacpp_error_data",
     sse({"content": "a", "stop": False}, {"error": {"code": 500, "message": "slot unavailable", "type": "server_error"}},
         done=False),
     [D("text", "a"), E("server_error", "slot unavailable"), END(True)], LLC + ": newer servers send data: {\"error\": ...}")
case(P, "y_llamacpp_old_error_field",
     sse({"content": "a", "stop": False}, done=False) + 'error: {"code":500,"message":"boom"}\n\n',
     [D("text", "a"), END(True)],
     LLC + ": older servers send error: as a field, which SSE ignores; the stream then lacks stop: true")
case(P, "y_llamacpp_think_tags_stay",
     sse({"content": "<think>x</think>y", "stop": False}, {"content": "", "stop": True, "stop_type": "eos"}, done=False),
     [D("text", "<think>x</think>y"), F("eos"), END()], LLC + ": raw tags stay in the content (the pipeline's think filter takes them)")

T = "detect.json"
FILES[T] = "provider and framing detection from the content, not the file name"
DET = "issue 11: the provider is detected from the content"
case(T, "y_detect_jsonl_after_blank_lines", "\n\n" + jsonl(chat({"content": "a"}), chat({}, "stop")),
     [D("text", "a"), F("stop"), END()], DET + ": JSON lines when the first byte that is not whitespace is {")
case(T, "y_detect_sse_with_bom", "\ufeff" + sse(chat({"content": "a"}), chat({}, "stop")),
     [D("text", "a"), F("stop"), END()], DET + ": SSE, a BOM first")
case(T, "y_detect_after_error_chunk",
     sse({"error": {"message": "retrying", "type": "warning"}}, chat({"content": "a"}), chat({}, "stop")),
     [E("warning", "retrying"), D("text", "a"), F("stop"), END()],
     "design: an error chunk that shows no provider is reported and detection goes on")
case(T, "y_detect_forced_anthropic_on_ping",
     sse(ant("ping"), ant("message_stop"), done=False),
     [END()], "design: the provider option skips detection", opts={"provider": "anthropic"})
case(T, "y_detect_forced_framing_sse_on_json",
     '{"a":1}\n\n' + sse(chat({"content": "a"}), chat({}, "stop")),
     [D("text", "a"), F("stop"), END()],
     "design: framing sse reads a JSON line as an unknown SSE field", opts={"framing": "sse"})
case(T, "y_detect_completions_by_text", sse({"choices": [{"text": "x", "index": 0, "finish_reason": "stop"}]}),
     [D("text", "x"), F("stop"), END()], DET + ": choices[].text is the completions endpoint")
case(T, "y_detect_ollama_by_done", ndjson({"response": "x", "done": True}),
     [D("text", "x"), F(""), END()], DET + ": done is Ollama")
case(T, "y_detect_llamacpp_by_stop", sse({"content": "x", "stop": True}, done=False),
     [D("text", "x"), F(""), END()], DET + ": content and stop are llama.cpp")


def channels(events, choice):
    text, thought, other = "", "", ""
    for e in events:
        if e["type"] != "delta" or e["choice"] != choice:
            continue
        if e["kind"] in ("text", "refusal"):
            text += e["text"]
        elif e["kind"] == "reasoning":
            thought += e["text"]
        else:
            other += e["text"]
    return text, thought, other



def main():
    by_file = {}
    for c in CASES:
        body = c["body"]
        body = body if isinstance(body, bytes) else body.encode()
        if c["error"]:
            expect = {"error": c["error"]}
            assert c["id"].startswith("n_"), c["id"]
        else:
            assert c["id"].startswith("y_"), c["id"]
            text, thought, other = channels(c["events"], c["opts"].get("choice", 0))
            expect = {}
            for k, v in (("text", text), ("thought", thought), ("other", other)):
                if v:
                    expect[k] = v
            if c["dropped"]:
                expect["dropped"] = c["dropped"]
            expect["events"] = c["events"]
        by_file.setdefault(c["file"], []).append(case_entry(c["id"], body, expect, c["source"], c["opts"]))
    write_suite(HERE, "provider", FILES, by_file, "provider")


if __name__ == "__main__":
    main()
