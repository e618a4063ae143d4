/* Filters a thinking block through an installed sluice and checks the text. */
#include <sluice.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  sluice_output *out;
  sluice_filter *f;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  sluice_sink sink = sluice_output_sink(out);
  if (sluice_think_new(&f, NULL, &sink, NULL, NULL) != SLUICE_OK) return 1;
  sluice_feed(f, "a<thi", 5);
  sluice_feed(f, "nk>b</think>c", 13);
  if (sluice_finish(f) != SLUICE_OK) return 1;
  size_t n;
  const char *text = sluice_output_channel(out, SLUICE_TEXT, &n);
  int ok = n == 2 && memcmp(text, "ac", 2) == 0;
  printf("consumer: %s\n", ok ? "ok" : "wrong output");
  sluice_free(f);
  sluice_output_free(out);
  return ok ? 0 : 1;
}
