// Filters: the classes with feed and finish, once(), and sluice's errors.
//
// A filter is built by its protocol name from its options, handed to the
// library as JSON (the kit reads them, with the reference's checks), so
// every option the library reads is here under its own name.
//
// Text: a filter fed strings returns strings, decoded per channel as a
// stream (a character is never split between two results); fed bytes
// (Uint8Array) it returns Uint8Array. A JavaScript string cannot hold bytes
// that are not UTF-8: when a model's output may have them and they matter,
// feed bytes. In string results such bytes are U+FFFD.
import {
  wasm, bytes, words, cString, put, putAt, putString, putWhole, newCString, decodeShort, scratchFor, utf8,
} from './wasm.mjs';

export const CHANNELS = ['text', 'thought', 'other', 'markup', 'dropped'];
const RUN_EVENT = 5;
const [SB_BYTES, SB_NAME, SB_RAW, SB_INT, SB_BOOL] = [0, 1, 2, 3, 4];

/** A filter failed: status is the protocol's name ("bad_option", "limit",
 * ...), offset the byte of the input stream where it happened. */
export class SluiceError extends Error {
  constructor(message, status, offset) {
    super(message);
    this.name = 'SluiceError';
    this.status = status;
    this.offset = offset;
  }
}

function errorOf(handle) {
  const status = wasm.sw_error_status(handle);
  return new SluiceError(cString(wasm.sw_error_message(handle)), cString(wasm.sw_status_name(status)),
    wasm.sw_error_offset(handle));
}

// Frees the module's side of a filter that was dropped without free().
const registry = new FinalizationRegistry((handle) => wasm.sw_delete(handle));

const keys = new Map(); // field keys: C string literals, one string each

// Filter names as C strings, made once each (they are few).
const names = new Map();
function nameString(name) {
  let p = names.get(name);
  if (p === undefined) names.set(name, (p = newCString(name)[0]));
  return p;
}

const EMPTY = new Uint8Array(0);

// Whether m[a..a+n) and m[b..b+n) hold the same bytes.
function same(m, a, b, n) {
  for (let i = 0; i < n; i++) if (m[a + i] !== m[b + i]) return false;
  return true;
}

// Whether m[p..p+n) ends with a whole character (or is empty): the common
// case, told without a call into the module; otherwise the library's rule
// decides what waits.
function endsWhole(m, p, n) {
  if (n === 0 || m[p + n - 1] < 0x80) return true;
  let k = 1;
  while (k <= 3 && k < n && (m[p + n - k] & 0xc0) === 0x80) k++;
  const lead = m[p + n - k];
  return (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0) === k;
}

export class Filter {
  #h;
  #binary = null; // decided by the first chunk: strings or bytes
  // per channel, the bytes of a character not yet complete (string results),
  // and how many channels have some: mostly none, told by one test
  #pending = [null, null, null, null, null];
  #npending = 0;
  #name;
  // the string this call was fed while it may decode back to itself
  // (putString, putWhole()), and its UTF-8's length
  #in = null;
  #inLen = 0;

  /** new Filter('think', {tags: ['think']}): any filter by its protocol name. */
  constructor(name, options = {}) {
    // the library copies what it keeps of the options: their text goes
    // through the scratch block, no text at all for none
    const text = options && Object.keys(options).length ? JSON.stringify(options) : '';
    const olen = text ? put(text) : 0;
    const h = wasm.sw_new(nameString(name), text ? putAt : 0, olen);
    if (!h) throw errorOf(0);
    this.#h = h;
    this.#name = name;
    this.options = options ?? {};
    registry.register(this, h, this);
  }

  get name() { return this.#name; }
  /** Bytes fed and not yet released (a partial tag, ...). */
  get held() { this.#open(); return wasm.sw_held(this.#h); }
  /** Bytes fed so far. */
  get fed() { this.#open(); return wasm.sw_fed(this.#h); }
  get closed() { return !this.#h; }

  #open() {
    if (!this.#h) throw new TypeError('sluice: the filter is freed');
  }

  #mode(chunk) {
    const binary = typeof chunk !== 'string';
    if (this.#binary === null) this.#binary = binary;
    else if (this.#binary !== binary) {
      throw new TypeError(`sluice: this filter was fed ${this.#binary ? 'bytes' : 'strings'}: keep to one`);
    }
  }

  // The call's status, or a throw.
  #call(result) {
    const w = words();
    if (w[result >>> 2] !== 0) throw errorOf(this.#h);
    return result >>> 2;
  }

  // A channel's bytes m[p..p+n) as this filter returns them. For strings:
  // a character whose last byte has not come waits for the next call (the
  // library's rule for what may still complete, sluice_utf8_tail), so a
  // character is never split between two results.
  #channel(c, p, n, final) {
    if (this.#binary) return n ? bytes().slice(p, p + n) : EMPTY;
    const pending = this.#pending[c];
    if (!pending && n === this.#inLen && this.#in !== null && same(bytes(), p, putAt, n) && putWhole()) {
      // the common case at small chunks: all the input went to one channel
      return this.#in;
    }
    if (pending) { // rare: join it with this call's bytes in the scratch block
      this.#in = null; // the input's bytes are overwritten
      const q = scratchFor(pending.length + n);
      const m = bytes();
      m.copyWithin(q + pending.length, p, p + n);
      m.set(pending, q);
      p = q;
      n += pending.length;
    }
    let m = bytes();
    const keep = final || endsWhole(m, p, n) ? 0 : wasm.sw_utf8_tail(p, n);
    m = bytes();
    this.#npending += (keep ? 1 : 0) - (pending ? 1 : 0);
    this.#pending[c] = keep ? m.slice(p + n - keep, p + n) : null;
    return decodeShort(m, p, p + n - keep) ?? utf8.decode(m.subarray(p, p + n - keep));
  }

  // Channel c of the call's result r.
  #ch(w, r, c, final) { return this.#channel(c, w[r + 1 + c], w[r + 6 + c], final); }

  #field(w, at, m) {
    const kind = w[at + 1], p = w[at + 2], n = w[at + 3];
    switch (kind) {
      case SB_BYTES:
        if (this.#binary) return n ? m.slice(p, p + n) : EMPTY;
        return decodeShort(m, p, p + n) ?? utf8.decode(m.subarray(p, p + n));
      case SB_NAME: return decodeShort(m, p, p + n) ?? utf8.decode(m.subarray(p, p + n));
      case SB_RAW: return JSON.parse(utf8.decode(m.subarray(p, p + n)));
      case SB_INT: return w[at + 4] + w[at + 5] * 4294967296;
      case SB_BOOL: return w[at + 4] !== 0;
      default: return null;
    }
  }

  // Event i of the last call, in the protocol's form. The json filter's
  // value event adds reason and offset when its text is valid JSON that a
  // reader with doubles (jansson) cannot load; JSON.parse reads it all the
  // same (1e400 as Infinity).
  #event(i) {
    const n = wasm.sw_event(this.#h, i);
    const w = words(), m = bytes();
    const base = wasm.sw_fields() >>> 2;
    const ev = {};
    for (let k = 0; k < n; k++) {
      const at = base + 6 * k;
      let key = keys.get(w[at]);
      if (key === undefined) keys.set(w[at], (key = cString(w[at])));
      ev[key] = this.#field(w, at, m);
    }
    return ev;
  }

  #output(r, final) {
    const w = words();
    const none = this.#binary ? EMPTY : '';
    const all = this.#npending !== 0; // else an empty channel is none, with no call
    // one object shape for every result
    const out = {
      text: all || w[r + 6] ? this.#ch(w, r, 0, final) : none,
      thought: all || w[r + 7] ? this.#ch(w, r, 1, final) : none,
      other: all || w[r + 8] ? this.#ch(w, r, 2, final) : none,
      markup: all || w[r + 9] ? this.#ch(w, r, 3, final) : none,
      dropped: all || w[r + 10] ? this.#ch(w, r, 4, final) : none,
      events: [],
    };
    for (let i = 0, n = w[r + 13]; i < n; i++) {
      const ev = this.#event(i);
      if (ev.type === 'value') { // beside the events, as in the protocol
        out.value = ev.value;
        out.truncated = ev.truncated;
        if ('reason' in ev) out.unloadable = unloadable(ev);
      } else out.events.push(ev);
    }
    return out;
  }

  // The call's output in the order it came: {type: CHANNEL, text} runs
  // and {type: 'event', event} items.
  #parts(r, final) {
    const w = words();
    const parts = [];
    const at = [0, 0, 0, 0, 0];
    const nruns = w[r + 11], runs = w[r + 12] >>> 2;
    let value = null;
    for (let i = 0; i < nruns; i++) {
      const kind = w[runs + 2 * i], n = w[runs + 2 * i + 1];
      if (kind === RUN_EVENT) {
        const event = this.#event(n);
        if (event.type === 'value') value = event;
        else parts.push({ type: 'event', event });
      } else {
        const text = this.#channel(kind, w[r + 1 + kind] + at[kind], n, false);
        at[kind] += n;
        if (text.length) parts.push({ type: CHANNELS[kind], text });
      }
    }
    if (final && !this.#binary) { // a character that never completed: U+FFFD
      for (let c = 0; c < 5 && this.#npending; c++) {
        const rest = this.#pending[c] ? this.#channel(c, 0, 0, true) : '';
        if (rest) parts.push({ type: CHANNELS[c], text: rest });
      }
    }
    if (value) {
      const part = { type: 'value', value: value.value, truncated: value.truncated };
      if ('reason' in value) part.unloadable = unloadable(value);
      parts.push(part);
    }
    return parts;
  }

  #feedRaw(chunk) {
    this.#open();
    this.#mode(chunk);
    const n = put(chunk);
    this.#in = putString;
    this.#inLen = n;
    return this.#call(wasm.sw_feed(this.#h, putAt, n));
  }

  #finishRaw() {
    this.#open();
    if (this.#binary === null) this.#binary = false;
    this.#in = null;
    return this.#call(wasm.sw_finish(this.#h));
  }

  /** What feeding this chunk released: {text, thought, other, markup, dropped, events}. */
  feed(chunk) { return this.#output(this.#feedRaw(chunk), false); }
  /** The end of the stream: what was held back, and the final events (and a json value). */
  finish() { return this.#output(this.#finishRaw(), true); }
  /** The same as feed, in the order it came: [{type: 'text', text}, {type: 'event', event}, ...]. */
  feedParts(chunk) { return this.#parts(this.#feedRaw(chunk), false); }
  finishParts() { return this.#parts(this.#finishRaw(), true); }

  /** Frees the filter now (else when it is garbage-collected). */
  free() {
    if (!this.#h) return;
    registry.unregister(this);
    wasm.sw_delete(this.#h);
    this.#h = 0;
  }
  [Symbol.dispose]() { this.free(); }
}

const kind = (name) => class extends Filter {
  constructor(options = {}) { super(name, options); }
};

export const Think = kind('think');
export const Clean = kind('clean');
export const Harmony = kind('harmony');
export const Monitor = kind('monitor');
export const Json = kind('json');
export const Sse = kind('sse');
export const Ndjson = kind('ndjson');
export const Chunks = kind('chunks');
export const Provider = kind('provider');
export const Pipeline = kind('pipeline');
export const Detect = kind('detect');
export const Capture = kind('capture');

// The json value's mark: {reason, offset}.
function unloadable(ev) { return { reason: ev.reason, offset: ev.offset }; }

function join(parts) {
  if (parts.length && typeof parts[0] !== 'string') {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }
  return parts.join('');
}

/** The whole input through a filter (a new Filter, or a filter's name with
 * its options): {text, thought, other, markup, dropped, events}, and value
 * and truncated for json. The filter is freed afterwards. */
export function once(filter, input, options) {
  const f = typeof filter === 'string' ? new Filter(filter, options) : filter;
  try {
    const a = f.feed(input);
    const b = f.finish();
    const out = {};
    for (const ch of CHANNELS) out[ch] = join([a[ch], b[ch]]);
    out.events = [...a.events, ...b.events];
    if ('truncated' in b) {
      out.value = b.value;
      out.truncated = b.truncated;
      if (b.unloadable) out.unloadable = b.unloadable;
    }
    return out;
  } finally {
    f.free();
  }
}

/** The JSON value an LLM meant (Python's sanitize_json): {value, repairs},
 * repairs being the {type: 'repair', kind, offset} events in the order made,
 * and unloadable ({reason, offset}) when the text is valid JSON that a
 * reader with doubles cannot load (value is then JSON.parse's reading).
 * Throws SluiceError ('empty', 'no_json', ...) when there is no value. */
export function sanitizeJson(text, options) {
  const r = once(new Json(options), text);
  const out = { value: r.value, repairs: r.events.filter((e) => e.type === 'repair') };
  if (r.unloadable) out.unloadable = r.unloadable;
  return out;
}

export const version = cString(wasm.sw_version());
