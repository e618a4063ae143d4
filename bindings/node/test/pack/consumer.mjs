// What a project that installed the packed tarball does with it (CTest
// node_pack runs this in a temporary project next to the pinned ai package).
import assert from 'node:assert/strict';
import { Think, once, ThinkStream, sluiceReasoningMiddleware, version } from 'sluice';
import { wrapLanguageModel, streamText, generateText } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

const f = new Think();
assert.equal(f.feed('a<thi').text, 'a');
assert.equal(f.feed('nk>b</think>c').text, 'c');
f.free();
assert.deepEqual(once('think', 'x<think>y</think>z').events,
  [{ type: 'thought', tag: 'think', text: 'y', complete: true }]);

const parts = [];
const source = new ReadableStream({ start(c) { c.enqueue('p<think>q'); c.enqueue('</think>r<'); c.close(); } });
for await (const p of source.pipeThrough(new ThinkStream())) parts.push(p);
assert.equal(parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), 'pr<');

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finishReason = { unified: 'stop', raw: 'stop' };
const text = '<think>add them</think>4';
const model = wrapLanguageModel({
  model: new MockLanguageModelV3({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: 'stream-start', warnings: [] }, { type: 'text-start', id: '0' },
        ...text.split('').map((delta) => ({ type: 'text-delta', id: '0', delta })),
        { type: 'text-end', id: '0' }, { type: 'finish', finishReason, usage },
      ]),
    }),
    doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason, usage, warnings: [] }),
  }),
  middleware: sluiceReasoningMiddleware({ tagName: 'think' }),
});
const streamed = streamText({ model, prompt: '2 + 2?' });
assert.equal(await streamed.text, '4');
assert.equal(await streamed.reasoningText, 'add them');
const generated = await generateText({ model, prompt: '2 + 2?' });
assert.equal(generated.reasoningText, 'add them');
console.log(`sluice ${version} from the tarball: filters, streams and the AI SDK middleware work`);
