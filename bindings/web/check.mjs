// The playground in headless Chromium (CTest web_playground):
//
//   node bindings/web/check.mjs [--wasm FILE] [--screenshot OUT.png]
//
// Serves the bindings folder on 127.0.0.1 (the .wasm from --wasm, else
// bindings/node/dist/sluice.wasm), opens the page in Debian's chromium
// through the DevTools protocol and checks: no console error, no uncaught
// exception and no failed request while it loads; the think example it
// opens with gives the channels it should, the same for every way of
// cutting it (the page's own verdict, for cuts by size, at random and at a
// position); a pasted case runs, and one under a model family's format; a
// screenshot that is not blank.
// Exit status 77 (skipped, with the reason) when chromium is not installed.
//
// Needs a WebSocket client: Node 22 has one; Node 20 with
// --experimental-websocket (this script starts itself again with it).
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';

if (typeof WebSocket === 'undefined') {
  if (process.execArgv.includes('--experimental-websocket')) {
    console.error('check.mjs: this node has no WebSocket client');
    process.exit(1);
  }
  const r = spawnSync(process.execPath, ['--experimental-websocket', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const root = fileURLToPath(new URL('..', import.meta.url)); // bindings/
const wasmFile = opt('--wasm') ?? join(root, 'node', 'dist', 'sluice.wasm');
const shotFile = opt('--screenshot');

const chromium = ['chromium', 'chromium-browser', 'google-chrome'].find(
  (c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0);
if (!chromium) {
  console.log('chromium not found (apt-get install chromium): skipped');
  process.exit(77);
}
if (!existsSync(wasmFile)) {
  console.error(`check.mjs: no WebAssembly build at ${wasmFile} (bindings/node/wasm/build.sh)`);
  process.exit(1);
}

// ---- a static server of bindings/ ----
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const failedRequests = [];
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  const file = path === '/node/dist/sluice.wasm' ? wasmFile : join(root, path);
  if (!file.startsWith(root) && file !== wasmFile) { res.writeHead(403).end(); return; }
  try {
    const body = readFileSync(file);
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    failedRequests.push(path);
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// ---- chromium and the DevTools protocol ----
const profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
  `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--window-size=1280,1000', 'about:blank'],
{ stdio: ['ignore', 'ignore', 'pipe'], detached: true });
let browserLog = '';
browser.stderr.on('data', (d) => { browserLog = (browserLog + d).slice(-4000); });

const problems = [];
let finished = false;
function finish(code) {
  if (finished) return;
  finished = true;
  try { process.kill(-browser.pid, 'SIGKILL'); } catch { /* gone */ }
  server.close();
  rmSync(profile, { recursive: true, force: true });
  process.exit(code);
}
const deadline = setTimeout(() => {
  console.error('check.mjs: no result within 90 s\n' + browserLog);
  finish(1);
}, 90000);

async function devtoolsPort() {
  const file = join(profile, 'DevToolsActivePort');
  for (let i = 0; i < 300; i++) {
    if (existsSync(file)) {
      const port = readFileSync(file, 'utf8').split('\n')[0];
      if (port) return port;
    }
    if (browser.exitCode !== null) throw new Error(`chromium exited (${browser.exitCode}):\n${browserLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`chromium gave no DevTools port:\n${browserLog}`);
}

const port = await devtoolsPort();
const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
const page = targets.find((t) => t.type === 'page');
const ws = new WebSocket(page.webSocketDebuggerUrl);
await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
let nextId = 1;
const pending = new Map();
const listeners = [];
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) reject(new Error(msg.error.message));
    else resolve(msg.result);
  } else if (msg.method) for (const l of listeners) l(msg);
};
const send = (method, params = {}) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  ws.send(JSON.stringify({ id, method, params }));
});
listeners.push(({ method, params }) => {
  if (method === 'Runtime.consoleAPICalled' && (params.type === 'error' || params.type === 'assert')) {
    problems.push(`console.${params.type}: ${params.args.map((a) => a.value ?? a.description).join(' ')}`);
  } else if (method === 'Runtime.exceptionThrown') {
    const d = params.exceptionDetails;
    problems.push(`uncaught: ${d.exception?.description ?? d.text}`);
  } else if (method === 'Log.entryAdded' && params.entry.level === 'error') {
    problems.push(`log: ${params.entry.text} ${params.entry.url ?? ''}`);
  }
});
const evaluate = async (expression) => {
  const r = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description}`);
  return r.result.value;
};

// ---- the checks ----
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

await send('Runtime.enable');
await send('Log.enable');
await send('Page.enable');
await send('Page.navigate', { url: `${base}/web/index.html` });
let status;
for (let i = 0; i < 200 && !status; i++) {
  await new Promise((r) => setTimeout(r, 100));
  status = await evaluate('document.documentElement.dataset.status').catch(() => undefined);
}
check(status === 'same', `the page loads and runs its example (status ${status})`);
check(problems.length === 0 && failedRequests.length === 0,
  `no console error, exception or failed request while loading${problems.length || failedRequests.length
    ? ':\n    ' + [...problems, ...failedRequests.map((p) => `404 ${p}`)].join('\n    ') : ''}`);
const channel = (c) => evaluate(`document.querySelector('[data-channel=${c}]').textContent`);
check((await channel('text')) === 'Sure.↵\nHere it is: autumn moon <',
  'the think example: the answer on the text channel, the partial tag at the end given back');
check((await channel('thought')) === 'The user wants a haiku; 5-7-5.count again', 'its reasoning on the thought channel');
for (const [mode, set] of [['random', "$('seed').value = 7"], ['at', "$('at').value = 30"], ['size', "$('size').value = 1"]]) {
  const verdict = await evaluate(`(() => { const $ = (id) => document.getElementById(id); ${set};
    document.querySelector('input[name=cut][value=${mode}]').checked = true; window.sluicePlayground.run();
    return [document.documentElement.dataset.status, $('verdict').textContent]; })()`);
  check(verdict[0] === 'same', `cut ${mode}: ${verdict[1]}`);
}
const held = await evaluate("document.querySelectorAll('#timeline mark').length");
check(held > 0, `the timeline marks held-back bytes (${held} feeds held some)`);
const pasted = await evaluate(`(() => { window.sluicePlayground.setInput('a<think>b</think>c');
  return [document.querySelector('[data-channel=text]').textContent, document.querySelector('[data-channel=thought]').textContent]; })()`);
check(pasted[0] === 'ac' && pasted[1] === 'b', `a pasted think case: text ${JSON.stringify(pasted[0])}, thought ${JSON.stringify(pasted[1])}`);
const family = await evaluate(`(() => { const $ = (id) => document.getElementById(id);
  $('preset').value = String([...$('preset').options].findIndex((o) => o.text === 'model family: deepseek-r1'));
  $('preset').dispatchEvent(new Event('change'));
  window.sluicePlayground.setInput('plan</think>answer');
  return [$('options').value, document.querySelector('[data-channel=text]').textContent,
    document.querySelector('[data-channel=thought]').textContent, document.documentElement.dataset.status]; })()`);
check(family[1] === 'answer' && family[2] === 'plan' && family[3] === 'same',
  `a model family's format (${family[0]}): text ${JSON.stringify(family[1])}, thought ${JSON.stringify(family[2])}`);

// A screenshot that is not blank: decoded, most of it one colour is fine,
// all of it is not.
const shot = Buffer.from((await send('Page.captureScreenshot', { format: 'png' })).data, 'base64');
if (shotFile) writeFileSync(shotFile, shot);
const { width, height, share } = pngDominantShare(shot);
check(width > 0 && share < 0.97, `the screenshot (${width}x${height}) is not blank: ${(100 * (1 - share)).toFixed(1)}% of it differs from its commonest colour`);
check(problems.length === 0, `no console error afterwards${problems.length ? ':\n    ' + problems.join('\n    ') : ''}`);

clearTimeout(deadline);
console.log(failures.length ? `${failures.length} checks failed` : 'playground: all checks passed');
finish(failures.length ? 1 : 0);

// The share of a PNG's pixels that have its commonest colour (8-bit RGB or
// RGBA, not interlaced, as Chromium writes them).
function pngDominantShare(png) {
  let at = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at), kind = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      type = data[9];
      if (data[8] !== 8 || data[12] !== 0 || (type !== 2 && type !== 6)) return { width: 0, height: 0, share: 1 };
    } else if (kind === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3, stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat));
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) { // undo the row filters (PNG spec 9.2)
    const f = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? px[y * stride + x - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      px[y * stride + x] = (v + pred) & 0xff;
    }
  }
  const counts = new Map();
  for (let i = 0; i < px.length; i += bpp) {
    const key = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { width, height, share: Math.max(...counts.values()) / (width * height) };
}
