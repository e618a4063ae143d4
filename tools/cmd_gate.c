/*
 * cmd_gate.c: `sluice gate`, the command a middleware's CI runs: the
 * middleware between the gate's client and its mock upstream, every
 * capture served in variants (as recorded, its deltas cut again, its
 * network writes cut again, faults), what its client reads compared with
 * what it is declared to do (tools/common/gate.c).
 */
#include "tools.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/gate.h"
#include "common/http.h"
#include "common/service.h"

static const char *const clients[] = {"openai-chat", "anthropic", "responses", "ollama-chat",
                                      NULL};

static const opt gate_options[] = {
    {.kind = OPT_SECTION, .help = "The middleware"},
    {"url", 0, "URL", OPT_STRING, OPT_AT(gate_opts, url, const char *),
     .help = "where the middleware listens (required); the client's path is added "
             "(/v1/chat/completions, /v1/messages, /v1/responses, /api/chat); {port} in it, "
             "--middleware and --ready is a free port the gate picks"},
    {"middleware", 0, "COMMAND", OPT_STRING, OPT_AT(gate_opts, middleware, const char *),
     .help = "start it (sh -c COMMAND, a process group of its own, stopped at the end), with "
             "the upstream's URL for {upstream} and in $SLUICE_UPSTREAM; without it, the "
             "middleware at --url is already running and is told the upstream by --header or "
             "its own configuration"},
    {"ready", 0, "URL", OPT_STRING, OPT_AT(gate_opts, ready, const char *),
     .help = "the URL that answers once it is up (default: --url)"},
    {"start-timeout", 0, "S", OPT_POSITIVE, OPT_AT(gate_opts, start_timeout, double),
     .help = "how long it may take to answer (default 60)"},
    {"log", 0, "FILE", OPT_STRING, OPT_AT(gate_opts, log, const char *),
     .help = "where its output goes (default: a file in $TMPDIR, named on error)"},
    {"header", 'H', "'NAME: VALUE'", OPT_LIST, OPT_AT(gate_opts, headers, strlist),
     .help = "a header of every client request ({upstream} is the upstream's URL); "
             "repeatable"},
    {"model-prefix", 0, "TEXT", OPT_STRING, OPT_AT(gate_opts, model_prefix, const char *),
     .help = "before the model the client asks for (a router's \"provider,\")"},
    {.kind = OPT_SECTION, .help = "What it is checked for"},
    {"client", 0, "PROTOCOL", OPT_STRING, OPT_AT(gate_opts, client_name, const char *),
     .help = "the client's protocol: openai-chat (default), anthropic, responses, ollama-chat"},
    {"expect", 0, "WHAT", OPT_STRING, OPT_AT(gate_opts, expect, const char *),
     .help = "what it does to the content: passthrough (default), think (removes <think> "
             "blocks into the reasoning; --think-options) or a pipeline file (the pipeline "
             "filter's options as JSON)"},
    {"think-options", 0, "JSON", OPT_STRING, OPT_AT(gate_opts, think_options, const char *),
     .help = "the think filter's options for --expect think (default {\"tags\":[\"think\"]}); "
             "{\"format\":\"auto\"}: the reasoning format each capture's model selects"},
    {"resplit", 0, "MODES", OPT_STRING, OPT_AT(gate_opts, resplit, const char *),
     .help = "the model's deltas cut again: whole, single (every single cut, or --max-single "
             "of them), codepoint, random, all or none (default all)"},
    {"suite", 0, "LIST", OPT_STRING, OPT_AT(gate_opts, suites, const char *),
     .help = "cases from the golden suites too: think, clean, harmony (their texts as a "
             "choice's content), json (as a tool call's arguments), sse (one stream in each "
             "SSE framing: CRLF, CR, BOM, comments, ...) or all; comma-separated"},
    {"suite-as", 0, "PROTOCOL", OPT_STRING, OPT_AT(gate_opts, suite_as, const char *),
     .help = "the suites' streams as openai-chat (default) or anthropic"},
    {"max-single", 0, "N", OPT_U64, OPT_AT(gate_opts, max_single, uint64_t), .min = 1,
     .help = "single cuts per case at most, evenly spread (default 48)"},
    {"rechunk", 0, "MODES", OPT_STRING, OPT_AT(gate_opts, rechunk, const char *),
     .help = "the network's writes cut again: bytes, random, random:SEED, N (bytes), all or "
             "none (default bytes,random)"},
    {"faults", 0, "LIST", OPT_STRING, OPT_AT(gate_opts, faults, const char *),
     .help = "upstream faults the client must see as failures: cut, reset, stall, error, "
             "status:CODE, all or none (default none)"},
    {.kind = OPT_SECTION, .help = "Running and reporting"},
    {"quiet", 'q', NULL, OPT_FLAG, OPT_AT(gate_opts, quiet, int),
     .help = "no progress line on a terminal and no count of the suites' cases on stderr"},
    {"jobs", 'j', "N", OPT_INT, OPT_AT(gate_opts, jobs, int), .min = 1, .max = 64,
     .help = "requests at once (default 2)"},
    {"timeout", 0, "S", OPT_POSITIVE, OPT_AT(gate_opts, timeout, double),
     .help = "for one request (default 30)"},
    {"deadline", 0, "S", OPT_POSITIVE, OPT_AT(gate_opts, deadline, double),
     .help = "for the whole run; what is not run by then fails it"},
    {"max-failures", 0, "N", OPT_U64, OPT_AT(gate_opts, max_failures, uint64_t), .min = 1,
     .help = "begin no case after N cases have a difference not in --known (the cases begun "
             "are finished; the others are left out of the report and counted)"},
    {"format", 0, "FMT", OPT_STRING, OPT_AT(gate_opts, format, const char *),
     .help = "text (default), markdown, json (a run record, then one per variant), junit or "
             "html; with --suite, each names the suites' version and digest"},
    {"output", 'o', "FILE", OPT_STRING, OPT_AT(gate_opts, output, const char *),
     .help = "the report there (default: standard output)"},
    {"report", 0, "FMT:FILE", OPT_LIST, OPT_AT(gate_opts, reports, strlist),
     .help = "another report of the same run, in FMT (as --format) to FILE; repeatable "
             "(a CI keeps the HTML page beside the text it prints)"},
    {"known", 0, "FILE", OPT_STRING, OPT_AT(gate_opts, known, const char *),
     .help = "accepted differences: \"CASE FAMILY reason\" per line (FAMILY: recorded, "
             "deltas, network, faults or *); an entry whose case and family this run "
             "checked but that agrees is named as no longer seen"},
    {0}};

static const opt_cmd gate_cmd = {
    .name = "gate",
    .synopsis = "--url URL [options] [CAPTURE-OR-DIR...]",
    .intro =
        "Checks a running middleware (a gateway, a proxy) over HTTP. It sits between the\n"
        "gate's client and the gate's mock upstream (in this process, on 127.0.0.1): for\n"
        "every capture, the upstream serves it as recorded, with the model's deltas cut\n"
        "again (where a middleware's own filters meet the split), with the network's\n"
        "writes cut again, and with faults; what the client reads is compared with what\n"
        "the middleware is declared to do, after the forms that differ only by protocol\n"
        "are mapped (finish reasons, where reasoning is carried, tool-call ids).\n"
        "A row per case, a cell per family: = agrees, ≠ differs the same way in every\n"
        "variant, ± differs in some, ✗ no usable answer, – cannot be run.\n",
    .outro = "Exit status: 0, 1 for a difference not in --known, 2 when the middleware does\n"
             "not start or answer, when the --known list or a --report format is wrong\n"
             "(told before anything runs) and when a report cannot be written.\n",
    .tables = {gate_options, select_options},
    .operands = "CAPTURE-OR-DIR",
    .min_operands = 0, /* captures, or --suite */
};

/* ---------------- setup ---------------- */

/* s with every `key` replaced by value (malloc'd). */
static char *replaced(const char *s, const char *key, const char *value) {
  tbuf b = {0};
  size_t kl = strlen(key);
  for (const char *p = s; *p;) {
    const char *q = strstr(p, key);
    if (!q) {
      tbuf_xadds(&b, p);
      break;
    }
    tbuf_xadd(&b, p, (size_t)(q - p));
    tbuf_xadds(&b, value);
    p = q + kl;
  }
  tbuf_xadd(&b, "", 1);
  return tbuf_take(&b, NULL);
}

static char *with_upstream(const char *s, const char *up) { return replaced(s, "{upstream}", up); }

/* A free port on 127.0.0.1 for {port} (the kernel's pick, released for
 * the middleware to take). */
static int free_port(char *out, size_t n) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int rc = fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) ||
           getsockname(fd, (struct sockaddr *)&a, &len);
  if (!rc) snprintf(out, n, "%u", ntohs(a.sin_port));
  if (fd >= 0) close(fd);
  return rc ? -1 : 0;
}

/* {port} in --url, --middleware and --ready: one free port for them all. */
static int take_port(gate *g) {
  if (!strstr(g->o.url, "{port}")) return 0;
  char port[16];
  if (free_port(port, sizeof port)) return opt_error(&gate_cmd, "--url", "no free port for {port}");
  g->url_owned = replaced(g->o.url, "{port}", port);
  g->o.url = g->url_owned;
  if (g->o.middleware) g->o.middleware = g->mw_owned = replaced(g->o.middleware, "{port}", port);
  if (g->o.ready) g->o.ready = g->ready_owned = replaced(g->o.ready, "{port}", port);
  return 0;
}

static int is_format(const char *f, size_t n) {
  static const char *const names[] = {"text", "markdown", "json", "junit", "html", NULL};
  for (size_t i = 0; names[i]; i++)
    if (strlen(names[i]) == n && strncmp(names[i], f, n) == 0) return 1;
  return 0;
}

/* --report FMT:FILE, each checked before anything runs. */
static int parse_reports(gate *g) {
  for (size_t i = 0; i < g->o.reports.n; i++) {
    const char *r = g->o.reports.v[i], *colon = strchr(r, ':');
    if (!colon || !colon[1] || !is_format(r, (size_t)(colon - r)))
      return opt_error(&gate_cmd, "--report", "must be FMT:FILE with FMT text, markdown, json, "
                                              "junit or html, not \"%s\"", r);
  }
  return 0;
}

static int parse_client(gate *g) {
  static const sluice_endpoint eps[] = {SLUICE_ENDPOINT_OPENAI_CHAT, SLUICE_ENDPOINT_ANTHROPIC,
                                        SLUICE_ENDPOINT_OPENAI_RESPONSES,
                                        SLUICE_ENDPOINT_OLLAMA_CHAT};
  const char *c = g->o.client_name ? g->o.client_name : "openai-chat";
  for (size_t i = 0; clients[i]; i++)
    if (strcmp(clients[i], c) == 0) {
      g->client = eps[i];
      return 0;
    }
  return opt_error(&gate_cmd, "--client", "must be openai-chat, anthropic, responses or "
                                          "ollama-chat, not \"%s\"", c);
}

static int parse_expect(gate *g) {
  const char *e = g->o.expect ? g->o.expect : "passthrough";
  sluice_error err;
  if (strcmp(e, "passthrough") == 0) {
    g->expect = GE_PASSTHROUGH;
  } else if (strcmp(e, "think") == 0) {
    g->expect = GE_THINK;
    const char *t = g->o.think_options ? g->o.think_options : "{\"tags\":[\"think\"]}";
    if (sluice_options_from_json(&g->think, "think", t, strlen(t), &err) != SLUICE_OK)
      return opt_error(&gate_cmd, "--think-options", "%s", err.message);
  } else {
    tbytes file;
    if (read_file("gate", e, &file, (size_t)1 << 20)) return 2;
    sluice_status st = sluice_options_from_json(&g->pipeline, "pipeline", file.p, file.n, &err);
    free(file.p);
    if (st != SLUICE_OK) return opt_error(&gate_cmd, "--expect", "%s: %s", e, err.message);
    g->expect = GE_PIPELINE;
  }
  return 0;
}

static int setup(gate *g, int argc, char **argv) {
  memset(g, 0, sizeof *g);
  g->o.jobs = 2;
  g->o.timeout = 30;
  g->o.start_timeout = 60;
  g->o.max_single = 48;
  g->o.resplit = "all";
  g->o.rechunk = "bytes,random";
  g->o.faults = "none";
  void *bases[] = {&g->o, &g->o.sel};
  int rc = opt_parse(&gate_cmd, bases, argc, argv, &g->o.operands);
  if (rc >= 0) return rc;
  if (!g->o.url) return opt_error(&gate_cmd, "--url", "is required");
  if ((g->o.sel.features.n || g->o.sel.exclude.n) && !g->o.suites)
    return opt_error(&gate_cmd, "--features", "selects among the suites' cases: it needs --suite");
  const char *f = g->o.format ? g->o.format : "text";
  if (!is_format(f, strlen(f)))
    return opt_error(&gate_cmd, "--format", "must be text, markdown, json, junit or html");
  if ((rc = parse_reports(g)) || (rc = parse_client(g)) || (rc = parse_expect(g)) ||
      (rc = take_port(g)))
    return rc;
  return -1;
}

/* The upstream in this process, on 127.0.0.1, and the client's headers. */
static int start_upstream(gate *g) {
  struct sockaddr_in addr;
  http_parse_listen("127.0.0.1:0", &addr);
  g->up = upstream_new(64, 1);
  tbuf err = {0};
  if (upstream_start(g->up, &addr, &err)) {
    fprintf(stderr, "sluice gate: the upstream: %.*s\n", (int)err.n, err.p);
    tbuf_free(&err);
    return 2;
  }
  g->headers = xcalloc(g->o.headers.n + 1, sizeof *g->headers);
  for (size_t i = 0; i < g->o.headers.n; i++)
    g->headers[i] = with_upstream(g->o.headers.v[i], upstream_url(g->up));
  return 0;
}

/* The middleware, started and answering; or the one at --url answering. */
static int start_middleware(gate *g, service *svc) {
  const char *ready = g->o.ready ? g->o.ready : g->o.url;
  tbuf err = {0};
  int rc = 0;
  if (g->o.middleware) {
    char *cmd = with_upstream(g->o.middleware, upstream_url(g->up));
    tbuf log = {0};
    if (g->o.log) tbuf_xadds(&log, g->o.log);
    else tbuf_xprintf(&log, "%s/sluice-gate-%ld.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                      (long)getpid());
    rc = service_start(svc, cmd, upstream_url(g->up), log.p, &err) ||
         service_wait_ready(svc, ready, g->o.start_timeout, &err);
    free(cmd);
    tbuf_free(&log);
  }
  if (rc) fprintf(stderr, "sluice gate: setup error: %.*s\n", (int)err.n, err.p);
  tbuf_free(&err);
  return rc ? 2 : 0;
}

/* ---------------- the command ---------------- */

/* One report in format fmt to path (standard output when NULL): its exit
 * status, 2 when it cannot be written. */
static int write_report(gate *g, const char *fmt, const char *path, gknown *known,
                        size_t nknown) {
  FILE *out = path ? fopen(path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "sluice gate: %s: cannot write\n", path);
    return 2;
  }
  g->o.format = fmt;
  int rc = gate_report(g, known, nknown, out);
  if ((path ? fclose(out) : fflush(out)) != 0) rc = 2;
  if (rc == 2) fprintf(stderr, "sluice gate: cannot write the report%s%s\n", path ? " " : "",
                       path ? path : "");
  return rc;
}

/* The report (--format, --output), then each --report: the exit status is
 * the first's, unless another cannot be written. */
static int report(gate *g, gknown *known, size_t nknown) {
  const char *fmt = g->o.format ? g->o.format : "text";
  int rc = write_report(g, fmt, g->o.output, known, nknown);
  for (size_t i = 0; i < g->o.reports.n && rc != 2; i++) {
    const char *r = g->o.reports.v[i], *colon = strchr(r, ':');
    char f[16];
    snprintf(f, sizeof f, "%.*s", (int)(colon - r), r);
    if (write_report(g, f, colon + 1, known, nknown) == 2) rc = 2;
  }
  g->o.format = fmt;
  return rc;
}

static void teardown(gate *g, service *svc) {
  if (svc->pid > 0) service_stop(svc);
  upstream_free(g->up);
  for (size_t i = 0; g->headers && g->headers[i]; i++) free(g->headers[i]);
  free(g->headers);
  sluice_options_free(g->pipeline);
  sluice_options_free(g->think);
  free(g->url_owned);
  free(g->mw_owned);
  free(g->ready_owned);
  gate_free(g);
  gate_known_free(g->known, g->nknown);
  strlist_free(&g->o.headers);
  strlist_free(&g->o.reports);
  strlist_free(&g->o.operands);
  case_filter_free(&g->o.sel);
}

int cmd_gate(int argc, char **argv) {
  gate g;
  int rc = setup(&g, argc, argv);
  if (rc >= 0) {
    strlist_free(&g.o.headers);
    strlist_free(&g.o.reports);
    strlist_free(&g.o.operands);
    case_filter_free(&g.o.sel);
    return rc;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  http_catch_signals();
  service svc;
  memset(&svc, 0, sizeof svc);
  /* The known list is read before the run: a mistake in it is told at once,
   * and --max-failures counts only the differences it does not list. */
  if (g.o.known && gate_known_load(g.o.known, &g.known, &g.nknown)) rc = 2;
  else rc = gate_load(&g) ? 2 : start_upstream(&g);
  if (!rc) rc = start_middleware(&g, &svc);
  if (!rc) {
    gate_run(&g);
    rc = report(&g, g.known, g.nknown);
  }
  teardown(&g, &svc);
  curl_global_cleanup();
  return rc;
}
