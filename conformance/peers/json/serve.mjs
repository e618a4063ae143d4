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
import { ONE_CALL, RepairStream } from './peers.mjs';

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
// too). Iterative: a deep value must not exhaust the stack here.
function wellFormed(value) {
  const root = [value];
  const stack = [[root, 0, 0]];
  while (stack.length) {
    const [holder, key, depth] = stack.pop();
    const x = holder[key];
    if (depth > MAX_DEPTH) throw new Unsupported(`a value nested deeper than the protocol carries (${MAX_DEPTH} levels)`);
    if (typeof x === 'string') {
      holder[key] = x.toWellFormed();
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
function answerValue(v) {
  if (v === undefined) throw failed('no value');
  return { value: wellFormed(v) };
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
    let v;
    try {
      v = await ONE_CALL[this.peer](this.parts.join(''));
    } catch (e) {
      throw failed(e);
    }
    return answerValue(v);
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
    let v;
    try {
      v = await this.s.value();
    } catch (e) {
      throw failed(e);
    }
    return answerValue(v);
  }
}

const peer = process.argv[2];
if (!(peer in ONE_CALL) && peer !== 'jsonrepair-stream') {
  process.stderr.write(`usage: serve.mjs ${[...Object.keys(ONE_CALL), 'jsonrepair-stream'].join('|')}\n`);
  process.exit(2);
}
serve({ json: (options) => (peer === 'jsonrepair-stream' ? new RepairServe(options) : new OneCall(peer, options)) });
