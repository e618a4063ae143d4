// The README's JavaScript example, whole (CTest bindings_readme runs it and
// checks that the README shows its lines).
import assert from 'node:assert/strict';
import { Think, once, ThinkStream, SluiceError, sluiceReasoningMiddleware } from '../index.mjs';

const f = new Think();
for (const chunk of ['The answer<thi', 'nk>let me see</think> is 4.<']) {
  const out = f.feed(chunk); // string in, string out; Uint8Array in, Uint8Array out
  console.log(out.text, '|', out.thought, out.events);
}
console.log(f.finish().text); // '<': a partial tag at the end is text
f.free();

const r = once('think', 'a<think>b</think>c');
assert.deepEqual([r.text, r.thought, r.markup], ['ac', 'b', '<think></think>']);
const r1 = once(new Think({ format: 'deepseek-r1' }), 'plan</think>answer'); // the template opened <think>
assert.deepEqual([r1.text, r1.thought], ['answer', 'plan']);

const body = new ReadableStream({ start(c) { c.enqueue('x<think>'); c.enqueue('y</think>z'); c.close(); } });
for await (const part of body.pipeThrough(new ThinkStream())) console.log(part);

try {
  new Think({ tag: ['think'] });
} catch (e) {
  assert.ok(e instanceof SluiceError);
  console.log(e.status, e.offset, e.message); // bad_option 0 unknown option "tag" for filter think
}

// with the AI SDK: wrapLanguageModel({ model, middleware: sluiceReasoningMiddleware({ tagName: 'think' }) })
const middleware = sluiceReasoningMiddleware({ tagName: 'think' });
assert.equal(middleware.specificationVersion, 'v3');
