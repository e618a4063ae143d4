// sluiceReasoningMiddleware: a drop-in for the AI SDK's
// extractReasoningMiddleware (package "ai"), with sluice's think filter
// underneath.
//
//   import { wrapLanguageModel } from 'ai';
//   const model = wrapLanguageModel({ model: base, middleware: sluiceReasoningMiddleware({ tagName: 'think' }) });
//
// The AI SDK's options mean what they mean there: tagName (the block's tag;
// without one, sluice's five names: thought, thinking, think, reasoning,
// reflection), separator (default "\n": put between the text before and
// after a removed block, and between two blocks' reasoning) and
// startWithReasoning (the output starts inside a block). Any other option
// is one of sluice's think options, passed as it is: case_insensitive,
// tags, pairs, a model family's format (format: 'deepseek-r1', with
// thinking), ...
//
// What it keeps from the AI SDK: the stream's parts and their order (a
// text-start delayed until text comes; reasoning-start, reasoning-delta and
// reasoning-end with ids "reasoning-N"; every other part passed through),
// and the generate path's content (one reasoning part, then the text).
// What it fixes: a partial tag held at the end of the stream is text, not
// dropped; a block still open at the end is closed with its reasoning-end;
// tags match in any ASCII case (<Think>); and both paths run the same filter,
// so wrapGenerate's text is what wrapStream's deltas add up to, however the
// provider cut them.
import { Filter } from './filter.mjs';

const OWN = new Set(['tagName', 'separator', 'startWithReasoning']);

// sluice's think options for the middleware's.
function thinkOptions(options) {
  const o = {};
  for (const [k, v] of Object.entries(options)) if (!OWN.has(k)) o[k] = v;
  const family = o.format !== undefined && o.format !== 'generic';
  if (options.tagName !== undefined && !family && o.tags === undefined && o.pairs === undefined) {
    o.tags = [options.tagName];
  }
  if (options.startWithReasoning && !family && o.start_in === undefined) {
    o.start_in = options.tagName ?? (o.tags ? o.tags[0] : 'think');
  }
  return o;
}

// One text block's filter, and the parts it turns the filter's output into.
class Block {
  constructor(options, separator, ids, start) {
    this.filter = new Filter('think', thinkOptions(options));
    this.separator = separator;
    this.ids = ids; // shared: reasoning ids are unique in the stream
    this.start = start; // the text-start part, held until text comes
    this.id = start ? start.id : undefined;
    this.reasoning = null; // the open reasoning part's id
    this.textSeen = false;
    this.reasoningSeen = false;
    this.afterBlock = false;
  }

  #endReasoning(out) {
    if (this.reasoning === null) return;
    out.push({ type: 'reasoning-end', id: this.reasoning });
    this.reasoning = null;
    this.afterBlock = true;
  }

  #startReasoning(out) {
    if (this.reasoning !== null) return false;
    this.reasoning = `reasoning-${this.ids.next++}`;
    out.push({ type: 'reasoning-start', id: this.reasoning });
    return true;
  }

  // The stream parts for the filter's parts, appended to out.
  parts(filterParts, out) {
    for (const p of filterParts) {
      if (p.type === 'text' && p.text) {
        this.#endReasoning(out);
        if (this.start) {
          out.push(this.start);
          this.start = null;
        }
        const prefix = this.afterBlock && this.textSeen ? this.separator : '';
        out.push({ type: 'text-delta', id: this.id, delta: prefix + p.text });
        this.textSeen = true;
        this.afterBlock = false;
      } else if (p.type === 'thought' && p.text) {
        const first = this.#startReasoning(out);
        const prefix = first && this.reasoningSeen ? this.separator : '';
        out.push({ type: 'reasoning-delta', id: this.reasoning, delta: prefix + p.text });
        this.reasoningSeen = true;
      } else if (p.type === 'event' && p.event.type === 'thought') {
        this.#startReasoning(out); // an empty block is a reasoning part too
        this.#endReasoning(out);
      }
      // markup (the tags) is not shown; think sends nothing else
    }
    return out;
  }

  feed(text, out = []) { return this.parts(this.filter.feedParts(text), out); }

  // The end of the block: what was held back, the open block closed, the
  // text-start if no text came (as the AI SDK does), then end.
  finish(end) {
    const out = this.parts(this.filter.finishParts(), []);
    this.#endReasoning(out);
    this.filter.free();
    if (this.start) out.push(this.start);
    if (end) out.push(end);
    return out;
  }
}

/** A drop-in for the AI SDK's extractReasoningMiddleware({tagName, separator,
 * startWithReasoning}), over sluice's think filter (other options: sluice's). */
export function sluiceReasoningMiddleware(options = {}) {
  const separator = options.separator ?? '\n';
  new Filter('think', thinkOptions(options)).free(); // a bad option fails here, not mid-stream

  return {
    specificationVersion: 'v3',

    wrapGenerate: async ({ doGenerate }) => {
      const { content, ...rest } = await doGenerate();
      const transformed = [];
      for (const part of content) {
        if (part.type !== 'text') {
          transformed.push(part);
          continue;
        }
        const block = new Block(options, separator, { next: 0 }, null);
        const out = [...block.feed(part.text), ...block.finish(null)];
        if (!out.some((p) => p.type === 'reasoning-start')) { // nothing removed: as it was
          transformed.push(part);
          continue;
        }
        const join = (type) => out.filter((p) => p.type === type).map((p) => p.delta).join('');
        transformed.push({ type: 'reasoning', text: join('reasoning-delta') });
        transformed.push({ ...part, type: 'text', text: join('text-delta') });
      }
      return { content: transformed, ...rest };
    },

    // The model's stream read through a ReadableStream that pulls it, not
    // piped through a TransformStream: Node's pipe and writable side cost
    // more per part than the filter does at small chunks. Errors and
    // cancellation go where a pipe would send them.
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const blocks = new Map(); // text id -> Block
      const ids = { next: 0 };
      const block = (id, start) => {
        let b = blocks.get(id);
        if (!b) blocks.set(id, (b = new Block(options, separator, ids, start ?? { type: 'text-start', id })));
        return b;
      };
      const finishAll = (out) => {
        for (const [id, b] of blocks) out.push(...b.finish({ type: 'text-end', id }));
        blocks.clear();
        return out;
      };
      // The parts for one part of the model's, appended to out.
      const transform = (chunk, out) => {
        if (chunk.type === 'text-start') {
          block(chunk.id, chunk);
        } else if (chunk.type === 'text-delta') {
          block(chunk.id).feed(chunk.delta, out);
        } else if (chunk.type === 'text-end' && blocks.has(chunk.id)) {
          out.push(...blocks.get(chunk.id).finish(chunk));
          blocks.delete(chunk.id);
        } else {
          // a block the provider never ended ends before the finish part
          if (chunk.type === 'finish') finishAll(out);
          out.push(chunk);
        }
        return out;
      };
      const reader = stream.getReader();
      return {
        stream: new ReadableStream({
          // pull is not called again until a part is enqueued, and a model's
          // part may give none (a tag held back): read on until one does
          async pull(controller) {
            try {
              for (;;) {
                const { done, value } = await reader.read();
                const out = done ? finishAll([]) : transform(value, []);
                for (const p of out) controller.enqueue(p);
                if (done) controller.close();
                if (done || out.length) return;
              }
            } catch (e) {
              reader.cancel(e).catch(() => {}); // the model's stream, as a pipe would
              throw e;
            }
          },
          cancel: (reason) => reader.cancel(reason),
        }, { highWaterMark: 0 }),
        ...rest,
      };
    },
  };
}
