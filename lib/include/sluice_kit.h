/*
 * sluice_kit.h: the public header of libsluice-kit, the part of sluice that
 * reads JSON. libsluice (sluice.h) needs only libc and takes typed options
 * structs; the kit translates the filter protocol's JSON options into those
 * structs, so a program that names filters and options in JSON (the
 * protocol server, a test runner, a pipeline file) links libsluice-kit as
 * well (pkg-config sluice-kit, or the CMake target sluice::kit). The kit
 * links jansson privately: nothing here exposes a jansson type. An example
 * (docs/examples/kit_options.c, which CTest compiles and runs):
 *
 *     sluice_filter *f;
 *     sluice_error err;
 *     const char *opts = "{\"tags\": [\"think\"]}";
 *     if (sluice_filter_new_json(&f, "think", opts, strlen(opts), &sink, NULL, &err) !=
 *         SLUICE_OK)
 *       fprintf(stderr, "%s\n", err.message);
 *
 * Reading the JSON allocates through jansson's allocator
 * (json_set_alloc_funcs); memory running out there is SLUICE_NOMEM. The
 * filter itself allocates through mem, as every filter does. (jansson
 * 2.14's lexer can misread when an allocation fails inside a token longer
 * than 16 bytes; a failure it reports as a parse error is told apart by
 * parsing again.)
 */
#ifndef SLUICE_KIT_H
#define SLUICE_KIT_H

#include "sluice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options read from JSON: a filter's kind and its typed options struct,
 * with everything the struct points to (strings, lists, a pipeline's
 * stages) owned by the handle. */
typedef struct sluice_options sluice_options;

/* Reads a filter's protocol options (UTF-8 JSON text; NULL or "" means {})
 * for the filter of protocol name `filter`. An unknown option key, a wrong
 * type or a bad value is SLUICE_BAD_OPTION with a message in *err naming
 * the key (values are checked once more, by the filter's constructor); an
 * unknown filter name is SLUICE_UNSUPPORTED. */
SLUICE_API sluice_status sluice_options_from_json(sluice_options **out, const char *filter,
                                                  const char *json, size_t len,
                                                  sluice_error *err);
SLUICE_API sluice_filter_kind sluice_options_kind(const sluice_options *o);
/* The options struct (a const sluice_think_opts *, ...: see the kind),
 * valid until sluice_options_free. */
SLUICE_API const void *sluice_options_get(const sluice_options *o);
SLUICE_API void sluice_options_free(sluice_options *o);

/* Builds any filter from its protocol name and JSON options: the two calls
 * above, then sluice_filter_new. */
SLUICE_API sluice_status sluice_filter_new_json(sluice_filter **out, const char *filter,
                                                const char *options_json, size_t options_len,
                                                const sluice_sink *sink, const sluice_mem *mem,
                                                sluice_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SLUICE_KIT_H */
