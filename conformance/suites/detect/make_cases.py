#!/usr/bin/env python3
"""Writes the detect suite (filter "detect", sluice.h sluice_detect_new): the
one set of rules by which every command tells what a stream is (its
endpoint, its model, its framing) from the content. The provider filter
detects by the same rules; serve, replay, diff and the capture reader ask
the detector.

Each case is a stream's first chunks and the one provider event expected,
written by hand from the order of evidence in sluice.h (sluice_detect_chunk)
and the provider formats (anchors/sse-and-providers.md). Nothing here runs
the library.

Run from anywhere:  python3 conformance/suites/detect/make_cases.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the suites
sys.path.insert(0, os.path.dirname(HERE))
from casefiles import case_entry, write_suite  # noqa: E402

ORDER = "sluice.h sluice_detect_chunk: the order of evidence"


def dumps(o):
    return json.dumps(o, ensure_ascii=False)


def sse(*objs, crlf=False):
    nl = "\r\n" if crlf else "\n"
    return "".join("data: %s%s%s" % (o if isinstance(o, str) else dumps(o), nl, nl) for o in objs)


def lines(*objs):
    return "".join(dumps(o) + "\n" for o in objs)


def told(endpoint, model, framing, offset=0):
    return {"events": [{"type": "provider", "endpoint": endpoint, "model": model,
                        "framing": framing, "offset": offset, "complete": True}]}


def untold(framing):
    return {"events": [{"type": "provider", "endpoint": "unknown", "model": "",
                        "framing": framing, "offset": 0, "complete": False}]}


def y(cid, body, ex, source, options=None):
    return case_entry(cid, body.encode() if isinstance(body, str) else body, ex, source, options)


def cases_shapes():
    c = []
    chat = {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4o",
            "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}]}
    c.append(y("y_openai_chat_by_object", sse(chat), told("openai-chat", "gpt-4o", "sse"),
               ORDER + ": object chat.completion.chunk"))
    bare = {"model": "llama", "choices": [{"index": 0, "delta": {"content": "a"}}]}
    c.append(y("y_openai_chat_by_delta", sse(bare), told("openai-chat", "llama", "sse"),
               ORDER + ": a first choice with a delta (servers that leave out object)"))
    usage = {"choices": [], "usage": {"total_tokens": 3}}
    c.append(y("y_openai_chat_usage_chunk", sse(usage), told("openai-chat", "", "sse"),
               ORDER + ": choices [] is OpenAI's usage chunk"))
    comp = {"object": "text_completion", "model": "davinci",
            "choices": [{"text": "x", "index": 0}]}
    c.append(y("y_completions_by_object", sse(comp), told("openai-completions", "davinci", "sse"),
               ORDER + ": object text_completion"))
    c.append(y("y_completions_by_text", sse({"choices": [{"text": "x", "index": 0}]}),
               told("openai-completions", "", "sse"),
               ORDER + ": a first choice with text and no delta"))
    c.append(y("y_responses_created", sse({"type": "response.created", "sequence_number": 0,
                                           "response": {"model": "gpt-5", "output": []}}),
               told("openai-responses", "gpt-5", "sse"),
               ORDER + ": a response.* type; the model of the response object"))
    c.append(y("y_responses_error_by_sequence_number",
               sse({"type": "error", "sequence_number": 2, "code": "insufficient_quota",
                    "message": "quota"}), told("openai-responses", "", "sse"),
               "captures/openai-responses-error: the Responses API's error event has no error "
               "member"))
    c.append(y("y_anthropic_message_start",
               sse({"type": "message_start", "message": {"model": "claude-3", "content": []}}),
               told("anthropic", "claude-3", "sse"),
               ORDER + ": Anthropic's event types; the model of the message object"))
    c.append(y("y_anthropic_ping_first", sse({"type": "ping"}), told("anthropic", "", "sse"),
               ORDER + ": ping is one of Anthropic's types"))
    c.append(y("y_anthropic_error_member",
               sse({"type": "error", "error": {"type": "overloaded_error", "message": "x"}}),
               told("anthropic", "", "sse"),
               "anchors/sse-and-providers.md: Anthropic's error event holds an error object"))
    c.append(y("y_cohere_message_start", sse({"type": "message-start", "id": "x"}),
               told("cohere", "", "sse"), ORDER + ": Cohere v2's event types"))
    gem = {"candidates": [{"content": {"parts": [{"text": "x"}]}}], "modelVersion": "gemini-2.5"}
    c.append(y("y_gemini_candidates_crlf", sse(gem, crlf=True), told("gemini", "gemini-2.5", "sse"),
               ORDER + ": candidates; the model in modelVersion; CRLF framing"))
    c.append(y("y_gemini_usage_only", sse({"usageMetadata": {"totalTokenCount": 1}}),
               told("gemini", "", "sse"), ORDER + ": usageMetadata alone"))
    c.append(y("y_gemini_prompt_feedback", sse({"promptFeedback": {"blockReason": "SAFETY"}}),
               told("gemini", "", "sse"), ORDER + ": promptFeedback (a blocked prompt)"))
    c.append(y("y_ollama_chat", lines({"model": "qwen3", "message": {"content": "x"},
                                       "done": False}), told("ollama-chat", "qwen3", "chunks"),
               ORDER + ": done with a message is /api/chat"))
    c.append(y("y_ollama_generate", lines({"model": "r1", "response": "x", "done": False}),
               told("ollama-generate", "r1", "chunks"),
               ORDER + ": done without a message is /api/generate (its response is a string, "
               "not the Responses API's object)"))
    c.append(y("y_llamacpp_completion", sse({"content": "x", "stop": False}),
               told("llamacpp", "", "sse"), ORDER + ": content with stop true or false"))
    return c


def cases_order():
    c = []
    err = {"error": {"message": "retrying", "type": "warning"}}
    chat = {"object": "chat.completion.chunk", "model": "m", "choices": []}
    body = sse(err, chat)
    c.append(y("y_error_chunk_passed_over", body,
               told("openai-chat", "m", "sse", offset=body.index('data: {"object')),
               "sluice.h sluice_detect_new: a chunk that tells nothing is passed over; offset "
               "is the telling chunk's first byte"))
    body = sse({"type": "error"}, chat)
    c.append(y("y_bare_error_type_tells_nothing", body,
               told("openai-chat", "m", "sse", offset=body.index('data: {"object')),
               ORDER + ": {\"type\": \"error\"} with no error, sequence_number, code or "
               "message could be either API's"))
    body = sse("[DONE]", chat)
    c.append(y("y_done_tells_nothing", body,
               told("openai-chat", "m", "sse", offset=body.index('data: {"object')),
               "[DONE] is no chunk"))
    c.append(y("y_nothing_tells", sse({"unknown": 1}, {"error": "x"}), untold("sse"),
               "sluice.h sluice_detect_new: at finish when no chunk told"))
    c.append(y("y_empty_stream", "", untold("sse"), "an empty stream tells nothing"))
    c.append(y("y_comments_only", ": ping\n\n: ping\n\n", untold("sse"),
               "comments dispatch nothing"))
    first = {"object": "chat.completion.chunk", "model": "first", "choices": []}
    second = {"type": "message_start", "message": {"model": "second"}}
    c.append(y("y_first_telling_chunk_wins", sse(first, second), told("openai-chat", "first", "sse"),
               "what follows the telling chunk is not looked at"))
    c.append(y("y_first_wins_even_if_invalid_after", sse(first) + "data: {oops\n\n",
               told("openai-chat", "first", "sse"),
               "sluice.h sluice_detect_new: nothing after the telling chunk is read"))
    c.append(y("y_type_beats_object", sse({"type": "message_start", "object": "chat.completion.chunk"}),
               told("anthropic", "", "sse"), ORDER + ": type is looked at before object"))
    c.append(y("y_object_beats_choices",
               sse({"object": "text_completion", "choices": [{"delta": {}}]}),
               told("openai-completions", "", "sse"), ORDER + ": object before choices"))
    return c


def cases_framing():
    c = []
    chat = {"object": "chat.completion.chunk", "model": "m", "choices": []}
    body = "\n\n" + json.dumps(chat) + "\n"
    c.append(y("y_json_lines_after_blank_lines", body, told("openai-chat", "m", "chunks", 2),
               "sluice.h provider: JSON lines when the first byte that is not whitespace is {"))
    c.append(y("y_sse_with_bom", b"\xef\xbb\xbf" + sse(chat).encode(),
               told("openai-chat", "m", "sse", 3), "WHATWG: one leading BOM is stripped"))
    c.append(y("y_forced_ndjson", lines(chat), told("openai-chat", "m", "ndjson"),
               "the framing option", {"framing": "ndjson"}))
    c.append(y("y_forced_sse_on_json_lines", lines(chat) + "\n" + sse(chat),
               told("openai-chat", "m", "sse", len(lines(chat)) + 1),
               "the framing option: a JSON line is an unknown SSE field", {"framing": "sse"}))
    c.append(y("y_provider_option_ignored", sse(chat), told("openai-chat", "m", "sse"),
               "sluice.h sluice_detect_new: the provider option is ignored",
               {"provider": "anthropic"}))
    return c


def cases_model():
    c = []
    esc = '{"object": "chat.completion.chunk", "model": "caf\\u00e9\\n", "choices": []}'
    c.append(y("y_model_decoded", sse(esc), told("openai-chat", "café\n", "sse"),
               "sluice.h sluice_detection: the model decoded"))
    long = "é" * 200  # 400 bytes: cut at 255 bytes, at a character
    body = sse({"object": "chat.completion.chunk", "model": long, "choices": []})
    c.append(y("y_model_cut_at_a_character", body, told("openai-chat", "é" * 127, "sse"),
               "sluice.h sluice_detection: a name over 255 bytes is cut at a character"))
    c.append(y("y_model_not_a_string",
               sse({"object": "chat.completion.chunk", "model": 5, "choices": []}),
               told("openai-chat", "", "sse"), "a model that is not a string is none"))
    return c


def cases_errors():
    c = []
    c.append(case_entry("n_not_json_object", b"data: hello\n\n",
                        {"error": {"code": "provider_format", "offset": 0}},
                        "sluice.h provider: a chunk that is not a JSON object fails"))
    body = b'data: {"a":\n\n'
    c.append(case_entry("n_bad_json", body, {"error": {"code": "provider_format", "offset": 0}},
                        "sluice.h provider: a chunk that is not valid JSON fails at its chunk"))
    return c


def main():
    notes = {
        "shapes.json": "every provider's first chunk, by the order of evidence",
        "order.json": "chunks that tell nothing, which chunk tells, ambiguous starts",
        "framing.json": "SSE or JSON lines, from the content or the option",
        "model.json": "the model a stream names",
        "errors.json": "what fails",
    }
    write_suite(HERE, "detect", notes,
                {"shapes.json": cases_shapes(), "order.json": cases_order(),
                 "framing.json": cases_framing(), "model.json": cases_model(),
                 "errors.json": cases_errors()}, "detect")


if __name__ == "__main__":
    main()
