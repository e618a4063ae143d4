/*
 * bench_clean.c: `sluice bench clean`, throughput and hold-back of the clean
 * filter with every rule on. A benchmark, never a test: it prints figures.
 */
#include "harness.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static const opt_cmd clean_cmd = {
    .name = "bench clean",
    .synopsis = "[options]",
    .intro =
        "Generates N MiB (default 16) of a response that opens with a thinking block\n"
        "and every prefix rule, then prose with whitespace runs, and feeds it to the\n"
        "clean filter with every rule on at chunk sizes 1, 64 and 65536 bytes. Prints\n"
        "MB/s on the CPU and wall clocks (medians of --reps runs, default 5), the\n"
        "calibration loops over the same chunks, and the largest hold-back seen.\n",
};

static const char *const clean_words[] = {"the", "answer", "is", "café", "—", "a", "stream",
                                          "of", "tokens", "\n\n", "  ", "split", "chunk",
                                          "\u3000"};

typedef struct clean_run {
  const sluice_clean_opts *o;
  const char *text;
  size_t size, chunk;
  bench_count count;
} clean_run;

static void clean_body(void *v) {
  clean_run *r = v;
  sluice_filter *f;
  sluice_sink sink = bench_count_sink(&r->count);
  bench_count_reset(&r->count);
  if (sluice_clean_new(&f, r->o, &sink, NULL, NULL) != SLUICE_OK) return;
  bench_feed(f, r->text, r->size, r->chunk, NULL);
  sluice_free(f);
}

int bench_clean(int argc, char **argv) {
  bench_args a;
  int rc = bench_parse(argc, argv, &clean_cmd, "mb chunk", 16, &a);
  if (rc >= 0) return rc;
  static const char *const node[] = {"Note:", "Response:"};
  static const char *const ep[] = {"AI:", "  Bot:  "};
  sluice_clean_opts o;
  sluice_clean_opts_init(&o);
  o.remove_thinking = 1;
  o.remove_node_prefixes = 1;
  o.node_prefixes = node;
  o.n_node_prefixes = 2;
  o.remove_endpoint_prefixes = 1;
  o.endpoint_prefixes = ep;
  o.n_endpoint_prefixes = 2;
  o.remove_timestamp = 1;
  o.add_user_assistant = o.add_missing_assistant = 1;
  o.trim = 1;
  size_t size = a.mb << 20;
  bench_textspec spec = {clean_words, 14, NULL, 0, 0, 0,
                         "\n<think>planning the answer, step by step</think>\n"
                         "Note: Bot: [Sent less than a minute ago] Assistant: ",
                         0, 88172645463325252ULL};
  char *text = bench_text(&spec, size);
  if (!text) return 1;
  static const size_t sizes[] = {1, 64, 65536};
  fprintf(bench_out, "clean, every rule on, %zu MiB of generated text, medians of %d runs\n",
          a.mb, a.reps);
  fprintf(bench_out, "%6s %9s %9s | %17s %17s | %8s\n", "chunk", "MB/s", "[wall]",
          "call loop (frac)", "memcpy (frac)", "max held");
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t cs = sizes[si];
    if (a.chunk && cs != a.chunk) continue;
    clean_run r = {&o, text, size, cs, {0}};
    bench_time t = bench_measure(clean_body, &r, a.reps, 1);
    if (r.count.bytes != size) fprintf(stderr, "bench clean: conservation broken!\n");
    bench_calib c = bench_calibrate(text, size, cs, '<', a.reps, 1);
    uint64_t held = 0;
    sluice_filter *f;
    sluice_sink sink = bench_count_sink(&r.count);
    if (sluice_clean_new(&f, &o, &sink, NULL, NULL) == SLUICE_OK) {
      bench_feed(f, text, size, cs, &held);
      sluice_free(f);
    }
    fprintf(bench_out, "%6zu %9.0f %9.0f | %9.0f (%4.2f) %9.0f (%4.2f) | %8llu\n", cs,
            bench_mbs(size, t.cpu), bench_mbs(size, t.wall), bench_mbs(size, c.call.cpu),
            c.call.cpu / t.cpu, bench_mbs(size, c.memcpy.cpu), c.memcpy.cpu / t.cpu,
            (unsigned long long)held);
    json_t *row = json_object();
    json_object_set_new(row, "chunk", json_integer((json_int_t)cs));
    json_object_set_new(row, "max_held", json_integer((json_int_t)held));
    bench_report_time(row, size, t);
    bench_report_calib(row, size, t, &c);
    bench_report_add("clean", row);
  }
  free(text);
  return 0;
}
