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
// of event objects, FORMAT.md). Throw Unsupported for what you do not
// implement (the case counts as skipped), BadOption for a bad option, or
// FilterError(code, message, offset) for a filter error.
//
// Text: chunks are decoded as UTF-8 incrementally, so feed() never sees half
// a character. Bytes that are not UTF-8 cannot survive a JavaScript string;
// a filter with `binary = true` gets and returns "binary" strings instead
// (one character per byte, 0 to 255), which are exact.
//
// Node's standard library only (Node 18 or later).

import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';

const CHANNELS = ['text', 'thought', 'other', 'markup', 'dropped'];

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
    this.decoder = new StringDecoder('utf8');
  }
  toBuf(s) { return Buffer.from(s ?? '', this.binary ? 'latin1' : 'utf8'); }
  answer(released) {
    const r = released || {};
    const out = { ok: true };
    for (const ch of CHANNELS) bytesField(out, ch, this.toBuf(r[ch]));
    out.events = (r.events || []).map((ev) => {
      const e = {};
      for (const [k, v] of Object.entries(ev)) {
        if (['text', 'data', 'event', 'id'].includes(k) && typeof v === 'string') bytesField(e, k, this.toBuf(v));
        else e[k] = v;
      }
      return e;
    });
    if ('value' in r) out.value = r.value;
    if ('truncated' in r) out.truncated = r.truncated;
    return out;
  }
  feed(buf) {
    const data = this.binary ? buf.toString('latin1') : this.decoder.write(buf);
    return this.answer(data.length ? this.filter.feed(data) : {});
  }
  finish() {
    const released = { events: [] };
    const rest = this.binary ? '' : this.decoder.end();
    if (rest.length) Object.assign(released, this.filter.feed(rest) || {});
    const end = this.filter.finish() || {};
    for (const ch of CHANNELS) if (end[ch]) released[ch] = (released[ch] || '') + end[ch];
    released.events = [...(released.events || []), ...(end.events || [])];
    if ('value' in end) released.value = end.value;
    if ('truncated' in end) released.truncated = end.truncated;
    return this.answer(released);
  }
}

function errorAnswer(code, message, offset = 0) {
  return { ok: false, error: { code, message, offset } };
}

// Lines go out in order, each as soon as it is written (process.stdout
// queues and writes them in order; nothing waits for a buffer to fill).
function write(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }

function serveLine(filters, line) {
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
  const total = { events: [] };
  const merge = (part) => {
    for (const ch of CHANNELS) {
      const b = ch in part ? Buffer.from(part[ch], 'utf8') : Buffer.from(part[ch + '_b64'] || '', 'base64');
      total[ch] = Buffer.concat([total[ch] || Buffer.alloc(0), b]);
    }
    total.events.push(...part.events);
    if ('value' in part) total.value = part.value;
    if ('truncated' in part) total.truncated = part.truncated;
  };
  let at = chunks.length ? 0 : 'finish';
  let part;
  try {
    const session = new Session(filters[req.filter], req.options || {});
    for (let i = 0; i < chunks.length; i++) {
      at = i;
      part = session.feed(chunks[i]);
      if (stream) write({ id, feed: i, ...part });
      else merge(part);
    }
    at = 'finish';
    part = session.finish();
  } catch (e) {
    if (!(e instanceof FilterError)) throw e;
    const answer = errorAnswer(e.code, e.message, e.offset);
    write(stream ? { id, feed: at, ...answer } : { id, ...answer });
    return;
  }
  if (stream) { write({ id, feed: 'finish', ...part }); return; }
  merge(part);
  const out = { ok: true };
  for (const ch of CHANNELS) bytesField(out, ch, total[ch]);
  out.events = total.events;
  if ('value' in total) out.value = total.value;
  if ('truncated' in total) out.truncated = total.truncated;
  write({ id, ...out });
}

// Serves the protocol on stdin and stdout until stdin ends.
// filters: { name: (options) => filter }.
export function serve(filters) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => { if (line.length) serveLine(filters, line); });
}
