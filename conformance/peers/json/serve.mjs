// JSON repair and partial-JSON libraries as sluice's json filter, served
// over the filter protocol for `sluice diff`:
//
//   node conformance/peers/json/serve.mjs PEER
//
// PEER is one of the names below. Each reports the value it makes of the
// input (as JSON, so only the `value` field, and whether there was an
// error, are compared): a repair library is given the whole text at the end
// (that is its interface); jsonrepair-stream, its streaming interface, is
// fed chunk by chunk; the partial-JSON parsers are given the whole text
// too: a case's input that stops mid-document is the prefix they are for.
// The json filter's options have no counterpart here; `incremental` is
// accepted (its snapshots are not compared), any other is unsupported.
import { serve, FilterError, Unsupported, BadOption } from '../../adapters/sluice_adapter.mjs';
import { ONE_CALL, REPAIRED_TEXT, RepairStream } from './peers.mjs';

// A peer's failure is an error answer; its message says what it threw.
const failed = (e) => new FilterError('invalid_json', String(e && e.message ? e.message : e));

function checkOptions(options) {
  for (const k of Object.keys(options))
    if (k !== 'incremental') throw new Unsupported(`option "${k}" has no counterpart`);
  if ('incremental' in options && typeof options.incremental !== 'boolean')
    throw new BadOption('"incremental" must be true or false');
}

// The kit reads answers with jansson, whose reader stops at 2048 levels;
// the answer object is one.
const MAX_DEPTH = 2046;

// The strings of a value as UTF-8 can carry them: a lone surrogate becomes
// U+FFFD, as every conversion of a JavaScript string to UTF-8 does (Buffer
// too). With negZeroIsZero, -0 becomes 0: a peer that makes a JavaScript
// value has one negative zero for the text's -0 and -0.0, which the runner
// (jansson) reads as 0 and -0.0; the integer is the form models write, so
// it is answered as 0 (what JSON.stringify writes). Iterative: a deep value
// must not exhaust the stack here.
function wellFormed(value, negZeroIsZero) {
  const root = [value];
  const stack = [[root, 0, 0]];
  while (stack.length) {
    const [holder, key, depth] = stack.pop();
    const x = holder[key];
    if (depth > MAX_DEPTH) throw new Unsupported(`a value nested deeper than the protocol carries (${MAX_DEPTH} levels)`);
    if (typeof x === 'string') {
      holder[key] = x.toWellFormed();
    } else if (negZeroIsZero && Object.is(x, -0)) {
      holder[key] = 0;
    } else if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) stack.push([x, i, depth + 1]);
    } else if (x !== null && typeof x === 'object') {
      for (const k of Object.keys(x)) {
        // jansson, which reads the kit's answers, keeps keys as C strings
        if (k.includes('\u0000')) throw new Unsupported('a key with U+0000, which the protocol\'s reader cannot carry');
        const wk = k.toWellFormed();
        if (wk !== k) {
          x[wk] = x[k];
          delete x[k];
        }
        stack.push([x, wk, depth + 1]);
      }
    }
  }
  return root[0];
}

// A value the protocol can carry: undefined (nothing parsed) is a failure;
// one nested too deeply is not expressible (wellFormed says so).
// negZeroIsZero: as for wellFormed (a value made by the peer, not read
// from its text here).
function answerValue(v, negZeroIsZero = true) {
  if (v === undefined) throw failed('no value');
  return { value: wellFormed(v, negZeroIsZero) };
}

// A string or a number of JSON text (the text is valid: JSON.parse read it).
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

// The byte offset of the first number of a JSON text past a double's range,
// or -1. It is an offset in the repaired text (the repairers give no map
// back to their input): the input's own where nothing before the number
// was changed, as in the cases of valid documents.
function firstOverflow(text) {
  for (const m of text.matchAll(TOKEN)) {
    if (m[0][0] !== '"' && !Number.isFinite(Number(m[0]))) return Buffer.byteLength(text.slice(0, m.index));
  }
  return -1;
}

// A repairer's JSON text answered as the reference answers its own: its
// value, or, when a number is past a double's range, the text marked
// unloadable (FORMAT.md) rather than the value JSON.parse makes of it
// (Infinity, which JSON.stringify writes as null). Its numbers are read as
// the runner reads the reference's text with jansson: an integer -0 is 0,
// a real -0.0 stays negative.
function answerText(text) {
  let v;
  try {
    v = JSON.parse(text.replace(TOKEN, (t) => (t === '-0' ? '0' : t)));
  } catch (e) {
    throw failed(e);
  }
  const at = firstOverflow(text);
  if (at >= 0) return { unloadable: { reason: 'number_overflow', offset: at } };
  return answerValue(v, false);
}

class OneCall {
  fields = ['value'];
  constructor(peer, options) {
    checkOptions(options);
    this.peer = peer;
    this.parts = [];
  }
  feed(text) {
    this.parts.push(text);
    return {};
  }
  async finish() {
    const text = this.parts.join('');
    let v;
    try {
      if (this.peer in REPAIRED_TEXT) v = REPAIRED_TEXT[this.peer](text);
      else v = await ONE_CALL[this.peer](text);
    } catch (e) {
      throw failed(e);
    }
    return this.peer in REPAIRED_TEXT ? answerText(v) : answerValue(v);
  }
}

// jsonrepair's streaming interface, fed chunk by chunk (peers.mjs).
class RepairServe {
  fields = ['value'];
  constructor(options) {
    checkOptions(options);
    this.s = new RepairStream();
  }
  async feed(text) {
    await this.s.feed(text);
    return {};
  }
  // What the library throws is an error answer; a value the protocol cannot
  // carry is unsupported, as for the one-call peers.
  async finish() {
    let text;
    try {
      text = await this.s.text();
    } catch (e) {
      throw failed(e);
    }
    return answerText(text);
  }
}

const peer = process.argv[2];
if (!(peer in ONE_CALL) && peer !== 'jsonrepair-stream') {
  process.stderr.write(`usage: serve.mjs ${[...Object.keys(ONE_CALL), 'jsonrepair-stream'].join('|')}\n`);
  process.exit(2);
}
serve({ json: (options) => (peer === 'jsonrepair-stream' ? new RepairServe(options) : new OneCall(peer, options)) });
