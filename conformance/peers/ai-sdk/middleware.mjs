// The AI SDK's extractReasoningMiddleware (package "ai") as a think filter:
// the two ways of driving it, shared by serve.mjs (the filter protocol, for
// `sluice diff`) and ../bench.mjs (`sluice bench peers`).
//
// The middleware is driven through its own interface, as wrapLanguageModel
// does: Streaming gives wrapStream a model stream of text-start, text-delta
// and text-end parts, written one chunk at a time as a network delivers them
// (each feed waits until the parts it caused have come out: nothing is
// queued ahead); OneCall gives wrapGenerate the whole text as one text part.
// feed() and finish() return the text and reasoning released.
//
// Configured as close to sluice as its options allow: one tag name
// (tagName; sluice's default recognises five, ASCII case-insensitive, and
// this maps it to "think"), separator "" (the default "\n" inserts a line
// break where a block was cut out, which sluice never does), and
// startWithReasoning for sluice's start_in. It reports text and reasoning
// only, so only the text and thought channels are compared.
import { extractReasoningMiddleware } from 'ai';
import { Unsupported } from '../../adapters/sluice_adapter.mjs';
import { settle } from '../settle.mjs';

const TAG = /^<([^<>/\s]+)>$/;

// sluice's reasoning formats (option "format") that are one <name> ... </name>
// pair: the tag name and whether the stream starts inside (startWithReasoning).
// The middleware has no implicit ends, answer wrappers, optional opening tag or
// "one block only"; known.txt says where that shows.
const FORMATS = {
  'deepseek-r1': ['think', true], qwen3: ['think', true], 'deepseek-v3.1': ['think', true],
  'glm-4.5': ['think', false], 'kimi-k2': ['think', true], 'minimax-m2': ['think', true],
  hunyuan: ['think', false], 'ernie-4.5': ['think', true], olmo3: ['think', true],
  'seed-oss': ['seed:think', true],
};

function configureFormat(options) {
  for (const k of Object.keys(options))
    if (k !== 'format' && k !== 'thinking') throw new Unsupported(`option "${k}" with a format`);
  const f = FORMATS[options.format];
  if (!f) throw new Unsupported(`format ${options.format} is no <name> pair`);
  // thinking off (the default of deepseek-v3.1) has no counterpart: the
  // middleware always extracts blocks
  const thinking = options.thinking ?? options.format !== 'deepseek-v3.1';
  if (thinking !== true) throw new Unsupported('thinking off has no counterpart');
  return { tagName: f[0], separator: '', startWithReasoning: f[1] };
}

// The AI SDK's options for sluice's think options, or Unsupported.
export function configure(options) {
  if (options.format !== undefined && options.format !== 'generic') return configureFormat(options);
  const allowed = new Set(['mode', 'tags', 'pairs', 'start_in', 'case_insensitive', 'format']);
  for (const k of Object.keys(options))
    if (!allowed.has(k)) throw new Unsupported(`option "${k}" has no counterpart`);
  if ((options.mode ?? 'channel') !== 'channel') throw new Unsupported('channel mode only');
  let tagName = 'think';
  if (options.tags) {
    if (options.tags.length !== 1) throw new Unsupported('one tag name only');
    tagName = options.tags[0];
  }
  if (options.pairs) {
    const [open, close] = options.pairs.length === 1 ? options.pairs[0] : [];
    const m = TAG.exec(open ?? '');
    if (!m || close !== `</${m[1]}>`) throw new Unsupported('a pair must be <name> and </name>');
    tagName = m[1];
  }
  // case_insensitive: the AI SDK matches exactly, as sluice does with
  // false; true (sluice's default) is left as a divergence (known.txt).
  if (options.case_insensitive !== undefined && typeof options.case_insensitive !== 'boolean')
    throw new Unsupported('case_insensitive has no counterpart but a boolean');
  let startWithReasoning = false;
  if (options.start_in !== undefined) {
    if (options.start_in !== tagName && options.start_in !== `<${tagName}>`)
      throw new Unsupported('start_in must name the one tag');
    startWithReasoning = true;
  }
  return { tagName, separator: '', startWithReasoning };
}

export class Streaming {
  fields = ['text', 'thought'];
  constructor(options) {
    this.mw = extractReasoningMiddleware(configure(options));
    this.out = { text: '', thought: '' };
    this.started = false;
  }
  async start() {
    let controller;
    const model = new ReadableStream({ start: (c) => { controller = c; } });
    const { stream } = await this.mw.wrapStream({ doStream: async () => ({ stream: model }), params: {} });
    this.controller = controller;
    this.done = stream.pipeTo(new WritableStream({
      write: (part) => {
        if (part.type === 'text-delta') this.out.text += part.delta;
        else if (part.type === 'reasoning-delta') this.out.thought += part.delta;
      },
    }));
    controller.enqueue({ type: 'text-start', id: 't' });
    this.started = true;
  }
  take() {
    const r = this.out;
    this.out = { text: '', thought: '' };
    return r;
  }
  async feed(text) {
    if (!this.started) await this.start();
    this.controller.enqueue({ type: 'text-delta', id: 't', delta: text });
    await settle();
    return this.take();
  }
  async finish() {
    if (!this.started) await this.start();
    this.controller.enqueue({ type: 'text-end', id: 't' });
    this.controller.close();
    await this.done;
    return this.take();
  }
}

export class OneCall {
  fields = ['text', 'thought'];
  constructor(options) {
    this.mw = extractReasoningMiddleware(configure(options));
    this.all = '';
  }
  feed(text) {
    this.all += text;
    return {};
  }
  async finish() {
    const { content } = await this.mw.wrapGenerate({
      doGenerate: async () => ({ content: [{ type: 'text', text: this.all }] }),
      params: {},
    });
    const out = { text: '', thought: '' };
    for (const part of content) {
      if (part.type === 'text') out.text += part.text;
      else if (part.type === 'reasoning') out.thought += part.text;
    }
    return out;
  }
}

