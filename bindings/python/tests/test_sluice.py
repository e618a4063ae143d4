"""Unit tests of the sluice Python package (python3 -m unittest discover bindings/python/tests).

The package is imported from PYTHONPATH (an installed copy, or bindings/python
after `python3 bindings/python/_build/backend.py`). The golden suites run
through the package in every split mode in another test (CTest
python_conform_*); these check the Python side: types, chunking, events
across calls, errors, the helpers.
"""

import itertools
import os
import pickle
import threading
import unittest

import sluice

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
CAPTURES = os.path.join(ROOT, "corpus", "captures")


def cuts(data, max_cuts=2):
    """Every chunking of data with at most max_cuts cuts (empty chunks included)."""
    n = len(data)
    for k in range(max_cuts + 1):
        for points in itertools.combinations_with_replacement(range(n + 1), k):
            bounds = (0,) + points + (n,)
            yield [data[a:b] for a, b in zip(bounds, bounds[1:])]


def streamed(make, chunks):
    """Each channel joined and the events, from feeding chunks one by one."""
    f = make()
    outs = [f.feed(c) for c in chunks] + [f.finish()]
    empty = chunks[0][:0] if chunks else ""
    joined = tuple(empty.join(getattr(o, ch) for o in outs) for ch in sluice.CHANNELS)
    return joined + ([e for o in outs for e in o.events],)


class ThinkTest(unittest.TestCase):
    def test_feed_releases_as_it_can(self):
        f = sluice.Think()
        a = f.feed("a<thi")
        self.assertEqual((a.text, a.markup), ("a", ""))
        self.assertEqual(f.held, 4)  # the partial tag, nothing else
        b = f.feed("nk>b</think>c")
        self.assertEqual((b.text, b.thought, b.markup), ("c", "b", "<think></think>"))
        self.assertEqual(b.events, [{"type": "thought", "tag": "think", "text": "b", "complete": True}])
        self.assertEqual(f.finish(), sluice.Output(("", "", "", "", "", [], None, None)))
        self.assertEqual(f.fed, 18)

    def test_every_chunking_gives_the_one_call_result(self):
        text = "x<Think>é\xff<thinking>y</think>z<reasoning>w"
        for data in (text, text.encode("utf-8", "surrogateescape")):
            whole = sluice.once(sluice.Think(), data)
            expect = tuple(getattr(whole, ch) for ch in sluice.CHANNELS) + (whole.events,)
            for chunks in cuts(data):
                self.assertEqual(streamed(sluice.Think, chunks), expect, chunks)
            self.assertEqual(whole.text, "xz" if isinstance(data, str) else b"xz")

    def test_a_block_across_calls_keeps_its_text(self):
        f = sluice.Think()
        got = [f.feed(c) for c in ("<think>one ", "two ", "three</think>", "<think>four")]
        got.append(f.finish())
        events = [e for o in got for e in o.events]
        self.assertEqual(events, [
            {"type": "thought", "tag": "think", "text": "one two three", "complete": True},
            {"type": "thought", "tag": "think", "text": "four", "complete": False}])

    def test_bytes_in_bytes_out_and_str_in_str_out(self):
        r = sluice.once(sluice.Think(), b"a<think>\xff</think>b")
        self.assertEqual((r.text, r.thought), (b"ab", b"\xff"))
        self.assertIsInstance(r.events[0]["text"], bytes)
        self.assertIsInstance(r.events[0]["tag"], str)
        r = sluice.once(sluice.Think(), "a<think>é</think>b")
        self.assertEqual((r.text, r.thought), ("ab", "é"))

    def test_invalid_bytes_in_str_survive_as_surrogates(self):
        bad = b"a\xff<think>\xfe</think>".decode("utf-8", "surrogateescape")
        r = sluice.once(sluice.Think(), bad)
        self.assertEqual(r.text.encode("utf-8", "surrogateescape"), b"a\xff")
        self.assertEqual(r.thought.encode("utf-8", "surrogateescape"), b"\xfe")

    def test_a_character_cut_by_a_bytes_feed_is_never_half_a_str(self):
        # A str-fed filter decodes each channel incrementally; fed whole
        # characters it never returns a piece of one.
        f = sluice.Think()
        out = [f.feed(c) for c in ("é", "<think>日本", "</think>€")] + [f.finish()]
        self.assertEqual("".join(o.text for o in out), "é€")
        self.assertEqual("".join(o.thought for o in out), "日本")

    def test_a_character_the_library_releases_in_two_calls(self):
        # a recorded capture whose pieces cut the euro sign (e2 82 | ac), then
        # an invalid byte: the body is released as the pieces come
        f = sluice.Capture()
        lines = ['{"sluice_capture": 1, "request": {}, "response": {"status": 200, "headers": {}}}\n',
                 '{"t": 0.1, "data_b64": "4oI="}\n', '{"t": 0.2, "data_b64": "rA=="}\n',
                 '{"t": 0.3, "data_b64": "/w=="}\n', '{"t": 0.4, "end": "complete"}\n']
        self.assertEqual([f.feed(l).text for l in lines], ["", "", "€", "\udcff", ""])
        g = sluice.Capture()  # held at the end: the bytes as lone surrogates
        self.assertEqual([g.feed(l).text for l in lines[:2]] + [g.finish().text], ["", "", "\udce2\udc82"])

    def test_mixing_str_and_bytes_is_refused(self):
        f = sluice.Think()
        f.feed("a")
        with self.assertRaisesRegex(TypeError, "fed str"):
            f.feed(b"b")
        with self.assertRaisesRegex(TypeError, "str or bytes"):
            sluice.Think().feed(3)

    def test_options_are_the_protocols(self):
        r = sluice.once(sluice.Think(tags=["x"], case_insensitive=False), "<X>a</X><x>b</x>")
        self.assertEqual((r.text, r.thought), ("<X>a</X>", "b"))
        r = sluice.once(sluice.Think(pairs=[["[[", "]]"]]), "a[[b]]c")
        self.assertEqual((r.text, r.thought), ("ac", "b"))
        r = sluice.once(sluice.Think(mode="anchored", grace_period=3), "abcd<think>x</think>y")
        self.assertEqual(r.text, "abcd<think>x</think>y")
        r = sluice.once("think", "<r>a</r>b", tags=["r"])
        self.assertEqual(r.text, "b")

    def test_a_model_familys_format_and_thinking(self):
        # format and thinking go to the library as every option does
        text = "plan</think>answer <think>shown</think>"
        whole = sluice.once(sluice.Think(format="deepseek-r1"), text)
        self.assertEqual((whole.text, whole.thought), ("answer <think>shown</think>", "plan"))
        self.assertEqual(whole.markup, "</think>")
        expect = tuple(getattr(whole, ch) for ch in sluice.CHANNELS) + (whole.events,)
        for chunks in cuts(text):
            self.assertEqual(streamed(lambda: sluice.Think(format="deepseek-r1"), chunks), expect, chunks)
        r = sluice.once(sluice.Think(format="deepseek-r1"), b"no close: all reasoning")
        self.assertEqual((r.text, r.thought), (b"", b"no close: all reasoning"))
        r = sluice.once(sluice.Think(format="deepseek-r1", thinking=False), "plan</think>answer")
        self.assertEqual((r.text, r.thought), ("plan</think>answer", ""))
        r = sluice.once(sluice.Think(format="qwen3"), "<think>a<tool_call>{}")
        self.assertEqual((r.text, r.thought), ("<tool_call>{}", "a"))
        with self.assertRaises(sluice.Error) as cm:
            sluice.Think(format="deepseek-r2")
        self.assertEqual(cm.exception.status, "bad_option")
        with self.assertRaises(sluice.Error) as cm:
            sluice.Think(format="qwen3", tags=["x"])  # a family's format takes no other tag option
        self.assertEqual(cm.exception.status, "bad_option")

    def test_bytes_like_objects(self):
        r = sluice.once(sluice.Think(), bytearray(b"a<think>b</think>"))
        self.assertEqual(r.text, b"a")
        r = sluice.once(sluice.Think(), memoryview(b"a<think>b</think>"))
        self.assertEqual(r.thought, b"b")


class ErrorTest(unittest.TestCase):
    def test_a_bad_option_names_itself(self):
        with self.assertRaises(sluice.Error) as cm:
            sluice.Think(tgas=["x"])
        e = cm.exception
        self.assertEqual((e.status, e.offset), ("bad_option", 0))
        self.assertIn('"tgas"', e.message)
        self.assertIn("bad_option at byte 0", str(e))
        with self.assertRaises(sluice.Error) as cm:
            sluice.Think(grace_period="ten", mode="anchored")
        self.assertIn("grace_period", cm.exception.message)

    def test_an_unknown_filter(self):
        with self.assertRaises(sluice.Error) as cm:
            sluice.Filter("nonesuch")
        self.assertEqual(cm.exception.status, "unsupported_filter")

    def test_errors_carry_their_byte_offset_and_stick(self):
        f = sluice.Json(max_bytes=10)
        f.feed('{"a": ')
        with self.assertRaises(sluice.Error) as cm:
            f.feed('"0123456789"}')
        self.assertEqual((cm.exception.status, cm.exception.offset), ("limit", 10))
        with self.assertRaises(sluice.Error) as again:
            f.finish()
        self.assertEqual(again.exception.status, "limit")

    def test_no_json(self):
        with self.assertRaises(sluice.Error) as cm:
            sluice.sanitize_json("no value here")
        self.assertEqual(cm.exception.status, "no_json")
        with self.assertRaises(sluice.Error) as cm:
            sluice.sanitize_json("  ")
        self.assertEqual(cm.exception.status, "empty")

    def test_feed_after_finish(self):
        f = sluice.Think()
        f.finish()
        with self.assertRaises(sluice.Error) as cm:
            f.feed("x")
        self.assertEqual(cm.exception.status, "finished")

    def test_errors_pickle(self):
        e = pickle.loads(pickle.dumps(sluice.Error("m", "limit", 7)))
        self.assertEqual((e.message, e.status, e.offset), ("m", "limit", 7))


class LifeCycleTest(unittest.TestCase):
    def test_context_manager_closes(self):
        with sluice.Think() as f:
            self.assertEqual(f.feed("a").text, "a")
        self.assertTrue(f.closed)
        with self.assertRaisesRegex(ValueError, "closed"):
            f.feed("b")

    def test_once_closes_the_filter(self):
        f = sluice.Think()
        sluice.once(f, "x")
        self.assertTrue(f.closed)

    def test_names_and_repr(self):
        self.assertEqual(sluice.Harmony().name, "harmony")
        self.assertEqual(sluice.Filter("monitor").name, "monitor")
        self.assertEqual(repr(sluice.Think(tags=["t"])), "Think(tags=['t'])")
        self.assertEqual(repr(sluice.Filter("sse", max_line=9)), "Filter('sse', max_line=9)")
        self.assertTrue(sluice.__version__.count(".") == 2)

    def test_large_chunks_from_threads(self):
        # chunks of 64 KiB and more are fed without the GIL
        text = ("word " * 20000 + "<think>" + "x" * 70000 + "</think>end").encode()
        results = []

        def work():
            results.append(sluice.once(sluice.Think(), text))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results:
            self.assertEqual((len(r.text), len(r.thought)), (100003, 70000))


class OtherFiltersTest(unittest.TestCase):
    def test_harmony(self):
        r = sluice.once(sluice.Harmony(), "<|channel|>analysis<|message|>hmm<|end|>"
                                          "<|start|>assistant<|channel|>final<|message|>hi")
        self.assertEqual((r.thought, r.text), ("hmm", "hi"))

    def test_monitor_stops_at_a_checkpoint(self):
        r = sluice.once(sluice.Monitor(max_length=5), "abcdefgh")
        self.assertEqual((r.text, r.dropped), ("abcde", "fgh"))
        self.assertEqual(r.events, [{"type": "stop", "reason": "max_length", "offset": 5}])

    def test_clean_records_its_think_block(self):
        r = sluice.once(sluice.Clean(endpoint={"removeThinking": True, "trimBeginningAndEndLineBreaks": True}),
                        "<think>plan</think>\n answer \n")
        self.assertEqual((r.text, r.thought), ("answer", "plan"))
        self.assertEqual(r.events[0]["text"], "plan")

    def test_sanitize_json(self):
        value, repairs = sluice.sanitize_json("Sure! ```json\n{'a': [1, 2,], b: True\n```")
        self.assertEqual(value, {"a": [1, 2], "b": True})
        self.assertTrue(repairs and all(e["type"] == "repair" for e in repairs))
        value, _ = sluice.sanitize_json('{"n": 123456789012345678901234567890}')
        self.assertEqual(value["n"], 123456789012345678901234567890)  # digits kept
        self.assertEqual(sluice.sanitize_json("null"), (None, []))

    def test_sanitize_json_marks_what_jansson_cannot_load(self):
        # valid JSON, kept; the mark beside the (value, repairs) it still is
        r = sluice.sanitize_json('{"a\\u0000b":1}')
        value, repairs = r
        self.assertEqual((value, repairs), ({"a\x00b": 1}, []))
        self.assertEqual(r.unloadable, {"reason": "nul_in_key", "offset": 3})
        r = sluice.sanitize_json("[1e400]")
        self.assertEqual((r.value, r.repairs, r.unloadable),
                         ([float("inf")], [], {"reason": "number_overflow", "offset": 1}))
        self.assertEqual(len(r), 2)
        self.assertEqual(r, ([float("inf")], []))
        # repaired text that loads: no mark
        r = sluice.sanitize_json("{'a': 1e300,}")
        self.assertEqual((r.value, r.unloadable), ({"a": 1e300}, None))
        self.assertTrue(r.repairs)
        r2 = pickle.loads(pickle.dumps(sluice.sanitize_json("[1e400]")))
        self.assertEqual((r2, r2.unloadable), (([float("inf")], []), {"reason": "number_overflow", "offset": 1}))

    def test_json_value_and_truncation(self):
        r = sluice.once(sluice.Json(), '{"a": "b')
        self.assertEqual((r.value, r.truncated), ({"a": "b"}, True))
        r = sluice.once(sluice.Json(incremental=True), '[1, 2]')
        self.assertTrue(any(e["type"] == "snapshot" for e in r.events))

    def test_json_unloadable_mark(self):
        # valid JSON a reader with doubles cannot load: kept, and marked
        r = sluice.once(sluice.Json(), 'x [1, -1e400]')
        self.assertEqual(r.unloadable, {"reason": "number_overflow", "offset": 6})
        self.assertEqual((r.value, r.truncated), ([1, float("-inf")], False))
        self.assertEqual(r.text, "[1,-1e400]")
        r = sluice.once(sluice.Json(), b'{"a\\u0000b": 1, "c": [1e400')
        self.assertEqual(r.unloadable, {"reason": "nul_in_key", "offset": 3})
        self.assertEqual((r.value, r.truncated), ({"a\x00b": 1, "c": [float("inf")]}, True))
        r = sluice.once(sluice.Json(max_depth=0), "[" * 2100 + "]" * 2100)
        self.assertEqual(r.unloadable, {"reason": "depth", "offset": 2048})
        self.assertIsNone(sluice.once(sluice.Json(), "[1e300, 1e-400]").unloadable)
        # by name only: an Output is still the 8-tuple it was
        self.assertEqual(len(r), 8)
        self.assertIsNone(sluice.Output(("", "", "", "", "", [], None, None)).unloadable)
        # each chunking marks the same byte, on the finishing call only
        f = sluice.Json()
        outs = [f.feed(c) for c in ("[1e4", "00]")] + [f.finish()]
        self.assertEqual([o.unloadable for o in outs],
                         [None, None, {"reason": "number_overflow", "offset": 1}])

    def test_deep_values_as_deep_as_the_library_allows(self):
        value, _ = sluice.sanitize_json("[" * 2040 + "]" * 2040)
        depth = 0
        while isinstance(value, list) and value:
            value, depth = value[0], depth + 1
        self.assertEqual(depth, 2039)

    def test_sse_events(self):
        r = sluice.once(sluice.Sse(), b"event: x\ndata: 1\nid: 7\n\ndata: \xff\n\n")
        self.assertEqual(r.events, [{"type": "event", "event": b"x", "data": b"1", "id": b"7"},
                                    {"type": "event", "event": b"message", "data": b"\xff", "id": b"7"}])

    def test_provider_events_over_network_chunks(self):
        with open(os.path.join(CAPTURES, "openai-chat-tool-calls.sse"), "rb") as fh:
            body = fh.read()
        chunks = [body[i:i + 7] for i in range(0, len(body), 7)]
        events = list(sluice.Provider().events(chunks))
        calls = [e for e in events if e["type"] == "tool_call"]
        self.assertEqual(calls[0]["name"], b"get_weather")
        args = b"".join(e["text"] for e in events if e["type"] == "delta" and e["kind"] == "arguments")
        self.assertEqual(args, b'{"city":"New York City"}')
        self.assertEqual(events[-1], {"type": "end", "truncated": False})

    def test_pipeline_with_a_think_stage(self):
        path = os.path.join(CAPTURES, "ollama-generate-deepseek-r1-think-tags.ndjson")
        r = sluice.replay(path, filters=[{"filter": "think"}])
        self.assertNotIn("<think>", r.text)
        self.assertTrue(r.thought)
        self.assertEqual(r.events[-1]["type"], "end")

    def test_replay_as_the_command_does(self):
        # README: build/sluice replay of this capture prints the answer and
        # keeps 606 bytes of reasoning apart
        r = sluice.replay(os.path.join(CAPTURES, "deepseek-chat-reasoning_content.chunks.jsonl"))
        self.assertEqual(r.text, 'The word "strawberry" contains three "r"s.')
        self.assertEqual(len(r.thought.encode()), 606)
        rb = sluice.replay(os.path.join(CAPTURES, "deepseek-chat-reasoning_content.chunks.jsonl"),
                           binary=True, read_size=5)
        self.assertEqual(rb.text, r.text.encode())

    def test_capture_pieces(self):
        path = os.path.join(CAPTURES, "openai-chat-text.chunks.jsonl")
        with open(path, "rb") as fh:
            r = sluice.once(sluice.Capture(), fh.read())
        pieces = [e for e in r.events if e["type"] == "piece"]
        self.assertEqual(b"".join(p["data"] for p in pieces), r.text)

    def test_detect(self):
        r = sluice.once(sluice.Detect(), 'data: {"type":"message_start","message":{"model":"claude"}}\n\n')
        self.assertEqual(r.events[0]["endpoint"], "anthropic")
        self.assertEqual(r.events[0]["model"], "claude")


if __name__ == "__main__":
    unittest.main()
