/*
 * sluice.h: the public header of libsluice, which needs only libc: the
 * filters, the stream framings, the providers, the pipeline, the writer and
 * the capture reader, with typed options. Filters by name from JSON options
 * are libsluice-kit's (sluice_kit.h).
 *
 * Every filter keeps the same contract (docs/examples/think_stream.c, which
 * CTest compiles and runs; my_emit and my_event are the caller's):
 *
 *     sluice_filter *f;
 *     sluice_think_opts o;
 *     sluice_think_opts_init(&o);
 *     sluice_sink sink = {my_emit, my_event, my_data};
 *     sluice_error err;
 *     if (sluice_think_new(&f, &o, &sink, NULL, &err) != SLUICE_OK) {
 *       fprintf(stderr, "%s\n", err.message);
 *       return 1;
 *     }
 *     while ((n = read(0, chunk, sizeof chunk)) > 0)
 *       sluice_feed(f, chunk, (size_t)n);
 *     sluice_status st = sluice_finish(f);
 *     sluice_free(f);
 *
 * Output goes to sink->emit(user, channel, bytes, n). Only the concatenation
 * of each channel's bytes is defined; how it is cut into callbacks is not.
 * Structured events (thought records, stop verdicts, repairs) go to
 * sink->event. For every chunking of the same input, each channel's
 * concatenation and the event list are the same (split invariance); this is
 * the property the conformance kit checks.
 *
 * Errors are sticky: once a call returns a status other than SLUICE_OK, every
 * later call returns the same status, and sluice_get_error() gives the byte
 * offset in the input stream where it happened.
 */
#ifndef SLUICE_H
#define SLUICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SLUICE_STATIC_DEFINE)
#define SLUICE_API
#elif defined(SLUICE_BUILDING) && defined(__GNUC__)
#define SLUICE_API __attribute__((visibility("default")))
#else
#define SLUICE_API
#endif

/* SLUICE_VERSION_MAJOR, _MINOR, _PATCH and SLUICE_VERSION_STRING, generated
 * from the CMake project version: the one place the version is written. */
#include "sluice_version.h"

/* The version of the library linked at run time ("0.1.0"), which may differ
 * from SLUICE_VERSION_STRING, the header's. */
SLUICE_API const char *sluice_version(void);

/* ------------------------------------------------------------------ */
/* Status codes: one list makes the enum, the names and the texts.      */
/* XX(ENUM, "protocol code", "description")                             */
/* ------------------------------------------------------------------ */
#define SLUICE_STATUS_MAP(XX)                                                   \
  XX(OK, "ok", "success")                                                       \
  XX(NOMEM, "nomem", "out of memory")                                           \
  XX(CALLBACK, "callback", "an output callback returned non-zero")              \
  XX(FINISHED, "finished", "the filter was already finished")                   \
  XX(INVALID, "invalid_argument", "invalid argument to a library call")         \
  XX(BAD_OPTION, "bad_option", "an option is unknown, mistyped or out of range") \
  XX(UNSUPPORTED, "unsupported_filter", "no filter of that name")               \
  XX(LIMIT, "limit", "a configured size limit was exceeded")                    \
  XX(JSON_EMPTY, "empty", "the input is empty or only whitespace")              \
  XX(JSON_NO_VALUE, "no_json", "no JSON value could be salvaged")               \
  XX(JSON_DEPTH, "depth", "nesting deeper than the depth limit")                \
  XX(JSON_INVALID, "invalid_json", "the repaired text is not valid JSON")       \
  XX(SSE_FORMAT, "sse_format", "malformed event stream")                       \
  XX(PROVIDER_FORMAT, "provider_format", "a stream chunk is not JSON, or from no known provider") \
  XX(CAPTURE_FORMAT, "capture_format", "a capture file is malformed")

typedef enum sluice_status {
#define SLUICE_XX_ENUM(e, code, text) SLUICE_##e,
  SLUICE_STATUS_MAP(SLUICE_XX_ENUM)
#undef SLUICE_XX_ENUM
  SLUICE_STATUS_COUNT
} sluice_status;

/* "nomem", "callback", ...: the code used in the filter protocol. */
SLUICE_API const char *sluice_status_name(sluice_status s);
/* A human-readable description of the status. */
SLUICE_API const char *sluice_status_str(sluice_status s);

/* ------------------------------------------------------------------ */
/* Channels and events                                                  */
/* ------------------------------------------------------------------ */
typedef enum sluice_channel {
  SLUICE_TEXT = 0, /* what the user sees */
  SLUICE_THOUGHT,  /* hidden reasoning */
  SLUICE_OTHER,    /* tool calls, tool results */
  SLUICE_MARKUP,   /* recognised tags and control tokens */
  SLUICE_DROPPED,  /* prefixes and whitespace a rule removed */
  SLUICE_CHANNEL_COUNT
} sluice_channel;

/* "text", "thought", "other", "markup", "dropped". */
SLUICE_API const char *sluice_channel_name(sluice_channel ch);

typedef enum sluice_event_type {
  SLUICE_EV_THOUGHT = 0, /* a thought block ended: name = tag, complete;
                            its text is THOUGHT bytes [offset, offset+length) */
  SLUICE_EV_STOP,        /* a stop verdict: name = reason, offset in code points */
  SLUICE_EV_SSE,         /* a dispatched server-sent event: name = type,
                            data = data, id = last event id */
  SLUICE_EV_REPAIR,      /* a JSON repair: name = kind, offset = input byte */
  SLUICE_EV_SNAPSHOT,    /* a JSON snapshot of the prefix so far: offset =
                            TEXT bytes so far, length = bytes dropped from
                            the previous tail, data = bytes prepended (json) */
  SLUICE_EV_VALUE,       /* the JSON result: data = JSON text,
                            complete = 0 when the input was truncated */
  SLUICE_EV_RETRY,       /* an SSE retry field (all ASCII digits): data = digits */
  SLUICE_EV_RECORD,      /* a line of JSON-lines framing: data = the line,
                            offset = its first byte, complete = 0 for a last
                            line without its newline (chunks framing) */
  /* Provider events (DESIGN.md §2 providers). offset = choice index. */
  SLUICE_EV_DELTA,       /* name = kind ("text", "reasoning", "refusal",
                            "arguments", and from a pipeline's filters
                            "other", "markup", "dropped"); data = bytes;
                            length = tool-call index (arguments) */
  SLUICE_EV_TOOL_CALL,   /* a tool call starts: length = its index, id = the
                            call id, name = the function name */
  SLUICE_EV_FINISH,      /* a choice finished: name = the provider's reason */
  SLUICE_EV_USAGE,       /* token usage: data = the provider's JSON object */
  SLUICE_EV_ERROR,       /* an error the provider sent: name = code, data =
                            message */
  SLUICE_EV_END,         /* end of the stream: complete = 0 when truncated
                            (no [DONE], message_stop, done: true, ...) */
  /* Stream detection and captures (DESIGN.md §3 replay). */
  SLUICE_EV_PROVIDER,    /* what a stream is: name = its endpoint
                            ("openai-chat", ...; "unknown"), data = the model
                            it names (may be empty), id = its framing ("sse",
                            "ndjson", "chunks"), offset = the first byte of
                            the chunk that told, complete = 0 when the
                            stream ended before any chunk told */
  SLUICE_EV_PIECE,       /* a piece of a captured body, as it arrived or as
                            a server flushes it: data = its bytes, offset =
                            its first byte in the body, length = when it
                            arrived, in microseconds after the request
                            (UINT64_MAX when not recorded) */
  SLUICE_EV_META,        /* what a recording says of its exchange: name =
                            "format", "status", "header" ("Name: value"),
                            "request" (its JSON), "endpoint", "end" (how the
                            recording ended); data = the value */
  SLUICE_EV_COUNT
} sluice_event_type;

/* Event records. In a sink's event callback the pointers are valid only
 * during the call; sluice_output keeps copies (see there). */
typedef struct sluice_event {
  sluice_event_type type;
  const char *name;
  size_t name_len;
  const char *data;
  size_t data_len;
  const char *id;
  size_t id_len;
  uint64_t offset;
  uint64_t length;
  int complete;
} sluice_event;

/* The sink receives a filter's output. Either callback may be NULL (the
 * output is discarded). A non-zero return stops the filter with
 * SLUICE_CALLBACK. */
typedef struct sluice_sink {
  int (*emit)(void *user, sluice_channel ch, const char *bytes, size_t n);
  int (*event)(void *user, const sluice_event *ev);
  void *user;
} sluice_sink;

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */
/* Per-instance allocator. Running out of memory is SLUICE_NOMEM, never an
 * abort. NULL everywhere means the C library's malloc, realloc and free. */
typedef struct sluice_mem {
  void *(*malloc)(void *ctx, size_t n);
  void *(*realloc)(void *ctx, void *p, size_t n);
  void (*free)(void *ctx, void *p);
  void *ctx;
} sluice_mem;

/* ------------------------------------------------------------------ */
/* The filter life cycle, common to every filter                        */
/* ------------------------------------------------------------------ */
typedef struct sluice_filter sluice_filter;

/* An error: its status, the byte offset in the input stream where it
 * happened, and a message (NUL-terminated, valid UTF-8).
 *
 * Offsets are exact for the errors a filter's rules raise (LIMIT, the json
 * errors), so they name the same byte for every chunking. For NOMEM and
 * CALLBACK the offset is the start of the chunk being fed (sluice_fed()
 * before the call), which depends on the chunking; for a constructor's
 * BAD_OPTION it is 0. */
typedef struct sluice_error {
  sluice_status status;
  uint64_t offset;
  char message[160];
} sluice_error;

/* Feed n bytes (p may be NULL when n is 0). A chunk may end anywhere, in the
 * middle of a tag or of a UTF-8 sequence. */
SLUICE_API sluice_status sluice_feed(sluice_filter *f, const void *p, size_t n);
/* End of stream: releases every held-back byte and the final events. */
SLUICE_API sluice_status sluice_finish(sluice_filter *f);
/* Frees the filter; f may be NULL. */
SLUICE_API void sluice_free(sluice_filter *f);
/* The one-call form: feed the whole input once, then finish. It is the
 * streaming code path, not a second implementation. */
SLUICE_API sluice_status sluice_once(sluice_filter *f, const void *p, size_t n);
/* Starts a new stream on the same filter: its state is what its
 * constructor left (same options, sink and allocator; no error, nothing fed
 * or held), and it keeps the tables and buffers it built, so a filter per
 * response can be reused instead of rebuilt. Held bytes are dropped, not
 * emitted. The think, clean, harmony, monitor, json, sse, ndjson, chunks,
 * provider and detect filters support it (the monitor frees its history and
 * indexes, which the next stream sizes again; a provider detects its
 * framing and provider again unless its options named them); for the
 * others (pipeline, capture: build a new one) and for NULL it is
 * SLUICE_INVALID and changes nothing. */
SLUICE_API sluice_status sluice_reset(sluice_filter *f);
/* The sticky error (status SLUICE_OK while there is none). */
SLUICE_API const sluice_error *sluice_get_error(const sluice_filter *f);
/* The filter's name ("think", ...). */
SLUICE_API const char *sluice_filter_name(const sluice_filter *f);
/* Bytes fed so far that have not yet been emitted on any channel: the
 * current hold-back of a routing filter (think, clean, harmony). */
SLUICE_API uint64_t sluice_held(const sluice_filter *f);
/* Bytes fed so far. */
SLUICE_API uint64_t sluice_fed(const sluice_filter *f);

/* ------------------------------------------------------------------ */
/* Filters by kind                                                      */
/* ------------------------------------------------------------------ */
/* Every filter also has a kind, so that a program (the pipeline, a tool,
 * a binding) can build one from a kind and a pointer to its options
 * struct, without a constructor per filter. */
typedef enum sluice_filter_kind {
  SLUICE_FILTER_NONE = 0,
  SLUICE_FILTER_THINK,    /* sluice_think_opts */
  SLUICE_FILTER_CLEAN,    /* sluice_clean_opts */
  SLUICE_FILTER_HARMONY,  /* sluice_harmony_opts */
  SLUICE_FILTER_MONITOR,  /* sluice_monitor_opts */
  SLUICE_FILTER_JSON,     /* sluice_json_opts */
  SLUICE_FILTER_SSE,      /* sluice_sse_opts */
  SLUICE_FILTER_NDJSON,   /* sluice_lines_opts */
  SLUICE_FILTER_CHUNKS,   /* sluice_lines_opts */
  SLUICE_FILTER_PROVIDER, /* sluice_provider_opts */
  SLUICE_FILTER_PIPELINE, /* sluice_pipeline_opts */
  SLUICE_FILTER_DETECT,   /* sluice_provider_opts (only framing and the caps) */
  SLUICE_FILTER_CAPTURE,  /* sluice_capture_opts */
  SLUICE_FILTER_KIND_COUNT
} sluice_filter_kind;

/* "think", "clean", ...: the filter protocol's names ("" for NONE). */
SLUICE_API const char *sluice_filter_kind_name(sluice_filter_kind k);
/* The kind of a protocol name; SLUICE_FILTER_NONE when there is none. */
SLUICE_API sluice_filter_kind sluice_filter_kind_from_name(const char *name);
/* Creates a filter of kind k from its options struct (NULL for the
 * defaults), as its own constructor (sluice_think_new, ...) does. An
 * unknown kind is SLUICE_UNSUPPORTED. */
SLUICE_API sluice_status sluice_filter_new(sluice_filter **out, sluice_filter_kind k,
                                           const void *opts, const sluice_sink *sink,
                                           const sluice_mem *mem, sluice_error *err);

/* ------------------------------------------------------------------ */
/* Options structs                                                      */
/* ------------------------------------------------------------------ */
/* Every options struct starts with its size, so that it can grow without
 * breaking the ABI: sluice_X_opts_init(&o) (a macro that passes
 * sizeof(o)) is the only supported way to fill one; set fields after it.
 * A constructor reads only the fields within o->size and takes the
 * defaults for the rest; a struct that was never initialized (size 0) or
 * comes from a newer header than the library's is SLUICE_BAD_OPTION.
 *
 * Constructors take an optional sluice_error *err (NULL: no message). A bad
 * option is SLUICE_BAD_OPTION with a message naming the option and why.
 * Options and the strings they point to are copied; the caller's may go
 * away after the call. */

/* ------------------------------------------------------------------ */
/* think: thinking-block removal                                        */
/* ------------------------------------------------------------------ */
typedef enum sluice_think_mode {
  SLUICE_THINK_CHANNEL = 0, /* every block, anywhere, several tag names */
  SLUICE_THINK_ANCHORED     /* one literal pair, first block within a grace window */
} sluice_think_mode;

typedef enum sluice_missing_close {
  SLUICE_MISSING_CLOSE_EMPTY = 0, /* expect_only_closing without a close: all hidden */
  SLUICE_MISSING_CLOSE_KEEP       /* ... all returned as text */
} sluice_missing_close;

typedef struct sluice_pair {
  const char *open; /* NUL-terminated literal */
  const char *close;
} sluice_pair;

/* The reasoning formats of model families (option format). Each is data:
 * its delimiters, the state the stream starts in (inside a block the chat
 * template opened, or outside), whether an opening tag is optional at the
 * start, implicit ends (a tool-call tag that ends reasoning and stays in
 * TEXT), answer wrappers (MARKUP around the answer: the opening one as
 * the answer's first thing but whitespace, the closing one after it), and
 * what a later block is (text, or hidden too). Delimiters match exactly (case-sensitive): they
 * are the family's tokens. docs/DESIGN.md "think formats" and
 * conformance/suites/think/README.md give every family's rules and sources.
 *
 * Routing: reasoning to THOUGHT, delimiters and answer wrappers to MARKUP,
 * the rest (tool calls included) to TEXT. A block's end (its closing tag,
 * an implicit end, or the end of the stream inside it) makes a thought
 * record whose tag is the format's name. With thinking 0 the stream is all
 * answer: delimiters are text, answer wrappers still MARKUP, no records.
 * Hold-back: a trailing proper prefix of a delimiter the state can match
 * (at most 27 bytes: the longest delimiter, Kimi K2's tool-section token, is
 * 28), nothing else. Memory: constant. */
typedef enum sluice_think_format {
  /* By the model's name ("auto"): a pipeline's think stage takes the format
   * its model selects (sluice_think_opts_for_model); a lone filter, which
   * knows no model, refuses it. */
  SLUICE_THINK_FORMAT_AUTO = -1,
  SLUICE_THINK_FORMAT_NONE = 0,  /* no format: mode and the channel options */
  SLUICE_THINK_FORMAT_GENERIC,   /* channel mode, named ("generic") */
  SLUICE_THINK_FORMAT_DEEPSEEK_R1,
  SLUICE_THINK_FORMAT_QWEN3,
  SLUICE_THINK_FORMAT_DEEPSEEK_V3_1,
  SLUICE_THINK_FORMAT_GLM_4_5,
  SLUICE_THINK_FORMAT_KIMI_K2,
  SLUICE_THINK_FORMAT_MINIMAX_M2,
  SLUICE_THINK_FORMAT_MISTRAL,
  SLUICE_THINK_FORMAT_GRANITE,
  SLUICE_THINK_FORMAT_HUNYUAN,
  SLUICE_THINK_FORMAT_ERNIE_4_5,
  SLUICE_THINK_FORMAT_OLMO3,
  SLUICE_THINK_FORMAT_SEED_OSS,
  SLUICE_THINK_FORMAT_STEP3,
  SLUICE_THINK_FORMAT_COHERE_COMMAND,
  SLUICE_THINK_FORMAT_GPT_OSS, /* harmony: sluice_think_new refuses it, naming
                                  sluice_harmony_new; a pipeline builds harmony */
  SLUICE_THINK_FORMAT_COUNT
} sluice_think_format;

/* "deepseek-r1", "qwen3", ... ("none" for NONE, "auto" for AUTO); NULL
 * when out of range. */
SLUICE_API const char *sluice_think_format_name(sluice_think_format f);
/* The format of a name (exact, as sluice_think_format_name gives it);
 * returns 0 and sets *out, or -1 for an unknown name. */
SLUICE_API int sluice_think_format_from_name(const char *name, sluice_think_format *out);
/* The family's default for the thinking option (1 on, 0 off). */
SLUICE_API int sluice_think_format_thinking_default(sluice_think_format f);

/* Choosing the format by model name. A rule's pattern is a glob: '*' any
 * run of bytes, '?' one byte, ASCII case-insensitive. A pattern without '/'
 * is matched against the part of the name after its last '/' (so
 * "deepseek-ai/DeepSeek-R1-0528" and "openrouter/deepseek/deepseek-r1:free"
 * both match "deepseek-r1*"), one with '/' against the whole name. The
 * caller's rules are tried first, in order, then the built-in table
 * (sluice_think_model_rules); the first match wins. Patterns are short:
 * the match is O(pattern x name) at worst, and it runs once per stream. */
typedef struct sluice_model_rule {
  const char *pattern;
  sluice_think_format format;
  int thinking; /* -1: the format's default; 0 off; 1 on */
  const char *why; /* a short note for --explain (may be NULL) */
} sluice_model_rule;

typedef struct sluice_model_match {
  sluice_think_format format;   /* NONE when no rule matched */
  int thinking;                 /* the rule's, -1 for the format's default */
  const sluice_model_rule *rule; /* the rule that matched, NULL if none */
  size_t index;                 /* its index in its table */
  int builtin;                  /* 1: the built-in table; 0: the caller's */
} sluice_model_match;

/* The built-in table, in the order it is tried; *count gets its length. */
SLUICE_API const sluice_model_rule *sluice_think_model_rules(size_t *count);
/* Fills *out for model (NULL or "" match nothing); returns 1 if a rule
 * matched, 0 if none did (out->format is then NONE). rules may be NULL. */
SLUICE_API int sluice_think_format_for_model(const char *model, const sluice_model_rule *rules,
                                             size_t nrules, sluice_model_match *out);
/* The explanation a tool prints (replay --explain): 'format qwen3, thinking
 * off: rule "qwen3*instruct-2507*" (built-in 8: the 2507 Instruct models never
 * think)' or 'no reasoning format: no rule matches'. Writes at most n bytes
 * with the NUL (truncating) and returns the length it needed, as snprintf. */
SLUICE_API size_t sluice_model_match_describe(const sluice_model_match *m, char *buf, size_t n);

#define SLUICE_THINK_MAX_TAGS 64     /* tags or pairs */
#define SLUICE_THINK_MAX_LITERAL 256 /* bytes of a pair's open or close */

typedef struct sluice_think_opts {
  size_t size; /* set by sluice_think_opts_init */
  sluice_think_mode mode;
  /* channel mode */
  const char *const *tags; /* tag names; NULL: thought thinking think reasoning reflection */
  size_t ntags;
  const sluice_pair *pairs; /* literal open/close strings instead of tags */
  size_t npairs;
  const char *start_in; /* start inside a block of this tag (or pair open) */
  /* both modes */
  int case_insensitive; /* ASCII case folding; default 1 */
  /* anchored mode */
  const char *start_tag; /* default "<think>" */
  const char *end_tag;   /* default "</think>" */
  uint64_t grace_period; /* code points; default 100 */
  int expect_only_closing;
  sluice_missing_close missing_close;
  size_t max_block; /* anchored: cap on a held block in bytes; 0 = none */
  /* A model family's reasoning format (below); NONE: mode and the options
   * above decide. A family's format takes no other option but thinking:
   * tags, pairs, start_in, anchored mode and its tags are refused, and
   * case_insensitive is not read (a family's delimiters match exactly). */
  sluice_think_format format;
  int thinking; /* -1 (default): the family's default; 0: the template switched
                   reasoning off; 1: on. Only with a family's format. */
} sluice_think_opts;

SLUICE_API void sluice_think_opts_init_size(sluice_think_opts *o, size_t size);
#define sluice_think_opts_init(o) sluice_think_opts_init_size((o), sizeof(sluice_think_opts))
/* Settles format AUTO for model (rules tried before the built-in table):
 * a family's format when one matches (thinking: o's if set, else the
 * rule's, else the family's default; the channel and anchored options,
 * which a family refuses, are cleared: they were the fallback), NONE with
 * o's other options when none does or the match is gpt-oss (harmony is a
 * filter of its own: sluice_pipeline_opts.harmony). Any other format is
 * left as it is. m (may be NULL) gets the match, for --explain. Returns 1
 * when a family's format was chosen, else 0. */
SLUICE_API int sluice_think_opts_for_model(sluice_think_opts *o, const char *model,
                                           const sluice_model_rule *rules, size_t nrules,
                                           sluice_model_match *m);
/* Creates a think filter; o may be NULL for the defaults. */
SLUICE_API sluice_status sluice_think_new(sluice_filter **out, const sluice_think_opts *o,
                                          const sluice_sink *sink, const sluice_mem *mem,
                                          sluice_error *err);

/* ------------------------------------------------------------------ */
/* Output collector: a sink that keeps every channel and event, for     */
/* one-call use, tests and the protocol server.                         */
/* ------------------------------------------------------------------ */
typedef struct sluice_output sluice_output;

SLUICE_API sluice_status sluice_output_new(sluice_output **out, const sluice_mem *mem);
SLUICE_API void sluice_output_free(sluice_output *o);
/* Empties the collector for reuse; the memory it holds is kept for the
 * next use (sluice_output_free releases it). */
SLUICE_API void sluice_output_reset(sluice_output *o);
/* A sink that writes into o. */
SLUICE_API sluice_sink sluice_output_sink(sluice_output *o);
/* The bytes of one channel (not NUL-terminated; may contain NUL). */
SLUICE_API const char *sluice_output_channel(const sluice_output *o, sluice_channel ch,
                                             size_t *len);
SLUICE_API size_t sluice_output_event_count(const sluice_output *o);
/* The i-th event; the record and its pointers stay valid until reset or
 * free, however many events are collected after it. */
SLUICE_API const sluice_event *sluice_output_event(const sluice_output *o, size_t i);
/* SLUICE_NOMEM if the collector itself ran out of memory. */
SLUICE_API sluice_status sluice_output_status(const sluice_output *o);

/* ------------------------------------------------------------------ */
/* Text helpers shared by the filters and the tools                    */
/* ------------------------------------------------------------------ */
/* Code points in p[0..n), an invalid byte counting as one. */
SLUICE_API uint64_t sluice_utf8_count(const void *p, size_t n);
/* 1 if p[0..n) is well-formed UTF-8. */
SLUICE_API int sluice_utf8_valid(const void *p, size_t n);
/* The bytes at the end of p[0..n) that begin a well-formed sequence not
 * yet complete (0 to 3): what a chunk cut in the middle of a character
 * leaves for the next one. */
SLUICE_API size_t sluice_utf8_tail(const void *p, size_t n);
/* Decodes canonical base64 (RFC 4648: padded, no whitespace, unused bits
 * zero) s[0..n) into out (room for n / 4 * 3 bytes); *outn is its length.
 * 0, or -1 when s is not canonical base64. */
SLUICE_API int sluice_base64_decode(const char *s, size_t n, void *out, size_t *outn);

/* ------------------------------------------------------------------ */
/* clean: the response cleaner pipeline (DESIGN.md §2, seed 000)        */
/* ------------------------------------------------------------------ */
/* Steps, in order: 1 anchored think removal (remove_thinking), 2 left
 * strip, 3 node prefixes, 4 endpoint prefixes (each candidate stripped
 * first), 5 "[Sent less than a minute ago]", 6 "Assistant:" (both globals),
 * 7 trim both ends (trim). Every removal is followed by a left strip.
 * Whitespace is Python's str.isspace() set. Removed bytes go to DROPPED,
 * the think block to THOUGHT and MARKUP. Prefix lists are tried in order
 * and the first one the text starts with wins. */
#define SLUICE_CLEAN_MAX_PREFIXES 256 /* strings in each prefix list */

typedef struct sluice_clean_opts {
  size_t size; /* set by sluice_clean_opts_init */
  /* step 1 (endpoint: removeThinking, startThinkTag, endThinkTag,
   * openingTagGracePeriod, expectOnlyClosingThinkTag) */
  int remove_thinking;            /* default 0 */
  const char *start_think_tag;    /* default "<think>" */
  const char *end_think_tag;      /* default "</think>" */
  uint64_t grace_period;          /* code points; default 100 */
  int expect_only_closing;        /* default 0 */
  sluice_missing_close missing_close; /* default KEEP (the proxy since 67c0886) */
  size_t max_block;               /* cap on a held think block in bytes; 0 = none */
  /* step 3 (node: removeCustomTextFromResponseStart, responseStartTextToRemove) */
  int remove_node_prefixes;
  const char *const *node_prefixes;
  size_t n_node_prefixes;
  /* step 4 (endpoint: removeCustomTextFromResponseStartEndpointWide,
   * responseStartTextToRemoveEndpointWide) */
  int remove_endpoint_prefixes;
  const char *const *endpoint_prefixes;
  size_t n_endpoint_prefixes;
  /* step 5 (node: addDiscussionIdTimestampsForLLM) */
  int remove_timestamp;
  /* step 6 (globals: chatCompleteAddUserAssistant and
   * chatCompleteAddMissingAssistant, both needed) */
  int add_user_assistant;
  int add_missing_assistant;
  /* step 7 (endpoint: trimBeginningAndEndLineBreaks) */
  int trim;
  /* cap on held trailing whitespace while trim is on; 0 = none */
  size_t max_whitespace;
} sluice_clean_opts;

SLUICE_API void sluice_clean_opts_init_size(sluice_clean_opts *o, size_t size);
#define sluice_clean_opts_init(o) sluice_clean_opts_init_size((o), sizeof(sluice_clean_opts))
/* Creates a clean filter. Messages name the proxy's keys (startThinkTag,
 * ...), as given beside each field above. */
SLUICE_API sluice_status sluice_clean_new(sluice_filter **out, const sluice_clean_opts *o,
                                          const sluice_sink *sink, const sluice_mem *mem,
                                          sluice_error *err);

/* ------------------------------------------------------------------ */
/* harmony: the gpt-oss template filter (DESIGN.md §2)                  */
/* ------------------------------------------------------------------ */
/* Routes the content of harmony messages: analysis -> THOUGHT, final ->
 * TEXT, commentary with a recipient (to=...) -> OTHER, commentary without
 * one -> `preamble`, no channel -> TEXT (OTHER with a recipient), any other
 * channel -> THOUGHT. Control tokens and header words -> MARKUP. Every byte
 * lands in exactly one channel. Hold-back: a partial token (at most 12
 * bytes) plus an open header (at most max_header bytes). */
typedef struct sluice_harmony_opts {
  size_t size;             /* set by sluice_harmony_opts_init */
  sluice_channel preamble; /* commentary without a recipient: SLUICE_TEXT (default),
                              SLUICE_THOUGHT or SLUICE_OTHER */
  size_t max_header;       /* bytes of an open header before it is taken as
                              content; default 256, 32 to 4096 */
} sluice_harmony_opts;

SLUICE_API void sluice_harmony_opts_init_size(sluice_harmony_opts *o, size_t size);
#define sluice_harmony_opts_init(o) sluice_harmony_opts_init_size((o), sizeof(sluice_harmony_opts))
SLUICE_API sluice_status sluice_harmony_new(sluice_filter **out, const sluice_harmony_opts *o,
                                            const sluice_sink *sink, const sluice_mem *mem,
                                            sluice_error *err);

/* ------------------------------------------------------------------ */
/* monitor: stream quality monitor (DESIGN.md §2)                       */
/* ------------------------------------------------------------------ */
/* Stops a stream at an exact code-point checkpoint: p == max_length
 * ("max_length"), p % whitespace_interval == 0 with trailing whitespace at
 * or over the threshold ("whitespace"), p % repetition_interval == 0 when
 * the repetition detector fires ("repetition"). One SLUICE_EV_STOP event
 * {name = reason, offset = p}; TEXT is the stream up to p, the rest goes to
 * DROPPED. Hold-back: an incomplete UTF-8 sequence (at most 3 bytes).
 * Memory: the detector can compare the first code point with the last, so
 * while repetition checks are on the whole stream is kept, about 4.7 bytes
 * per code point (up to half again while an array grows); max_history caps
 * it with SLUICE_LIMIT. With repetition checks off, at most 1024 code
 * points are kept. */
typedef enum sluice_monitor_profile {
  SLUICE_MONITOR_SEED = 0, /* plain whitespace >= 128, reps (100+8(L-1))/L, exact */
  SLUICE_MONITOR_CURRENT   /* weighted whitespace >= 512, base-340 table, quasi */
} sluice_monitor_profile;

typedef struct sluice_monitor_opts {
  size_t size;                   /* set by sluice_monitor_opts_init */
  sluice_monitor_profile profile;
  uint64_t max_length;           /* code points; 0 = none */
  uint64_t whitespace_interval;  /* default 128; 0 = no whitespace checks */
  uint64_t repetition_interval;  /* default 512; 0 = no repetition checks */
  uint64_t whitespace_threshold; /* 0 = the profile's (128 or 512) */
  int quasi;                     /* -1 = the profile's; 0 exact; 1 quasi */
  int weighted;                  /* -1 = the profile's; 1 = \n \r \r\n 8, \t 4 */
  uint64_t max_history;          /* code points kept for the detector; 0 = no cap */
} sluice_monitor_opts;

SLUICE_API void sluice_monitor_opts_init_size(sluice_monitor_opts *o, size_t size);
#define sluice_monitor_opts_init(o) sluice_monitor_opts_init_size((o), sizeof(sluice_monitor_opts))
SLUICE_API sluice_status sluice_monitor_new(sluice_filter **out, const sluice_monitor_opts *o,
                                            const sluice_sink *sink, const sluice_mem *mem,
                                            sluice_error *err);

/* ------------------------------------------------------------------ */
/* json: LLM JSON sanitizer                                             */
/* ------------------------------------------------------------------ */
/* The repaired JSON text streams on TEXT as it is decided; at finish a
 * SLUICE_EV_VALUE event carries the whole text (complete = 0 when the input
 * was truncated). Each repair is a SLUICE_EV_REPAIR event (name = kind,
 * offset = input byte). Errors, each with an input offset:
 * SLUICE_JSON_EMPTY, SLUICE_JSON_NO_VALUE, SLUICE_JSON_DEPTH. Valid JSON is
 * never refused: a text that a JSON reader with doubles (jansson) cannot
 * load is still the answer, and the VALUE event says so: name (name_len) is
 * the reason and offset the input byte of the first such thing, both
 * NULL / 0 when it loads. Reasons: "number_overflow" (a number whose
 * magnitude overflows a double, 1e400, at its first byte; 1e-400 is fine),
 * "nul_in_key" (\u0000 or a NUL byte in an object key, at the escape or
 * byte), "depth" (nesting past 2048 levels with max_depth 0 or above 2048,
 * at the byte that opens level 2049). Numbers keep their digits exactly, so
 * the text may hold integers beyond int64 (jansson loads them only as
 * reals, losing digits; not marked).
 *
 * Hold-back: TEXT is written once a reading is decided, and a reading that
 * depends on what follows holds only what its lookahead needs (the same in
 * every chunking): a candidate closing quote, up to 32 spaces after it and,
 * after a line break, up to 32 code points of a word (the next key or
 * item?); a comma in a string and up to 47 code points of a candidate next
 * key; a closer in a string and up to 47 closers and spaces after it (ended
 * by the input's end: is the closing quote missing?); 16 code points after
 * a top-level '"'; 64 bytes of an unquoted token and 64 spaces inside it; a
 * mismatched closer until the next token; a high surrogate escape (6 bytes)
 * until what follows decides: its low half, or U+FFFD for a lone one. The
 * complete text is also kept for the VALUE event (max_bytes caps it).
 *
 * Snapshots (option incremental). After each feed call, once the value has
 * started, a SLUICE_EV_SNAPSHOT event gives a JSON text of the input so far:
 * what finish would give if the input ended there (a trailing incomplete
 * UTF-8 sequence or stringified-layer escape is left out: not yet decided).
 * A snapshot is not sent whole (that is quadratic over a stream); it is
 *
 *     snapshot = TEXT[0 .. offset) + tail
 *     tail     = data[0 .. data_len) + previous_tail[length ..]
 *
 * where offset is the number of TEXT bytes emitted so far, length the number
 * of bytes dropped from the front of the previous snapshot's tail (the first
 * snapshot's previous tail is empty), and data the bytes prepended. The tail
 * completes the text: the rest of the token in progress (a closing quote, a
 * held literal or number, ":null") and the closers of the open containers,
 * innermost first, so opening a container prepends one closer and each event
 * costs only what changed since the last one. A reader keeps the tail
 * reversed to apply an edit in its own size. When a prefix has no valid text
 * (it ends in 1e400) no snapshot is sent for it. The last snapshot, sent at
 * finish, equals the VALUE text (its tail is empty). */
typedef struct sluice_json_opts {
  size_t size;      /* set by sluice_json_opts_init */
  int incremental;  /* a SLUICE_EV_SNAPSHOT (a valid JSON text of the prefix,
                       as a tail edit: see above) after each feed call and
                       one at finish */
  size_t max_depth; /* deepest value, counted as jansson counts it (a scalar
                       is a level): default 2048, jansson's limit; 0 = none */
  size_t max_bytes; /* the whole repaired text is held for the VALUE event;
                       this caps the input bytes (SLUICE_LIMIT at offset
                       max_bytes when exceeded), so the memory; 0 = none */
  int ndjson;       /* collect every top-level value (NDJSON, or values one
                       after another) into one array; default 0: the first
                       value wins and the rest is trailing text */
} sluice_json_opts;

SLUICE_API void sluice_json_opts_init_size(sluice_json_opts *o, size_t size);
#define sluice_json_opts_init(o) sluice_json_opts_init_size((o), sizeof(sluice_json_opts))
SLUICE_API sluice_status sluice_json_new(sluice_filter **out, const sluice_json_opts *o,
                                         const sluice_sink *sink, const sluice_mem *mem,
                                         sluice_error *err);

/* ------------------------------------------------------------------ */
/* sse, ndjson, chunks: stream framing (DESIGN.md §2 sse)               */
/* ------------------------------------------------------------------ */
/* sse parses a server-sent event stream by the WHATWG rules (HTML §9.2):
 * one leading BOM stripped; lines end at CRLF, LF or a lone CR (a CR that
 * ends a chunk waits for the next byte only to swallow an LF); ":" starts
 * a comment; a field's value loses one leading space; data lines join
 * with LF; "event" sets the type ("message" when empty); "id" persists
 * across events and is ignored when it contains NUL; "retry" with ASCII
 * digits only is a SLUICE_EV_RETRY event; a blank line dispatches a
 * SLUICE_EV_SSE event {name = type, data, id = last event id, offset = the
 * first byte of its first data line}, none when the data is empty.
 * Nothing goes to the channels but, at finish, a last line without its
 * line end (which the rules discard, with the unfinished event) to
 * DROPPED. Events are dispatched in the feed call that completes them.
 * Bounded memory: a line longer than max_line bytes, or an event whose
 * data would exceed max_event bytes, fails with SLUICE_LIMIT at the offset
 * of the first byte beyond the cap. */
#define SLUICE_FRAME_DEFAULT_MAX ((size_t)8 << 20) /* 8 MiB */

typedef struct sluice_sse_opts {
  size_t size;      /* set by sluice_sse_opts_init */
  size_t max_line;  /* bytes of one line, without its end; default 8 MiB; 0 = none */
  size_t max_event; /* bytes of an event's data; default 8 MiB; 0 = none */
} sluice_sse_opts;

SLUICE_API void sluice_sse_opts_init_size(sluice_sse_opts *o, size_t size);
#define sluice_sse_opts_init(o) sluice_sse_opts_init_size((o), sizeof(sluice_sse_opts))
SLUICE_API sluice_status sluice_sse_new(sluice_filter **out, const sluice_sse_opts *o,
                                        const sluice_sink *sink, const sluice_mem *mem,
                                        sluice_error *err);

/* JSON lines: one SLUICE_EV_RECORD per line {data = the line without its
 * LF (and a CR before it), offset = its first byte}; lines holding only
 * spaces, tabs and CRs are skipped. ndjson (Ollama's streams): a record
 * ends at its LF, and a last line without one is the cut-off end of a
 * truncated stream: not a record, but DROPPED at finish. chunks (the
 * .chunks.jsonl recording format, one provider chunk per line, with no LF
 * after the last): a last line without its LF is a record too, with
 * complete = 0. A line longer than max_line fails with SLUICE_LIMIT at its
 * first byte + max_line. */
typedef struct sluice_lines_opts {
  size_t size;     /* set by sluice_lines_opts_init */
  size_t max_line; /* bytes of one line; default 8 MiB; 0 = none */
} sluice_lines_opts;

SLUICE_API void sluice_lines_opts_init_size(sluice_lines_opts *o, size_t size);
#define sluice_lines_opts_init(o) sluice_lines_opts_init_size((o), sizeof(sluice_lines_opts))
SLUICE_API sluice_status sluice_ndjson_new(sluice_filter **out, const sluice_lines_opts *o,
                                           const sluice_sink *sink, const sluice_mem *mem,
                                           sluice_error *err);
SLUICE_API sluice_status sluice_chunks_new(sluice_filter **out, const sluice_lines_opts *o,
                                           const sluice_sink *sink, const sluice_mem *mem,
                                           sluice_error *err);

/* ------------------------------------------------------------------ */
/* writer: provider or pipeline events back into a stream (DESIGN §2)   */
/* ------------------------------------------------------------------ */
/* A sink that writes the delta, tool_call, finish, usage, error and end
 * events it receives as a stream a client reads: OpenAI chat completion
 * chunks (SSE, every choice; text as content, reasoning as
 * reasoning_content, refusals, tool calls by index, finish reasons in
 * OpenAI's words, usage in a chunk with choices: []) or Anthropic Messages
 * events (the writer's choice only; blocks of text, thinking and tool_use;
 * stop reasons in Anthropic's words). Deltas of other kinds (markup,
 * dropped, other) and channel bytes are not written. An event never cuts a
 * UTF-8 sequence: a delta's incomplete last character waits for the next
 * delta of its kind, and bytes that are not UTF-8 are written as U+FFFD.
 * The end event writes `data: [DONE]` (OpenAI) or message_stop
 * (Anthropic) for a complete stream; a truncated one ends with an error
 * event instead, never with the clean end. The writer writes, it does not
 * read JSON: the usage object it is given is copied as it is. */
typedef enum sluice_write_format {
  SLUICE_WRITE_OPENAI_SSE = 0, /* chat.completion.chunk events */
  SLUICE_WRITE_ANTHROPIC_SSE   /* Anthropic Messages events */
} sluice_write_format;

typedef struct sluice_writer_opts {
  size_t size;                /* set by sluice_writer_opts_init */
  sluice_write_format format;
  const char *id;             /* default "chatcmpl-sluice" / "msg_sluice" */
  const char *model;          /* default "sluice" */
  size_t choice;              /* Anthropic: the choice written; default 0 */
} sluice_writer_opts;

typedef struct sluice_writer sluice_writer;
/* Where the written bytes go; non-zero stops the writer (and, through the
 * sink, the filter that feeds it, with SLUICE_CALLBACK). */
typedef int (*sluice_write_fn)(void *user, const char *bytes, size_t n);

SLUICE_API void sluice_writer_opts_init_size(sluice_writer_opts *o, size_t size);
#define sluice_writer_opts_init(o) sluice_writer_opts_init_size((o), sizeof(sluice_writer_opts))
SLUICE_API sluice_status sluice_writer_new(sluice_writer **out, const sluice_writer_opts *o,
                                           sluice_write_fn write, void *user,
                                           const sluice_mem *mem, sluice_error *err);
/* The sink to give the provider or pipeline (channel bytes are ignored). */
SLUICE_API sluice_sink sluice_writer_sink(sluice_writer *w);
/* SLUICE_OK, SLUICE_NOMEM or SLUICE_CALLBACK (the write function failed). */
SLUICE_API sluice_status sluice_writer_status(const sluice_writer *w);
SLUICE_API void sluice_writer_free(sluice_writer *w);

/* ------------------------------------------------------------------ */
/* provider: a provider's stream into deltas (DESIGN.md §2 providers)   */
/* ------------------------------------------------------------------ */
/* Frames the body (sse, ndjson or chunks; auto: JSON lines when the first
 * byte that is not whitespace is '{', else SSE), reads each chunk's JSON
 * and turns it into events, each at the feed that completes its chunk:
 * SLUICE_EV_DELTA (text, reasoning, refusal, tool-call arguments, per
 * choice), SLUICE_EV_TOOL_CALL, SLUICE_EV_FINISH, SLUICE_EV_USAGE,
 * SLUICE_EV_ERROR, and at finish one SLUICE_EV_END, truncated unless the
 * provider's end marker came ([DONE], message_stop, done: true, ...).
 * The channels show one choice (`choice`, default 0): text and refusal on
 * TEXT, reasoning on THOUGHT, tool-call arguments on OTHER; the framing's
 * unfinished last line on DROPPED. A chunk that is not a JSON object (but
 * [DONE]) fails with SLUICE_PROVIDER_FORMAT at the offset of its chunk. */
typedef enum sluice_provider_kind {
  SLUICE_PROVIDER_AUTO = 0,    /* detected from the first chunk's content */
  SLUICE_PROVIDER_OPENAI,      /* chat completions, and the servers that copy it */
  SLUICE_PROVIDER_COMPLETIONS, /* the legacy completions endpoint */
  SLUICE_PROVIDER_RESPONSES,   /* OpenAI Responses */
  SLUICE_PROVIDER_ANTHROPIC,   /* Anthropic Messages */
  SLUICE_PROVIDER_OLLAMA,      /* /api/generate and /api/chat */
  SLUICE_PROVIDER_GEMINI,      /* streamGenerateContent (alt=sse) */
  SLUICE_PROVIDER_COHERE,      /* Cohere v2 chat */
  SLUICE_PROVIDER_LLAMACPP,    /* llama.cpp /completion */
  SLUICE_PROVIDER_COUNT
} sluice_provider_kind;

typedef enum sluice_framing {
  SLUICE_FRAMING_AUTO = 0,
  SLUICE_FRAMING_SSE,
  SLUICE_FRAMING_NDJSON,
  SLUICE_FRAMING_CHUNKS
} sluice_framing;

/* "openai", "completions", ..., and "auto". */
SLUICE_API const char *sluice_provider_name(sluice_provider_kind k);

typedef struct sluice_provider_opts {
  size_t size;                  /* set by sluice_provider_opts_init */
  sluice_provider_kind provider; /* default AUTO */
  sluice_framing framing;       /* default AUTO */
  size_t choice;                /* the choice the channels show; default 0 */
  size_t max_line, max_event;   /* the framing's caps (sluice_sse_opts) */
} sluice_provider_opts;

SLUICE_API void sluice_provider_opts_init_size(sluice_provider_opts *o, size_t size);
#define sluice_provider_opts_init(o) \
  sluice_provider_opts_init_size((o), sizeof(sluice_provider_opts))
SLUICE_API sluice_status sluice_provider_new(sluice_filter **out, const sluice_provider_opts *o,
                                             const sluice_sink *sink, const sluice_mem *mem,
                                             sluice_error *err);
/* The provider a provider filter (or a pipeline's) detected so far
 * (SLUICE_PROVIDER_AUTO while undecided, or for another filter). */
SLUICE_API sluice_provider_kind sluice_provider_detected(const sluice_filter *f);

/* Endpoints: the shapes of stream a client reads, finer than the
 * provider (Ollama's two), each with the path a client posts to. */
typedef enum sluice_endpoint {
  SLUICE_ENDPOINT_UNKNOWN = 0,
  SLUICE_ENDPOINT_OPENAI_CHAT,        /* /v1/chat/completions (and the servers that copy it) */
  SLUICE_ENDPOINT_OPENAI_COMPLETIONS, /* /v1/completions */
  SLUICE_ENDPOINT_OPENAI_RESPONSES,   /* /v1/responses */
  SLUICE_ENDPOINT_ANTHROPIC,          /* /v1/messages */
  SLUICE_ENDPOINT_GEMINI,             /* /v1beta/models/MODEL:streamGenerateContent */
  SLUICE_ENDPOINT_OLLAMA_CHAT,        /* /api/chat */
  SLUICE_ENDPOINT_OLLAMA_GENERATE,    /* /api/generate */
  SLUICE_ENDPOINT_COHERE,             /* /v2/chat */
  SLUICE_ENDPOINT_LLAMACPP,           /* /completion */
  SLUICE_ENDPOINT_COUNT
} sluice_endpoint;

/* "openai-chat", "openai-completions", "openai-responses", "anthropic",
 * "gemini", "ollama-chat", "ollama-generate", "cohere", "llamacpp";
 * "unknown". */
SLUICE_API const char *sluice_endpoint_name(sluice_endpoint e);
/* SLUICE_ENDPOINT_UNKNOWN when name is none of them. */
SLUICE_API sluice_endpoint sluice_endpoint_from_name(const char *name);
/* The path a client posts to ("/v1/chat/completions"; Gemini's holds the
 * placeholder "{model}"). */
SLUICE_API const char *sluice_endpoint_path(sluice_endpoint e);
/* The endpoint a request path asks for, by how the path ends (a prefix such
 * as "/openai" and a query string are allowed). */
SLUICE_API sluice_endpoint sluice_endpoint_of_path(const char *path, size_t n);
SLUICE_API sluice_provider_kind sluice_endpoint_provider(sluice_endpoint e);
/* How a server frames the stream: SSE, or NDJSON (Ollama). */
SLUICE_API sluice_framing sluice_endpoint_framing(sluice_endpoint e);

/* What one chunk shows: the rules the provider filter detects by, for a
 * program that has a chunk in hand. */
typedef struct sluice_detection {
  sluice_endpoint endpoint; /* UNKNOWN: the chunk shows none (an error
                               chunk {"error": ...}, or an unknown shape) */
  char model[256];          /* the model it names, decoded ("" when none;
                               a longer name is cut at a character) */
} sluice_detection;

/* Detects from one chunk's JSON (an SSE event's data, or a JSON line):
 * SLUICE_OK, or SLUICE_PROVIDER_FORMAT when it is not a JSON object. The
 * evidence, in order: a "type" of Anthropic's, Cohere's or the Responses
 * API's events ("error" with an "error" member is Anthropic's; with a
 * "sequence_number", "code" or "message" the Responses API's); "object"
 * chat.completion.chunk or text_completion; "choices" (a first choice with
 * "text" and no "delta" is the completions endpoint); "candidates",
 * "usageMetadata" or "promptFeedback" (Gemini); "done" true or false
 * (Ollama: chat with a "message", else generate); "content" with "stop"
 * true or false (llama.cpp). The model: "model", "message.model",
 * "response.model" or "modelVersion". */
SLUICE_API sluice_status sluice_detect_chunk(const void *json, size_t n, sluice_detection *out);

/* A stream detector: frames the stream as the provider filter does
 * (options: framing and the caps; provider and choice are ignored) and
 * sends one SLUICE_EV_PROVIDER event, at the feed of the first chunk that
 * tells (chunks before it that tell nothing, such as {"error": ...}, are
 * passed over), or at finish when none did. Nothing else is read or
 * emitted; what follows the telling chunk is not looked at. */
SLUICE_API sluice_status sluice_detect_new(sluice_filter **out, const sluice_provider_opts *o,
                                           const sluice_sink *sink, const sluice_mem *mem,
                                           sluice_error *err);

/* ------------------------------------------------------------------ */
/* capture: a recorded provider stream (DESIGN.md §3 replay)            */
/* ------------------------------------------------------------------ */
/* Reads a capture file, fed in any chunking, into the response body a
 * client reads (on TEXT) and the pieces it came in (SLUICE_EV_PIECE
 * events), each piece sent at the feed that completes it:
 *
 *   sse       a text/event-stream body; a piece ends after each blank line
 *             (the rules of the sse filter: CRLF, LF or a lone CR, so a CR
 *             that ends a line waits for the next byte), the last piece at
 *             the end of the file
 *   ndjson    an application/x-ndjson body; a piece is a line with its LF
 *   chunks    one provider chunk's JSON per line (.chunks.jsonl: the SSE
 *             wrapping removed by the recorder, no LF after the last): each
 *             line becomes the event its server sent, "data: LINE" and a
 *             blank line, with "event: TYPE" first for Anthropic and the
 *             Responses API, CRLF line ends for Gemini, and a bare line for
 *             Ollama (NDJSON); a stream of OpenAI chat or completions
 *             chunks in which every choice finished ends with
 *             "data: [DONE]", which recorders leave out
 *   recorded  `sluice record`'s .capture.jsonl: a header line
 *             {"sluice_capture": 1, "request": {...}, "response": {"status",
 *             "headers"}, "endpoint", "timed"}, sent as SLUICE_EV_META
 *             events, then one line per piece {"t": seconds, "data": text}
 *             (or "data_b64"), then {"t": ..., "end": how}. The pieces are
 *             the bytes as they came off the network: a gzip-encoded body
 *             (a "Content-Encoding: gzip" header) is still encoded.
 *
 * AUTO tells the format from the content: a first line with a
 * "sluice_capture" member is recorded; JSON lines (the first byte that is
 * not whitespace is '{') are ndjson when their provider is Ollama, else
 * chunks; anything else is sse. A META "format" event says which, first.
 * A malformed line fails with SLUICE_CAPTURE_FORMAT at its first byte (the
 * message names the line); a line or a piece over its cap fails with
 * SLUICE_LIMIT. Memory: the longest line and piece. */
typedef enum sluice_capture_format {
  SLUICE_CAPTURE_AUTO = 0,
  SLUICE_CAPTURE_SSE,
  SLUICE_CAPTURE_NDJSON,
  SLUICE_CAPTURE_CHUNKS,
  SLUICE_CAPTURE_RECORDED
} sluice_capture_format;

/* "auto", "sse", "ndjson", "chunks", "recorded". */
SLUICE_API const char *sluice_capture_format_name(sluice_capture_format f);

typedef struct sluice_capture_opts {
  size_t size;                  /* set by sluice_capture_opts_init */
  sluice_capture_format format; /* default AUTO */
  size_t max_line;              /* bytes of a line of the file; default 64 MiB; 0 = none */
  size_t max_piece;             /* bytes of a piece; default 8 MiB; 0 = none */
} sluice_capture_opts;

SLUICE_API void sluice_capture_opts_init_size(sluice_capture_opts *o, size_t size);
#define sluice_capture_opts_init(o) \
  sluice_capture_opts_init_size((o), sizeof(sluice_capture_opts))
SLUICE_API sluice_status sluice_capture_new(sluice_filter **out, const sluice_capture_opts *o,
                                            const sluice_sink *sink, const sluice_mem *mem,
                                            sluice_error *err);
/* During a SLUICE_EV_PIECE callback of capture filter f: the offset in the
 * file of what the piece was read from (the line that held it; in an sse or
 * ndjson body, the piece's own first byte), for messages that point into
 * the file. */
SLUICE_API uint64_t sluice_capture_source(const sluice_filter *f);

/* ------------------------------------------------------------------ */
/* pipeline: provider -> filters -> deltas (DESIGN.md §2 pipelines)     */
/* ------------------------------------------------------------------ */
/* A provider, then for every choice its own chain of filters over the
 * choice's text (harmony first when the model is "llama.cpp/gpt-oss" or
 * harmony is on), and optionally a json filter over each tool call's
 * arguments. Each chunk's deltas are fed to the chains one delta per feed,
 * and what every filter releases during that feed becomes the pipeline's
 * deltas: text, reasoning (the filters' THOUGHT), other, markup, dropped,
 * in that order; refusal and the provider's reasoning pass through. A
 * choice's chain is finished at its finish event, so held bytes come out
 * before it. Events: the provider's, and the filters' stop and repair
 * events of the choice the channels show. The stages are kinds and options
 * structs; the pipeline keeps copies of them. An example
 * (docs/examples/pipeline.c, which CTest compiles and runs):
 *
 *     sluice_think_opts think;
 *     sluice_think_opts_init(&think);
 *     think.tags = tags;
 *     think.ntags = 1;
 *     sluice_stage stages[] = {{SLUICE_FILTER_THINK, &think}};
 *     sluice_pipeline_opts po;
 *     sluice_pipeline_opts_init(&po);
 *     po.stages = stages;
 *     po.nstages = 1;
 *     sluice_sink sink = {to_stdout, NULL, NULL};
 */
typedef struct sluice_stage {
  sluice_filter_kind kind; /* SLUICE_FILTER_THINK, _CLEAN, _MONITOR or _HARMONY */
  const void *opts;        /* its options struct (a sluice_think_opts *, ...), set
                              up with its _opts_init; NULL for the defaults */
} sluice_stage;

#define SLUICE_PIPELINE_MAX_STAGES 16

typedef struct sluice_pipeline_opts {
  size_t size;                          /* set by sluice_pipeline_opts_init */
  const sluice_provider_opts *provider; /* NULL: the defaults */
  const sluice_stage *stages;           /* the text filters, in order */
  size_t nstages;
  const sluice_json_opts *arguments;    /* tool-call arguments through a json
                                           filter with these options; NULL: off */
  const char *model;                    /* "llama.cpp/gpt-oss" switches harmony on;
                                           a think stage of format AUTO takes
                                           the format it names */
  int harmony;                          /* -1 (default): by the model; 0 off; 1 on */
  const sluice_model_rule *model_rules; /* tried before the built-in table for */
  size_t nmodel_rules;                  /* think stages of format AUTO */
} sluice_pipeline_opts;

SLUICE_API void sluice_pipeline_opts_init_size(sluice_pipeline_opts *o, size_t size);
#define sluice_pipeline_opts_init(o) \
  sluice_pipeline_opts_init_size((o), sizeof(sluice_pipeline_opts))
SLUICE_API sluice_status sluice_pipeline_new(sluice_filter **out, const sluice_pipeline_opts *o,
                                             const sluice_sink *sink, const sluice_mem *mem,
                                             sluice_error *err);
/* What the model chose, for --explain: 'harmony first (model
 * llama.cpp/gpt-oss)', and for each think filter of format AUTO 'think
 * filter 0: format deepseek-r1, thinking on: rule "deepseek-reasoner"
 * (built-in 2: ...)' (sluice_model_match_describe), joined by "; "; or
 * "no think filter of format auto". Writes at most n bytes with the NUL
 * and returns the length it needed, as snprintf. */
SLUICE_API size_t sluice_pipeline_explain(const sluice_filter *pipeline, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* SLUICE_H */
