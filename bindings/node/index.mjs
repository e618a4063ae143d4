// sluice: split-invariant streaming filters for LLM output, the sluice C
// library compiled to WebAssembly. README.md has the tour; index.d.ts the
// types.
export {
  Filter, Think, Clean, Harmony, Monitor, Json, Sse, Ndjson, Chunks, Provider, Pipeline, Detect,
  Capture, once, sanitizeJson, SluiceError, CHANNELS, version,
} from './src/filter.mjs';
export {
  FilterStream, ThinkStream, CleanStream, HarmonyStream, MonitorStream, JsonStream, SseStream,
  ProviderStream, PipelineStream,
} from './src/streams.mjs';
export { sluiceReasoningMiddleware } from './src/middleware.mjs';
