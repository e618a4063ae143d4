// The AI SDK's extractReasoningMiddleware (package "ai") as a think filter,
// served over the sluice filter protocol for `sluice diff`.
//
//   node conformance/peers/ai-sdk/serve.mjs            the streaming path (wrapStream)
//   node conformance/peers/ai-sdk/serve.mjs generate   the one-call path (wrapGenerate)
//
// How it is driven and configured: middleware.mjs.
import { serve } from '../../adapters/sluice_adapter.mjs';
import { Streaming, OneCall } from './middleware.mjs';

const generate = process.argv[2] === 'generate';
serve({ think: (options) => (generate ? new OneCall(options) : new Streaming(options)) });
