// claude-code-router's server (@musistudio/llms 1.0.53, its CommonJS build:
// the ESM build fails on a dynamic require of child_process) on 127.0.0.1,
// between an Anthropic /v1/messages client and the OpenAI-chat upstream in
// $SLUICE_UPSTREAM (the gate's mock). Two providers, picked by the model's
// "provider," prefix:
//   think  the extrathinktag transformer: <think> in the content becomes
//          Anthropic thinking blocks
//   plain  no transformer: the Anthropic <-> OpenAI translation alone
//
// usage: node server.cjs PORT [DEADLINE-SECONDS]   (default 300)
"use strict";
const Server = require("@musistudio/llms");

const port = Number(process.argv[2]);
const deadline = Number(process.argv[3] || 300);
const upstream = process.env.SLUICE_UPSTREAM;
if (!port || !upstream) {
  console.error("usage: SLUICE_UPSTREAM=URL node server.cjs PORT [DEADLINE-SECONDS]");
  process.exit(2);
}

// Ends by itself: a test never leaves it running.
setTimeout(() => process.exit(0), deadline * 1000).unref();

const provider = (name, transformer) => ({
  name,
  api_base_url: `${upstream}/v1/chat/completions`,
  api_key: "sluice-gate",
  models: [],
  ...(transformer ? { transformer: { use: [transformer] } } : {}),
});

const server = new (Server.default || Server)({
  useJsonFile: false,
  logger: false,
  initialConfig: {
    HOST: "127.0.0.1",
    PORT: String(port),
    providers: [provider("think", "extrathinktag"), provider("plain", null)],
  },
});
server.start();
