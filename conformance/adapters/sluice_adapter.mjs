// Serve the sluice filter protocol around your own streaming filter.
//
// The protocol (conformance/FORMAT.md) is JSON lines on stdin and stdout;
// this module does all of it: reading requests, decoding chunks (UTF-8 cut
// anywhere, raw bytes in base64), batch answers and streaming sessions,
// flushing every line in order, errors. You write the filter:
//
//   import { serve, Unsupported } from './sluice_adapter.mjs';
//
//   class Upper {
//     constructor(options) {                 // the request's "options"
//       if (Object.keys(options).length) throw new Unsupported('no options');
//     }
//     feed(text) { return { text: text.toUpperCase() }; }  // released now
//     finish() { return {}; }                               // the rest
//   }
//
//   serve({ upper: (options) => new Upper(options) });
//
// feed() and finish() return an object of channels (text, thought, other,
// markup, dropped; missing ones are empty) and optionally `events` (an array
// of event objects, FORMAT.md; a json filter's finish() adds value and
// truncated, or unloadable ({reason, offset}) in place of value for valid
// JSON a reader with doubles cannot load; a -0 in value is written -0.0,
// which JSON.stringify would write 0), or a Promise of one (requests are still
// served one at a time, in order). Throw Unsupported for what you do not
// implement (the case counts as skipped), BadOption for a bad option, or
// FilterError(code, message, offset) for a filter error.
//
// Another implementation wrapped for `sluice diff` may not express every
// field: a filter with `fields = ['text', 'thought']` answers only those
// (channels, 'events', 'value', 'truncated'), and only they are compared;
// `eventTypes = ['event']` and `eventKeys = ['event', 'data']` say which
// events, and which of their keys, it reports.
//
// Text: chunks are decoded as UTF-8 incrementally, so feed() never sees half
// a character. Bytes that are not UTF-8 cannot survive a JavaScript string;
// a filter with `binary = true` gets and returns "binary" strings instead
// (one character per byte, 0 to 255), which are exact.
//
// Node's standard library only (Node 18 or later).

import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import { randomUUID } from 'node:crypto';

const CHANNELS = ['text', 'thought', 'other', 'markup', 'dropped'];
const FIELDS = [...CHANNELS, 'events', 'value', 'truncated'];
// The json filter's result: value, or unloadable in its place (expressed
// with 'value').
const RESULT = ['value', 'unloadable', 'truncated'];

export class FilterError extends Error {
  constructor(code, message, offset = 0) {
    super(message);
    this.code = code;
    this.offset = offset;
  }
}
export class Unsupported extends FilterError {
  constructor(message = 'not supported by this implementation') { super('unsupported', message); }
}
export class BadOption extends FilterError {
  constructor(message) { super('bad_option', message); }
}

// A field as a string when the bytes are UTF-8, else as key_b64.
function bytesField(out, key, buf) {
  const s = buf.toString('utf8');
  if (Buffer.from(s, 'utf8').equals(buf)) out[key] = s;
  else out[key + '_b64'] = buf.toString('base64');
}

class Session {
  constructor(factory, options) {
    this.filter = factory(options);
    this.binary = this.filter.binary === true;
    this.fields = new Set(this.filter.fields || FIELDS);
    this.decoder = new StringDecoder('utf8');
  }
  toBuf(s) { return Buffer.from(s ?? '', this.binary ? 'latin1' : 'utf8'); }
  answer(released) {
    const r = released || {};
    const out = { ok: true };
    for (const ch of CHANNELS) if (this.fields.has(ch)) bytesField(out, ch, this.toBuf(r[ch]));
    if (!this.fields.has('events')) return this.valueFields(out, r);
    out.events = (r.events || []).map((ev) => {
      const e = {};
      for (const [k, v] of Object.entries(ev)) {
        if (['text', 'data', 'event', 'id'].includes(k) && typeof v === 'string') bytesField(e, k, this.toBuf(v));
        else e[k] = v;
      }
      return e;
    });
    return this.valueFields(out, r);
  }
  valueFields(out, r) {
    for (const k of RESULT) {
      if (k in r && this.fields.has(k === 'unloadable' ? 'value' : k)) out[k] = r[k];
    }
    return this.expresses(out);
  }
  expresses(out) {
    if (this.filter.eventTypes) out.event_types = this.filter.eventTypes;
    if (this.filter.eventKeys) out.event_keys = this.filter.eventKeys;
    return out;
  }
  async feed(buf) {
    const data = this.binary ? buf.toString('latin1') : this.decoder.write(buf);
    return this.answer(data.length ? await this.filter.feed(data) : {});
  }
  async finish() {
    const released = { events: [] };
    const rest = this.binary ? '' : this.decoder.end();
    if (rest.length) Object.assign(released, (await this.filter.feed(rest)) || {});
    const end = (await this.filter.finish()) || {};
    for (const ch of CHANNELS) if (end[ch]) released[ch] = (released[ch] || '') + end[ch];
    released.events = [...(released.events || []), ...(end.events || [])];
    for (const k of RESULT) if (k in end) released[k] = end[k];
    return this.answer(released);
  }
}

function errorAnswer(code, message, offset = 0) {
  return { ok: false, error: { code, message, offset } };
}

// Lines go out in order, each as soon as it is written (process.stdout
// queues and writes them in order; nothing waits for a buffer to fill).
function write(obj) { process.stdout.write(('value' in obj ? valueLine(obj) : JSON.stringify(obj)) + '\n'); }

// A json filter's value keeps a negative zero: JSON.stringify writes -0 as 0,
// which the runner would read as another number than the reference's -0.0.
// Each -0 is written as a marker string no value can hold (it has this
// process's random nonce), then the marker, quotes included, as -0.0.
const NEG_ZERO = `\u0000sluice-negative-zero-${randomUUID()}`;
function valueLine(obj) {
  let seen = false;
  const s = JSON.stringify(obj, (k, v) => (Object.is(v, -0) ? ((seen = true), NEG_ZERO) : v));
  return seen ? s.replaceAll(JSON.stringify(NEG_ZERO), '-0.0') : s;
}

async function serveLine(filters, line) {
  let req;
  try { req = JSON.parse(line); } catch (e) { write({ id: null, ...errorAnswer('bad_request', 'invalid JSON: ' + e.message) }); return; }
  const id = req && typeof req === 'object' ? req.id ?? null : null;
  let chunks;
  try {
    if (!req || typeof req.filter !== 'string') throw new FilterError('bad_request', 'a request needs a string "filter"');
    if ('chunks_b64' in req) chunks = req.chunks_b64.map((c) => Buffer.from(c, 'base64'));
    else chunks = (req.chunks || []).map((c) => Buffer.from(c, 'utf8'));
    if (!(req.filter in filters)) throw new FilterError('unsupported_filter', `no filter "${req.filter}" here`);
  } catch (e) {
    write({ id, ...errorAnswer(e.code || 'bad_request', e.message, e.offset || 0) });
    return;
  }
  const stream = req.stream === true;
  const total = {};
  const merge = (part) => {
    for (const ch of CHANNELS) {
      if (!(ch in part) && !(ch + '_b64' in part)) continue;
      const b = ch in part ? Buffer.from(part[ch], 'utf8') : Buffer.from(part[ch + '_b64'], 'base64');
      total[ch] = Buffer.concat([total[ch] || Buffer.alloc(0), b]);
    }
    if (part.events) total.events = [...(total.events || []), ...part.events];
    for (const k of RESULT) if (k in part) total[k] = part[k];
  };
  let at = chunks.length ? 0 : 'finish';
  let part, session;
  try {
    session = new Session(filters[req.filter], req.options || {});
    for (let i = 0; i < chunks.length; i++) {
      at = i;
      part = await session.feed(chunks[i]);
      if (stream) write({ id, feed: i, ...part });
      else merge(part);
    }
    at = 'finish';
    part = await session.finish();
  } catch (e) {
    if (!(e instanceof FilterError)) throw e;
    const answer = errorAnswer(e.code, e.message, e.offset);
    write(stream ? { id, feed: at, ...answer } : { id, ...answer });
    return;
  }
  if (stream) { write({ id, feed: 'finish', ...part }); return; }
  merge(part);
  const out = { ok: true };
  for (const ch of CHANNELS) if (ch in total) bytesField(out, ch, total[ch]);
  if (total.events) out.events = total.events;
  for (const k of RESULT) if (k in total) out[k] = total[k];
  write({ id, ...session.expresses(out) });
}

// Serves the protocol on stdin and stdout until stdin ends.
// filters: { name: (options) => filter }.
export function serve(filters) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let done = Promise.resolve();
  // One request at a time, in order, even when a filter is asynchronous.
  rl.on('line', (line) => {
    if (!line.length) return;
    done = done.then(() => serveLine(filters, line)).catch((e) => {
      process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
      process.exit(1);
    });
  });
}
