// Web Streams: filters as TransformStreams of typed parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThinkStream, HarmonyStream, ProviderStream, FilterStream, once, Think } from '../index.mjs';

const source = (chunks) => new ReadableStream({
  start(c) {
    for (const x of chunks) c.enqueue(x);
    c.close();
  },
});
async function collect(stream) {
  const out = [];
  for await (const part of stream) out.push(part);
  return out;
}

test('ThinkStream: text to parts, in order, whatever the chunking', async () => {
  const text = 'a<think>b</think>c<think>d';
  const joined = (parts, type) => parts.filter((p) => p.type === type).map((p) => p.text).join('');
  const whole = once(new Think(), text);
  for (let cut = 0; cut <= text.length; cut++) {
    const parts = await collect(source([text.slice(0, cut), text.slice(cut)]).pipeThrough(new ThinkStream()));
    assert.equal(joined(parts, 'text'), whole.text);
    assert.equal(joined(parts, 'thought'), whole.thought);
    assert.deepEqual(parts.filter((p) => p.type === 'event').map((p) => p.event), whole.events);
  }
  const parts = await collect(source([text]).pipeThrough(new ThinkStream()));
  assert.deepEqual(parts.map((p) => p.type), ['text', 'markup', 'thought', 'markup', 'event', 'text', 'markup',
    'thought', 'event']);
});

test('bytes from a response body, through TextDecoderStream or as bytes', async () => {
  const body = new TextEncoder().encode('<|channel|>analysis<|message|>héllo<|end|>final');
  const cut = [body.subarray(0, 35), body.subarray(35)]; // inside the é
  const asText = await collect(source(cut).pipeThrough(new TextDecoderStream()).pipeThrough(new HarmonyStream()));
  assert.equal(asText.filter((p) => p.type === 'thought').map((p) => p.text).join(''), 'héllo');
  const asBytes = await collect(source(cut).pipeThrough(new HarmonyStream()));
  const thought = asBytes.filter((p) => p.type === 'thought');
  assert.ok(thought.every((p) => p.text instanceof Uint8Array));
  assert.equal(Buffer.concat(thought.map((p) => p.text)).toString(), 'héllo');
});

test('a provider stream into delta events', async () => {
  const sse = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
    + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const parts = await collect(source([sse.slice(0, 20), sse.slice(20)]).pipeThrough(new ProviderStream()));
  const events = parts.filter((p) => p.type === 'event').map((p) => p.event);
  assert.deepEqual(events.find((e) => e.type === 'delta'), { type: 'delta', choice: 0, kind: 'text', text: 'Hi' });
  assert.deepEqual(events.at(-1), { type: 'end', truncated: false });
});

test('a filter error errors the stream', async () => {
  const stream = source(['{"a": "0123456789"}']).pipeThrough(new FilterStream('json', { max_bytes: 4 }));
  await assert.rejects(collect(stream), (e) => e.status === 'limit' && e.offset === 4);
  assert.throws(() => new ThinkStream({ nope: true }), (e) => e.status === 'bad_option');
});
