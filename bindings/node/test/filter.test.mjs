// The Node package's filters: feed and finish, strings and bytes, events
// across calls, errors, once(). (The golden suites run through the package
// in every split mode in another test: CTest node_conform_*.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Filter, Think, Harmony, Monitor, Json, Provider, Pipeline, Clean, once, sanitizeJson, SluiceError, CHANNELS,
  version,
} from '../index.mjs';

const CAPTURES = new URL('../../../corpus/captures/', import.meta.url);
const enc = new TextEncoder();

// Every chunking of s with at most two cuts, empty chunks included.
function* cuttings(s) {
  const n = s.length;
  yield [s];
  for (let a = 0; a <= n; a++) {
    yield [s.slice(0, a), s.slice(a)];
    for (let b = a; b <= n; b++) yield [s.slice(0, a), s.slice(a, b), s.slice(b)];
  }
}

function streamed(make, chunks) {
  const f = make();
  const outs = [...chunks.map((c) => f.feed(c)), f.finish()];
  f.free();
  const r = {};
  for (const ch of CHANNELS) r[ch] = outs.map((o) => o[ch]).join('');
  r.events = outs.flatMap((o) => o.events);
  return r;
}

test('feed releases what no rule can change', () => {
  const f = new Think();
  assert.deepEqual(f.feed('a<thi'), { text: 'a', thought: '', other: '', markup: '', dropped: '', events: [] });
  assert.equal(f.held, 4);
  const b = f.feed('nk>b</think>c');
  assert.equal(b.text, 'c');
  assert.equal(b.thought, 'b');
  assert.equal(b.markup, '<think></think>');
  assert.deepEqual(b.events, [{ type: 'thought', tag: 'think', text: 'b', complete: true }]);
  assert.equal(f.finish().text, '');
  assert.equal(f.fed, 18);
  f.free();
  assert.equal(f.closed, true);
  assert.throws(() => f.feed('x'), TypeError);
});

test('every chunking gives the one-call result', () => {
  const s = 'x<Think>é<thinking>y</think>z<reasoning>w 日本';
  const whole = once(new Think(), s);
  assert.equal(whole.text, 'xz');
  for (const chunks of cuttings(s)) assert.deepEqual(streamed(() => new Think(), chunks), whole, JSON.stringify(chunks));
});

test('bytes in, bytes out; a character cut between byte chunks', () => {
  const b = enc.encode('a<think>é</think>日本');
  const whole = once(new Think(), b);
  assert.ok(whole.text instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(whole.text), 'a日本');
  assert.ok(whole.events[0].text instanceof Uint8Array);
  // strings: a character is never split between two results, even when
  // the filter releases part of one (fed bytes elsewhere)
  const f = new Think();
  const outs = [f.feed('é'), f.feed('<think>日'), f.feed('</think>€'), f.finish()];
  assert.equal(outs.map((o) => o.text).join(''), 'é€');
  assert.equal(outs.map((o) => o.thought).join(''), '日');
});

test('a character the library releases in two calls comes out whole, in string results', () => {
  // a recorded capture whose pieces cut the euro sign (e2 82 | ac), then an
  // invalid byte: the body is released as the pieces come
  const f = new Filter('capture');
  const lines = ['{"sluice_capture": 1, "request": {}, "response": {"status": 200, "headers": {}}}\n',
    '{"t": 0.1, "data_b64": "4oI="}\n', '{"t": 0.2, "data_b64": "rA=="}\n', '{"t": 0.3, "data_b64": "/w=="}\n',
    '{"t": 0.4, "end": "complete"}\n'];
  assert.deepEqual(lines.map((l) => f.feed(l).text), ['', '', '€', '\ufffd', '']);
  assert.equal(f.finish().text, '');
  const g = new Filter('capture'); // held at the end: U+FFFD, as TextDecoder would
  assert.deepEqual([...lines.slice(0, 2).map((l) => g.feed(l).text), g.finish().text], ['', '', '\ufffd']);
});

test('a lone surrogate is U+FFFD, as TextEncoder makes it, in short and long chunks', () => {
  const f = new Think();
  // short chunks take a path of their own (a result that is all the
  // input is the input string): a lone surrogate must not get through it
  assert.deepEqual(['a\ud800', '\udc00b', 'c\ud83d\ude00', '\ud83d', '\ude00'].map((c) => f.feed(c).text),
    ['a\ufffd', '\ufffdb', 'c\ud83d\ude00', '\ufffd', '\ufffd']);
  const long = 'x'.repeat(40);
  assert.equal(f.feed(long + '\udfff').text, long + '\ufffd');
  assert.equal(f.feed('<think>\ud800</think>').thought, '\ufffd');
  f.free();
});

test('a result that starts with U+FEFF keeps it, short or long', () => {
  const f = new Think();
  const long = 'x'.repeat(40);
  assert.deepEqual(['\ufeffa', '\ufeff' + long].map((c) => f.feed(c).text), ['\ufeffa', '\ufeff' + long]);
  f.free();
});

test('strings and bytes do not mix in one filter', () => {
  const f = new Think();
  f.feed('a');
  assert.throws(() => f.feed(enc.encode('b')), /keep to one/);
  f.free();
});

test('a block across calls keeps its text in its record', () => {
  const f = new Think();
  const outs = ['<think>one ', 'two ', 'three</think>', '<think>four'].map((c) => f.feed(c));
  outs.push(f.finish());
  assert.deepEqual(outs.flatMap((o) => o.events), [
    { type: 'thought', tag: 'think', text: 'one two three', complete: true },
    { type: 'thought', tag: 'think', text: 'four', complete: false },
  ]);
});

test('parts come in the order the filter released them', () => {
  const f = new Think();
  assert.deepEqual(f.feedParts('a<think>b</think>c'), [
    { type: 'text', text: 'a' },
    { type: 'markup', text: '<think>' },
    { type: 'thought', text: 'b' },
    { type: 'markup', text: '</think>' },
    { type: 'event', event: { type: 'thought', tag: 'think', text: 'b', complete: true } },
    { type: 'text', text: 'c' },
  ]);
  assert.deepEqual(f.finishParts(), []);
});

test('options are the protocol\'s, and reach the library by name', () => {
  assert.equal(once(new Think({ tags: ['x'], case_insensitive: false }), '<X>a</X><x>b</x>').text, '<X>a</X>');
  assert.equal(once(new Think({ pairs: [['[[', ']]']] }), 'a[[b]]c').thought, 'b');
  assert.equal(once('think', '<r>a</r>b', { tags: ['r'] }).text, 'b');
});

test('a model family\'s format and thinking', () => {
  const text = 'plan</think>answer <think>shown</think>';
  const whole = once(new Think({ format: 'deepseek-r1' }), text);
  assert.deepEqual([whole.text, whole.thought, whole.markup], ['answer <think>shown</think>', 'plan', '</think>']);
  for (const chunks of cuttings(text)) {
    const f = new Think({ format: 'deepseek-r1' });
    const outs = [...chunks.map((c) => f.feed(c)), f.finish()];
    for (const ch of CHANNELS) assert.equal(outs.map((o) => o[ch]).join(''), whole[ch], JSON.stringify(chunks));
  }
  const bytes = once(new Think({ format: 'deepseek-r1' }), enc.encode('no close: all reasoning'));
  assert.deepEqual([bytes.text.length, new TextDecoder().decode(bytes.thought)], [0, 'no close: all reasoning']);
  const off = once(new Think({ format: 'deepseek-r1', thinking: false }), 'plan</think>answer');
  assert.deepEqual([off.text, off.thought], ['plan</think>answer', '']);
  const qwen = once(new Think({ format: 'qwen3' }), '<think>a<tool_call>{}');
  assert.deepEqual([qwen.text, qwen.thought], ['<tool_call>{}', 'a']);
  assert.throws(() => new Think({ format: 'deepseek-r2' }), (e) => e instanceof SluiceError && e.status === 'bad_option');
  assert.throws(() => new Think({ format: 'qwen3', tags: ['x'] }), (e) => e.status === 'bad_option');
});

test('errors name the option, carry the status and the byte offset, and stick', () => {
  assert.throws(() => new Think({ tgas: [] }), (e) => e instanceof SluiceError && e.status === 'bad_option'
    && /"tgas"/.test(e.message) && e.offset === 0);
  assert.throws(() => new Filter('nonesuch'), (e) => e.status === 'unsupported_filter');
  const j = new Json({ max_bytes: 10 });
  j.feed('{"a": ');
  assert.throws(() => j.feed('"0123456789"}'), (e) => e.status === 'limit' && e.offset === 10);
  assert.throws(() => j.finish(), (e) => e.status === 'limit');
  assert.throws(() => once(new Json(), 'no value'), (e) => e.status === 'no_json');
});

test('json: value, truncation and repairs', () => {
  const r = once(new Json(), "Sure! ```json\n{'a': [1, 2,], b: True\n```");
  assert.deepEqual(r.value, { a: [1, 2], b: true });
  assert.equal(r.truncated, true); // the object was never closed
  assert.ok(r.events.length > 0 && r.events.every((e) => e.type === 'repair'));
  assert.equal(once(new Json(), '{"a": "b').truncated, true);
  assert.equal(Object.is(once(new Json(), '-0.0').value, -0), true);
});

test('json: valid JSON jansson cannot load is kept and marked unloadable', () => {
  const r = once(new Json(), 'x [1, -1e400]');
  assert.deepEqual(r.unloadable, { reason: 'number_overflow', offset: 6 });
  assert.deepEqual([r.value, r.truncated, r.text], [[1, -Infinity], false, '[1,-1e400]']);
  const k = once(new Json(), '{"a\\u0000b": 1, "c": [1e400');
  assert.deepEqual(k.unloadable, { reason: 'nul_in_key', offset: 3 });
  assert.deepEqual([k.value, k.truncated], [{ 'a\u0000b': 1, c: [Infinity] }, true]);
  const d = once(new Json({ max_depth: 0 }), '['.repeat(2100) + ']'.repeat(2100));
  assert.deepEqual(d.unloadable, { reason: 'depth', offset: 2048 });
  assert.equal('unloadable' in once(new Json(), '[1e300, 1e-400]'), false);
  const f = new Json();
  assert.equal('unloadable' in f.feed('[1e4'), false);
  const parts = [...f.feedParts('00]'), ...f.finishParts()];
  assert.deepEqual(parts.at(-1), { type: 'value', value: [Infinity], truncated: false,
    unloadable: { reason: 'number_overflow', offset: 1 } });
});

test('sanitizeJson: the value, its repairs, and the unloadable mark', () => {
  const r = sanitizeJson("Sure! ```json\n{'a': [1, 2,], b: True}\n```");
  assert.deepEqual(r.value, { a: [1, 2], b: true });
  assert.ok(r.repairs.length && r.repairs.every((e) => e.type === 'repair'));
  assert.equal('unloadable' in r, false);
  // valid JSON jansson cannot load: kept, and marked
  assert.deepEqual(sanitizeJson('{"a\\u0000b":1}'),
    { value: { 'a\u0000b': 1 }, repairs: [], unloadable: { reason: 'nul_in_key', offset: 3 } });
  assert.deepEqual(sanitizeJson(enc.encode('[1e400]')),
    { value: [Infinity], repairs: [], unloadable: { reason: 'number_overflow', offset: 1 } });
  assert.throws(() => sanitizeJson('no value here'), (e) => e instanceof SluiceError && e.status === 'no_json');
});

test('harmony, monitor and clean', () => {
  const h = once(new Harmony(), '<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>final<|message|>hi');
  assert.equal(h.thought, 'hmm');
  assert.equal(h.text, 'hi');
  const m = once(new Monitor({ max_length: 5 }), 'abcdefgh');
  assert.deepEqual([m.text, m.dropped, m.events], ['abcde', 'fgh', [{ type: 'stop', reason: 'max_length', offset: 5 }]]);
  const c = once(new Clean({ endpoint: { removeThinking: true, trimBeginningAndEndLineBreaks: true } }),
    '<think>plan</think>\n answer \n');
  assert.deepEqual([c.text, c.events[0].text], ['answer', 'plan']);
});

test('provider and pipeline over network chunks', () => {
  const body = readFileSync(new URL('openai-chat-tool-calls.sse', CAPTURES));
  const p = new Provider();
  const events = [];
  for (let i = 0; i < body.length; i += 7) events.push(...p.feed(body.subarray(i, i + 7)).events);
  events.push(...p.finish().events);
  const call = events.find((e) => e.type === 'tool_call');
  assert.equal(new TextDecoder().decode(call.name), 'get_weather');
  assert.deepEqual(events.at(-1), { type: 'end', truncated: false });
  const ollama = readFileSync(new URL('ollama-generate-deepseek-r1-think-tags.ndjson', CAPTURES), 'utf8');
  const r = once(new Pipeline({ filters: [{ filter: 'think' }] }), ollama);
  assert.ok(!r.text.includes('<think>') && r.thought.length > 0);
});

test('big chunks, many filters, memory that grows', () => {
  const big = 'word '.repeat(200000) + '<think>' + 'x'.repeat(300000) + '</think>end';
  for (let i = 0; i < 3; i++) {
    const r = once(new Think(), big);
    assert.equal(r.text.length, 1000003);
    assert.equal(r.events[0].text.length, 300000);
  }
  assert.match(version, /^\d+\.\d+\.\d+$/);
});
