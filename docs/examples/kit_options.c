/*
 * kit_options.c: filters by name from JSON options with libsluice-kit (the
 * filter protocol's side): the example in sluice_kit.h, and the same
 * options read into the typed struct the filter's constructor takes.
 *
 *     cc kit_options.c -lsluice-kit -lsluice
 */
#include <sluice_kit.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  sluice_output *out;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  sluice_sink sink = sluice_output_sink(out);
  sluice_filter *f;
  sluice_error err;
  const char *opts = "{\"tags\": [\"think\"]}";
  if (sluice_filter_new_json(&f, "think", opts, strlen(opts), &sink, NULL, &err) !=
      SLUICE_OK)
    fprintf(stderr, "%s\n", err.message);   // names the bad key
  sluice_once(f, "a<think>b</think>c", 18);
  size_t n;
  const char *text = sluice_output_channel(out, SLUICE_TEXT, &n);
  int ok = n == 2 && memcmp(text, "ac", 2) == 0;
  sluice_free(f);
  sluice_output_free(out);

  /* The same options as the struct sluice_think_new takes; a bad key is named. */
  sluice_options *o;
  const char *bad = "{\"tagz\": [\"think\"]}";
  if (sluice_options_from_json(&o, "think", bad, strlen(bad), &err) == SLUICE_OK) return 1;
  ok = ok && strstr(err.message, "tagz") != NULL;
  if (sluice_options_from_json(&o, "think", opts, strlen(opts), &err) != SLUICE_OK) return 1;
  const sluice_think_opts *think = sluice_options_get(o);
  ok = ok && think->ntags == 1 && strcmp(think->tags[0], "think") == 0;
  sluice_options_free(o);
  printf("kit_options: %s\n", ok ? "ok" : "wrong");
  return !ok;
}
