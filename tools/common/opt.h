/*
 * opt.h: the one option parser of every sluice command, table-driven as
 * curl's tool is. A command declares each option once, in a table: its
 * long name, its short letter, the name of its value, its kind (which
 * says how the value is checked and stored), where the value goes, and
 * its help text. The parser reads argv against the tables and --help is
 * generated from them, so the two cannot disagree.
 *
 *   static const opt json_opts[] = {
 *       {"max-depth", 0, "N", OPT_SIZE, OPT_AT(jargs, max_depth, size_t),
 *        .help = "nesting limit (default 2048; 0: none)"},
 *       {"log", 0, NULL, OPT_FLAG, OPT_AT(jargs, log, int), .help = "print each repair"},
 *       {0}};
 *
 * (The first five fields in order, the rest by name: .help, .min, .max,
 * .choices, .fn.)
 *
 * What the parser accepts: --name VALUE and --name=VALUE; -x VALUE and
 * -xVALUE for a short name; a flag takes no value; "--" ends the options;
 * "-" alone is an operand (standard input). Every other word is an
 * operand, wherever it stands. Errors read "sluice CMD: --opt: reason"
 * and are usage errors (exit status 2).
 */
#ifndef SLUICE_TOOLS_OPT_H
#define SLUICE_TOOLS_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A growable list of strings the list does not own (argv's words). */
typedef struct strlist {
  const char **v;
  size_t n;
} strlist;

void strlist_add(strlist *l, const char *s);
void strlist_free(strlist *l);

typedef enum opt_kind {
  OPT_END = 0,  /* ends a table: {0} */
  OPT_SECTION,  /* not an option: a heading in --help (help: its title) */
  OPT_FLAG,     /* no value: the int becomes 1 */
  OPT_STRING,   /* const char *: the last one given */
  OPT_LIST,     /* strlist: every one given, in order */
  OPT_INT,      /* int in [min, max] */
  OPT_SIZE,     /* size_t in [min, max] */
  OPT_U64,      /* uint64_t in [min, max] */
  OPT_I64,      /* int64_t in [min, max] (never negative: no default is) */
  OPT_NUMBER,   /* double, finite and >= 0 */
  OPT_POSITIVE, /* double, finite and > 0 */
  OPT_MILLIS,   /* whole milliseconds, stored as double seconds */
  OPT_CHOICE,   /* int: the index of the value in choices */
  OPT_CALL      /* fn(base, value); value is NULL when the option takes none */
} opt_kind;

/* An OPT_CALL handler. Returns 0, or -1 with the reason in why (the parser
 * prints "sluice CMD: --opt: why"; an empty why: already reported). */
typedef int (*opt_fn)(void *base, const char *value, char *why, size_t wl);

typedef struct opt {
  const char *name;  /* long name, without the "--" */
  char letter;       /* short name ('j' for -j), or 0 */
  const char *arg;   /* the value's name in --help ("N", "FILE"); NULL: takes none */
  opt_kind kind;
  size_t at;         /* where the value goes in the table's struct: OPT_AT */
  const char *help;  /* one paragraph, wrapped by --help; "\n" breaks a line */
  uint64_t min, max; /* integer kinds: the range; max 0: as large as the type holds */
  const char *const *choices; /* OPT_CHOICE: the words, NULL-terminated */
  opt_fn fn;                  /* OPT_CALL */
} opt;

/* The offset of `field` in `type`, checked at compile time to be of ctype
 * (a mismatch is a "distinct pointer types" diagnostic), so that a table
 * cannot store a size_t into an int. */
#define OPT_AT(type, field, ctype)                                                         \
  (offsetof(type, field) + 0 * sizeof((ctype *)0 == &((type *)0)->field))

#define OPT_MAX_TABLES 4

typedef struct opt_cmd {
  const char *name;     /* in messages and --help: "conform", "bench think" */
  const char *synopsis; /* after "usage: sluice NAME ": "CAPTURE [options]" */
  const char *intro;    /* what the command does, before the options (NULL: none) */
  const char *outro;    /* after the options (NULL: none) */
  const opt *tables[OPT_MAX_TABLES]; /* in --help order, then NULL */
  const char *operands; /* their name in messages ("CAPTURE"); NULL: takes none */
  size_t min_operands, max_operands; /* max 0: any number */
} opt_cmd;

/* Parses argv[1..argc) (argv[0] is the command's last word) against the
 * command's tables, storing into bases[i] (the struct of tables[i]) and
 * appending the operands to *operands (NULL when the command takes none).
 * Returns -1 to go on; else the exit status: 0 after --help (printed on
 * standard output), 2 after a usage error (printed on standard error). */
int opt_parse(const opt_cmd *c, void *const *bases, int argc, char **argv, strlist *operands);

/* The command's --help text, appended to out. */
void opt_help(const opt_cmd *c, tbuf *out);

/* A usage error found after parsing: "sluice CMD: what: reason" (what may
 * be NULL) on standard error. Returns 2, the exit status. */
int opt_error(const opt_cmd *c, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
