// Provider SDKs' streaming clients as sluice's provider filter, served over
// the filter protocol for `sluice diff`:
//
//   node conformance/peers/provider/serve.mjs PEER
//
// PEER is one of the names in PEERS below. The client is created with a
// fetch of ours that answers its request with a 200 Response whose body is
// a ReadableStream: each feed enqueues its chunk there, as the network
// would deliver it, and a loop started with the request collects what the
// client yields; each feed waits until the chunk has gone through
// (settle), so what it caused comes out with it.
//
// What the client yields is mapped to FORMAT.md's provider events the way
// a careful application would read it (the client's own types: strings of
// content, its tool-call and finish fields), and the channels are derived
// from those events as the provider suite's README says. So the
// differences found are the client's: its SSE or JSON-lines reading, what
// it skips, where it stops, what it throws. A client that cannot tell a
// complete stream from a cut-off one does not report `end`.
//
// Each client speaks one provider's stream. A case of another provider's
// is unsupported: the stream is held back (nothing is given to the client)
// until its framing and the first chunk that shows a provider are known,
// which does not depend on how it was cut; a stream that never shows one
// is given to the client.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { serve, Unsupported, FilterError } from '../../adapters/sluice_adapter.mjs';

// Clients log what they cannot parse (and console.log would write into the
// protocol's stdout); what they then do is what is compared.
for (const k of ['log', 'info', 'warn', 'error', 'debug']) console[k] = () => {};

const binary = (s) => Buffer.from(s ?? '', 'utf8').toString('latin1');
const str = (v) => (typeof v === 'string' ? v : '');
const settle = () => new Promise((resolve) => setImmediate(resolve));

// --- which provider a stream is -------------------------------------------

const ANTHROPIC_TYPES = new Set(['message_start', 'content_block_start', 'content_block_delta',
  'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error']);

// Gemini's members, and llama.cpp's `stop`, Ollama's `done`.
const GEMINI = ['candidates', 'promptFeedback', 'usageMetadata', 'modelVersion'];
const otherShape = (o) => GEMINI.some((k) => k in o) || 'done' in o || 'stop' in o;

// Each says of one parsed chunk: true (this provider's), false (another's)
// or undefined (it does not say: an error alone, a bare object).
const IDENTIFY = {
  openai(o) {
    if (o.object === 'chat.completion.chunk') return true;
    if (o.error && typeof o.error === 'object' && typeof o.error.status === 'string') return false; // Google's
    if (Array.isArray(o.choices)) {
      if (o.choices.some((c) => c && typeof c === 'object' && 'delta' in c)) return true;
      if (o.choices.some((c) => c && typeof c === 'object' && 'text' in c)) return false;
    }
    if (typeof o.type === 'string' || otherShape(o)) return false;
    return undefined;
  },
  anthropic(o) {
    // Every chunk of Anthropic's has a type, its errors too.
    return typeof o.type === 'string' && ANTHROPIC_TYPES.has(o.type);
  },
  responses(o) {
    if (typeof o.type !== 'string') return 'choices' in o || otherShape(o) ? false : undefined;
    if (o.type === 'error') return undefined; // Anthropic's errors have the same type
    return o.type.startsWith('response.');
  },
  ollama(o) {
    // first what others have: a Responses event carries a `response` object
    if ('choices' in o || typeof o.type === 'string' || GEMINI.some((k) => k in o) || 'stop' in o) return false;
    if ('done' in o || typeof o.response === 'string' || ('message' in o && 'model' in o)) return true;
    return undefined;
  },
};

// Reads the held-back bytes: 'yes', 'no' or undefined (not yet known). A
// stream that shows no provider by its end is the flavour's `otherwise`:
// the chat-completions clients take it (the format servers copy), the
// others do not.
function decide(flavour, framing, text, atEnd) {
  const first = text.search(/[^ \t\r\n]/);
  if (first === -1) return atEnd ? flavour.otherwise : undefined;
  const isJsonLines = framing ? framing === 'ndjson' : text[first] === '{';
  if (isJsonLines !== (flavour.framing === 'ndjson')) return 'no';
  const lines = text.split(/\r\n|\r|\n/);
  if (!atEnd) lines.pop(); // not ended yet
  for (const line of lines) {
    let payload = line;
    if (!isJsonLines) {
      const m = /^data: ?(.*)$/.exec(line.replace(/^\ufeff/, ''));
      if (!m) continue;
      payload = m[1];
      if (payload === '[DONE]') return flavour.done ? 'yes' : 'no'; // chat completions' marker
    }
    let o;
    try { o = JSON.parse(payload); } catch { continue; }
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
    const says = flavour.identify(o);
    if (says !== undefined) return says ? 'yes' : 'no';
  }
  return atEnd ? flavour.otherwise : undefined;
}

// --- the peer ---------------------------------------------------------------

class ClientPeer {
  binary = true;
  fields = ['text', 'thought', 'other', 'events'];
  constructor(flavour, options) {
    this.flavour = flavour;
    this.eventTypes = flavour.eventTypes;
    this.choice = 0;
    this.framing = null;
    for (const [k, v] of Object.entries(options)) {
      if (k === 'choice' && Number.isInteger(v) && v >= 0) this.choice = v;
      else if (k === 'provider' && v === flavour.provider) this.forced = true;
      else if (k === 'framing' && (v === 'sse' || v === 'ndjson')) this.framing = v;
      else throw new Unsupported(`option ${k}: ${JSON.stringify(v)} has no counterpart`);
    }
    this.held = [];
    this.out = [];
    this.failed = null;
    this.state = { tools: 0, last: -1, blockTool: new Map(), lastType: null };
  }
  // The held-back chunks decide whether this client reads the stream.
  admit(atEnd) {
    if (this.started) return true;
    const text = Buffer.concat(this.held).toString('utf8');
    const d = this.forced ? 'yes' : decide(this.flavour, this.framing, text, atEnd);
    if (d === 'no') throw new Unsupported(`not a ${this.flavour.provider} stream`);
    if (d !== 'yes') return false;
    this.start();
    return true;
  }
  start() {
    this.started = true;
    const body = new ReadableStream({ start: (c) => { this.controller = c; } });
    const headers = { 'content-type': this.flavour.framing === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream' };
    const fetch = async () => new Response(body, { status: 200, headers });
    this.done = (async () => {
      try {
        for await (const item of await this.flavour.open(fetch)) this.flavour.map(item, this.state, this.out);
        this.flavour.ended?.(this.state, this.out, null);
      } catch (e) {
        if (this.flavour.caught?.(e, this.state, this.out)) return;
        this.failed = e;
      }
    })();
    for (const c of this.held) this.enqueue(c);
    this.held = [];
  }
  // A client that stopped reading (it threw, or cancelled the body) has
  // closed the stream: the rest of the input goes nowhere, as on a socket
  // the client has dropped.
  enqueue(bytes) {
    try { this.controller.enqueue(new Uint8Array(bytes)); } catch { /* cancelled */ }
  }
  take() {
    if (this.failed) {
      const e = this.failed;
      throw new FilterError('provider_format', `${e && e.name}: ${e && e.message}`);
    }
    const events = this.out;
    this.out = [];
    const r = { text: '', thought: '', other: '', events };
    for (const ev of events) {
      if (ev.type !== 'delta' || ev.choice !== this.choice) continue;
      const ch = ev.kind === 'reasoning' ? 'thought' : ev.kind === 'arguments' ? 'other' : 'text';
      r[ch] += ev.text;
    }
    for (const ch of ['text', 'thought', 'other']) r[ch] = binary(r[ch]);
    for (const ev of events)
      for (const k of ['text', 'id', 'name', 'reason', 'code', 'message', 'data'])
        if (typeof ev[k] === 'string') ev[k] = binary(ev[k]);
    return r;
  }
  async feed(chunk) {
    const bytes = Buffer.from(chunk, 'latin1');
    if (!this.started) {
      this.held.push(bytes);
      if (!this.admit(false)) return {};
    } else {
      this.enqueue(bytes);
    }
    await settle();
    return this.take();
  }
  async finish() {
    this.admit(true);
    try { this.controller.close(); } catch { /* cancelled */ }
    await this.done;
    return this.take();
  }
}

// --- the clients --------------------------------------------------------------

const delta = (choice, kind, text, index) => {
  const e = { type: 'delta', choice, kind, text };
  if (index !== undefined) e.index = index;
  return e;
};

// OpenAI chat completions: client.chat.completions.create({stream: true}).
// The SDK swallows [DONE] and ends the same way without it, so `end` is
// not expressed. A chunk with an `error` member is thrown as an APIError.
const openai = {
  provider: 'openai',
  framing: 'sse',
  identify: IDENTIFY.openai,
  otherwise: 'yes',
  done: true,
  eventTypes: ['delta', 'tool_call', 'finish', 'usage', 'error'],
  open(fetch) {
    const client = new OpenAI({ apiKey: 'sk-peer', baseURL: 'http://peer.invalid/v1', fetch, maxRetries: 0 });
    return client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
  },
  map(chunk, st, out) {
    for (const [k, v] of Object.entries(chunk)) {
      if (k === 'choices' && Array.isArray(v)) {
        for (const c of v) if (c && typeof c === 'object') openaiChoice(c, st, out);
      } else if (k === 'usage' && v && typeof v === 'object') {
        out.push({ type: 'usage', data: JSON.stringify(v) });
      }
    }
  },
  caught(e, st, out) {
    if (!(e instanceof OpenAI.APIError) || !e.error) return false;
    const err = e.error;
    out.push({ type: 'error', code: String(err.code ?? err.type ?? ''), message: str(err.message) });
    return true;
  },
};

function openaiChoice(c, st, out) {
  const choice = Number.isInteger(c.index) ? c.index : 0;
  const d = c.delta && typeof c.delta === 'object' ? c.delta : {};
  let reasoned = false;
  for (const [k, v] of Object.entries(d)) {
    if (k === 'content' && str(v)) out.push(delta(choice, 'text', v));
    else if ((k === 'reasoning_content' || k === 'reasoning') && !reasoned && typeof v === 'string') {
      reasoned = true; // servers that send both send the text twice
      if (v) out.push(delta(choice, 'reasoning', v));
    } else if (k === 'refusal' && str(v)) out.push(delta(choice, 'refusal', v));
    else if (k === 'tool_calls' && Array.isArray(v)) {
      for (const tc of v) {
        if (!tc || typeof tc !== 'object') continue;
        const fn = tc.function && typeof tc.function === 'object' ? tc.function : {};
        const starts = str(tc.id) !== '' || str(fn.name) !== '';
        let index = Number.isInteger(tc.index) ? tc.index : starts ? st.tools : st.last;
        if (starts) out.push({ type: 'tool_call', choice, index, id: str(tc.id), name: str(fn.name) });
        st.tools = Math.max(st.tools, index + 1);
        st.last = index;
        if (str(fn.arguments)) out.push(delta(choice, 'arguments', fn.arguments, index));
      }
    }
  }
  if (str(c.finish_reason)) out.push({ type: 'finish', choice, reason: c.finish_reason });
}

// OpenAI Responses: client.responses.create({stream: true}), the same SSE
// reading as chat completions; the events are read by their type, each
// response's tool calls indexed from 0 (by their output_index). The last
// event tells a complete stream from a cut-off one, so `end` is expressed.
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const responses = {
  provider: 'responses',
  framing: 'sse',
  identify: IDENTIFY.responses,
  otherwise: 'no',
  eventTypes: ['delta', 'tool_call', 'finish', 'usage', 'error', 'end'],
  open(fetch) {
    const client = new OpenAI({ apiKey: 'sk-peer', baseURL: 'http://peer.invalid/v1', fetch, maxRetries: 0 });
    return client.responses.create({ model: 'm', input: 'hi', stream: true });
  },
  map(ev, st, out) {
    st.lastType = ev.type;
    const t = ev.type;
    if (t === 'response.created') {
      st.tools = 0;
      st.blockTool = new Map();
      st.errored = false;
    } else if (t === 'response.output_item.added') {
      const item = ev.item || {};
      if (item.type === 'function_call') {
        const index = st.tools++;
        st.blockTool.set(ev.output_index, index);
        out.push({ type: 'tool_call', choice: 0, index, id: str(item.call_id), name: str(item.name) });
      }
    } else if (t === 'response.output_text.delta' && str(ev.delta)) out.push(delta(0, 'text', ev.delta));
    else if (t === 'response.refusal.delta' && str(ev.delta)) out.push(delta(0, 'refusal', ev.delta));
    else if ((t === 'response.reasoning_summary_text.delta' || t === 'response.reasoning_text.delta') && str(ev.delta))
      out.push(delta(0, 'reasoning', ev.delta));
    else if (t === 'response.function_call_arguments.delta' && str(ev.delta) && st.blockTool.has(ev.output_index))
      out.push(delta(0, 'arguments', ev.delta, st.blockTool.get(ev.output_index)));
    else if (t === 'error') {
      st.errored = true;
      out.push({ type: 'error', code: str(ev.code), message: str(ev.message) });
    } else if (TERMINAL.has(t)) {
      const r = ev.response || {};
      // The failed response repeats the error an error event may have given.
      if (!st.errored && r.error && typeof r.error === 'object') out.push({ type: 'error', code: str(r.error.code), message: str(r.error.message) });
      const reason = t === 'response.incomplete' && r.incomplete_details ? r.incomplete_details.reason : r.status;
      out.push({ type: 'finish', choice: 0, reason: str(reason) });
      if (r.usage && typeof r.usage === 'object') out.push({ type: 'usage', data: JSON.stringify(r.usage) });
    }
  },
  ended(st, out) { out.push({ type: 'end', truncated: !TERMINAL.has(st.lastType) }); },
  caught(e, st, out) {
    if (!(e instanceof OpenAI.APIError) || !e.error) return false;
    out.push({ type: 'error', code: str(e.error.code ?? e.error.type), message: str(e.error.message) });
    out.push({ type: 'end', truncated: true });
    return true;
  },
};

// Anthropic Messages: client.messages.create({stream: true}). The SDK
// drops `ping` and events without an `event:` line, and throws an
// `error` event as an APIError; the application sees message_stop, so
// `end` is expressed: truncated unless message_stop was the last event.
const anthropic = {
  provider: 'anthropic',
  framing: 'sse',
  identify: IDENTIFY.anthropic,
  otherwise: 'no',
  eventTypes: ['delta', 'tool_call', 'finish', 'usage', 'error', 'end'],
  open(fetch) {
    const client = new Anthropic({ apiKey: 'sk-ant-peer', baseURL: 'http://peer.invalid', fetch, maxRetries: 0 });
    return client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true });
  },
  map(ev, st, out) {
    st.lastType = ev.type;
    if (ev.type === 'message_start') {
      const u = ev.message && ev.message.usage;
      if (u && typeof u === 'object') out.push({ type: 'usage', data: JSON.stringify(u) });
    } else if (ev.type === 'content_block_start') {
      const b = ev.content_block || {};
      if (b.type === 'tool_use') {
        const index = st.tools++;
        st.blockTool.set(ev.index, index);
        out.push({ type: 'tool_call', choice: 0, index, id: str(b.id), name: str(b.name) });
      } else if (b.type === 'text' && str(b.text)) out.push(delta(0, 'text', b.text));
      else if (b.type === 'thinking' && str(b.thinking)) out.push(delta(0, 'reasoning', b.thinking));
    } else if (ev.type === 'content_block_delta') {
      const d = ev.delta || {};
      if (d.type === 'text_delta' && str(d.text)) out.push(delta(0, 'text', d.text));
      else if (d.type === 'thinking_delta' && str(d.thinking)) out.push(delta(0, 'reasoning', d.thinking));
      else if (d.type === 'input_json_delta' && str(d.partial_json) && st.blockTool.has(ev.index))
        out.push(delta(0, 'arguments', d.partial_json, st.blockTool.get(ev.index)));
    } else if (ev.type === 'message_delta') {
      if (ev.delta && str(ev.delta.stop_reason)) out.push({ type: 'finish', choice: 0, reason: ev.delta.stop_reason });
      if (ev.usage && typeof ev.usage === 'object') out.push({ type: 'usage', data: JSON.stringify(ev.usage) });
    }
  },
  ended(st, out) { out.push({ type: 'end', truncated: st.lastType !== 'message_stop' }); },
  caught(e, st, out) {
    if (!(e instanceof Anthropic.APIError) || !e.error) return false;
    const err = e.error.error && typeof e.error.error === 'object' ? e.error.error : e.error;
    out.push({ type: 'error', code: str(err.type), message: str(err.message) });
    out.push({ type: 'end', truncated: true });
    return true;
  },
};

// Ollama: ollama.generate({stream: true}) (chat streams the same lines;
// the client does not look at their shape). It skips a line that is not
// JSON, throws an `error` line, and throws when the stream ends before a
// `done: true` line: that is `end` with truncated.
const ollama = {
  provider: 'ollama',
  framing: 'ndjson',
  identify: IDENTIFY.ollama,
  otherwise: 'no',
  eventTypes: ['delta', 'tool_call', 'finish', 'error', 'end'],
  open(fetch) {
    const client = new Ollama({ host: 'http://peer.invalid:11434', fetch });
    return client.generate({ model: 'm', prompt: 'hi', stream: true });
  },
  map(part, st, out) {
    const m = part.message && typeof part.message === 'object' ? part.message : null;
    const thinking = m ? m.thinking : part.thinking;
    const content = m ? m.content : part.response;
    if (str(thinking)) out.push(delta(0, 'reasoning', thinking));
    if (str(content)) out.push(delta(0, 'text', content));
    if (m && Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls) {
        const fn = (tc && tc.function) || {};
        const index = st.tools++;
        out.push({ type: 'tool_call', choice: 0, index, id: str(tc.id), name: str(fn.name) });
        if (fn.arguments !== undefined) out.push(delta(0, 'arguments', JSON.stringify(fn.arguments), index));
      }
    }
    if (part.done === true) {
      out.push({ type: 'finish', choice: 0, reason: str(part.done_reason) });
      st.sawDone = true;
    }
  },
  ended(st, out) { out.push({ type: 'end', truncated: !st.sawDone }); },
  caught(e, st, out) {
    if (!(e instanceof Error)) return false;
    if (e.message === 'Did not receive done or success response in stream.') {
      out.push({ type: 'end', truncated: true });
      return true;
    }
    if (e.name !== 'Error') return false;
    out.push({ type: 'error', code: '', message: e.message });
    out.push({ type: 'end', truncated: true });
    return true;
  },
};

// The AI SDK's OpenAI-compatible provider: chatModel().doStream(), the
// language-model stream that streamText reads. It reads the first choice
// only, reports a refusal as text, holds a tool call back until its name
// has come, gives the finish (the provider's raw reason beside its own)
// when the stream ends, and turns an `error` member, a chunk it cannot
// parse or a stream without a finish reason into an error part; its usage
// is its own shape, and it cannot tell [DONE] from a cut, so neither
// usage nor end is compared. A part it could not parse is the provider's
// format error.
const aiSdk = {
  provider: 'openai',
  framing: 'sse',
  identify: IDENTIFY.openai,
  otherwise: 'yes',
  done: true,
  eventTypes: ['delta', 'tool_call', 'finish', 'error'],
  async open(fetch) {
    const provider = createOpenAICompatible({ name: 'peer', baseURL: 'http://peer.invalid/v1', fetch });
    const { stream } = await provider.chatModel('m').doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    return stream;
  },
  map(part, st, out) {
    if (part.type === 'text-delta' && part.delta) out.push(delta(0, 'text', part.delta));
    else if (part.type === 'reasoning-delta' && part.delta) out.push(delta(0, 'reasoning', part.delta));
    else if (part.type === 'tool-input-start') {
      const index = st.tools++;
      st.blockTool.set(part.id, index);
      out.push({ type: 'tool_call', choice: 0, index, id: str(part.id), name: str(part.toolName) });
    } else if (part.type === 'tool-input-delta' && part.delta)
      out.push(delta(0, 'arguments', part.delta, st.blockTool.get(part.id)));
    else if (part.type === 'finish' && part.finishReason && typeof part.finishReason.raw === 'string')
      out.push({ type: 'finish', choice: 0, reason: part.finishReason.raw });
    else if (part.type === 'error') {
      const e = part.error;
      if (e instanceof Error && /JSONParse|TypeValidation/.test(e.name))
        throw new FilterError('provider_format', `${e.name}: ${e.message}`);
      const err = e && typeof e === 'object' ? e : {};
      out.push({ type: 'error', code: String(err.code ?? err.type ?? ''), message: str(err.message) });
    }
  },
};

const PEERS = {
  'openai-chat': openai,
  'openai-responses': responses,
  'anthropic-messages': anthropic,
  'ollama-js': ollama,
  'ai-sdk-openai-compatible': aiSdk,
};

const peer = process.argv[2];
if (!(peer in PEERS)) {
  process.stderr.write(`usage: serve.mjs ${Object.keys(PEERS).join('|')}\n`);
  process.exit(2);
}
serve({ provider: (options) => new ClientPeer(PEERS[peer], options) });
