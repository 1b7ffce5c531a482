/* SPDX-License-Identifier: MIT */
/*
 * json.h - building, writing and reading JSON documents. The only file that knows
 * json-c; everything else sees `struct jval`, an opaque JSON value.
 *
 * Ownership: a container owns what is added to it, so json_free() on the root frees
 * the whole document. json_set() and json_append() take ownership of the value even
 * when they fail, so a caller never leaks on the error path.
 *
 * Errors are -errno: -ENOMEM, -EINVAL (wrong type, malformed document), -EFBIG (a
 * file over its size limit), or what open/read returned. Output parameters are left
 * untouched on failure.
 */
#ifndef DEBLOAT_JSON_H
#define DEBLOAT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jval;

enum json_kind {
	JSON_KIND_NULL,
	JSON_KIND_BOOL,
	JSON_KIND_INT,
	JSON_KIND_DOUBLE,
	JSON_KIND_STRING,
	JSON_KIND_OBJECT,
	JSON_KIND_ARRAY,
};

/* Where and why a document failed to parse: "line 3, column 7: unexpected character". */
struct json_error {
	unsigned line, column; /* 1-based; 0 when the error has no position (e.g. EFBIG) */
	char reason[80];
};

/* Constructors return NULL when out of memory. */
struct jval *json_new_object(void);
struct jval *json_new_array(void);
struct jval *json_new_string(const char *s);
struct jval *json_new_int(int64_t v);
struct jval *json_new_uint(uint64_t v);
struct jval *json_new_bool(bool v);
/* v must be finite (JSON has no NaN); written in the shortest form that reads back exact. */
struct jval *json_new_double(double v);

/* v == NULL stores a JSON null. Both take ownership of v, also on failure. */
int json_set(struct jval *obj, const char *key, struct jval *v);
int json_append(struct jval *arr, struct jval *v);
void json_free(struct jval *v);

/* Pretty-printed, two-space indent, ending with a newline. */
int json_write(FILE *f, struct jval *v);
/* Compact text owned by v (valid until v changes or is freed); NULL when out of memory. */
const char *json_text(struct jval *v, size_t *len);

/*
 * Parse exactly one document (whitespace around it is fine, anything else is not).
 * A document whose values would take more than JSON_MAX_PARSED_BYTES of memory once
 * parsed (estimated from the text before anything is allocated: an empty object costs
 * json-c about 700 bytes) is -EINVAL with err saying so: memory stays bounded whatever
 * the input, also for a small gzip file that inflates to millions of "{}".
 */
#define JSON_MAX_PARSED_MB    "256"
#define JSON_MAX_PARSED_BYTES (256ull << 20)
#define JSON_COST_OBJECT      700
#define JSON_COST_ARRAY	      300
#define JSON_COST_VALUE	      80
int json_parse(const char *buf, size_t len, struct jval **out, struct json_error *err);
/*
 * Say what json_parse's -EINVAL was into buf: "not JSON: line 3, column 7: REASON", or
 * "not JSON: REASON" where e has no position. Returns -EINVAL.
 */
int json_say_error(const struct json_error *e, char *buf, size_t len);
/* Read and parse a file of at most max_bytes; -EFBIG beyond that. */
int json_read_file(const char *path, size_t max_bytes, struct jval **out, struct json_error *err);

enum json_kind json_kind_of(const struct jval *v);
/* NULL when obj is not an object or has no such key (a stored null is also NULL). */
struct jval *json_get(const struct jval *obj, const char *key);
/* -ENOENT when absent or null, -EINVAL when of another type. */
int json_get_int(const struct jval *obj, const char *key, int64_t *out);
int json_get_bool(const struct jval *obj, const char *key, bool *out);
int json_get_string(const struct jval *obj, const char *key, const char **out);
size_t json_array_len(const struct jval *arr);
struct jval *json_array_at(const struct jval *arr, size_t i);

/* A value's own contents: -EINVAL when v is NULL or of another type. */
int json_int_of(const struct jval *v, int64_t *out);
int json_bool_of(const struct jval *v, bool *out);
const char *json_string_of(const struct jval *v); /* NULL unless a string */
/* A number (integer or not) as a double. */
int json_double_of(const struct jval *v, double *out);

/*
 * Call fn on each member of an object, in document order, until it returns nonzero
 * (returned as is). -EINVAL when obj is not an object.
 */
typedef int (*json_member_fn)(const char *key, struct jval *v, void *data);
int json_object_foreach(const struct jval *obj, json_member_fn fn, void *data);

#endif
