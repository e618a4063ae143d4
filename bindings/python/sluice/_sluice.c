/*
 * _sluice.c: the CPython extension under the sluice package: a Filter type
 * over ../../common/sluice_bind.c, and the Output record each call returns.
 *
 * Why an extension and not ctypes: at 4-byte chunks the cost of a call is
 * the binding's, not the filter's. ctypes pays for argument conversion and
 * for reading the five channels and the events back with a call each; here
 * feed() is one C call that builds its result directly (bench.py measures
 * both: README, "Python").
 *
 * Text: a filter fed str returns str. Chunks of str are whole characters,
 * but a filter may still release part of a character (a stream fed in
 * bytes elsewhere, an invalid byte), so each channel is decoded
 * incrementally and an unfinished sequence waits for the next call; bytes
 * that are not UTF-8 come out as lone surrogates (errors="surrogateescape"),
 * as the input's did, so nothing is lost either way.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "sluice_bind.h"

static PyObject *error_type;   /* sluice.Error, from sluice/_error.py */
static PyObject *json_loads;   /* json.loads, for the json filter's value */
static PyTypeObject output_type;

static PyStructSequence_Field output_fields[] = {
    {"text", "what the user sees"},
    {"thought", "hidden reasoning"},
    {"other", "tool calls and results"},
    {"markup", "recognised tags and control tokens"},
    {"dropped", "what a rule removed"},
    {"events", "events in the filter protocol's form (dicts)"},
    {"value", "the json filter's value (after finish), else None"},
    {"truncated", "whether the json filter's input was cut short, else None"},
    {"unloadable", "the json filter's value is valid JSON that a reader with doubles "
                   "(jansson) cannot load: {\"reason\": str, \"offset\": int}, else None"},
    {NULL, NULL}};

static PyStructSequence_Desc output_desc = {
    "sluice.Output",
    "What a filter released: each channel (str, or bytes when fed bytes), the events, and "
    "the json filter's value.",
    output_fields, 8}; /* unloadable by name only: an Output is still the 8-tuple it was */

enum { MODE_UNSET, MODE_STR, MODE_BYTES };

typedef struct {
  PyObject_HEAD
  sb_filter *b;
  int mode;
  char tail[SLUICE_CHANNEL_COUNT][4]; /* str mode: an unfinished UTF-8 sequence */
  unsigned char ntail[SLUICE_CHANNEL_COUNT];
} FilterObject;

/* Raises sluice.Error(message, status, offset). */
static PyObject *raise_error(const sluice_error *e) {
  PyObject *exc = PyObject_CallFunction(error_type, "ssK", e->message,
                                        sluice_status_name(e->status),
                                        (unsigned long long)e->offset);
  if (exc) {
    PyErr_SetObject(error_type, exc);
    Py_DECREF(exc);
  }
  return NULL;
}

static PyObject *decode(const char *p, size_t n) {
  return PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "surrogateescape");
}

/* A channel's bytes of this call as str: the last call's unfinished
 * sequence first, this call's kept back (final: decode everything). */
static PyObject *channel_str(FilterObject *self, int ch, const char *p, size_t n, int final) {
  char *joined = NULL;
  size_t t = self->ntail[ch];
  if (t) {
    joined = PyMem_Malloc(t + n);
    if (!joined) return PyErr_NoMemory();
    memcpy(joined, self->tail[ch], t);
    if (n) memcpy(joined + t, p, n);
    p = joined;
    n += t;
  }
  size_t keep = final ? 0 : sluice_utf8_tail(p, n);
  PyObject *s = decode(p, n - keep);
  memcpy(self->tail[ch], p + n - keep, keep);
  self->ntail[ch] = (unsigned char)keep;
  PyMem_Free(joined);
  return s;
}

/* The json filter's value: its text through json.loads. The library's
 * default depth limit is jansson's, 2048 levels, and Python's json module
 * recurses once a level: the recursion limit is raised for the call, and a
 * value deeper still (max_depth 0) is invalid_json, as it is in the protocol
 * for a value jansson cannot read. */
#define VALUE_DEPTH 2100

static PyObject *json_value(FilterObject *self, const char *p, size_t n) {
  int old = Py_GetRecursionLimit();
  Py_SetRecursionLimit(old + VALUE_DEPTH);
  PyObject *v = PyObject_CallFunction(json_loads, "s#", p, (Py_ssize_t)n);
  Py_SetRecursionLimit(old);
  if (!v && PyErr_ExceptionMatches(PyExc_RecursionError)) {
    PyErr_Clear();
    sluice_error e = {SLUICE_JSON_INVALID, sluice_fed(sb_filter_of(self->b)), ""};
    snprintf(e.message, sizeof e.message,
             "the repaired JSON is valid but nests deeper than Python's json module reads");
    return raise_error(&e);
  }
  return v;
}

static PyObject *field_value(FilterObject *self, const sb_field *f) {
  switch (f->kind) {
  case SB_BYTES:
    if (self->mode == MODE_BYTES) return PyBytes_FromStringAndSize(f->p, (Py_ssize_t)f->n);
    return decode(f->p, f->n);
  case SB_NAME: return decode(f->p, f->n);
  case SB_RAW: return json_value(self, f->p, f->n);
  case SB_INT: return PyLong_FromLongLong(f->i);
  case SB_BOOL: return PyBool_FromLong((long)f->i);
  default: Py_RETURN_NONE;
  }
}

/* Sets d[key] = v. Keys are the string literals of sluice_bind.c, about
 * 25 of them: each str is made once and found again by the literal's
 * address (the cache holds its reference for the life of the process). */
static int set_field(PyObject *d, const char *key, PyObject *v) {
  static struct {
    const char *key;
    PyObject *obj;
  } cache[64];
  static size_t n;
  for (size_t i = 0; i < n; i++)
    if (cache[i].key == key) return PyDict_SetItem(d, cache[i].obj, v);
  if (n == sizeof cache / sizeof cache[0]) return PyDict_SetItemString(d, key, v);
  PyObject *obj = PyUnicode_InternFromString(key);
  if (!obj) return -1;
  cache[n].key = key;
  cache[n++].obj = obj;
  return PyDict_SetItem(d, obj, v);
}

/* The Output of the call just made. */
static PyObject *output(FilterObject *self, int final) {
  PyObject *out = PyStructSequence_New(&output_type);
  if (!out) return NULL;
  for (int c = 0; c < SLUICE_CHANNEL_COUNT; c++) {
    size_t n;
    const char *p = sb_channel(self->b, (sluice_channel)c, &n);
    PyObject *v;
    if (self->mode == MODE_BYTES) v = PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
    else if (n == 0 && self->ntail[c] == 0) v = PyUnicode_New(0, 0);
    else v = channel_str(self, c, p, n, final);
    if (!v) goto fail;
    PyStructSequence_SET_ITEM(out, c, v);
  }
  PyObject *events = PyList_New(0), *value = Py_None, *truncated = Py_None;
  Py_INCREF(value);
  Py_INCREF(truncated);
  Py_INCREF(Py_None);
  PyStructSequence_SET_ITEM(out, 5, events);
  PyStructSequence_SET_ITEM(out, 6, value);
  PyStructSequence_SET_ITEM(out, 7, truncated);
  PyStructSequence_SET_ITEM(out, 8, Py_None);
  if (!events) goto fail;
  size_t nev = sb_event_count(self->b);
  for (size_t i = 0; i < nev; i++) {
    sluice_event ev;
    sb_field f[SB_MAX_FIELDS];
    sb_event(self->b, i, &ev);
    size_t nf = sb_describe(&ev, f);
    if (nf == 0) continue;
    if (ev.type == SLUICE_EV_VALUE) { /* beside the events, as in the protocol */
      /* unloadable (f[3] reason, f[4] offset): {"reason": ..., "offset": ...},
       * and the value as Python's json reads it (1e400 is inf), or None when
       * it nests deeper than Python's json module reads */
      PyObject *v;
      if (nf == 5) {
        PyObject *u = Py_BuildValue("{s:N,s:N}", "reason", field_value(self, &f[3]), "offset",
                                    field_value(self, &f[4]));
        if (!u) goto fail;
        Py_DECREF(PyTuple_GET_ITEM(out, 8));
        PyStructSequence_SET_ITEM(out, 8, u);
        v = json_value(self, f[1].p, f[1].n);
        if (!v && PyErr_ExceptionMatches(error_type)) {
          PyErr_Clear();
          v = Py_None;
          Py_INCREF(v);
        }
      } else
        v = field_value(self, &f[1]);
      if (!v) goto fail;
      Py_DECREF(PyTuple_GET_ITEM(out, 6));
      PyStructSequence_SET_ITEM(out, 6, v);
      Py_DECREF(PyTuple_GET_ITEM(out, 7));
      PyStructSequence_SET_ITEM(out, 7, PyBool_FromLong((long)f[2].i));
      continue;
    }
    PyObject *d = PyDict_New();
    if (!d) goto fail;
    for (size_t k = 0; k < nf; k++) {
      PyObject *v = field_value(self, &f[k]);
      if (!v || set_field(d, f[k].key, v)) {
        Py_XDECREF(v);
        Py_DECREF(d);
        goto fail;
      }
      Py_DECREF(v);
    }
    int rc = PyList_Append(events, d);
    Py_DECREF(d);
    if (rc) goto fail;
  }
  return out;
fail:
  Py_DECREF(out);
  return NULL;
}

static int filter_init(FilterObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"name", "options", NULL};
  const char *name, *opts = NULL;
  Py_ssize_t len = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|z#", names, &name, &opts, &len)) return -1;
  if (self->b) {
    PyErr_SetString(PyExc_RuntimeError, "the filter is already initialised");
    return -1;
  }
  sluice_error err;
  sluice_status st;
  Py_BEGIN_ALLOW_THREADS
  st = sb_new(&self->b, name, opts, (size_t)len, &err);
  Py_END_ALLOW_THREADS
  if (st != SLUICE_OK) {
    raise_error(&err);
    return -1;
  }
  return 0;
}

static void filter_dealloc(FilterObject *self) {
  sb_free(self->b);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_open(FilterObject *self) {
  if (self->b) return 0;
  PyErr_SetString(PyExc_ValueError, "the filter is closed");
  return -1;
}

/* Large chunks are fed without the GIL; small ones are not worth the
 * switch (it costs more than the filter at a few bytes). */
#define NOGIL_FROM 65536

static PyObject *filter_feed(FilterObject *self, PyObject *data) {
  if (check_open(self)) return NULL;
  const char *p;
  Py_ssize_t n;
  int mode;
  PyObject *encoded = NULL; /* str with lone surrogates, back to its bytes */
  Py_buffer view = {0};
  if (PyUnicode_Check(data)) {
    mode = MODE_STR;
    p = PyUnicode_AsUTF8AndSize(data, &n);
    if (!p) {
      PyErr_Clear();
      encoded = PyUnicode_AsEncodedString(data, "utf-8", "surrogateescape");
      if (!encoded) return NULL;
      p = PyBytes_AS_STRING(encoded);
      n = PyBytes_GET_SIZE(encoded);
    }
  } else {
    mode = MODE_BYTES;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)) {
      PyErr_Format(PyExc_TypeError, "feed() takes str or bytes, not %.100s",
                   Py_TYPE(data)->tp_name);
      return NULL;
    }
    p = view.buf;
    n = view.len;
  }
  PyObject *r = NULL;
  if (self->mode != MODE_UNSET && self->mode != mode) {
    PyErr_SetString(PyExc_TypeError, self->mode == MODE_STR
                                         ? "this filter was fed str: feed str, not bytes"
                                         : "this filter was fed bytes: feed bytes, not str");
    goto done;
  }
  self->mode = mode;
  sluice_status st;
  if (n >= NOGIL_FROM) {
    Py_BEGIN_ALLOW_THREADS
    st = sb_feed(self->b, p, (size_t)n);
    Py_END_ALLOW_THREADS
  } else {
    st = sb_feed(self->b, p, (size_t)n);
  }
  r = st == SLUICE_OK ? output(self, 0) : raise_error(sb_error(self->b));
done:
  if (view.obj) PyBuffer_Release(&view);
  Py_XDECREF(encoded);
  return r;
}

static PyObject *filter_finish(FilterObject *self, PyObject *unused) {
  (void)unused;
  if (check_open(self)) return NULL;
  if (self->mode == MODE_UNSET) self->mode = MODE_STR;
  if (sb_finish(self->b) != SLUICE_OK) return raise_error(sb_error(self->b));
  return output(self, 1);
}

static PyObject *filter_close(FilterObject *self, PyObject *unused) {
  (void)unused;
  sb_free(self->b);
  self->b = NULL;
  Py_RETURN_NONE;
}

static PyObject *filter_get_held(FilterObject *self, void *unused) {
  (void)unused;
  if (check_open(self)) return NULL;
  return PyLong_FromUnsignedLongLong(sluice_held(sb_filter_of(self->b)));
}

static PyObject *filter_get_fed(FilterObject *self, void *unused) {
  (void)unused;
  if (check_open(self)) return NULL;
  return PyLong_FromUnsignedLongLong(sluice_fed(sb_filter_of(self->b)));
}

static PyObject *filter_get_name(FilterObject *self, void *unused) {
  (void)unused;
  if (check_open(self)) return NULL;
  return PyUnicode_FromString(sluice_filter_name(sb_filter_of(self->b)));
}

static PyObject *filter_get_closed(FilterObject *self, void *unused) {
  (void)unused;
  return PyBool_FromLong(self->b == NULL);
}

static PyMethodDef filter_methods[] = {
    {"feed", (PyCFunction)filter_feed, METH_O,
     "feed(data) -> Output: what feeding this chunk (str or bytes) released."},
    {"finish", (PyCFunction)filter_finish, METH_NOARGS,
     "finish() -> Output: the end of the stream: what was held back, the final events."},
    {"close", (PyCFunction)filter_close, METH_NOARGS, "close(): frees the filter."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef filter_getset[] = {
    {"held", (getter)filter_get_held, NULL, "bytes fed and not yet released", NULL},
    {"fed", (getter)filter_get_fed, NULL, "bytes fed so far", NULL},
    {"name", (getter)filter_get_name, NULL, "the filter's protocol name", NULL},
    {"closed", (getter)filter_get_closed, NULL, "whether close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject filter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sluice._sluice.Filter",
    .tp_basicsize = sizeof(FilterObject),
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Filter(name, options_json=None): a sluice filter by its protocol name.",
    .tp_methods = filter_methods,
    .tp_getset = filter_getset,
    .tp_init = (initproc)filter_init,
    .tp_new = PyType_GenericNew,
};

static PyObject *mod_version(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return PyUnicode_FromString(sluice_version());
}

/* _bench(name, options_json, data, chunk, sink): a new filter fed data
 * chunk bytes at a time and finished, all in C, for bench.py to set the
 * binding's calls against. sink "count" adds up lengths (what `sluice bench`
 * measures), "collect" keeps every call's output in the library's collector
 * (sluice_output, emptied after each call: the least a program that uses
 * the output does), "shim" goes through sluice_bind.c (the C half of feed). */
static int count_emit(void *user, sluice_channel ch, const char *p, size_t n) {
  (void)ch;
  (void)p;
  *(size_t *)user += n;
  return 0;
}

static PyObject *mod_bench(PyObject *m, PyObject *args) {
  (void)m;
  const char *name, *opts, *how;
  Py_ssize_t olen, chunk;
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "sz#y*ns", &name, &opts, &olen, &view, &chunk, &how)) return NULL;
  if (chunk <= 0) chunk = view.len ? view.len : 1;
  int mode = strcmp(how, "count") == 0 ? 0 : strcmp(how, "collect") == 0 ? 1 : 2;
  sluice_error err = {SLUICE_OK, 0, ""};
  sluice_status st;
  Py_BEGIN_ALLOW_THREADS
  const char *p = view.buf;
  size_t counted = 0;
  sluice_output *out = NULL;
  sluice_filter *f = NULL;
  sb_filter *b = NULL;
  if (mode == 2) {
    st = sb_new(&b, name, opts, (size_t)olen, &err);
  } else {
    sluice_sink sink = {count_emit, NULL, &counted};
    st = mode == 1 ? sluice_output_new(&out, NULL) : SLUICE_OK;
    if (mode == 1 && st == SLUICE_OK) sink = sluice_output_sink(out);
    if (st == SLUICE_OK) st = sluice_filter_new_json(&f, name, opts, (size_t)olen, &sink, NULL, &err);
  }
  for (Py_ssize_t at = 0; at < view.len && st == SLUICE_OK; at += chunk) {
    size_t n = (size_t)(view.len - at < chunk ? view.len - at : chunk);
    st = b ? sb_feed(b, p + at, n) : sluice_feed(f, p + at, n);
    if (out) sluice_output_reset(out);
  }
  if (st == SLUICE_OK) st = b ? sb_finish(b) : sluice_finish(f);
  if (st != SLUICE_OK && err.status == SLUICE_OK) err = b ? *sb_error(b) : *sluice_get_error(f);
  sb_free(b);
  sluice_free(f);
  sluice_output_free(out);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (st != SLUICE_OK) return raise_error(&err);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"version", mod_version, METH_NOARGS, "the version of libsluice"},
    {"_bench", mod_bench, METH_VARARGS, "_bench(name, options_json, data, chunk, sink): benchmarks"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "sluice._sluice",
                                        "The C half of the sluice package.", -1,
                                        module_methods};

PyMODINIT_FUNC PyInit__sluice(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  PyObject *errors = PyImport_ImportModule("sluice._error");
  PyObject *json = PyImport_ImportModule("json");
  if (!errors || !json) goto fail;
  error_type = PyObject_GetAttrString(errors, "Error");
  json_loads = PyObject_GetAttrString(json, "loads");
  Py_CLEAR(errors);
  Py_CLEAR(json);
  if (!error_type || !json_loads) goto fail;
  if (output_type.tp_name == NULL && PyStructSequence_InitType2(&output_type, &output_desc))
    goto fail;
  if (PyType_Ready(&filter_type)) goto fail;
  Py_INCREF(&output_type);
  Py_INCREF(&filter_type);
  if (PyModule_AddObject(m, "Output", (PyObject *)&output_type) ||
      PyModule_AddObject(m, "Filter", (PyObject *)&filter_type))
    goto fail;
  return m;
fail:
  Py_XDECREF(errors);
  Py_XDECREF(json);
  Py_DECREF(m);
  return NULL;
}
