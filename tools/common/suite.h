/*
 * suite.h: the golden suites (conformance/FORMAT.md): loading the case
 * files of conformance/suites/SUITE/FILE.json into cases, and finding the
 * suites folder.
 */
#ifndef SLUICE_TOOLS_SUITE_H
#define SLUICE_TOOLS_SUITE_H

#include "answer.h"
#include "chunking.h"
#include "util.h"

typedef struct tcase {
  char *suite;   /* "think" */
  char *file;    /* "think/channel-basics.json" */
  char *id;      /* "y_block_in_middle" */
  char *filter;  /* "think" */
  char *source;  /* where the rule comes from */
  char *options; /* compact JSON text */
  tbytes input;
  chunking recorded; /* the case's own "chunks" */
  int has_recorded;
  answer expect; /* valid when has_expect */
  int has_expect;
  int64_t expect_held; /* expect.max_held, or -1 */
  char verdict;        /* 'y', 'n' or 'i' */
} tcase;

typedef struct caselist {
  tcase *v;
  size_t n, cap;
} caselist;

typedef struct suite_select {
  const char *dir;      /* the suites folder */
  const char **suites;  /* "think", or one file: "think/anchored.json" */
  size_t nsuites;       /* 0: every suite in dir */
  const char **cases;   /* case ids, or parts of ids, to run (any matches) */
  size_t ncases;
} suite_select;

/* Loads the selected cases (in suite, file and case order). On a bad file
 * or case, or an id used twice in a suite, prints "sluice CMD: file: case
 * N: reason" and returns -1. */
int suites_load(caselist *cl, const suite_select *sel, const char *cmd);
void caselist_free(caselist *cl);

/* Appends a case per recorded provider stream: PATH is a capture file
 * (.sse, .ndjson, .chunks.jsonl, .capture.jsonl) or a folder of them, read
 * through the one reader (capture.h). Each is a case of suite "captures",
 * id its file name, filter "provider" with the default options (framing and
 * provider detected from the content), the body as a client reads it as
 * input, the pieces it came in as its recorded chunking, and no expected
 * answer (the reference's is the one). */
#define CAPTURE_CASE_MAX (16u << 20)
int captures_load(caselist *cl, const char *path, const suite_select *sel, const char *cmd);

/* A file of lines "ID NOTE" ('#' comments and blank lines skipped), ID a
 * case id or SUITE/CASE-ID: the known failures of `sluice conform --skip`,
 * the known divergences of `sluice diff`. */
typedef struct idnote {
  char *id, *note; /* note: the rest of the line, or "" */
  size_t line;     /* its line number in the file */
} idnote;

typedef struct idnotes {
  idnote *v;
  size_t n;
  char *path;
} idnotes;

/* Appends the file's lines; on a read error prints "sluice CMD: PATH: ..."
 * and returns -1. */
int idnotes_load(idnotes *l, const char *cmd, const char *path);
/* The first line naming case c, or NULL. */
const idnote *idnotes_find(const idnotes *l, const tcase *c);
void idnotes_free(idnotes *l);

/* The suites folder: $SLUICE_SUITES, else <exe>/../share/sluice/conformance/
 * suites (an installed sluice, wherever it was moved), else the source
 * tree's (a binary run from its build folder; datadir.h). NULL when none. */
const char *suites_dir_default(void);

#endif
