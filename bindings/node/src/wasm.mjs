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

// Views of linear memory, made again when it grows: growing detaches the
// old buffer, and a view of a detached buffer has length 0 (cheaper to
// test on every call than reading memory.buffer).
let u8 = new Uint8Array(wasm.memory.buffer);
let u32 = new Uint32Array(wasm.memory.buffer);
export function bytes() {
  if (u8.length === 0) {
    u8 = new Uint8Array(wasm.memory.buffer);
    u32 = new Uint32Array(wasm.memory.buffer);
  }
  return u8;
}
export function words() {
  if (u32.length === 0) bytes();
  return u32;
}

// ignoreBOM: a result that starts with U+FEFF keeps it (the decoder drops it
// by default, and shorter results, decoded by decodeShort, kept it)
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
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

// What put() did with the last chunk: where its bytes are, and when it was
// a string, that string (a result with just those bytes can be the string
// itself, with no decoding and no new string) while it is not known to have
// a lone surrogate (which becomes U+FFFD, so that its UTF-8 does not decode
// back to it): encodeShort tells for a short one, putWhole() on demand for
// a long one.
export let putAt = 0;
export let putString = null;
let putChecked = false;

/** Whether putString's UTF-8 decodes back to it. */
export function putWhole() {
  if (!putChecked) {
    putChecked = true;
    // without isWellFormed (browsers before 2023), no: results are decoded
    if (putString !== null && !(putString.isWellFormed ? putString.isWellFormed() : false)) putString = null;
  }
  return putString !== null;
}

// A short string as UTF-8 at m[p..]: the bytes written. What
// TextEncoder does (a lone surrogate is U+FFFD), without its cost per call,
// which is most of a call at a few bytes. putString is null after a lone
// surrogate.
function encodeShort(str, m, p) {
  let at = p;
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) m[at++] = c;
    else if (c < 0x800) {
      m[at++] = 0xc0 | (c >> 6);
      m[at++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = str.charCodeAt(i + 1);
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          m[at++] = 0xf0 | (c >> 18);
          m[at++] = 0x80 | ((c >> 12) & 0x3f);
          m[at++] = 0x80 | ((c >> 6) & 0x3f);
          m[at++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd;
        putString = null;
      }
      m[at++] = 0xe0 | (c >> 12);
      m[at++] = 0x80 | ((c >> 6) & 0x3f);
      m[at++] = 0x80 | (c & 0x3f);
    }
  }
  return at - p;
}

// Copies a chunk (a string as UTF-8, or bytes) into the scratch block, at
// putAt: its length. A few bytes are copied in a loop, cheaper than set()
// or encodeInto() at that size.
export function put(chunk) {
  putString = null;
  if (typeof chunk === 'string') {
    const room = chunk.length * 3;
    const p = (putAt = scratchFor(room));
    putString = chunk;
    putChecked = chunk.length <= 32;
    if (!putChecked) return encoder.encodeInto(chunk, bytes().subarray(p, p + room)).written;
    return encodeShort(chunk, bytes(), p);
  }
  const view = chunk instanceof Uint8Array ? chunk
    : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const n = view.length;
  const p = (putAt = scratchFor(n));
  const m = bytes();
  if (n <= 32) for (let i = 0; i < n; i++) m[p + i] = view[i];
  else m.set(view, p);
  return n;
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

// Well-formed UTF-8 at m[a..b) as a string, for short runs, where
// TextDecoder's cost per call is most of the work (up to some 12 bytes:
// beyond, TextDecoder is the faster); null when the bytes are longer or not
// well-formed (TextDecoder then decides what replaces them).
export function decodeShort(m, a, b) {
  if (b - a > 12) return null;
  let s = '';
  for (let i = a; i < b;) {
    const c = m[i];
    if (c < 0x80) {
      s += String.fromCharCode(c);
      i++;
      continue;
    }
    let n, cp, min;
    if (c >= 0xc2 && c <= 0xdf) {
      n = 2; cp = c & 0x1f; min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 3; cp = c & 0x0f; min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4; cp = c & 0x07; min = 0x10000;
    } else return null;
    if (i + n > b) return null;
    for (let k = 1; k < n; k++) {
      const d = m[i + k];
      if ((d & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
    s += String.fromCodePoint(cp);
    i += n;
  }
  return s;
}

export { utf8 };
