/*
 * think_stream.c: the contract every filter keeps, on the think filter:
 * standard input, read in whatever pieces read() returns, with the thinking
 * blocks removed on standard output and the reasoning on standard error.
 * The example in sluice.h and README.md is this file's main().
 *
 *     cc think_stream.c -lsluice && printf 'a<think>b</think>c' | ./a.out
 */
#include <sluice.h>
#include <stdio.h>
#include <unistd.h>

static int my_emit(void *user, sluice_channel ch, const char *bytes, size_t n) {
  (void)user;
  FILE *to = ch == SLUICE_TEXT ? stdout : ch == SLUICE_THOUGHT ? stderr : NULL;
  return to && fwrite(bytes, 1, n, to) != n; /* non-zero stops the filter */
}

static int my_event(void *user, const sluice_event *ev) {
  (void)user;
  (void)ev; /* thought records: see sluice_event */
  return 0;
}

int main(void) {
  void *my_data = NULL;
  char chunk[4096];
  ssize_t n;
  sluice_filter *f;
  sluice_think_opts o;
  sluice_think_opts_init(&o);                    /* records the struct's size (ABI) */
  sluice_sink sink = {my_emit, my_event, my_data};
  sluice_error err;
  if (sluice_think_new(&f, &o, &sink, NULL, &err) != SLUICE_OK) {  /* NULL: libc's allocator */
    fprintf(stderr, "%s\n", err.message);        /* names the bad option */
    return 1;
  }
  while ((n = read(0, chunk, sizeof chunk)) > 0)
    sluice_feed(f, chunk, (size_t)n);            /* any chunking, empty chunks too */
  sluice_status st = sluice_finish(f);           /* releases what was held back */
  sluice_free(f);
  return st != SLUICE_OK;
}
