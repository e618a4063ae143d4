/*
 * bench_sse.c: `sluice bench sse` (the SSE parser alone) and `sluice bench
 * replay` (whole replays of generated OpenAI and Anthropic captures through
 * the path of the sluice replay command, replay_run, and the peak RSS of
 * the command run as a child process). A benchmark, not a test:
 * it prints figures; only --rss-limit turns the memory figure into an exit
 * status (for the bounded-memory CTest).
 *
 * Speed is CPU time of this thread (medians of --reps runs), so other work
 * on the machine does not count.
 */
#include "harness.h"
#include "tools.h"

#include "common/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The options of bench sse and bench replay. */
typedef struct sse_args {
  size_t mb;
  int reps;
  int rss;           /* replay: the child's peak RSS too */
  uint64_t rss_limit; /* replay: MB; 0: none */
  const char *dir;   /* replay: where the captures are written */
} sse_args;

static const opt sse_options[] = {
    {"mb", 0, "N", OPT_SIZE, OPT_AT(sse_args, mb, size_t), .min = 1,
     .help = "MiB of generated events (default 64)"},
    {"reps", 0, "N", OPT_INT, OPT_AT(sse_args, reps, int), .max = 1000,
     .help = "runs per figure; the median is printed (default 5)"},
    {0}};

static int rss_limit_arg(void *base, const char *v, char *why, size_t wl) {
  sse_args *a = base;
  if (parse_u64(v, &a->rss_limit)) {
    snprintf(why, wl, "must be a whole number of MB, not \"%.60s\"", v);
    return -1;
  }
  a->rss = 1;
  return 0;
}

static const opt replay_options[] = {
    {"rss", 0, NULL, OPT_FLAG, OPT_AT(sse_args, rss, int),
     .help = "replay each once more as a child process writing OpenAI SSE, and print its "
             "peak RSS"},
    {"rss-limit", 0, "MB", OPT_CALL, 0, .fn = rss_limit_arg,
     .help = "--rss, and fail (exit status 1) above MB"},
    {"dir", 0, "D", OPT_STRING, OPT_AT(sse_args, dir, const char *),
     .help = "where the captures are written (default $TMPDIR or /tmp; removed afterwards)"},
    {0}};

static const opt_cmd sse_cmd = {
    .name = "bench sse",
    .synopsis = "[options]",
    .intro = "Generates N MiB (default 64) of OpenAI chat completion events (SSE) and\n"
             "parses them with the sse filter alone at 16-byte and 64 KiB chunks.\n"
             "Prints MB/s (CPU time, the median of --reps runs, default 5).\n"
             "Targets: 1 GB/s at 64 KiB chunks.\n",
    .tables = {sse_options},
};

static const opt_cmd replay_cmd = {
    .name = "bench replay",
    .synopsis = "[options]",
    .intro = "Writes an OpenAI and an Anthropic capture of N MiB each (default 64) into\n"
             "D and replays each as `sluice replay -q CAPTURE` does (the recorded\n"
             "chunking, text output to /dev/null), in this process: MB/s, CPU time, the\n"
             "median of --reps runs (default 5; 0: none).\n"
             "Targets: 300 MB/s for the OpenAI replay; peak RSS under 32 MB at 1 GB\n"
             "(--mb 1024 --rss).\n",
    .tables = {sse_options, replay_options},
};

/* ---------------- generated streams ---------------- */

static const char *const words[] = {
    "the", " model", " answer", "s", " stream", " token", "\\n\\n", " caf\xc3\xa9",
    " \\\"quoted\\\"", " \xe2\x80\x94", " of", " and", "**", " 42", ".", " split",
    " \xf0\x9f\x98\x80", " in", ",", " chunk"};

typedef struct gen {
  uint64_t s;
  char buf[1024];
} gen;

static const char *word(gen *g) {
  g->s ^= g->s << 13;
  g->s ^= g->s >> 7;
  g->s ^= g->s << 17;
  return words[g->s % (sizeof words / sizeof words[0])];
}

/* The next event of a stream: an OpenAI chunk with a word of content, or
 * an Anthropic content_block_delta. Returns its length in g->buf. */
static size_t openai_event(gen *g) {
  return (size_t)snprintf(
      g->buf, sizeof g->buf,
      "data: {\"id\":\"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0\",\"object\":\"chat.completion."
      "chunk\",\"created\":1770933892,\"model\":\"gpt-4.1-nano-2025-04-14\",\"service_tier\":"
      "\"default\",\"system_fingerprint\":\"fp_de604bd877\",\"choices\":[{\"index\":0,\"delta\":"
      "{\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null,"
      "\"obfuscation\":\"Qup1BsQ3\"}\n\n",
      word(g));
}

static size_t anthropic_event(gen *g, int thinking) {
  return (size_t)snprintf(g->buf, sizeof g->buf,
                          "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                          "\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":\"%s\"}}\n\n",
                          thinking ? 0 : 1, thinking ? "thinking_delta" : "text_delta",
                          thinking ? "thinking" : "text", word(g));
}

static const char openai_end[] =
    "data: {\"id\":\"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0\",\"object\":\"chat.completion.chunk\","
    "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
static const char anthropic_start[] =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
    "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":11,"
    "\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\","
    "\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n";
static const char anthropic_switch[] =
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
static const char anthropic_end[] =
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"end_turn\"},\"usage\":{\"output_tokens\":6}}\n\nevent: message_stop\ndata: "
    "{\"type\":\"message_stop\"}\n\n";

/* Writes a stream of about `size` bytes through put (a buffer or a file):
 * the Anthropic one thinks for its first half. */
static int generate(int anthropic, uint64_t size, int (*put)(void *, const char *, size_t),
                    void *ctx) {
  gen g;
  g.s = 88172645463325252ULL;
  uint64_t n = 0;
  int switched = 0;
  if (anthropic) {
    if (put(ctx, anthropic_start, sizeof anthropic_start - 1)) return -1;
    n += sizeof anthropic_start - 1;
  }
  while (n < size) {
    if (anthropic && !switched && n >= size / 2) {
      if (put(ctx, anthropic_switch, sizeof anthropic_switch - 1)) return -1;
      switched = 1;
    }
    size_t k = anthropic ? anthropic_event(&g, !switched) : openai_event(&g);
    if (put(ctx, g.buf, k)) return -1;
    n += k;
  }
  return anthropic ? put(ctx, anthropic_end, sizeof anthropic_end - 1)
                   : put(ctx, openai_end, sizeof openai_end - 1);
}

static int put_tbuf(void *ctx, const char *p, size_t n) { return tbuf_add(ctx, p, n); }

typedef struct filebuf {
  int fd;
  tbuf b;
} filebuf;

static int put_file(void *ctx, const char *p, size_t n) {
  filebuf *f = ctx;
  if (tbuf_add(&f->b, p, n)) return -1;
  if (f->b.n >= (1u << 20)) {
    if (write_all(f->fd, f->b.p, f->b.n)) return -1;
    f->b.n = 0;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_sse_text(tbuf *out, uint64_t size) { return generate(0, size, put_tbuf, out); }

/* ---------------- the parser alone ---------------- */

static uint64_t events_seen;
static int count_event(void *user, const sluice_event *ev) {
  (void)user;
  (void)ev;
  events_seen++;
  return 0;
}

int bench_sse(int argc, char **argv) {
  sse_args a = {64, 5, 0, 0, NULL};
  void *bases[] = {&a};
  int rc = bench_opt_parse(&sse_cmd, bases, argc, argv);
  if (rc >= 0) return rc;
  uint64_t mb = a.mb;
  int reps = a.reps;
  if (reps < 1) reps = 1;
  tbuf text = {0};
  if (generate(0, mb << 20, put_tbuf, &text)) die("out of memory");
  static const size_t sizes[] = {16, 65536};
  printf("sse parser, %llu MiB of OpenAI chunk events, CPU time, median of %d\n",
         (unsigned long long)mb, reps);
  printf("%10s %12s %12s %10s\n", "chunk", "MB/s", "events", "target");
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    double *t = xcalloc((size_t)reps, sizeof *t);
    sluice_sink sink = {NULL, count_event, NULL};
    for (int r = 0; r < reps; r++) {
      sluice_filter *f;
      if (sluice_sse_new(&f, NULL, &sink, NULL, NULL) != SLUICE_OK) die("out of memory");
      events_seen = 0;
      double t0 = thread_cpu_seconds();
      for (size_t off = 0; off < text.n; off += sizes[si])
        sluice_feed(f, text.p + off, off + sizes[si] <= text.n ? sizes[si] : text.n - off);
      sluice_finish(f);
      t[r] = thread_cpu_seconds() - t0;
      if (sluice_get_error(f)->status != SLUICE_OK) die("the parser failed");
      sluice_free(f);
    }
    double mbs = (double)text.n / median(t, reps) / 1e6;
    char tg[24] = "-";
    if (sizes[si] == 65536) snprintf(tg, sizeof tg, "1000 %s", mbs >= 1000 ? "met" : "MISSED");
    printf("%10zu %12.0f %12llu %10s\n", sizes[si], mbs, (unsigned long long)events_seen, tg);
    free(t);
  }
  tbuf_free(&text);
  return 0;
}

/* ---------------- whole replays ---------------- */

/* Peak RSS (KiB) of `sluice replay -q --output sse FILE` as a child. */
static long child_rss(const char *file) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return -1;
  exe[n] = '\0';
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, STDOUT_FILENO) < 0) _exit(127);
    execl(exe, exe, "replay", "-q", "--output", "sse", file, (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss;
}

int bench_replay(int argc, char **argv) {
  sse_args a = {64, 5, 0, 0, getenv("TMPDIR")};
  if (!a.dir || !*a.dir) a.dir = "/tmp";
  void *bases[] = {&a, &a};
  int rc = bench_opt_parse(&replay_cmd, bases, argc, argv);
  if (rc >= 0) return rc;
  uint64_t mb = a.mb, limit = a.rss_limit;
  int reps = a.reps, rss = a.rss;
  const char *dir = a.dir;
  printf("replay of generated captures, %llu MiB each, CPU time, median of %d\n",
         (unsigned long long)mb, reps);
  printf("%10s %12s %14s %10s\n", "format", "MB/s", "peak RSS", "target");
  rc = 0;
  for (int anthropic = 0; anthropic < 2; anthropic++) {
    tbuf path = {0};
    tbuf_xprintf(&path, "%s/sluice-bench-%s-XXXXXX", dir, anthropic ? "anthropic" : "openai");
    filebuf fb = {mkstemp(path.p), {0}};
    if (fb.fd < 0) die("cannot create a file in %s: %s", dir, strerror(errno));
    if (generate(anthropic, mb << 20, put_file, &fb) || write_all(fb.fd, fb.b.p, fb.b.n) ||
        close(fb.fd))
      die("cannot write %s: %s", path.p, strerror(errno));
    tbuf_free(&fb.b);
    struct stat st;
    if (stat(path.p, &st)) die("cannot stat %s: %s", path.p, strerror(errno));
    char mbs[32] = "-", tg[24] = "-", peak[32] = "-";
    if (reps > 0) {
      double *t = xcalloc((size_t)reps, sizeof *t);
      /* the command itself, its text to /dev/null */
      fflush(stdout);
      int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
      if (saved < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) die("cannot redirect stdout");
      close(null);
      replay_opts ro; /* `sluice replay -q CAPTURE` */
      replay_opts_init(&ro);
      ro.path = path.p;
      ro.quiet = 1;
      for (int r = 0; r < reps; r++) {
        double t0 = thread_cpu_seconds();
        int k = replay_run(&ro);
        t[r] = thread_cpu_seconds() - t0;
        if (k) rc = 1;
      }
      fflush(stdout);
      dup2(saved, STDOUT_FILENO);
      close(saved);
      double v = (double)st.st_size / median(t, reps) / 1e6;
      snprintf(mbs, sizeof mbs, "%.0f", v);
      if (!anthropic) snprintf(tg, sizeof tg, "300 %s", v >= 300 ? "met" : "MISSED");
      free(t);
    }
    if (rss) {
      long kb = child_rss(path.p);
      if (kb < 0) {
        fprintf(stderr, "sluice bench replay: the replay child failed\n");
        rc = 1;
      } else {
        snprintf(peak, sizeof peak, "%.1f MB", kb / 1024.0);
        if (limit && (uint64_t)kb > limit * 1024) {
          fprintf(stderr, "sluice bench replay: peak RSS %.1f MB is over --rss-limit %llu MB\n",
                  kb / 1024.0, (unsigned long long)limit);
          rc = 1;
        }
      }
    }
    printf("%10s %12s %14s %10s\n", anthropic ? "anthropic" : "openai", mbs, peak, tg);
    unlink(path.p);
    tbuf_free(&path);
  }
  return rc;
}
