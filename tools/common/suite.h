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
  char **features;     /* its rule classes: the file's, its own, and those the runner
                          derives (FORMAT.md "Features"); sorted, each once */
  size_t nfeatures;
} tcase;

/* 1 if the case has the feature. */
int tcase_has_feature(const tcase *c, const char *name);

typedef struct caselist {
  tcase *v;
  size_t n, cap;
  char *version;    /* the suites' version (suites.json), or NULL */
  uint64_t digest;  /* FNV-1a of the case files read, in order */
  size_t files;     /* how many */
  json_t *features; /* suites.json's "features": name -> meaning (NULL: none) */
} caselist;

/* The features the runner derives from a case itself (FORMAT.md). */
extern const char *const derived_features[];

/* "version 3, digest 0123456789abcdef, 70 files": how to name the suites a
 * run read, in every output format. */
void suites_describe(const caselist *cl, tbuf *out);

typedef struct suite_select {
  const char *dir;      /* the suites folder */
  const char **suites;  /* "think", or one file: "think/anchored.json" */
  size_t nsuites;       /* 0: every suite in dir */
  const char **cases;   /* case ids, or parts of ids, to run (any matches) */
  size_t ncases;
} suite_select;

/* Loads the selected cases (in suite, file and case order), and the suites'
 * version and feature list from DIR/suites.json when there is one. On a bad
 * file or case, an id used twice in a suite, or a feature suites.json does
 * not list, prints "sluice CMD: file: case N: reason" and returns -1. */
int suites_load(caselist *cl, const suite_select *sel, const char *cmd);
void caselist_free(caselist *cl);
void tcase_free(tcase *c);

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
 * case id or SUITE/CASE-ID, optionally followed by "@MODE,MODE" (split
 * modes; report.h): the known failures of `sluice conform --skip`, the
 * known divergences of `sluice diff`. */
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
/* The first line naming case c (an "@MODES" ignored), or NULL. */
const idnote *idnotes_find(const idnotes *l, const tcase *c);
void idnotes_free(idnotes *l);

/* The suites folder: $SLUICE_SUITES, else <exe>/../share/sluice/conformance/
 * suites (an installed sluice, wherever it was moved), else the source
 * tree's (a binary run from its build folder; datadir.h). NULL when none. */
const char *suites_dir_default(void);

#endif
