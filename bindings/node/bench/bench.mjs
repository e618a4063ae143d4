// Speed of the Node package against the AI SDK's extractReasoningMiddleware,
// side by side in one process (a benchmark, not a test):
//
//   taskset -c 1 node bindings/node/bench/bench.mjs [--mb N] [--reps N] [--chunk N]
//
// The text is think-dense (a '<' every ~35 bytes, a <think> block every 1 to
// 3 KiB, as `sluice bench think`'s), cut into chunks of 4, 64 and 65536
// bytes and decoded to strings before any timing. Rows, MB/s on the
// process's CPU clock (process.cpuUsage, medians of --reps runs after a
// warm-up of at least a second of CPU per row: V8 compiles a hot function
// again as it learns it, and one warm-up run of 0.25 MiB left the first
// rows measured half-compiled), and the CPU time of the AI SDK's middleware
// over each row's (x faster). The timed runs count the output's characters;
// the first run keeps and checks it:
//   sluice Think.feed         the WebAssembly think filter, a feed per chunk
//   sluice Think.feed bytes   the same fed Uint8Array chunks (the UTF-8 the network gave)
//   sluice middleware         sluiceReasoningMiddleware through wrapStream: the
//                             model's parts pulled as the wrapped stream is read
//                             to its end
//   ai-sdk middleware         extractReasoningMiddleware({tagName: 'think'}), the same
//   ... per turn              both middlewares, one chunk per turn of the event
//                             loop (what a network gives; `sluice bench peers`
//                             drives the AI SDK so), and the turn alone
// Every row's text and reasoning are checked against the filter's once()
// (the bytes row: their lengths).
import { createRequire } from 'node:module';
import { Think, once, sluiceReasoningMiddleware } from '../index.mjs';

const require = createRequire(import.meta.url);
let extractReasoningMiddleware;
try {
  ({ extractReasoningMiddleware } = await import(require.resolve('ai')));
} catch {
  console.error('bench.mjs: the ai package is not installed (npm ci in bindings/node, or scripts/install-peers)');
  process.exit(1);
}

const args = process.argv.slice(2);
const arg = (name, def) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : def; };
const size = Math.round(arg('--mb', 1) * 1048576);
const reps = arg('--reps', 5);
const only = arg('--chunk', 0);

// ---- the text ----
const WORDS = ['the', 'model', 'answer', 'stream', 'token', 'while', 'a < b', '<br>', 'chunk', 'filter',
  'reasoning', 'naïve', 'café', '—', 'split', 'is', 'of', 'and', 'in', '<b>x</b>'];
function denseText(n) {
  let seed = 5;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
  const out = [];
  let len = 0, nextTag = 0, inside = false;
  while (len < n) {
    let w;
    if (len >= nextTag) {
      w = inside ? '</think>' : '<think>';
      inside = !inside;
      nextTag = len + 1024 + Math.floor(rand() * 2048);
    } else w = WORDS[Math.floor(rand() * WORDS.length)] + ' ';
    out.push(w);
    len += Buffer.byteLength(w);
  }
  return Buffer.from(out.join('')).subarray(0, n);
}
const bytes = denseText(size);
function cut(chunk) {
  const dec = new TextDecoder();
  const strings = [], raw = [];
  for (let i = 0; i < bytes.length; i += chunk) {
    raw.push(bytes.subarray(i, i + chunk));
    strings.push(dec.decode(bytes.subarray(i, i + chunk), { stream: true }));
  }
  return { strings, raw };
}
const expect = once(new Think({ tags: ['think'] }), bytes.toString());

// ---- the runs: each returns its output(keep).result() ----

// What a run keeps of its output: all of it in the first run, which is
// checked; its length in the timed runs, which so time the implementations
// and not the joining of a string per chunk (some 65 ns a string here, a
// third of a filter call at 4-byte chunks).
function output(keep) {
  const text = [], thought = [];
  let length = 0;
  return {
    add(isText, s) {
      if (keep) (isText ? text : thought).push(s);
      else length += s.length;
    },
    result: () => (keep ? [text.join(''), thought.join('')] : length),
  };
}

function filterRun(chunks, keep) {
  const f = new Think({ tags: ['think'] });
  const out = output(keep);
  for (const c of chunks) {
    const o = f.feed(c);
    if (o.text) out.add(true, o.text);
    if (o.thought) out.add(false, o.thought);
  }
  const o = f.finish();
  out.add(true, o.text);
  out.add(false, o.thought);
  f.free();
  return out.result();
}

function filterBytesRun(chunks) {
  const f = new Think({ tags: ['think'] });
  let text = 0, thought = 0;
  for (const c of chunks) {
    const o = f.feed(c);
    text += o.text.length;
    thought += o.thought.length;
  }
  f.free();
  return [text, thought];
}

const modelParts = (chunks) => [{ type: 'text-start', id: 't' },
  ...chunks.map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }];

// The model's parts pulled as the wrapped stream is read to its end (a
// source that enqueues them all up front is several times slower in Node's
// web streams, for every middleware alike).
async function middlewareRun(middleware, chunks, keep) {
  const parts = modelParts(chunks);
  let next = 0;
  const { stream } = await middleware.wrapStream({
    doStream: async () => ({
      stream: new ReadableStream({ pull(c) { if (next < parts.length) c.enqueue(parts[next++]); else c.close(); } }),
    }),
    params: {},
  });
  const out = output(keep);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'text-delta') out.add(true, value.delta);
    else if (value.type === 'reasoning-delta') out.add(false, value.delta);
  }
  return out.result();
}

// One chunk per turn of the event loop.
const turn = () => new Promise((resolve) => setImmediate(resolve));
async function perTurnRun(middleware, chunks, keep) {
  let controller;
  const { stream } = await middleware.wrapStream({
    doStream: async () => ({ stream: new ReadableStream({ start(c) { controller = c; } }) }),
    params: {},
  });
  const out = output(keep);
  const done = stream.pipeTo(new WritableStream({
    write(p) {
      if (p.type === 'text-delta') out.add(true, p.delta);
      else if (p.type === 'reasoning-delta') out.add(false, p.delta);
    },
  }));
  for (const p of modelParts(chunks)) {
    controller.enqueue(p);
    await turn();
  }
  controller.close();
  await done;
  return out.result();
}

async function turnsAlone(chunks) {
  for (let i = 0; i < chunks.length; i++) await turn();
  return null;
}

async function measure(run) {
  const result = await run(true); // the output checked
  for (const t = process.cpuUsage(); ;) {
    const d = process.cpuUsage(t);
    if (d.user + d.system >= 1e6) break;
    await run(false);
  }
  const cpu = [];
  for (let i = 0; i < reps; i++) {
    const t = process.cpuUsage();
    await run(false);
    const d = process.cpuUsage(t);
    cpu.push((d.user + d.system) / 1e6);
  }
  cpu.sort((a, b) => a - b);
  return { cpu: cpu[cpu.length >> 1], result };
}

const ai = () => extractReasoningMiddleware({ tagName: 'think', separator: '' });
const ours = () => sluiceReasoningMiddleware({ tagName: 'think', separator: '' });

console.log(`node ${process.versions.node}, ${(size / 1048576).toFixed(1)} MiB think-dense text, medians of ${reps} runs, CPU time`);
console.log(`${'implementation'.padEnd(34)} ${'chunk'.padStart(6)} ${'MB/s'.padStart(9)} ${'x ai-sdk'.padStart(9)}  output`);
for (const chunk of [4, 64, 65536]) {
  if (only && chunk !== only) continue;
  const { strings, raw } = cut(chunk);
  const rows = [
    ['sluice Think.feed', (keep) => filterRun(strings, keep)],
    ['sluice Think.feed bytes', () => filterBytesRun(raw)],
    ['sluice middleware', (keep) => middlewareRun(ours(), strings, keep)],
    ['ai-sdk middleware', (keep) => middlewareRun(ai(), strings, keep)],
    ['sluice middleware, a turn per chunk', (keep) => perTurnRun(ours(), strings, keep)],
    ['ai-sdk middleware, a turn per chunk', (keep) => perTurnRun(ai(), strings, keep)],
    ['(a turn per chunk alone)', () => turnsAlone(strings)],
  ];
  const measured = [];
  for (const [name, run] of rows) measured.push([name, await measure(run)]);
  const base = measured.find(([n]) => n === 'ai-sdk middleware')[1].cpu;
  for (const [name, { cpu, result }] of measured) {
    let output = '';
    if (Array.isArray(result)) {
      const [t, r] = result;
      const same = typeof t === 'number'
        ? t === Buffer.byteLength(expect.text) && r === Buffer.byteLength(expect.thought)
        : t === expect.text && r === expect.thought;
      output = same ? 'same' : 'differs';
    }
    console.log(`${name.padEnd(34)} ${String(chunk).padStart(6)} ${(size / cpu / 1e6).toFixed(1).padStart(9)} ${(base / cpu).toFixed(1).padStart(8)}x  ${output}`);
  }
  console.log();
}
console.log('x ai-sdk: the AI SDK middleware\'s CPU time (parts pulled) over the row\'s.');
