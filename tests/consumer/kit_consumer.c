/* Builds a filter by name from JSON options through an installed
 * libsluice-kit and checks the text. */
#include <sluice_kit.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  sluice_output *out;
  sluice_filter *f;
  sluice_error err;
  if (sluice_output_new(&out, NULL) != SLUICE_OK) return 1;
  sluice_sink sink = sluice_output_sink(out);
  static const char opts[] = "{\"tags\": [\"scratch\"]}";
  if (sluice_filter_new_json(&f, "think", opts, sizeof opts - 1, &sink, NULL, &err) != SLUICE_OK) {
    printf("kit_consumer: %s\n", err.message);
    return 1;
  }
  if (sluice_once(f, "a<scratch>b</scratch>c", 22) != SLUICE_OK) return 1;
  size_t n;
  const char *text = sluice_output_channel(out, SLUICE_TEXT, &n);
  int ok = n == 2 && memcmp(text, "ac", 2) == 0;
  printf("kit_consumer (sluice %s): %s\n", sluice_version(), ok ? "ok" : "wrong output");
  sluice_free(f);
  sluice_output_free(out);
  return ok ? 0 : 1;
}
