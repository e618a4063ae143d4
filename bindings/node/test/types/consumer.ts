// A TypeScript program using the package as its users would: tsc --strict
// must accept it (test/types.test.mjs). It is type-checked, never run.
import {
  Think, Filter, once, sanitizeJson, ThinkStream, sluiceReasoningMiddleware, SluiceError, CHANNELS,
  type Output, type Part, type Event, type Sanitized,
} from 'sluice';
import { wrapLanguageModel, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const f = new Think({ tags: ['think'], case_insensitive: true });
const out: Output<string> = f.feed('a<think>b');
const text: string = out.text;
const bytes: Uint8Array = f.feed(new Uint8Array([60])).thought;
const held: number = f.held;
// @ts-expect-error: a number is no chunk
f.feed(42);
// @ts-expect-error: think has two modes
new Think({ mode: 'sideways' });
f.free();
new Think({ format: 'deepseek-r1', thinking: false }).free();
// @ts-expect-error: no such model family
new Think({ format: 'deepseek-r2' });

const r = once('json', '{"a": 1');
const value: unknown = r.value;
const truncated: boolean | undefined = r.truncated;
for (const e of r.events as Event[]) {
  if (e.type === 'repair') {
    const at: number = e.offset;
    void at;
  }
}

const s: Sanitized = sanitizeJson('[1e400]');
const kinds: string[] = s.repairs.map((e) => e.kind);
const why: string | undefined = s.unloadable?.reason;
void kinds, why;

const g = new Filter('harmony', { max_header: 512 });
const parts: Part<string>[] = g.feedParts('<|channel|>');
void parts;

try {
  new Think({ bogus: 1 });
} catch (e) {
  if (e instanceof SluiceError) {
    const s: string = e.status;
    const o: number = e.offset;
    void s, o;
  }
}

async function streams(body: ReadableStream<string>) {
  for await (const part of body.pipeThrough(new ThinkStream())) {
    if (part.type === 'thought') console.log(part.text);
  }
}

const model = wrapLanguageModel({
  model: new MockLanguageModelV3(),
  middleware: sluiceReasoningMiddleware({ tagName: 'think', separator: '', startWithReasoning: false }),
});
void streamText({ model, prompt: 'hi' });
void [text, bytes, held, value, truncated, streams, CHANNELS];
