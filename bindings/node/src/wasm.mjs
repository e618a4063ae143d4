// The WebAssembly module (dist/sluice.wasm, built by wasm/build.sh) loaded
// once, in Node from the package folder and in a browser with fetch, both
// beside this file. Top-level await: importing the package is enough.
//
// SLUICE_WASM (Node only) names another .wasm to load: the tests of a build
// tree use it to try a module built there.

// The module does no I/O, but wasi-libc's stdio leaves three WASI imports
// in it (fd_write, fd_seek, fd_close) that nothing calls: each answers
// ENOSYS, as would any other the libc might name.
const ENOSYS = 52;
const wasi = new Proxy({}, { get: () => () => ENOSYS });

async function instantiate() {
  const url = new URL('../dist/sluice.wasm', import.meta.url);
  const imports = { wasi_snapshot_preview1: wasi };
  if (typeof process !== 'undefined' && process.versions && process.versions.node) {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(process.env.SLUICE_WASM || url);
    return (await WebAssembly.instantiate(bytes, imports)).instance;
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`sluice: cannot load ${url}: HTTP ${response.status}`);
  return (await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;
}

const instance = await instantiate();
export const wasm = instance.exports;
wasm._initialize();

// Views of linear memory, made again when it grows (growth detaches them).
let u8 = new Uint8Array(wasm.memory.buffer);
let u32 = new Uint32Array(wasm.memory.buffer);
export function bytes() {
  if (u8.buffer !== wasm.memory.buffer) {
    u8 = new Uint8Array(wasm.memory.buffer);
    u32 = new Uint32Array(wasm.memory.buffer);
  }
  return u8;
}
export function words() {
  bytes();
  return u32;
}

const latin = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();

// A NUL-terminated string of linear memory (names and messages: UTF-8).
export function cString(ptr) {
  const m = bytes();
  let end = ptr;
  while (m[end] !== 0) end++;
  return utf8.decode(m.subarray(ptr, end));
}

// A scratch block for input, grown as needed and kept.
let scratch = 0;
let scratchSize = 0;
export function scratchFor(n) {
  if (n > scratchSize) {
    if (scratch) wasm.sw_free(scratch);
    scratchSize = Math.max(n, 2 * scratchSize, 256);
    scratch = wasm.sw_alloc(scratchSize);
    if (!scratch) throw new RangeError('sluice: out of memory');
  }
  return scratch;
}

// Copies a chunk (a string as UTF-8, or bytes) into the scratch block:
// [pointer, length].
export function put(chunk) {
  if (typeof chunk === 'string') {
    // short ASCII, the common streaming case, without the encoder
    if (chunk.length <= 16) {
      let ascii = true;
      for (let i = 0; i < chunk.length; i++) if (chunk.charCodeAt(i) > 0x7f) { ascii = false; break; }
      if (ascii) {
        const p = scratchFor(chunk.length);
        const m = bytes();
        for (let i = 0; i < chunk.length; i++) m[p + i] = chunk.charCodeAt(i);
        return [p, chunk.length];
      }
    }
    const p = scratchFor(chunk.length * 3);
    const { written } = encoder.encodeInto(chunk, bytes().subarray(p, p + chunk.length * 3));
    return [p, written];
  }
  const view = chunk instanceof Uint8Array ? chunk
    : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const p = scratchFor(view.length);
  bytes().set(view, p);
  return [p, view.length];
}

// A C string for a call (freed by the caller with wasm.sw_free).
export function newCString(s) {
  const b = encoder.encode(s);
  const p = wasm.sw_alloc(b.length + 1);
  if (!p) throw new RangeError('sluice: out of memory');
  const m = bytes();
  m.set(b, p);
  m[p + b.length] = 0;
  return [p, b.length];
}

// Bytes of linear memory as a string, short ASCII without the decoder.
export function asciiOrNull(p, n) {
  if (n > 24) return null;
  const m = u8.buffer === wasm.memory.buffer ? u8 : bytes();
  let s = '';
  for (let i = 0; i < n; i++) {
    const c = m[p + i];
    if (c > 0x7f) return null;
    s += String.fromCharCode(c);
  }
  return s;
}

export { latin, utf8 };
