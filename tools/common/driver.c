/*
 * driver.c: the implementation under test as a child process.
 */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Closes fd and marks it closed. */
static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

int impl_start(impl *im, const impl_opts *o) {
  unsigned long starts = im->starts;
  memset(im, 0, sizeof *im);
  im->o = *o;
  im->starts = starts + 1;
  im->to = im->from = im->err = -1;
  int in[2], out[2], err[2];
  /* O_CLOEXEC: a child started by another worker thread must not inherit
   * these ends, or this child would never see end of input. */
  if (pipe2(in, O_CLOEXEC)) return -1;
  if (pipe2(out, O_CLOEXEC)) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  if (pipe2(err, O_CLOEXEC)) {
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_init(&attr);
  /* A process group of its own, so that stopping it reaches everything it
   * started; default signal handling (we ignore SIGPIPE, it must not). */
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  char *argv[] = {"sh", "-c", (char *)o->cmd, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    errno = rc;
    return -1;
  }
  im->pid = pid;
  im->to = in[1];
  im->from = out[0];
  im->err = err[0];
  fcntl(im->to, F_SETFL, fcntl(im->to, F_GETFL) | O_NONBLOCK);
  fcntl(im->from, F_SETFL, fcntl(im->from, F_GETFL) | O_NONBLOCK);
  fcntl(im->err, F_SETFL, fcntl(im->err, F_GETFL) | O_NONBLOCK);
  return 0;
}

/* Reaps the leader if it has exited; waits up to `seconds`. 1 if reaped. */
static int reap(impl *im, double seconds) {
  if (im->reaped || im->pid <= 0) return im->reaped;
  double end = now_seconds() + seconds;
  for (;;) {
    int st;
    pid_t r = waitpid(im->pid, &st, WNOHANG);
    if (r == im->pid) {
      im->reaped = 1;
      im->status = st;
      return 1;
    }
    if (r < 0 && errno != EINTR) {
      im->reaped = 1; /* not our child any more */
      im->status = 0;
      return 1;
    }
    if (now_seconds() >= end) return 0;
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

static void keep_tail(impl *im, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    im->tail[im->tail_pos] = p[i];
    im->tail_pos = (im->tail_pos + 1) % IMPL_TAIL;
    if (im->tail_len < IMPL_TAIL) im->tail_len++;
  }
}

/* Reads what stderr has; passes it through up to the cap. */
static void drain_stderr(impl *im) {
  char buf[4096];
  for (;;) {
    ssize_t r = read(im->err, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) close_fd(&im->err);
      return;
    }
    keep_tail(im, buf, (size_t)r);
    size_t pass = 0;
    if (!im->o.quiet_stderr && im->stderr_passed < im->o.stderr_pass) {
      pass = im->o.stderr_pass - im->stderr_passed;
      if (pass > (size_t)r) pass = (size_t)r;
      if (write_all(2, buf, pass) == 0) im->stderr_passed += pass;
    }
    if (pass < (size_t)r) {
      if (im->stderr_dropped == 0 && !im->o.quiet_stderr)
        fprintf(stderr, "\n[sluice: the implementation's stderr passed %zu bytes; the rest is "
                        "not shown]\n", im->o.stderr_pass);
      im->stderr_dropped += (size_t)r - pass;
    }
  }
}

void impl_stop(impl *im) {
  if (im->pid > 0) {
    close_fd(&im->to); /* end of input: a well-behaved server exits now */
    if (!reap(im, 0.2)) {
      kill(-im->pid, SIGTERM);
      if (!reap(im, 1.0)) {
        kill(-im->pid, SIGKILL);
        reap(im, 5.0);
      }
    }
    /* Whatever it started and left in its group goes too. */
    kill(-im->pid, SIGKILL);
    if (im->err >= 0) drain_stderr(im);
  }
  close_fd(&im->to);
  close_fd(&im->from);
  close_fd(&im->err);
  tbuf_free(&im->wq);
  tbuf_free(&im->line);
  free(im->last);
  im->last = NULL;
  im->wq_off = im->line_scan = im->line_start = 0;
  im->pid = 0;
}

int impl_restart(impl *im) {
  impl_opts o = im->o;
  impl_stop(im);
  return impl_start(im, &o);
}

void impl_send(impl *im, const char *line, size_t n) {
  /* Drop what was written already, so the queue holds only what is
   * pending (bounded by the requests in flight), however long the run. */
  if (im->wq_off) {
    memmove(im->wq.p, im->wq.p + im->wq_off, im->wq.n - im->wq_off);
    im->wq.n -= im->wq_off;
    im->wq_off = 0;
  }
  tbuf_xadd(&im->wq, line, n);
  tbuf_xadd(&im->wq, "\n", 1);
}

/* Writes queued request bytes as far as the pipe takes them. -1 when the
 * implementation no longer reads (its stdin closed). */
static int flush_requests(impl *im) {
  while (im->wq_off < im->wq.n) {
    ssize_t w = write(im->to, im->wq.p + im->wq_off, im->wq.n - im->wq_off);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return 0;
      return -1;
    }
    im->wq_off += (size_t)w;
  }
  im->wq.n = im->wq_off = 0;
  return 0;
}

/* A complete line in the read buffer, from line_start: its length
 * (without the newline). line_scan is where the search for the newline
 * resumes, so a long line is scanned once. */
static int have_line(impl *im, size_t *len) {
  char *nl = im->line.n > im->line_scan
                 ? memchr(im->line.p + im->line_scan, '\n', im->line.n - im->line_scan)
                 : NULL;
  if (!nl) {
    im->line_scan = im->line.n;
    return 0;
  }
  *len = (size_t)(nl - im->line.p) - im->line_start;
  return 1;
}

enum impl_event impl_next_line(impl *im, char **line, size_t *n) {
  double deadline = now_seconds() + im->o.timeout;
  for (;;) {
    size_t len;
    if (have_line(im, &len)) {
      im->answered = 1;
      free(im->last);
      char *out = im->last = xstrndup(im->line.p + im->line_start, len);
      im->line_start += len + 1;
      im->line_scan = im->line_start;
      if (len && out[len - 1] == '\r') out[--len] = '\0';
      *line = out;
      *n = len;
      return IMPL_LINE;
    }
    if (im->line.n - im->line_start > im->o.max_line) return IMPL_TOOLONG;
    if (im->from < 0) return IMPL_DIED;
    double left = deadline - now_seconds();
    if (left <= 0) return IMPL_TIMEOUT;
    struct pollfd pf[3];
    int np = 0, ifrom = -1, ierr = -1, ito = -1;
    pf[np].fd = im->from;
    pf[np].events = POLLIN;
    ifrom = np++;
    if (im->err >= 0) {
      pf[np].fd = im->err;
      pf[np].events = POLLIN;
      ierr = np++;
    }
    if (im->to >= 0 && im->wq_off < im->wq.n) {
      pf[np].fd = im->to;
      pf[np].events = POLLOUT;
      ito = np++;
    }
    int ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
    int r = poll(pf, (nfds_t)np, ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return IMPL_DIED;
    }
    if (ierr >= 0 && pf[ierr].revents) drain_stderr(im);
    if (ito >= 0 && pf[ito].revents) {
      if ((pf[ito].revents & (POLLERR | POLLHUP)) || flush_requests(im)) {
        close_fd(&im->to); /* it stopped reading; its answers may still come */
        im->wq.n = im->wq_off = 0;
      }
    }
    if (pf[ifrom].revents) {
      if (im->line_start) { /* the lines handed out go, before the buffer grows */
        memmove(im->line.p, im->line.p + im->line_start, im->line.n - im->line_start);
        im->line.n -= im->line_start;
        im->line_scan -= im->line_start;
        im->line_start = 0;
      }
      if (tbuf_reserve(&im->line, 65536)) die("out of memory reading an answer");
      ssize_t rd = read(im->from, im->line.p + im->line.n, im->line.cap - im->line.n - 1);
      if (rd < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (rd <= 0) {
        close_fd(&im->from);
        if (im->err >= 0) drain_stderr(im);
        continue; /* a last line without a newline is not an answer */
      }
      im->line.n += (size_t)rd;
      im->line.p[im->line.n] = '\0';
    }
  }
}

void impl_describe_end(impl *im, tbuf *out, const char *indent, int with_status) {
  if (im->err >= 0) drain_stderr(im);
  if (!with_status) {
    /* nothing about the exit */
  } else if (reap(im, 0.5)) {
    int st = im->status;
    if (WIFEXITED(st)) {
      int code = WEXITSTATUS(st);
      tbuf_xprintf(out, "%sthe implementation exited with status %d", indent, code);
      /* sh -c reports a command that a signal ended as 128 + the signal. */
      if (code == 127) tbuf_xadds(out, " (the shell could not find the command)");
      else if (code > 128 && code < 128 + 65)
        tbuf_xprintf(out, " (the command was killed by signal %d (%s))", code - 128,
                     strsignal(code - 128));
      tbuf_xadds(out, "\n");
    } else if (WIFSIGNALED(st)) {
      tbuf_xprintf(out, "%sthe implementation was killed by signal %d (%s)\n", indent,
                   WTERMSIG(st), strsignal(WTERMSIG(st)));
    }
  } else {
    tbuf_xprintf(out, "%sthe implementation closed its output but is still running\n", indent);
  }
  if (im->tail_len) {
    /* The last few lines of the ring. */
    char *t = xmalloc(im->tail_len + 1);
    size_t start = (im->tail_pos + IMPL_TAIL - im->tail_len) % IMPL_TAIL;
    for (size_t i = 0; i < im->tail_len; i++) t[i] = im->tail[(start + i) % IMPL_TAIL];
    size_t n = im->tail_len;
    while (n && (t[n - 1] == '\n' || t[n - 1] == '\r')) n--;
    t[n] = '\0';
    size_t from = n, lines = 0;
    while (from > 0 && lines < 8) {
      from--;
      if (t[from] == '\n') lines++;
    }
    if (t[from] == '\n') from++;
    tbuf_xprintf(out, "%slast lines of its stderr:\n", indent);
    for (char *line = t + from; *line;) {
      char *e = strchr(line, '\n');
      size_t l = e ? (size_t)(e - line) : strlen(line);
      tbuf_xprintf(out, "%s  | ", indent);
      for (size_t i = 0; i < l; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c < 0x20 && c != '\t') tbuf_xprintf(out, "\\x%02x", c);
        else tbuf_xadd(out, line + i, 1);
      }
      tbuf_xadds(out, "\n");
      if (!e) break;
      line = e + 1;
    }
    free(t);
  }
}
