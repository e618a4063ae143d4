// The sluice Node package (the library as WebAssembly) served over the
// filter protocol (conformance/FORMAT.md):
//
//   build/sluice conform --impl "node bindings/node/examples/proto-server.mjs"
//
// checks the package against every golden suite in every split mode, as any
// other implementation would be checked. A few lines over the protocol
// adapter (conformance/adapters/sluice_adapter.mjs): every filter the
// library has, by name, fed bytes (the runner cuts characters and sends
// invalid UTF-8), each answer taken from what the package returns.
import { serve, FilterError } from '../../../conformance/adapters/sluice_adapter.mjs';
import { Filter, SluiceError, CHANNELS } from '../index.mjs';

// The adapter's binary mode: one character per byte, both ways.
const toBytes = (s) => Buffer.from(s, 'latin1');
const toBinary = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

// An event's byte strings as the protocol sends them: the adapter converts
// text, data, event and id from binary strings; the other byte fields go
// as UTF-8 strings, or KEY_b64 when they are not UTF-8.
function eventOut(ev) {
  let plain = true;
  for (const k in ev) if (ev[k] instanceof Uint8Array) { plain = false; break; }
  if (plain) return ev; // repairs, stops, ...: nothing to convert
  const out = {};
  for (const [k, v] of Object.entries(ev)) {
    if (!(v instanceof Uint8Array)) out[k] = v;
    else if (['text', 'data', 'event', 'id'].includes(k)) out[k] = toBinary(v);
    else {
      const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      const s = b.toString('utf8');
      if (Buffer.from(s, 'utf8').equals(b)) out[k] = s;
      else out[k + '_b64'] = b.toString('base64');
    }
  }
  return out;
}

// How deep containers nest in a value (0 for a scalar), without recursion.
function depth(value) {
  let deepest = 0;
  const stack = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop();
    if (v !== null && typeof v === 'object') {
      deepest = Math.max(deepest, d);
      for (const x of Object.values(v)) stack.push([x, d + 1]);
    }
  }
  return deepest;
}

// The protocol answers invalid_json for a value jansson cannot read inside
// the answer object (FORMAT.md): nesting past 2048 levels, the answer's own
// level included.
const JANSSON_DEPTH = 2048;

// The json filter's value goes out as the library's own text (its text
// channel, whole): JSON.stringify would write -0 as 0, and JSON.rawJSON
// (Node 21) takes only scalars. The adapter writes the answer with a
// placeholder for the value, which the line's writer replaces, in order:
// one answer, one line, at most one value.
const PLACEHOLDER = JSON.stringify('\u0001sluice value\u0001');
const values = [];
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (line, ...rest) => {
  if (typeof line === 'string' && line.includes(PLACEHOLDER)) line = line.replace(PLACEHOLDER, () => values.shift());
  return write(line, ...rest);
};

class Served {
  binary = true;
  text = []; // the text channel so far: the json filter's value text at the end
  constructor(name, options) {
    try {
      this.filter = new Filter(name, options);
      this.filter.feed(new Uint8Array(0)); // bytes in and out, even when no chunk comes
    } catch (e) {
      throw e instanceof SluiceError ? new FilterError(e.status, e.message, e.offset) : e;
    }
  }
  answer(call) {
    let out;
    try {
      out = call();
    } catch (e) {
      throw e instanceof SluiceError ? new FilterError(e.status, e.message, e.offset) : e;
    }
    const answer = {};
    for (const ch of CHANNELS) answer[ch] = toBinary(out[ch]);
    this.text.push(out.text);
    answer.events = out.events.map(eventOut);
    if (out.unloadable) { // valid JSON jansson cannot load: the mark, no value
      answer.unloadable = out.unloadable;
      answer.truncated = out.truncated;
    } else if ('truncated' in out) { // the json filter's value (which may be null)
      if (depth(out.value) + 1 > JANSSON_DEPTH) {
        throw new FilterError('invalid_json', 'the value nests deeper than jansson reads', this.filter.fed);
      }
      values.push(Buffer.concat(this.text).toString('utf8'));
      answer.value = '\u0001sluice value\u0001';
      answer.truncated = out.truncated;
    }
    return answer;
  }
  feed(data) { return this.answer(() => this.filter.feed(toBytes(data))); }
  finish() { return this.answer(() => this.filter.finish()); }
}

// Every name is served; the library answers unsupported_filter itself.
serve(new Proxy({}, {
  has: () => true,
  get: (_, name) => (options) => new Served(name, options),
}));
