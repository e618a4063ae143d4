"""The README's Python example, whole (CTest bindings_readme runs it and checks
that the README shows its lines)."""
import sluice

with sluice.Think() as f:                       # the five default tag names
    for chunk in ["The answer<thi", "nk>let me see</think> is 4.<"]:
        out = f.feed(chunk)                     # str in, str out; bytes in, bytes out
        print(repr(out.text), repr(out.thought), out.events)
    end = f.finish()                            # what was held back
    print(repr(end.text))                       # '<': a partial tag at the end is text

r = sluice.once(sluice.Think(tags=["think"]), "a<think>b</think>c")
assert (r.text, r.thought, r.markup) == ("ac", "b", "<think></think>")
r = sluice.once(sluice.Think(format="deepseek-r1"), "plan</think>answer")  # the template opened <think>
assert (r.text, r.thought) == ("answer", "plan")

value, repairs = sluice.sanitize_json("Sure! ```json\n{'a': [1, 2,], b: True}\n```")
assert value == {"a": [1, 2], "b": True}
print([e["kind"] for e in repairs])

try:
    sluice.Think(tag=["think"])
except sluice.Error as e:
    print(e.status, e.offset, e.message)        # bad_option 0 unknown option "tag" for filter think

r = sluice.replay("corpus/captures/deepseek-chat-reasoning_content.chunks.jsonl")
print(r.text, len(r.thought), r.events[-1])     # the answer, 606 bytes of reasoning, the end
assert r.text == 'The word "strawberry" contains three "r"s.'
