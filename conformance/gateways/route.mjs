// A small OpenAI-chat-compatible HTTP route for the gateway checks
// (ai-sdk/, langchain/): POST /v1/chat/completions on 127.0.0.1 streams what
// a framework made of the upstream's answer back as OpenAI chat chunks.
// The framework's part is `answer(body, out, signal)`: it calls out.delta()
// for each delta and out.finish() once, and throws on a failure. What goes
// out before a failure stays; the failure is then an `error` chunk and the
// stream ends without [DONE], so the client sees it. A failure before any
// output is an HTTP 502 with an OpenAI error body.
//
// The server ends by itself after `deadline` seconds (a test never leaves it
// running); GET answers 200 for the gate's readiness check.
import http from 'node:http';

// The command line of a route: node server.mjs PORT [DEADLINE-SECONDS]
// (default 300), the upstream's base URL in $SLUICE_UPSTREAM.
export function routeArgs() {
  const port = Number(process.argv[2]);
  const deadline = Number(process.argv[3] || 300);
  const upstream = process.env.SLUICE_UPSTREAM;
  if (!port || !upstream) {
    console.error('usage: SLUICE_UPSTREAM=URL node server.mjs PORT [DEADLINE-SECONDS]');
    process.exit(2);
  }
  return { port, deadline, upstream };
}

// The request's text messages ({role, content}, user, system or assistant),
// or one "hi" from the user when it has none.
export function chatMessages(body) {
  const m = Array.isArray(body.messages) ? body.messages : [];
  const kept = m.filter((x) => typeof x?.content === 'string' && ['user', 'system', 'assistant'].includes(x.role));
  return kept.length ? kept.map((x) => ({ role: x.role, content: x.content })) : [{ role: 'user', content: 'hi' }];
}

export function serveRoute({ port, deadline, answer }) {
  setTimeout(() => process.exit(0), deadline * 1000).unref();
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
      return;
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (s) => (raw += s));
    req.on('end', () => handle(raw, res, answer));
  });
  server.listen(port, '127.0.0.1');
  return server;
}

function errorBody(e) {
  return { error: { message: String(e?.message ?? e), type: 'upstream_error' } };
}

async function handle(raw, res, answer) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'the body is not JSON', type: 'invalid_request' } }));
    return;
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const base = { id: 'chatcmpl-gate', object: 'chat.completion.chunk', created: 0, model: body.model };
  let started = false;
  const line = (data) => {
    if (!started) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      started = true;
    }
    res.write(`data: ${data}\n\n`);
  };
  const send = (obj) => line(JSON.stringify(obj));
  const out = {
    delta: (delta) => send({ ...base, choices: [{ index: 0, delta, finish_reason: null }] }),
    finish: (reason) => send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: reason }] }),
  };
  try {
    await answer(body, out, abort.signal);
    line('[DONE]');
  } catch (e) {
    if (!started) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(errorBody(e)));
      return;
    }
    res.write(`data: ${JSON.stringify(errorBody(e))}\n\n`);
  }
  res.end();
}
