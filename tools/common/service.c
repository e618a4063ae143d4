/*
 * service.c: a middleware under test as a service (service.h).
 */
#include "service.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* environ with SLUICE_UPSTREAM set: an array the caller frees, and in
 * *mine the one string of it allocated here. */
static char **env_with(const char *upstream, char **mine) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = xcalloc(n + 2, sizeof *env);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "SLUICE_UPSTREAM=", 16) != 0) env[k++] = environ[i];
  tbuf v = {0};
  tbuf_xprintf(&v, "SLUICE_UPSTREAM=%s", upstream);
  env[k] = *mine = tbuf_take(&v, NULL);
  return env;
}

int service_start(service *s, const char *command, const char *upstream, const char *log,
                  tbuf *err) {
  memset(s, 0, sizeof *s);
  s->pid = -1;
  s->log = xstrdup(log);
  int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    tbuf_xprintf(err, "cannot open the middleware's log %s: %s", log, strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  posix_spawnattr_init(&attr);
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  sigaddset(&dfl, SIGINT);
  sigaddset(&dfl, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setpgroup(&attr, 0); /* a group of its own: stopped whole */
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  char *mine;
  char **env = env_with(upstream, &mine);
  char *argv[] = {"sh", "-c", (char *)command, NULL};
  int rc = posix_spawn(&s->pid, "/bin/sh", &fa, &attr, argv, env);
  free(mine);
  free(env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(fd);
  if (rc) {
    s->pid = -1;
    tbuf_xprintf(err, "cannot start the middleware: %s", strerror(rc));
    return -1;
  }
  return 0;
}

int service_alive(service *s) {
  if (s->pid <= 0 || s->reaped) return 0;
  int st;
  pid_t r = waitpid(s->pid, &st, WNOHANG);
  if (r == s->pid) {
    s->reaped = 1;
    s->status = st;
    return 0;
  }
  return 1;
}

void service_log_tail(const service *s, size_t n, tbuf *out) {
  FILE *fp = s->log ? fopen(s->log, "rb") : NULL;
  if (!fp) return;
  if (fseek(fp, 0, SEEK_END) == 0) {
    long size = ftell(fp);
    if (size > (long)n) fseek(fp, size - (long)n, SEEK_SET);
    else fseek(fp, 0, SEEK_SET);
  }
  char buf[4096];
  size_t r;
  while ((r = fread(buf, 1, sizeof buf, fp)) > 0) tbuf_xadd(out, buf, r);
  fclose(fp);
}

static size_t discard(char *p, size_t size, size_t n, void *u) {
  (void)p;
  (void)u;
  return size * n;
}

/* 1 if url answers with any HTTP status within a second. */
static int answers(const char *url) {
  CURL *c = curl_easy_init();
  if (!c) die("out of memory");
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 1000L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  return rc == CURLE_OK && status > 0;
}

static void ended(const service *s, tbuf *err) {
  if (WIFEXITED(s->status))
    tbuf_xprintf(err, "the middleware exited with status %d before it answered",
                 WEXITSTATUS(s->status));
  else if (WIFSIGNALED(s->status))
    tbuf_xprintf(err, "the middleware was killed by signal %d before it answered",
                 WTERMSIG(s->status));
  tbuf tail = {0};
  service_log_tail(s, 1200, &tail);
  if (tail.n) tbuf_xprintf(err, "; the end of its output (%s):\n%.*s", s->log, (int)tail.n, tail.p);
  tbuf_free(&tail);
}

int service_wait_ready(service *s, const char *url, double seconds, tbuf *err) {
  double end = now_seconds() + seconds;
  for (;;) {
    if (!service_alive(s)) {
      ended(s, err);
      return -1;
    }
    if (answers(url)) return 0;
    if (!service_alive(s)) { /* it may have ended while we asked */
      ended(s, err);
      return -1;
    }
    if (now_seconds() > end) {
      tbuf_xprintf(err, "the middleware did not answer at %s within %.0f s", url, seconds);
      tbuf tail = {0};
      service_log_tail(s, 1200, &tail);
      if (tail.n) tbuf_xprintf(err, "; the end of its output:\n%.*s", (int)tail.n, tail.p);
      tbuf_free(&tail);
      return -1;
    }
    sleep_s(0.05);
  }
}

void service_stop(service *s) {
  if (s->pid > 0 && !s->reaped) {
    kill(-s->pid, SIGTERM);
    double end = now_seconds() + 3;
    while (service_alive(s) && now_seconds() < end) sleep_s(0.02);
    if (!s->reaped) {
      kill(-s->pid, SIGKILL);
      int st;
      waitpid(s->pid, &st, 0);
      s->reaped = 1;
    }
  }
  if (s->pid > 0) kill(-s->pid, SIGKILL); /* what its shell left behind */
  free(s->log);
  memset(s, 0, sizeof *s);
}
