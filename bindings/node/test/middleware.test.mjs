// sluiceReasoningMiddleware against the pinned AI SDK (package "ai",
// devDependencies): the same parts as extractReasoningMiddleware where the
// AI SDK is right, the end-of-stream and case bugs fixed, both paths equal
// for every chunking, and a drop-in through wrapLanguageModel, streamText and
// generateText.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractReasoningMiddleware, wrapLanguageModel, streamText, generateText } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { sluiceReasoningMiddleware, SluiceError } from '../index.mjs';

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const finish = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage };

// The model's stream for text cut into chunks.
const modelParts = (chunks) => [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  ...chunks.map((delta) => ({ type: 'text-delta', id: 't', delta })),
  { type: 'text-end', id: 't' },
  finish,
];

async function throughStream(middleware, chunks) {
  const { stream } = await middleware.wrapStream({
    doStream: async () => ({ stream: convertArrayToReadableStream(modelParts(chunks)) }),
    params: {},
  });
  const out = [];
  for await (const part of stream) out.push(part);
  return out;
}

async function throughGenerate(middleware, text) {
  const { content } = await middleware.wrapGenerate({
    doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: finish.finishReason, usage, warnings: [] }),
    params: {},
  });
  return content;
}

// Deltas of one part id joined: how a stream is cut into deltas is the
// chunking's, not the middleware's.
function merged(parts) {
  const out = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (p.delta !== undefined && last && last.type === p.type && last.id === p.id) last.delta += p.delta;
    else out.push({ ...p });
  }
  return out.filter((p) => p.delta !== '');
}

function* chunkings(s) {
  yield [s];
  for (let a = 1; a < s.length; a++) {
    yield [s.slice(0, a), s.slice(a)];
    for (let b = a + 1; b < s.length; b += 3) yield [s.slice(0, a), s.slice(a, b), s.slice(b)];
  }
  yield [...s];
}

// Inputs on which the AI SDK is right: complete blocks, lowercase tags, no
// partial tag at the end.
const AGREED = [
  'a<think>b</think>c',
  '<think>plan</think>answer',
  'before<think>one</think>middle<think>two</think>after',
  '<think></think>x',
  'no tags at all < not a tag',
  'a<thin>b</thin>',
];

test('the same parts as the AI SDK where it is right, for every chunking', async () => {
  for (const separator of [undefined, '', ' | ']) {
    const opts = separator === undefined ? { tagName: 'think' } : { tagName: 'think', separator };
    for (const text of AGREED) {
      for (const chunks of chunkings(text)) {
        const theirs = merged(await throughStream(extractReasoningMiddleware(opts), chunks));
        const ours = merged(await throughStream(sluiceReasoningMiddleware(opts), chunks));
        assert.deepEqual(ours, theirs, `${JSON.stringify(opts)} ${JSON.stringify(chunks)}`);
      }
    }
  }
});

test('startWithReasoning as the AI SDK has it', async () => {
  const opts = { tagName: 'think', startWithReasoning: true };
  for (const chunks of chunkings('plan</think>answer')) {
    assert.deepEqual(merged(await throughStream(sluiceReasoningMiddleware(opts), chunks)),
      merged(await throughStream(extractReasoningMiddleware(opts), chunks)));
  }
});

test('a partial tag at the end of the stream is text, not dropped', async () => {
  for (const chunks of [['answer <thi'], ['answer <', 'thi'], ['answer ', '<', 't', 'h', 'i']]) {
    const theirs = merged(await throughStream(extractReasoningMiddleware({ tagName: 'think' }), chunks));
    const ours = merged(await throughStream(sluiceReasoningMiddleware({ tagName: 'think' }), chunks));
    assert.equal(theirs.find((p) => p.type === 'text-delta').delta, 'answer '); // the AI SDK's bug
    assert.equal(ours.find((p) => p.type === 'text-delta').delta, 'answer <thi');
  }
});

test('a block open at the end is closed, its reasoning kept', async () => {
  const ours = merged(await throughStream(sluiceReasoningMiddleware({ tagName: 'think' }), ['a<think>still going</th']));
  assert.deepEqual(ours.map((p) => p.type), ['stream-start', 'text-start', 'text-delta', 'reasoning-start',
    'reasoning-delta', 'reasoning-end', 'text-end', 'finish']);
  assert.equal(ours[4].delta, 'still going</th');
  const theirs = merged(await throughStream(extractReasoningMiddleware({ tagName: 'think' }), ['a<think>still going</th']));
  assert.ok(!theirs.some((p) => p.type === 'reasoning-end')); // the AI SDK leaves it open, "</th" lost
});

test('tags match in any ASCII case', async () => {
  const ours = merged(await throughStream(sluiceReasoningMiddleware({ tagName: 'think' }), ['a<Think>b</THINK>c']));
  assert.deepEqual(ours.filter((p) => p.delta !== undefined).map((p) => [p.type, p.delta]),
    [['text-delta', 'a'], ['reasoning-delta', 'b'], ['text-delta', '\nc']]);
  const strict = merged(await throughStream(sluiceReasoningMiddleware({ tagName: 'think', case_insensitive: false }),
    ['a<Think>b</THINK>c']));
  assert.equal(strict.find((p) => p.type === 'text-delta').delta, 'a<Think>b</THINK>c');
});

test('generate gives what the stream adds up to, for every chunking', async () => {
  const texts = [...AGREED, 'x<think>open', 'y<thi', '<Think>A</think>B<think>C</think>'];
  for (const text of texts) {
    const content = await throughGenerate(sluiceReasoningMiddleware({ tagName: 'think' }), text);
    const fromGenerate = {
      text: content.filter((p) => p.type === 'text').map((p) => p.text).join(''),
      reasoning: content.filter((p) => p.type === 'reasoning').map((p) => p.text).join(''),
    };
    for (const chunks of chunkings(text)) {
      const parts = await throughStream(sluiceReasoningMiddleware({ tagName: 'think' }), chunks);
      const join = (type) => parts.filter((p) => p.type === type).map((p) => p.delta).join('');
      assert.deepEqual({ text: join('text-delta'), reasoning: join('reasoning-delta') }, fromGenerate,
        `${JSON.stringify(chunks)}`);
    }
  }
});

test('generate: the AI SDK\'s content where it is right', async () => {
  for (const text of ['a<think>b</think>c', '<think>plan</think>answer', 'plain text']) {
    assert.deepEqual(await throughGenerate(sluiceReasoningMiddleware({ tagName: 'think' }), text),
      await throughGenerate(extractReasoningMiddleware({ tagName: 'think' }), text));
  }
});

test('a model family\'s format: the template opened the block, no <think> in the output', async () => {
  const text = 'plan</think>answer';
  for (const chunks of chunkings(text)) {
    const parts = merged(await throughStream(sluiceReasoningMiddleware({ format: 'deepseek-r1' }), chunks));
    assert.deepEqual(parts.filter((p) => p.delta !== undefined).map((p) => [p.type, p.delta]),
      [['reasoning-delta', 'plan'], ['text-delta', 'answer']], JSON.stringify(chunks));
  }
  const content = await throughGenerate(sluiceReasoningMiddleware({ format: 'deepseek-r1' }), text);
  assert.deepEqual(content.map((p) => [p.type, p.text]), [['reasoning', 'plan'], ['text', 'answer']]);
  const off = merged(await throughStream(sluiceReasoningMiddleware({ format: 'deepseek-r1', thinking: false }), [text]));
  assert.deepEqual(off.filter((p) => p.delta !== undefined).map((p) => [p.type, p.delta]), [['text-delta', text]]);
});

test('a bad option fails when the middleware is made, not mid-stream', () => {
  assert.throws(() => sluiceReasoningMiddleware({ tagName: 'think', grace_period: 3 }),
    (e) => e instanceof SluiceError && e.status === 'bad_option');
});

test('a drop-in: wrapLanguageModel, streamText and generateText', async () => {
  const text = 'Let me see.<think>2 + 2 is 4, carry nothing</think>The answer is 4.';
  const chunks = text.match(/.{1,3}/gs);
  const model = wrapLanguageModel({
    model: new MockLanguageModelV3({
      doStream: async () => ({ stream: convertArrayToReadableStream(modelParts(chunks)) }),
      doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason: finish.finishReason, usage, warnings: [] }),
    }),
    middleware: sluiceReasoningMiddleware({ tagName: 'think' }),
  });
  const streamed = streamText({ model, prompt: 'What is 2 + 2?' });
  assert.equal(await streamed.text, 'Let me see.\nThe answer is 4.');
  assert.equal(await streamed.reasoningText, '2 + 2 is 4, carry nothing');
  const generated = await generateText({ model, prompt: 'What is 2 + 2?' });
  assert.equal(generated.text, 'Let me see.\nThe answer is 4.');
  assert.equal(generated.reasoningText, '2 + 2 is 4, carry nothing');
});

test('the stream: a model\'s error reaches the reader, a reader\'s cancel reaches the model', async () => {
  const wrap = (source) => sluiceReasoningMiddleware({ tagName: 'think' }).wrapStream({
    doStream: async () => ({ stream: source }), params: {},
  });
  const boom = new Error('connection reset');
  let sent = 0;
  const failing = new ReadableStream({
    pull(c) {
      if (sent++ === 0) c.enqueue({ type: 'text-start', id: 't' });
      else if (sent === 2) c.enqueue({ type: 'text-delta', id: 't', delta: 'a<think>b' });
      else c.error(boom);
    },
  });
  const reader = (await wrap(failing)).stream.getReader();
  const seen = [];
  await assert.rejects(async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.push(value.type);
    }
  }, (e) => e === boom);
  assert.deepEqual(seen, ['text-start', 'text-delta', 'reasoning-start', 'reasoning-delta']);

  let cancelled = null;
  const endless = new ReadableStream({
    pull(c) { c.enqueue({ type: 'text-delta', id: 't', delta: 'x' }); },
    cancel(reason) { cancelled = reason; },
  });
  const { stream } = await wrap(endless);
  const r = stream.getReader();
  assert.equal((await r.read()).value.type, 'text-start');
  await r.cancel('enough');
  assert.equal(cancelled, 'enough');
});
