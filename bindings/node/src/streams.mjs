// Web Streams: a filter as a TransformStream from text (or bytes) to typed
// parts, in the order the filter released them:
//
//   response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new ThinkStream())
//   // -> {type: 'text', text}, {type: 'thought', text}, {type: 'markup', text},
//   //    {type: 'event', event: {type: 'thought', tag, text, complete}}, ...
//
// Strings in, strings out; Uint8Array in, Uint8Array out. The filter is
// freed when the stream ends or fails.
import { Filter } from './filter.mjs';

export class FilterStream extends TransformStream {
  /** new FilterStream('harmony', options): any filter by its protocol name. */
  constructor(name, options = {}) {
    const filter = new Filter(name, options);
    const guarded = (work) => (...args) => {
      try {
        work(...args);
      } catch (e) {
        filter.free();
        throw e; // errors the stream
      }
    };
    super({
      transform: guarded((chunk, controller) => {
        for (const part of filter.feedParts(chunk)) controller.enqueue(part);
      }),
      flush: guarded((controller) => {
        for (const part of filter.finishParts()) controller.enqueue(part);
        filter.free();
      }),
    });
    this.filter = filter;
  }
}

const stream = (name) => class extends FilterStream {
  constructor(options = {}) { super(name, options); }
};

export const ThinkStream = stream('think');
export const CleanStream = stream('clean');
export const HarmonyStream = stream('harmony');
export const MonitorStream = stream('monitor');
export const JsonStream = stream('json');
export const SseStream = stream('sse');
export const ProviderStream = stream('provider');
export const PipelineStream = stream('pipeline');
