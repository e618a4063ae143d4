// Types of the sluice package (index.mjs).

/** The five channels every filter writes to. */
export type Channel = 'text' | 'thought' | 'other' | 'markup' | 'dropped';
export declare const CHANNELS: readonly Channel[];
/** The library's version ("0.1.0"). */
export declare const version: string;

/** A chunk: a string (results are strings) or bytes (results are Uint8Array). */
export type Chunk = string | Uint8Array | ArrayBufferView;

/** An event in the filter protocol's form (conformance/FORMAT.md): byte fields are
 * strings when the filter is fed strings, Uint8Array when it is fed bytes. */
export type Event<B = string> =
  | { type: 'thought'; tag: string; text: B; complete: boolean }
  | { type: 'stop'; reason: 'repetition' | 'whitespace' | 'max_length' | string; offset: number }
  | { type: 'repair'; kind: string; offset: number }
  | { type: 'snapshot'; text_len: number; drop: number; prepend: B }
  | { type: 'event'; event: B; data: B; id: B }
  | { type: 'retry'; retry: string }
  | { type: 'record'; data: B; complete: boolean }
  | { type: 'delta'; choice: number; kind: string; index?: number; text: B }
  | { type: 'tool_call'; choice: number; index: number; id: B; name: B }
  | { type: 'finish'; choice: number; reason: B }
  | { type: 'usage'; data: B }
  | { type: 'error'; code: B; message: B }
  | { type: 'end'; truncated: boolean }
  | { type: 'provider'; endpoint: string; model: B; framing: string; offset: number; complete: boolean }
  | { type: 'piece'; offset: number; t: number | null; data: B }
  | { type: 'meta'; name: B; data: B };

/** Valid JSON that a reader with doubles (jansson) cannot load: why, and the input byte of the first cause. */
export interface Unloadable { reason: 'number_overflow' | 'nul_in_key' | 'depth' | string; offset: number }

/** What a call released. value and truncated: the json filter's result, after finish;
 * unloadable when that value is valid JSON a reader with doubles cannot load (value is
 * then JSON.parse's reading: 1e400 is Infinity). */
export interface Output<B = string> {
  text: B;
  thought: B;
  other: B;
  markup: B;
  dropped: B;
  events: Event<B>[];
  value?: unknown;
  truncated?: boolean;
  unloadable?: Unloadable;
}

/** A call's output in the order it came. */
export type Part<B = string> =
  | { type: Channel; text: B }
  | { type: 'event'; event: Event<B> }
  | { type: 'value'; value: unknown; truncated: boolean; unloadable?: Unloadable };

/** A filter failed: status is the protocol's name, offset the input byte where it happened. */
export declare class SluiceError extends Error {
  status: 'bad_option' | 'unsupported_filter' | 'limit' | 'nomem' | 'finished' | 'empty' | 'no_json'
    | 'depth' | 'invalid_json' | 'sse_format' | 'provider_format' | 'capture_format' | string;
  offset: number;
}

/** Options as the filter protocol names them (FORMAT.md, sluice.h): passed to the library as JSON. */
export type Options = Record<string, unknown>;

export type ThinkFormat = 'generic' | 'deepseek-r1' | 'qwen3' | 'deepseek-v3.1' | 'glm-4.5' | 'kimi-k2'
  | 'minimax-m2' | 'mistral' | 'granite' | 'hunyuan' | 'ernie-4.5' | 'olmo3' | 'seed-oss' | 'step3'
  | 'cohere-command';

export interface ThinkOptions extends Options {
  mode?: 'channel' | 'anchored';
  tags?: string[];
  pairs?: [string, string][];
  start_in?: string;
  case_insensitive?: boolean;
  start_tag?: string;
  end_tag?: string;
  grace_period?: number;
  expect_only_closing?: boolean;
  missing_close?: 'empty' | 'keep';
  max_block?: number;
  /** A model family's reasoning format (README, "Reasoning formats"); it takes no
   * other option but thinking. */
  format?: ThinkFormat;
  /** With a family's format: false when the chat template switched reasoning
   * off; unset, the family's default. */
  thinking?: boolean;
}

export declare class Filter {
  /** Any filter by its protocol name: new Filter('harmony', {max_header: 512}). */
  constructor(name: string, options?: Options);
  readonly name: string;
  readonly options: Options;
  /** Bytes fed and not yet released. */
  readonly held: number;
  /** Bytes fed so far. */
  readonly fed: number;
  readonly closed: boolean;
  feed(chunk: string): Output<string>;
  feed(chunk: Uint8Array | ArrayBufferView): Output<Uint8Array>;
  finish(): Output<any>;
  feedParts(chunk: string): Part<string>[];
  feedParts(chunk: Uint8Array | ArrayBufferView): Part<Uint8Array>[];
  finishParts(): Part<any>[];
  /** Frees the filter now (else when it is garbage-collected). */
  free(): void;
  [Symbol.dispose](): void;
}

export declare class Think extends Filter { constructor(options?: ThinkOptions); }
export declare class Clean extends Filter { constructor(options?: Options); }
export declare class Harmony extends Filter { constructor(options?: Options); }
export declare class Monitor extends Filter { constructor(options?: Options); }
export declare class Json extends Filter { constructor(options?: Options); }
export declare class Sse extends Filter { constructor(options?: Options); }
export declare class Ndjson extends Filter { constructor(options?: Options); }
export declare class Chunks extends Filter { constructor(options?: Options); }
export declare class Provider extends Filter { constructor(options?: Options); }
export declare class Pipeline extends Filter { constructor(options?: Options); }
export declare class Detect extends Filter { constructor(options?: Options); }
export declare class Capture extends Filter { constructor(options?: Options); }

/** The whole input through a filter (freed afterwards). */
export declare function once(filter: Filter | string, input: string, options?: Options): Output<string>;
export declare function once(filter: Filter | string, input: Uint8Array | ArrayBufferView, options?: Options): Output<Uint8Array>;

/** sanitizeJson's result: the value, the repairs made, and the unloadable mark. */
export interface Sanitized {
  value: unknown;
  repairs: Extract<Event, { type: 'repair' }>[];
  unloadable?: Unloadable;
}
/** The JSON value an LLM meant (the json filter over the whole text); throws SluiceError
 * ('empty', 'no_json', ...) when there is none. */
export declare function sanitizeJson(text: string | Uint8Array | ArrayBufferView, options?: Options): Sanitized;

/** A filter as a TransformStream from text (or bytes) to parts, in order. */
export declare class FilterStream<B = string> extends TransformStream<Chunk, Part<B>> {
  constructor(name: string, options?: Options);
  readonly filter: Filter;
}
export declare class ThinkStream<B = string> extends FilterStream<B> { constructor(options?: ThinkOptions); }
export declare class CleanStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class HarmonyStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class MonitorStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class JsonStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class SseStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class ProviderStream<B = string> extends FilterStream<B> { constructor(options?: Options); }
export declare class PipelineStream<B = string> extends FilterStream<B> { constructor(options?: Options); }

/** The AI SDK's extractReasoningMiddleware options, and sluice's think options. */
export interface ReasoningMiddlewareOptions extends ThinkOptions {
  /** the block's tag name, without brackets (default: sluice's five names) */
  tagName?: string;
  /** between the text around a removed block, and between blocks' reasoning (default "\n") */
  separator?: string;
  /** the output starts inside a block */
  startWithReasoning?: boolean;
}

/** The shape of an AI SDK language model middleware (LanguageModelV3Middleware),
 * written out so that the package needs no dependency. */
export interface ReasoningMiddleware {
  specificationVersion: 'v3';
  wrapGenerate: (options: { doGenerate: () => PromiseLike<any>; [k: string]: any }) => Promise<any>;
  wrapStream: (options: { doStream: () => PromiseLike<any>; [k: string]: any }) => Promise<any>;
}

/** A drop-in for the AI SDK's extractReasoningMiddleware, over sluice's think filter. */
export declare function sluiceReasoningMiddleware(options?: ReasoningMiddlewareOptions): ReasoningMiddleware;
