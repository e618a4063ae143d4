/*
 * norm.h: what a stream says, in a form two protocols can be compared in
 * (the gate's comparison). A middleware between a client and a provider may
 * translate one protocol into another; what must survive is the content,
 * not its carriage. So an outcome keeps, per choice, the text, the
 * reasoning, the refusal, the tool calls (name and arguments, in index
 * order) and the finish reason mapped to one vocabulary; and for the
 * stream, whether it ended cleanly and whether an error was reported. The
 * mapping rules (each tested in test_tools):
 *
 *  1. Finish reasons are mapped from the vocabulary of the protocol that
 *     carried them (OpenAI chat, Anthropic, Responses, Gemini, Ollama,
 *     Cohere, llama.cpp) to stop, length, tool_calls, content_filter or
 *     error; a reason outside its protocol's vocabulary (Anthropic's
 *     "end_turn" in an OpenAI chunk) stays "raw:REASON", so it differs.
 *  2. A choice that made tool calls and finished with "stop" finished with
 *     tool_calls (Gemini and Ollama say STOP/stop after a call).
 *  3. Reasoning is reasoning however carried (reasoning_content,
 *     reasoning, thinking blocks, thought parts).
 *  4. Tool-call ids are not compared (translators make fresh ones); calls
 *     are compared in index order by name and arguments, arguments as JSON
 *     values when both parse (key order and spacing aside), else as text.
 *  5. Usage is not compared.
 *  6. A refusal is text where the client's protocol has no refusal field
 *     (Anthropic, Ollama, Gemini, Responses), and only choice 0 is compared
 *     where it carries one choice.
 *  7. An error reported in the stream, a truncated end or an HTTP error
 *     status all read as "failed"; the content before it is still compared.
 */
#ifndef SLUICE_TOOLS_NORM_H
#define SLUICE_TOOLS_NORM_H

#include "sluice.h"
#include "util.h"

#define NORM_MAX_CHOICES 8
#define NORM_MAX_CALLS 64

typedef struct ncall {
  char name[128];
  tbuf args;
} ncall;

typedef struct nchoice {
  tbuf text, reasoning, refusal;
  ncall calls[NORM_MAX_CALLS];
  int ncalls;
  char finish[48]; /* mapped (rule 1); "" when none */
  int seen;
} nchoice;

typedef struct outcome {
  nchoice ch[NORM_MAX_CHOICES];
  int failed;   /* rule 7 */
  int complete; /* the provider's end marker came */
  int errors;   /* error events */
} outcome;

void outcome_init(outcome *o);
void outcome_free(outcome *o);

/* Reads a provider's events into o: deltas by kind (the pipeline's
 * "text", "reasoning", "refusal", "arguments"; other kinds are ignored),
 * tool calls, finish reasons (mapped from endpoint e's vocabulary), errors
 * and the end. */
void outcome_add_event(outcome *o, const sluice_event *ev, sluice_endpoint e);
/* Reads a whole body (a provider's stream of endpoint e) into o. -1 with
 * the reason in why when the body cannot be read. */
int outcome_read(outcome *o, const char *body, size_t n, sluice_endpoint e, char *why,
                 size_t wl);

/* Rules 2 and 6 for a client speaking endpoint `client`. */
void outcome_settle(outcome *o, sluice_endpoint client);

/* The first difference between expected and actual, as one line in why
 * ("text of choice 0: expected ... got ..."); 0 when they agree. */
int outcome_compare(const outcome *expected, const outcome *actual, char *why, size_t wl);

/* The mapped finish reason (rule 1) of a reason in endpoint e's words. */
void norm_finish(sluice_endpoint e, const char *reason, size_t n, char *out, size_t outn);

#endif
