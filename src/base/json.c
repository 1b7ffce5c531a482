/* SPDX-License-Identifier: MIT */
/* json.c - json.h over json-c: the one place that includes its headers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fsutil.h"
#include "json.h"
#include "say.h"

#ifndef JSON_TOKENER_ALLOW_TRAILING_CHARS /* json-c < 0.15: strict mode did not check */
#define JSON_TOKENER_ALLOW_TRAILING_CHARS 0
#endif

/* struct jval is never defined: it is a struct json_object under another name. */
static struct json_object *J(const struct jval *v)
{
	return (struct json_object *)v;
}

static struct jval *V(struct json_object *o)
{
	return (struct jval *)o;
}

struct jval *json_new_object(void)
{
	return V(json_object_new_object());
}

struct jval *json_new_array(void)
{
	return V(json_object_new_array());
}

struct jval *json_new_string(const char *s)
{
	return s ? V(json_object_new_string(s)) : NULL;
}

struct jval *json_new_int(int64_t v)
{
	return V(json_object_new_int64(v));
}

struct jval *json_new_uint(uint64_t v)
{
	return V(json_object_new_uint64(v));
}

struct jval *json_new_bool(bool v)
{
	return V(json_object_new_boolean(v));
}

struct jval *json_new_double(double v)
{
	char buf[32];

	/* json-c's default "%.17g" writes 0.2 as 0.20000000000000001: try 15 digits first. */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	return V(json_object_new_double_s(v, buf));
}

int json_set(struct jval *obj, const char *key, struct jval *v)
{
	if (!obj || !key || !json_object_is_type(J(obj), json_type_object)) {
		json_object_put(J(v));
		return -EINVAL;
	}
	/* json_object_object_add does not take v on failure; we promised to. */
	if (json_object_object_add(J(obj), key, J(v)) < 0) {
		json_object_put(J(v));
		return -ENOMEM;
	}
	return 0;
}

int json_append(struct jval *arr, struct jval *v)
{
	if (!arr || !json_object_is_type(J(arr), json_type_array)) {
		json_object_put(J(v));
		return -EINVAL;
	}
	if (json_object_array_add(J(arr), J(v)) < 0) {
		json_object_put(J(v));
		return -ENOMEM;
	}
	return 0;
}

void json_free(struct jval *v)
{
	json_object_put(J(v));
}

int json_write(FILE *f, struct jval *v)
{
	const char *s =
	    json_object_to_json_string_ext(J(v), JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						     JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		return -ENOMEM;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

const char *json_text(struct jval *v, size_t *len)
{
	return json_object_to_json_string_length(
	    J(v), JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, len);
}

static void locate(const char *buf, size_t offset, struct json_error *err)
{
	err->line = 1;
	err->column = 1;
	for (size_t i = 0; i < offset; i++) {
		if (buf[i] == '\n') {
			err->line++;
			err->column = 1;
		} else {
			err->column++;
		}
	}
}

static int parse_error(struct json_error *err, const char *buf, size_t offset, const char *why)
{
	if (err) {
		locate(buf, offset, err);
		snprintf(err->reason, sizeof(err->reason), "%s", why);
	}
	return -EINVAL;
}

/*
 * What json-c will allocate for the document, estimated from its text before parsing: an
 * object is a hash table of 16 slots whatever its size (about 700 bytes, more than 200
 * times the 3 bytes of "{},"), an array about 300, any other value about 80. Text that is
 * small on disk can so become gigabytes once parsed; refuse it before json-c allocates.
 * Returns the offset where the budget ran out, or len when it did not.
 */
static size_t within_budget(const char *buf, size_t len)
{
	uint64_t cost = 0;
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == '"')
			in_string = true;
		cost += c == '{'	       ? JSON_COST_OBJECT
			: c == '['	       ? JSON_COST_ARRAY
			: c == ',' || c == ':' ? JSON_COST_VALUE
					       : 1;
		if (cost > JSON_MAX_PARSED_BYTES)
			return i;
	}
	return len;
}

int json_parse(const char *buf, size_t len, struct jval **out, struct json_error *err)
{
	size_t over;

	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t end;

	if (len > INT32_MAX)
		return -EFBIG;
	over = within_budget(buf, len);
	if (over < len)
		return parse_error(err, buf, over,
				   "too many values: would take more than " JSON_MAX_PARSED_MB
				   " MB once parsed");
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* Strict JSON; trailing data is ours to report, with a clearer message. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* A bare top-level number ends only at a terminator: give it one. */
		o = json_tokener_parse_ex(tok, "", 1);
		if (json_tokener_get_error(tok) != json_tokener_success || !o) {
			json_tokener_free(tok);
			return parse_error(err, buf, len, "unexpected end of input");
		}
		jerr = json_tokener_success;
		end = len;
	}
	json_tokener_free(tok);

	if (!o && jerr == json_tokener_success)
		return parse_error(err, buf, len, "no document (empty, or a bare null)");
	if (jerr != json_tokener_success)
		return parse_error(err, buf, end, json_tokener_error_desc(jerr));
	for (size_t i = end; i < len; i++) {
		if (!strchr(" \t\r\n", buf[i])) {
			json_object_put(o);
			return parse_error(err, buf, i, "unexpected data after the document");
		}
	}
	*out = V(o);
	return 0;
}

int json_say_error(const struct json_error *e, char *buf, size_t len)
{
	if (e->line)
		return say_einval(buf, len, "not JSON: line %u, column %u: %s", e->line, e->column,
				  e->reason);
	return say_einval(buf, len, "not JSON: %s", e->reason);
}

int json_read_file(const char *path, size_t max_bytes, struct jval **out, struct json_error *err)
{
	char *buf;
	size_t len;
	int r;

	r = read_file_capped(path, max_bytes, 0, &buf, &len);
	if (r < 0)
		return r;
	r = json_parse(buf, len, out, err);
	free(buf);
	return r;
}

enum json_kind json_kind_of(const struct jval *v)
{
	switch (json_object_get_type(J(v))) {
	case json_type_boolean:
		return JSON_KIND_BOOL;
	case json_type_int:
		return JSON_KIND_INT;
	case json_type_double:
		return JSON_KIND_DOUBLE;
	case json_type_string:
		return JSON_KIND_STRING;
	case json_type_object:
		return JSON_KIND_OBJECT;
	case json_type_array:
		return JSON_KIND_ARRAY;
	case json_type_null:
	default:
		return JSON_KIND_NULL;
	}
}

struct jval *json_get(const struct jval *obj, const char *key)
{
	struct json_object *v = NULL;

	if (!obj || !json_object_is_type(J(obj), json_type_object))
		return NULL;
	if (!json_object_object_get_ex(J(obj), key, &v))
		return NULL;
	return V(v);
}

int json_get_int(const struct jval *obj, const char *key, int64_t *out)
{
	struct jval *v = json_get(obj, key);

	return v ? json_int_of(v, out) : -ENOENT;
}

int json_get_bool(const struct jval *obj, const char *key, bool *out)
{
	struct jval *v = json_get(obj, key);

	return v ? json_bool_of(v, out) : -ENOENT;
}

int json_get_string(const struct jval *obj, const char *key, const char **out)
{
	struct jval *v = json_get(obj, key);
	const char *str = json_string_of(v);

	if (!v)
		return -ENOENT;
	if (!str)
		return -EINVAL;
	*out = str;
	return 0;
}

size_t json_array_len(const struct jval *arr)
{
	if (!arr || !json_object_is_type(J(arr), json_type_array))
		return 0;
	return json_object_array_length(J(arr));
}

struct jval *json_array_at(const struct jval *arr, size_t i)
{
	if (i >= json_array_len(arr))
		return NULL;
	return V(json_object_array_get_idx(J(arr), i));
}

int json_int_of(const struct jval *v, int64_t *out)
{
	if (!v || json_kind_of(v) != JSON_KIND_INT)
		return -EINVAL;
	*out = json_object_get_int64(J(v));
	return 0;
}

int json_bool_of(const struct jval *v, bool *out)
{
	if (!v || json_kind_of(v) != JSON_KIND_BOOL)
		return -EINVAL;
	*out = json_object_get_boolean(J(v));
	return 0;
}

const char *json_string_of(const struct jval *v)
{
	if (!v || json_kind_of(v) != JSON_KIND_STRING)
		return NULL;
	return json_object_get_string(J(v));
}

int json_object_foreach(const struct jval *obj, json_member_fn fn, void *data)
{
	if (!obj || !json_object_is_type(J(obj), json_type_object))
		return -EINVAL;
	json_object_object_foreach(J(obj), key, val)
	{
		int r = fn(key, V(val), data);

		if (r)
			return r;
	}
	return 0;
}

int json_double_of(const struct jval *v, double *out)
{
	enum json_kind k = v ? json_kind_of(v) : JSON_KIND_NULL;

	if (k != JSON_KIND_DOUBLE && k != JSON_KIND_INT)
		return -EINVAL;
	*out = json_object_get_double(J(v));
	return 0;
}
