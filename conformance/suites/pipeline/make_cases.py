#!/usr/bin/env python3
"""Writes the pipeline suite's JSON files.

Each case is a provider stream (built as in ../provider/make_cases.py) and a
pipeline; the expected events are written by hand from the rules of
DESIGN.md §2 pipelines and of each filter (the think, clean, harmony,
monitor and json suites pin those): each provider delta is one feed of its
choice's chain, and what the filters release during it becomes deltas in
the order reasoning, text, other, markup, dropped. The channels are derived
from the deltas of choice 0 (text and refusal on text, reasoning on
thought, other and arguments on other, markup, dropped), plus the framing's
unfinished last line on dropped where a case gives one.

Run from anywhere:  python3 conformance/suites/pipeline/make_cases.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ among the suites
sys.path.insert(0, os.path.join(HERE, "..", "provider"))
from make_cases import (D as PD, END, E, F, TC, U, chat, dumps, jsonl, ndjson,  # noqa: E402
                        case_entry, sse, write_suite)


def D(kind, text, choice=0, index=None):
    return PD(kind, text, choice, index)


CASES = []
FILES = {}


def case(file, cid, body, opts, events, source, dropped=None, error=None):
    CASES.append(dict(file=file, id=cid, body=body, opts=opts, events=events, source=source,
                      dropped=dropped, error=error))


def gen(*texts, done=True, reason="stop"):
    """Ollama /api/generate NDJSON with these response pieces."""
    lines = [{"model": "deepseek-r1:14b", "response": t, "done": False} for t in texts]
    if done:
        lines.append({"model": "deepseek-r1:14b", "response": "", "done": True, "done_reason": reason})
    return ndjson(*lines)


THINK = [{"filter": "think"}]
S003 = "seed 003: the provider's stream parsed into deltas, cleaned, re-emitted"

T = "think.json"
FILES[T] = "the think filter over each choice's text"
case(T, "y_no_filters_is_the_provider", gen("<think>a</think>", "b"), {},
     [D("text", "<think>a</think>"), D("text", "b"), F("stop"), END()],
     "DESIGN.md §2 pipelines: without filters the deltas are the provider's")
case(T, "y_think_block_in_its_own_deltas", gen("<think>", "\nhm", "</think>", "\n\nHi"), {"filters": THINK},
     [D("markup", "<think>"), D("reasoning", "\nhm"), D("markup", "</think>"), D("text", "\n\nHi"),
      F("stop"), END()],
     S003 + "; corpus/captures/ollama-generate-deepseek-r1-think-tags.ndjson")
case(T, "y_think_tags_cut_across_deltas", gen("a<thi", "nk>b</th", "ink>c"), {"filters": THINK},
     [D("text", "a"), D("reasoning", "b"), D("markup", "<think>"), D("text", "c"), D("markup", "</think>"),
      F("stop"), END()],
     "seed 001: a partial tag is held until its delta decides it; each delta's release, kind by kind")
case(T, "y_held_bytes_come_before_finish", gen("x <"), {"filters": THINK},
     [D("text", "x "), D("text", "<"), F("stop"), END()],
     "DESIGN.md §2 pipelines: a choice's chain is finished at its finish, held bytes first")
case(T, "y_held_bytes_at_truncated_end", gen("x <", done=False), {"filters": THINK},
     [D("text", "x "), D("text", "<"), END(True)],
     "DESIGN.md §2 pipelines: at the end every open chain is finished before the end event")
case(T, "y_unterminated_block_stays_reasoning", gen("<think>never", " closed"), {"filters": THINK},
     [D("reasoning", "never"), D("markup", "<think>"), D("reasoning", " closed"), F("stop"), END()],
     "seed 001: an unterminated block stays hidden (its record is not passed on)")
case(T, "y_provider_reasoning_passes_through",
     sse(chat({"reasoning_content": "r1"}), chat({"content": "<think>r2</think>ok"}), chat({}, "stop")),
     {"filters": THINK},
     [D("reasoning", "r1"), D("reasoning", "r2"), D("text", "ok"), D("markup", "<think></think>"), F("stop"), END()],
     "DESIGN.md §2 pipelines: the provider's reasoning passes through; the filters take the text")
case(T, "y_refusal_passes_through",
     sse(chat({"refusal": "<think>no</think>"}), chat({}, "stop")), {"filters": THINK},
     [D("refusal", "<think>no</think>"), F("stop"), END()],
     "DESIGN.md §2 pipelines: a refusal is not filtered")
N2 = sse(chat({"content": "<think>a"}, index=0), chat({"content": "<think>b"}, index=1),
         chat({"content": "</think>A"}, index=0), chat({"content": "</think>B"}, index=1),
         chat({}, "stop", index=0), chat({}, "stop", index=1))
case(T, "y_choices_filtered_apart", N2, {"filters": THINK},
     [D("reasoning", "a"), D("markup", "<think>"), D("reasoning", "b", 1), D("markup", "<think>", 1),
      D("text", "A"), D("markup", "</think>"), D("text", "B", 1), D("markup", "</think>", 1),
      F("stop"), F("stop", 1), END()],
     "issue 11: n > 1 choices kept apart, each with its own chain")
case(T, "y_choice_option_shows_choice_1", N2, {"filters": THINK, "provider": {"choice": 1}},
     [D("reasoning", "a"), D("markup", "<think>"), D("reasoning", "b", 1), D("markup", "<think>", 1),
      D("text", "A"), D("markup", "</think>"), D("text", "B", 1), D("markup", "</think>", 1),
      F("stop"), F("stop", 1), END()],
     "design: the provider's choice option picks the choice the channels show")
RESP2 = jsonl({"type": "response.created"}, {"type": "response.output_text.delta", "delta": "a<thi"},
              {"type": "response.completed", "response": {}},
              {"type": "response.created"}, {"type": "response.output_text.delta", "delta": "nk>b"},
              {"type": "response.completed", "response": {}})
case(T, "y_chain_restarts_per_response", RESP2, {"filters": THINK},
     [D("text", "a"), D("text", "<thi"), F("completed"), D("text", "nk>b"), F("completed"), END()],
     "corpus/captures/openai-responses-reasoning-summary.chunks.jsonl: a finish ends the chain; the next response starts a new one")
case(T, "y_anchored_like_the_proxy", gen("Sure. <think>x</think>", " Done"),
     {"filters": [{"filter": "think", "options": {"mode": "anchored"}}]},
     [D("reasoning", "x"), D("text", "Sure. "), D("markup", "<think></think>"), D("text", " Done"),
      F("stop"), END()],
     S003 + ": the proxy's StreamingThinkRemover (anchored mode) on an Ollama stream")

C = "stages.json"
FILES[C] = "clean, monitor and harmony in a pipeline, and stages in order"
CLEAN = {"filter": "clean", "options": {"endpoint": {"removeThinking": True, "trimBeginningAndEndLineBreaks": True},
                                        "globals": {"chatCompleteAddUserAssistant": True,
                                                    "chatCompleteAddMissingAssistant": True}}}
case(C, "y_clean_like_the_proxy", gen("<think>plan</think>", "\n\nAssistant:", " Hello", "\n"),
     {"filters": [CLEAN]},
     [D("reasoning", "plan"), D("markup", "<think></think>"), D("dropped", "\n\nAssistant:"), D("text", "Hello"),
      D("dropped", " "), D("dropped", "\n"), F("stop"), END()],
     S003 + ": think removal, then the prefixes, then the final trim (seed 000's steps)")
case(C, "y_monitor_stops", gen("abc", "defg"), {"filters": [{"filter": "monitor", "options": {"max_length": 5}}]},
     [D("text", "abc"), {"type": "stop", "reason": "max_length", "offset": 5}, D("text", "de"), D("dropped", "fg"),
      F("stop"), END()],
     "seed 004: the monitor's stop, passed on where the filter raises it; the rest dropped")
HARM = jsonl({"content": "<|channel|>analysis<|message|>", "stop": False}, {"content": "Let me think", "stop": False},
             {"content": "<|end|>", "stop": False}, {"content": "<|start|>assistant<|channel|>final<|message|>", "stop": False},
             {"content": "Hi", "stop": True})
HARM_EV = [D("markup", "<|channel|>analysis<|message|>"), D("reasoning", "Let me think"), D("markup", "<|end|>"),
           D("markup", "<|start|>assistant<|channel|>final<|message|>"), D("text", "Hi"), F(""), END()]
case(C, "y_harmony_by_model_name", HARM, {"model": "llama.cpp/gpt-oss"}, HARM_EV,
     "seed 004: harmony switches on by the model name llama.cpp/gpt-oss")
case(C, "y_harmony_explicit", HARM, {"harmony": True}, HARM_EV, "issue 11: harmony on explicitly")
case(C, "y_harmony_off_for_other_models", HARM, {"model": "gpt-oss-20b"},
     [D("text", "<|channel|>analysis<|message|>"), D("text", "Let me think"), D("text", "<|end|>"),
      D("text", "<|start|>assistant<|channel|>final<|message|>"), D("text", "Hi"), F(""), END()],
     "seed 004: the exact model name, nothing else, switches harmony on")
case(C, "y_harmony_off_explicitly", HARM, {"model": "llama.cpp/gpt-oss", "harmony": False},
     [D("text", "<|channel|>analysis<|message|>"), D("text", "Let me think"), D("text", "<|end|>"),
      D("text", "<|start|>assistant<|channel|>final<|message|>"), D("text", "Hi"), F(""), END()],
     "design: harmony: false wins over the model name")
case(C, "y_harmony_then_think", jsonl({"content": "<|channel|>final<|message|><think>x</think>y", "stop": True}),
     {"harmony": True, "filters": THINK},
     [D("reasoning", "x"), D("text", "y"), D("markup", "<|channel|>final<|message|><think></think>"), F(""), END()],
     "design: harmony first, then the filters in order, each fed the TEXT of the one before")

A = "arguments.json"
FILES[A] = "tool-call arguments through the json filter"
TOOL_TRUNC = sse(chat({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{\"city\": \"Par"}}]}),
                 done=False)
case(A, "y_arguments_off_pass_through", TOOL_TRUNC, {},
     [TC(0, "c", "f"), D("arguments", '{"city": "Par', index=0), END(True)],
     "DESIGN.md §2 pipelines: without the arguments stage, the provider's text")
case(A, "y_truncated_arguments_closed", TOOL_TRUNC, {"arguments": True},
     [TC(0, "c", "f"), D("arguments", '{"city":"Par', index=0),
      {"type": "repair", "kind": "unclosed_string", "offset": 13},
      {"type": "repair", "kind": "unclosed_container", "offset": 13},
      D("arguments", '"}', index=0), END(True)],
     "seed 002: a truncated arguments string closed in stack order, each repair passed on")
case(A, "y_parallel_calls_each_their_json",
     sse(chat({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{'x': 1,"}},
                              {"index": 1, "id": "b", "function": {"name": "g", "arguments": "[1, 2"}}]}),
         chat({"tool_calls": [{"index": 1, "function": {"arguments": ",]"}}]}),
         chat({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}), chat({}, "tool_calls")),
     {"arguments": True},
     [TC(0, "a", "f"), {"type": "repair", "kind": "single_quotes", "offset": 1},
      D("arguments", '{"x":1', index=0),
      TC(1, "b", "g"), D("arguments", "[1,2", index=1),
      {"type": "repair", "kind": "trailing_comma", "offset": 5},
      D("arguments", "]", index=1),
      {"type": "repair", "kind": "trailing_comma", "offset": 7},
      D("arguments", "}", index=0), F("tool_calls"), END()],
     "issue 11: one json filter per tool call, finished at the choice's finish")
case(A, "y_call_without_arguments",
     sse(chat({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "now", "arguments": ""}}]}),
         chat({}, "tool_calls")),
     {"arguments": True}, [TC(0, "a", "now"), F("tool_calls"), END()],
     "design: a call without arguments gives none (json's empty is not an error here)")
case(A, "n_arguments_not_json",
     sse(chat({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "hello"}}]}),
         chat({}, "tool_calls")),
     {"arguments": True}, None, "seed 002: no salvageable JSON is an error, at the offset of the chunk that finished the call",
     error={"code": "no_json", "offset": len(sse(chat({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "hello"}}]}), done=False).encode())})

O = "options.json"
FILES[O] = "pipeline options and errors"
case(O, "y_provider_by_name", gen("x"), {"provider": "ollama"}, [D("text", "x"), F("stop"), END()],
     "design: \"provider\" may be a name")
case(O, "y_framing_tail_dropped",
     sse({"type": "message_start", "message": {}}, done=False, events=True) + 'event: message_stop\ndata: {"type":"message_stop"}',
     {"filters": THINK}, [END(True)],
     "corpus/captures/anthropic-messages-basic.sse: the unfinished last event, dropped by the framing",
     dropped='data: {"type":"message_stop"}')
case(O, "n_not_a_text_filter", gen("x"), {"filters": [{"filter": "json"}]}, None,
     "design: a chain holds think, clean, monitor and harmony", error={"code": "bad_option"})
case(O, "n_bad_stage_option", gen("x"), {"filters": [{"filter": "think", "options": {"nope": 1}}]}, None,
     "design: a stage's bad option is reported when the pipeline is built", error={"code": "bad_option"})
case(O, "n_unknown_pipeline_option", gen("x"), {"stages": []}, None, "design: unknown options are refused",
     error={"code": "bad_option"})
case(O, "n_bad_provider_in_pipeline", gen("x"), {"provider": "acme"}, None,
     "design: the provider options are checked", error={"code": "bad_option"})
case(O, "n_stage_limit_at_chunk_offset", gen("<think>0123456789", "abcdef"),
     {"filters": [{"filter": "think", "options": {"mode": "anchored", "max_block": 8}}]}, None,
     "DESIGN.md §1 Memory: a stage's limit stops the pipeline at the offset of the chunk being read",
     error={"code": "limit", "offset": 0})
case(O, "n_provider_error_passes", 'data: {"choices":[}\n\n', {"filters": THINK}, None,
     "design: the provider's errors are the pipeline's", error={"code": "provider_format", "offset": 0})


def channels(events, choice):
    ch = {"text": "", "thought": "", "other": "", "markup": "", "dropped": ""}
    to = {"text": "text", "refusal": "text", "reasoning": "thought", "other": "other",
          "arguments": "other", "markup": "markup", "dropped": "dropped"}
    for e in events:
        if e["type"] == "delta" and e["choice"] == choice:
            ch[to[e["kind"]]] += e["text"]
    return ch


def main():
    by_file = {}
    for c in CASES:
        body = c["body"].encode() if isinstance(c["body"], str) else c["body"]
        if c["error"]:
            assert c["id"].startswith("n_"), c["id"]
            expect = {"error": c["error"]}
        else:
            assert c["id"].startswith("y_"), c["id"]
            choice = c["opts"].get("provider", {}).get("choice", 0) if isinstance(c["opts"].get("provider"), dict) else 0
            expect = {k: v for k, v in channels(c["events"], choice).items() if v}
            if c["dropped"]:
                expect["dropped"] = expect.get("dropped", "") + c["dropped"]
            expect["events"] = c["events"]
        by_file.setdefault(c["file"], []).append(case_entry(c["id"], body, expect, c["source"], c["opts"]))
    write_suite(HERE, "pipeline", FILES, by_file, "pipeline")


if __name__ == "__main__":
    main()
