// Server-sent-event parsers from npm as sluice's sse filter, served over
// the filter protocol for `sluice diff`:
//
//   node conformance/peers/sse/serve.mjs PEER
//
// PEER is one of the names in PEERS below. Each parser is fed the case's
// chunks one by one, as the network would deliver them (finding chunk-split
// bugs is the point), through the interface its users call:
//
// - a parser that takes text (eventsource-parser) gets each chunk through a
//   streaming TextDecoder, as its own EventSourceParserStream does behind a
//   TextDecoderStream;
// - a parser that takes bytes gets each chunk as a Uint8Array: pushed into
//   its line splitter (fetch-event-source), or enqueued into the
//   ReadableStream that is the body of a Response it reads
//   (fetch-event-stream, the OpenAI and Anthropic SDKs).
//
// The adapter runs in binary mode (one character per byte), so the parser
// sees the exact bytes of every cut; the text the parser gives back is
// turned into UTF-8 bytes again for the answer.
//
// Events are mapped to FORMAT.md's: an event without a type, or with the
// empty type, is "message" (the spec's default, which each library leaves
// to its caller as undefined, null or ""); a missing data or id is "".
// What a library does not report at all is left out of eventTypes and
// eventKeys, so it is not compared. No parser here has sluice's caps
// (max_line, max_event), so any option is unsupported.
import { createParser } from 'eventsource-parser';
import { getLines, getMessages } from '@microsoft/fetch-event-source/lib/esm/parse.js';
import { events as fetchEvents } from 'fetch-event-stream';
import { _iterSSEMessages as openaiMessages } from 'openai/core/streaming';
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/core/streaming';
import { serve, Unsupported } from '../../adapters/sluice_adapter.mjs';

const latin1Bytes = (s) => new Uint8Array(Buffer.from(s, 'latin1'));
// The parser's text as the adapter's binary string (UTF-8 bytes).
const binary = (s) => Buffer.from(s ?? '', 'utf8').toString('latin1');

// id undefined: the library does not report ids (no `id` key at all).
function message(event, data, id) {
  const e = { type: 'event', event: binary(event || 'message'), data: binary(data) };
  if (id !== undefined) e.id = binary(id);
  return e;
}
const retry = (n) => ({ type: 'retry', retry: String(n) });

function checkOptions(options) {
  for (const k of Object.keys(options))
    if (options[k] !== undefined) throw new Unsupported(`option "${k}" has no counterpart`);
}

// A parser driven by callbacks: feed() returns what they reported meanwhile.
// Only events: no library reports the dropped bytes of a cut-off last line.
class Callbacks {
  binary = true;
  fields = ['events'];
  constructor(options) {
    checkOptions(options);
    this.out = [];
  }
  take() {
    const events = this.out;
    this.out = [];
    return { events };
  }
  finish() { return this.take(); }
}

// eventsource-parser: createParser({onEvent, onRetry}).feed(text). Its
// events carry the id of their own `id` line only (it forgets the id after
// each dispatch); retry is the parsed integer.
class EventsourceParser extends Callbacks {
  eventTypes = ['event', 'retry'];
  constructor(options) {
    super(options);
    this.decoder = new TextDecoder();
    this.parser = createParser({
      onEvent: (e) => this.out.push(message(e.event, e.data, e.id ?? '')),
      onRetry: (n) => this.out.push(retry(n)),
    });
  }
  feed(chunk) {
    const text = this.decoder.decode(latin1Bytes(chunk), { stream: true });
    if (text) this.parser.feed(text);
    return this.take();
  }
  finish() {
    const text = this.decoder.decode();
    if (text) this.parser.feed(text);
    return this.take();
  }
}

// @microsoft/fetch-event-source's parse helpers, wired as fetchEventSource
// wires them: getLines(getMessages(onId, onRetry, onMessage)), given each
// chunk of the body. A message's id is its own (fetchEventSource keeps the
// last one only for the reconnect header).
class FetchEventSource extends Callbacks {
  eventTypes = ['event', 'retry'];
  constructor(options) {
    super(options);
    this.onChunk = getLines(getMessages(
      () => {},
      (n) => this.out.push(retry(n)),
      (m) => this.out.push(message(m.event, m.data, m.id)),
    ));
  }
  feed(chunk) {
    this.onChunk(latin1Bytes(chunk));
    return this.take();
  }
}

// After the work a write caused has gone through every stream and async
// iterator: they run on promise jobs, which all run before the next
// macrotask.
const settle = () => new Promise((resolve) => setImmediate(resolve));

// A parser that reads a Response: its body is a ReadableStream that each
// feed enqueues a chunk into; a loop started with the first feed collects
// what the parser yields. Subclasses say how a yielded item maps (map).
class BodyReader {
  binary = true;
  fields = ['events'];
  constructor(options) {
    checkOptions(options);
    this.out = [];
    this.body = new ReadableStream({ start: (c) => { this.controller = c; } });
    this.done = (async () => {
      for await (const item of this.read(new Response(this.body))) this.out.push(...this.map(item));
    })();
    this.failed = null;
    this.done.catch((e) => { this.failed = e; });
  }
  take() {
    if (this.failed) throw this.failed;
    const events = this.out;
    this.out = [];
    return { events };
  }
  async feed(chunk) {
    this.controller.enqueue(latin1Bytes(chunk));
    await settle();
    return this.take();
  }
  async finish() {
    this.controller.close();
    await this.done.catch(() => {});
    return this.take();
  }
}

// fetch-event-stream's events(response): a TextDecoderStream and @std's
// TextLineStream, then its own field split. An event is yielded with
// whatever fields it had (a retry rides on its event); a numeric id comes
// back as a number.
class FetchEventStream extends BodyReader {
  eventTypes = ['event', 'retry'];
  read(res) { return fetchEvents(res); }
  map(e) {
    const out = [];
    if (e.retry !== undefined) out.push(retry(e.retry));
    out.push(message(e.event, e.data, e.id === undefined ? '' : String(e.id)));
    return out;
  }
}

// The SDKs' raw SSE messages ({event, data}; no id, no retry): the OpenAI
// SDK's _iterSSEMessages, under Stream.fromSSEResponse; the Anthropic
// SDK's public Stream.rawEvents, the same iterator.
class OpenAI extends BodyReader {
  eventTypes = ['event'];
  eventKeys = ['event', 'data'];
  read(res) { return openaiMessages(res, new AbortController()); }
  map(e) { return [message(e.event, e.data)]; }
}
class Anthropic extends OpenAI {
  read(res) { return AnthropicStream.rawEvents(res, new AbortController()); }
}

const PEERS = {
  'eventsource-parser': EventsourceParser,
  'fetch-event-source': FetchEventSource,
  'fetch-event-stream': FetchEventStream,
  'openai-sse': OpenAI,
  'anthropic-sse': Anthropic,
};

const peer = process.argv[2];
if (!(peer in PEERS)) {
  process.stderr.write(`usage: serve.mjs ${Object.keys(PEERS).join('|')}\n`);
  process.exit(2);
}
serve({ sse: (options) => new PEERS[peer](options) });
