// The peers' side of `sluice bench peers`: a long-lived runner that times
// the JavaScript peers of sluice's filters on the inputs the C side wrote.
//
//   node conformance/peers/bench.mjs
//
// Reads one command per line on stdin, {"peer", "file", "chunk", "reps",
// "budget"}, and answers each with one line:
//   {"ok": true, "peer", "runs": [CPU seconds per run], "out_bytes", "items", "checksum",
//    "over_budget"}
//   {"ok": false, "peer", "error": "what it threw"}
// budget (seconds, optional): a peer that is quadratic on an input would
// otherwise hold the run for hours. When the first run alone takes longer,
// that run is the answer (over_budget: true); the timed runs stop early,
// after one at least, once together they have taken longer.
// The file is read once and cut into chunks of `chunk` bytes (decoded as
// UTF-8 a chunk at a time, as a client does, before any timing); the peer
// is fed one chunk at a time, after an untimed warm-up, `reps` times. A
// run's time is process.cpuUsage() (user + system, every thread: the
// garbage collector's work is the peer's too).
//
// What comes out of the last run is measured afterwards, untimed, so that
// the C side can see that the peer did the work: out_bytes (UTF-8), items
// (think: the thought bytes; json: the top-level value's members; sse: the
// events) and checksum (FNV-1a over the output).
//
// The peers are built as `sluice diff` builds them (ai-sdk/middleware.mjs,
// json/peers.mjs), so both measure the same thing.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { Streaming } from './ai-sdk/middleware.mjs';
import { ONE_CALL, RepairStream } from './json/peers.mjs';
import { settle } from './settle.mjs';

// A peer: run(chunks) does the work and returns what came out; strings(out)
// is that as text and count(out) its items (see above), both untimed.
const members = (v) => (v !== null && typeof v === 'object' ? Object.keys(v).length : 0);
const asValue = { strings: (v) => [JSON.stringify(v)], count: members };
const asStrings = (count) => ({ strings: (out) => out, count });
const utf8 = (s) => Buffer.byteLength(s);

// The chunks are gathered as they arrive and the text is parsed once at
// the end: the one interface these libraries have.
const oneCall = (name) => ({
  async run(chunks) {
    const parts = [];
    for (const c of chunks) parts.push(c);
    return ONE_CALL[name](parts.join(''));
  },
  ...asValue,
});

const PEERS = {
  // extractReasoningMiddleware through wrapStream, with the defaults the
  // diff uses (<think>, separator ""): out is [text, thought].
  'ai-sdk': {
    async run(chunks) {
      const s = new Streaming({});
      const text = [], thought = [];
      for (const c of chunks) {
        const r = await s.feed(c);
        text.push(r.text);
        thought.push(r.thought);
      }
      const r = await s.finish();
      text.push(r.text);
      thought.push(r.thought);
      return [text.join(''), thought.join('')];
    },
    ...asStrings((out) => utf8(out[1])),
  },
  jsonrepair: oneCall('jsonrepair'),
  'partial-json': oneCall('partial-json'),
  'best-effort-json-parser': oneCall('best-effort-json-parser'),
  'ai-sdk-partial-json': oneCall('ai-sdk-partial-json'),
  'jsonrepair-stream': {
    async run(chunks) {
      const s = new RepairStream();
      for (const c of chunks) await s.feed(c);
      return s.value();
    },
    ...asValue,
  },
  // eventsource-parser, fed each chunk as it comes: out is the events' data.
  'eventsource-parser': {
    async run(chunks) {
      const data = [];
      const p = createParser({ onEvent: (e) => data.push(e.data) });
      for (const c of chunks) p.feed(c);
      return data;
    },
    ...asStrings((out) => out.length),
  },
  // Not a peer: a turn of the event loop per chunk and nothing else, the
  // floor under the peers that are awaited after every chunk (ai-sdk,
  // jsonrepair-stream), as the calibration loops are in the C harness.
  'event-loop': {
    async run(chunks) {
      for (let i = 0; i < chunks.length; i++) await settle();
      return [];
    },
    ...asStrings(() => 0),
  },
};

// The file as strings of `chunk` bytes each (a character cut between two
// chunks ends up whole in the second, as a streaming decoder gives it).
function chunksOf(file, chunk) {
  const bytes = readFileSync(file);
  const dec = new StringDecoder('utf8');
  const out = [];
  for (let off = 0; off < bytes.length; off += chunk) out.push(dec.write(bytes.subarray(off, off + chunk)));
  const rest = dec.end();
  if (rest) out.push(rest);
  return out;
}

function fnv1a(strings) {
  let h = 0x811c9dc5;
  for (const s of strings) {
    const b = Buffer.from(s);
    for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
    h = Math.imul(h ^ 0xff, 0x01000193) >>> 0; // between the strings
  }
  return h;
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// One timed run: [CPU seconds, what came out].
async function timed(p, chunks) {
  const t0 = cpu();
  const out = await p.run(chunks);
  return [cpu() - t0, out];
}

async function measure({ peer, file, chunk, reps, budget = Infinity }) {
  const p = PEERS[peer];
  if (!p) throw new Error(`no peer "${peer}" (${Object.keys(PEERS).join(', ')})`);
  if (!(chunk > 0) || !(reps > 0) || !(budget > 0)) throw new Error('chunk, reps and budget must be positive');
  const chunks = chunksOf(file, chunk);
  // Warm-up: the JIT compiles the hot paths; at least one run and 50 ms.
  let [first, out] = await timed(p, chunks);
  const overBudget = first > budget;
  const runs = [];
  if (overBudget) {
    runs.push(first);
  } else {
    for (let i = 1, w = first; i < 20 && w < 0.05; i++) w += (await timed(p, chunks))[0];
    for (let r = 0, sum = 0; r < reps && sum <= budget; r++) {
      const [t, o] = await timed(p, chunks);
      runs.push(t);
      sum += t;
      out = o;
    }
  }
  const strings = p.strings(out);
  return {
    ok: true, peer, runs, over_budget: overBudget,
    out_bytes: strings.reduce((n, s) => n + utf8(s), 0),
    items: p.count(out),
    checksum: fnv1a(strings),
  };
}

// One command at a time, in order: a measurement must have the machine to
// itself.
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let answer;
  let cmd = {};
  try {
    cmd = JSON.parse(line);
    answer = await measure(cmd);
  } catch (e) {
    answer = { ok: false, peer: cmd.peer ?? null, error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
