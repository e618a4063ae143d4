// Loaded with `node -r` before Portkey's gateway (build/start-server.js).
//
// 1. Loopback only. The gateway has no host option and listens on every
//    interface; a test must not. Every listen() that names no host (a port
//    number, or options without `host`) is bound to 127.0.0.1.
// 2. Node 20: the gateway answers every call with 500 and logs
//    `TypeError: immutable` (Portkey issue #1389): it sets headers on the
//    Response that fetch() returned, whose Headers are immutable. Each fetch
//    response is handed over as a new Response around the same body stream
//    (not read, not copied) with a fresh, mutable Headers object.
// 3. A deadline: the process ends by itself after $SLUICE_GATEWAY_DEADLINE
//    seconds (default 300), so a test never leaves it running.
"use strict";
const net = require("node:net");

const deadline = Number(process.env.SLUICE_GATEWAY_DEADLINE || 300);
setTimeout(() => process.exit(0), deadline * 1000).unref();

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const a = args[0];
  if (typeof a === "number" || (typeof a === "string" && /^\d+$/.test(a))) {
    const rest = args.slice(1).filter((x) => typeof x === "function");
    return listen.call(this, Number(a), "127.0.0.1", ...rest);
  }
  if (a && typeof a === "object" && a.path === undefined && !a.host) {
    return listen.call(this, { ...a, host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};

const fetch = globalThis.fetch;
// Statuses whose Response must have a null body.
const bodiless = new Set([101, 103, 204, 205, 304]);
globalThis.fetch = async function (...args) {
  const r = await fetch.apply(this, args);
  const fresh = new Response(bodiless.has(r.status) ? null : r.body, {
    status: r.status,
    statusText: r.statusText,
    headers: new Headers(r.headers),
  });
  // What a Response built by hand cannot be given, but callers read.
  Object.defineProperty(fresh, "url", { value: r.url });
  Object.defineProperty(fresh, "redirected", { value: r.redirected });
  return fresh;
};
