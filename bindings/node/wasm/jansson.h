/*
 * jansson.h for the WebAssembly build: the part of jansson's API that
 * libsluice-kit uses (lib/src/kit), over the library's own JSON reader
 * (lib/src/provider/jread.c).
 *
 * jansson has no wasm32 build here, and the kit is what turns a filter's
 * JSON options into its typed options: compiled unchanged against this
 * header, the kit gives the Node package every option the library reads,
 * with the reference's checks and messages, and an option the kit learns
 * (a think format) needs no change in the package. Only reading is here:
 * objects keep their keys in order (a repeated key's later value replaces
 * the first, in its place), integers are json_int_t (a larger one is an
 * error, as in jansson), strings may hold NUL (JSON_ALLOW_NUL is always on).
 * Not jansson's code: written against its documented behaviour.
 */
#ifndef SLUICE_WASM_JANSSON_H
#define SLUICE_WASM_JANSSON_H

#include <stddef.h>

typedef enum json_type {
  JSON_OBJECT,
  JSON_ARRAY,
  JSON_STRING,
  JSON_INTEGER,
  JSON_REAL,
  JSON_TRUE,
  JSON_FALSE,
  JSON_NULL
} json_type;

typedef long long json_int_t;
typedef struct json_t json_t;

#define JSON_ERROR_TEXT_LENGTH 160
enum json_error_code { json_error_unknown, json_error_out_of_memory, json_error_invalid_syntax };
typedef struct json_error_t {
  int line, column, position;
  char source[80];
  char text[JSON_ERROR_TEXT_LENGTH];
  enum json_error_code code;
} json_error_t;

#define JSON_ALLOW_NUL 0x10

typedef void *(*json_malloc_t)(size_t);
typedef void (*json_free_t)(void *);
void json_get_alloc_funcs(json_malloc_t *m, json_free_t *f);

json_t *json_loadb(const char *buf, size_t len, size_t flags, json_error_t *err);
static inline enum json_error_code json_error_code(const json_error_t *e) { return e->code; }

json_type json_typeof(const json_t *v);
#define json_is_object(v) ((v) && json_typeof(v) == JSON_OBJECT)
#define json_is_array(v) ((v) && json_typeof(v) == JSON_ARRAY)
#define json_is_string(v) ((v) && json_typeof(v) == JSON_STRING)
#define json_is_integer(v) ((v) && json_typeof(v) == JSON_INTEGER)
#define json_is_real(v) ((v) && json_typeof(v) == JSON_REAL)
#define json_is_true(v) ((v) && json_typeof(v) == JSON_TRUE)
#define json_is_false(v) ((v) && json_typeof(v) == JSON_FALSE)
#define json_is_boolean(v) (json_is_true(v) || json_is_false(v))
#define json_is_null(v) ((v) && json_typeof(v) == JSON_NULL)

json_t *json_incref(json_t *v);
void json_decref(json_t *v);

json_t *json_object(void);
json_t *json_object_get(const json_t *o, const char *key);
size_t json_object_size(const json_t *o);
/* The i-th key and value in order, for json_object_foreach. */
const char *json_object_key_at(const json_t *o, size_t i);
json_t *json_object_value_at(const json_t *o, size_t i);
#define json_object_foreach(o, key, value)                                           \
  for (size_t json_i_ = 0;                                                          \
       json_i_ < json_object_size(o) && ((key) = json_object_key_at((o), json_i_),  \
                                         (value) = json_object_value_at((o), json_i_), 1); \
       json_i_++)

size_t json_array_size(const json_t *a);
json_t *json_array_get(const json_t *a, size_t i);
const char *json_string_value(const json_t *s);
size_t json_string_length(const json_t *s);
json_int_t json_integer_value(const json_t *i);

/* Only the format the kit uses: "{sO}" (an object of one key, the value's
 * reference counted again). */
json_t *json_pack(const char *fmt, ...);

#endif
