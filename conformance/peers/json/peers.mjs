// JSON repair and partial-JSON libraries as sluice's json filter: how each
// is called, shared by serve.mjs (the filter protocol, for `sluice diff`)
// and ../bench.mjs (`sluice bench peers`).
//
// A repair library is given the whole text at the end (that is its
// interface); jsonrepair-stream, its streaming interface, is fed chunk by
// chunk; the partial-JSON parsers are given the whole text too: an input
// that stops mid-document is the prefix they are for. Each makes a value.
import { jsonrepair } from 'jsonrepair';
import { jsonrepairTransform } from 'jsonrepair/stream';
import dirtyJson from 'dirty-json';
import { parse as partialParse, Allow } from 'partial-json';
import bestEffort from 'best-effort-json-parser';
import untruncateJson from 'untruncate-json';
import { parsePartialJson } from 'ai';
import { settle } from '../settle.mjs';

const bestEffortParse = bestEffort.parse ?? bestEffort.default?.parse;
if (bestEffort.disableErrorLogging) bestEffort.disableErrorLogging();
const untruncate = untruncateJson.default ?? untruncateJson;

// The repairers whose result is JSON text, that text: serve.mjs reads its
// numbers from their digits, as the runner reads the reference's.
export const REPAIRED_TEXT = {
  jsonrepair: (text) => jsonrepair(text),
  'untruncate-json': (text) => untruncate(text),
};

// One-call peers: the whole text in, a value out (or a throw; a Promise of
// either).
export const ONE_CALL = {
  jsonrepair: (text) => JSON.parse(REPAIRED_TEXT.jsonrepair(text)),
  'dirty-json': (text) => dirtyJson.parse(text),
  'partial-json': (text) => partialParse(text, Allow.ALL),
  'best-effort-json-parser': (text) => bestEffortParse(text),
  'untruncate-json': (text) => JSON.parse(REPAIRED_TEXT['untruncate-json'](text)),
  'ai-sdk-partial-json': async (text) => {
    const { value, state } = await parsePartialJson(text);
    if (state === 'failed-parse' || state === 'undefined-input') throw new Error(state);
    return value;
  },
};

// jsonrepair's streaming interface (a Node Transform): written chunk by
// chunk, each write awaited as a network read would be; what it writes out
// is collected and parsed at the end.
export class RepairStream {
  constructor() {
    this.out = [];
    this.error = null;
    this.t = jsonrepairTransform();
    this.t.on('data', (d) => this.out.push(d.toString()));
    this.t.on('error', (e) => { this.error = e; });
    this.ended = new Promise((resolve) => this.t.on('end', resolve).on('error', resolve));
  }
  async feed(text) {
    if (!this.error) this.t.write(text);
    await settle();
  }
  // The repaired text; throws what the stream threw.
  async text() {
    if (!this.error) this.t.end();
    await this.ended;
    if (this.error) throw this.error;
    return this.out.join('');
  }
  // Its value; throws what the stream or the parse threw.
  async value() {
    return JSON.parse(await this.text());
  }
}
