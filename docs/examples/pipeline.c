/*
 * pipeline.c: a provider's stream on standard input (OpenAI, Anthropic,
 * Ollama, ...: detected) through a typed pipeline: <think> blocks removed
 * from each choice's text, the answer on standard output. libsluice alone:
 * the stages are kinds and options structs, no JSON.
 *
 *     cc pipeline.c -lsluice && ./a.out < corpus/captures/openai-chat-text.chunks.jsonl
 */
#include <sluice.h>
#include <stdio.h>
#include <unistd.h>

static int to_stdout(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)user;
  return ch == SLUICE_TEXT && fwrite(p, 1, n, stdout) != n;
}

int main(void) {
  const char *tags[] = {"think"};
  sluice_think_opts think;
  sluice_think_opts_init(&think);
  think.tags = tags;
  think.ntags = 1;
  sluice_stage stages[] = {{SLUICE_FILTER_THINK, &think}};
  sluice_pipeline_opts po;
  sluice_pipeline_opts_init(&po);
  po.stages = stages;
  po.nstages = 1;
  sluice_sink sink = {to_stdout, NULL, NULL};
  sluice_filter *f;
  sluice_error err;
  if (sluice_pipeline_new(&f, &po, &sink, NULL, &err) != SLUICE_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(0, buf, sizeof buf)) > 0 && sluice_feed(f, buf, (size_t)n) == SLUICE_OK) {
  }
  sluice_status st = sluice_finish(f);
  if (st != SLUICE_OK)
    fprintf(stderr, "at byte %llu: %s\n", (unsigned long long)sluice_get_error(f)->offset,
            sluice_get_error(f)->message);
  printf("\n(%s)\n", sluice_provider_name(sluice_provider_detected(f)));
  sluice_free(f);
  return st != SLUICE_OK;
}
