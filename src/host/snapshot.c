/* SPDX-License-Identifier: MIT */
/* snapshot.c - snapshot.h: struct host to JSON and back, through json.h only. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/gz.h"
#include "host/avail.h"
#include "host/qdisc.h"
#include "qkind/qkind.h"
#include "snapshot.h"

#define SNAPSHOT_MAX_QUEUES 4096  /* BQL_MAX_QUEUES */
#define SNAPSHOT_MAX_QDISCS 65536 /* in one tree, counted over all levels */

/* What host.c notes as unreadable; another name reads as "other". */
static const char *const unreadable_names[] = {
    "driver", "speed", "rings", "offloads", "bql", "qdiscs", "sysfs", "other",
};

/* Errors by name, so a snapshot reads the same on every architecture. */
/* clang-format off */
#define E(x) {x, #x}
static const struct {
	int err;
	const char *name;
} errno_names[] = {
    E(EPERM),	     E(ENOENT),	    E(EIO),	   E(ENXIO),	  E(E2BIG),
    E(EAGAIN),	     E(ENOMEM),	    E(EACCES),	   E(EFAULT),	  E(EBUSY),
    E(EEXIST),	     E(EXDEV),	    E(ENODEV),	   E(ENOTDIR),	  E(EISDIR),
    E(EINVAL),	     E(ENFILE),	    E(EMFILE),	   E(ENOTTY),	  E(EFBIG),
    E(ENOSPC),	     E(ERANGE),	    E(ENAMETOOLONG), E(ENOSYS),	  E(ENODATA),
    E(EPROTO),	     E(EBADMSG),    E(EOVERFLOW),  E(EOPNOTSUPP), E(ENOBUFS),
    E(ENETDOWN),     E(ETIMEDOUT),  E(EPROTONOSUPPORT),
};
#undef E
/* clang-format on */

/* ---- writing ---- */

struct builder {
	int err; /* the first error; later calls do nothing */
};

/* May v be added? Not after an earlier error (v is freed) nor when it is NULL (-ENOMEM). */
static bool builder_takes(struct builder *b, struct jval *v)
{
	if (b->err) {
		json_free(v);
		return false;
	}
	if (!v) {
		b->err = -ENOMEM;
		return false;
	}
	return true;
}

static void put(struct builder *b, struct jval *obj, const char *key, struct jval *v)
{
	if (builder_takes(b, v))
		b->err = json_set(obj, key, v);
}

static void put_null(struct builder *b, struct jval *obj, const char *key)
{
	if (!b->err)
		b->err = json_set(obj, key, NULL);
}

static void put_str(struct builder *b, struct jval *obj, const char *key, const char *s)
{
	if (s && *s)
		put(b, obj, key, json_new_string(s));
	else
		put_null(b, obj, key);
}

static void put_maybe(struct builder *b, struct jval *obj, const char *key, int64_t v)
{
	if (v < 0)
		put_null(b, obj, key);
	else
		put(b, obj, key, json_new_int(v));
}

static void put_feature(struct builder *b, struct jval *obj, const char *key, enum feature_state f)
{
	if (f == FEATURE_UNKNOWN)
		put_null(b, obj, key);
	else
		put(b, obj, key, json_new_bool(f == FEATURE_ON));
}

static void append(struct builder *b, struct jval *arr, struct jval *v)
{
	if (builder_takes(b, v))
		b->err = json_append(arr, v);
}

static const char *errno_name(int err)
{
	for (size_t i = 0; i < COUNT(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

static void put_errno(struct builder *b, struct jval *obj, const char *key, int err)
{
	const char *name = errno_name(-err);

	if (name)
		put(b, obj, key, json_new_string(name));
	else
		put(b, obj, key, json_new_int(-(int64_t)err));
}

static struct jval *build_value(const struct value *v)
{
	struct jval *arr;

	switch (v->type) {
	case VALUE_BOOL:
		return json_new_bool(v->u != 0);
	case VALUE_LIST:
		arr = json_new_array();
		for (unsigned i = 0; arr && i < v->nlist && i < VALUE_LIST_MAX; i++) {
			if (json_append(arr, json_new_uint(v->list[i])) < 0) {
				json_free(arr);
				return NULL;
			}
		}
		return arr;
	case VALUE_UINT:
	default:
		return json_new_uint(v->u);
	}
}

static struct jval *build_qdisc(struct builder *b, const struct qdisc *q)
{
	struct jval *o = json_new_object(), *children;
	char handle[16];

	if (!o) {
		b->err = -ENOMEM;
		return NULL;
	}
	put(b, o, "kind", json_new_string(q->kind));
	host_qdisc_format_handle(q->handle, handle, sizeof(handle));
	put(b, o, "handle", json_new_string(handle));
	host_qdisc_format_handle(q->parent, handle, sizeof(handle));
	put(b, o, "parent", json_new_string(handle));
	for (unsigned i = 0; i < q->noptions && i < QDISC_MAX_OPTIONS; i++)
		put(b, o, q->options[i].key, build_value(&q->options[i]));
	if (q->options_err)
		put(b, o, "options_malformed", json_new_bool(true));
	if (q->class_rate_bps)
		put(b, o, "class_rate_bps", json_new_uint(q->class_rate_bps));
	children = json_new_array();
	for (size_t i = 0; children && i < q->nchildren; i++)
		append(b, children, build_qdisc(b, &q->children[i]));
	put(b, o, "children", children);
	return o;
}

static struct jval *build_bql(struct builder *b, const struct iface *ifc)
{
	struct jval *o = json_new_object(), *queues = json_new_array();

	if (!o || !queues) {
		json_free(o);
		json_free(queues);
		b->err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < ifc->nbql; i++) {
		const struct bql_queue *q = &ifc->bql[i];
		struct jval *e = json_new_object();

		if (!e) {
			b->err = -ENOMEM;
			break;
		}
		put(b, e, "queue", json_new_uint(q->queue));
		put(b, e, "present", json_new_bool(q->present));
		for (size_t k = 0; k < BQL_NFIELDS; k++)
			put_maybe(b, e, bql_fields[k].key, bql_field_get(q, &bql_fields[k]));
		append(b, queues, e);
	}
	put(b, o, "queues", queues);
	return o;
}

static struct jval *build_iface(struct builder *b, const struct iface *ifc)
{
	struct jval *o = json_new_object(), *unreadable;

	if (!o) {
		b->err = -ENOMEM;
		return NULL;
	}
	put(b, o, "name", json_new_string(ifc->name));
	put(b, o, "ifindex", json_new_int(ifc->ifindex));
	put(b, o, "kind", json_new_string(ifc->kind));
	put(b, o, "physical", json_new_bool(ifc->physical));
	put(b, o, "loopback", json_new_bool(ifc->loopback));
	put(b, o, "operstate", json_new_string(ifc->operstate));
	put_str(b, o, "root_qdisc", ifc->root_qdisc);
	put(b, o, "mtu", json_new_uint(ifc->mtu));
	put(b, o, "txqueuelen", json_new_uint(ifc->txqueuelen));
	if (ifc->gso_max_size)
		put(b, o, "gso_max_size", json_new_uint(ifc->gso_max_size));
	put(b, o, "tx_queues", json_new_uint(ifc->tx_queues));
	if (ifc->have_stats) {
		put(b, o, "tx_packets", json_new_uint(ifc->tx_packets));
		put(b, o, "tx_bytes", json_new_uint(ifc->tx_bytes));
	}
	put_str(b, o, "driver", ifc->driver);
	put_str(b, o, "bus", ifc->bus);
	put_maybe(b, o, "speed_mbps", ifc->speed_mbps ? (int64_t)ifc->speed_mbps : -1);
	put_maybe(b, o, "usb_speed_mbps", ifc->usb_speed_mbps ? (int64_t)ifc->usb_speed_mbps : -1);
	put_str(b, o, "duplex",
		ifc->duplex == IFACE_DUPLEX_FULL   ? "full"
		: ifc->duplex == IFACE_DUPLEX_HALF ? "half"
						   : NULL);
	put_maybe(b, o, "ring_tx", ifc->ring_tx);
	put_maybe(b, o, "ring_tx_max", ifc->ring_tx_max);
	put_maybe(b, o, "ring_rx", ifc->ring_rx);
	put_maybe(b, o, "ring_rx_max", ifc->ring_rx_max);
	put_feature(b, o, "tso", ifc->tso);
	put_feature(b, o, "gso", ifc->gso);
	put_feature(b, o, "gro", ifc->gro);
	put_feature(b, o, "lro", ifc->lro);
	if (ifc->qdisc)
		put(b, o, "qdisc", build_qdisc(b, ifc->qdisc));
	else
		put_null(b, o, "qdisc");
	if (ifc->bql_read)
		put(b, o, "bql", build_bql(b, ifc));
	else
		put_null(b, o, "bql");
	unreadable = json_new_array();
	for (size_t i = 0; unreadable && i < ifc->nunreadable; i++) {
		struct jval *u = json_new_object();

		if (u) {
			put(b, u, "what", json_new_string(ifc->unreadable[i].what));
			put_errno(b, u, "error", ifc->unreadable[i].err);
		}
		append(b, unreadable, u);
	}
	put(b, o, "unreadable", unreadable);
	return o;
}

int snapshot_build(const struct host *h, struct jval **out)
{
	struct builder b = {0};
	struct jval *doc = json_new_object(), *ifaces, *sysctls, *errors, *kinds;

	if (!doc)
		return -ENOMEM;
	put(&b, doc, "debloat_snapshot", json_new_int(SNAPSHOT_VERSION));
	put(&b, doc, "constructed", json_new_bool(h->constructed));
	put_str(&b, doc, "source", h->source);
	put_str(&b, doc, "hostname", h->hostname);
	put_str(&b, doc, "kernel_release", h->kernel_release);
	if (h->compatible_known) {
		struct jval *list = json_new_array();

		for (size_t i = 0; list && i < h->ncompatible; i++)
			append(&b, list, json_new_string(h->compatible[i]));
		put(&b, doc, "machine_compatible", list);
	} else {
		put_null(&b, doc, "machine_compatible");
	}

	ifaces = json_new_array();
	for (size_t i = 0; ifaces && i < h->n; i++)
		append(&b, ifaces, build_iface(&b, &h->ifaces[i]));
	put(&b, doc, "interfaces", ifaces);

	sysctls = json_new_object();
	errors = json_new_object();
	for (size_t i = 0; sysctls && errors && i < HOST_NSYSCTLS; i++) {
		const struct sysctl_entry *s = &h->sysctls[i];
		char *end;
		long long v;

		if (!s->name)
			continue;
		if (s->err) {
			put_null(&b, sysctls, s->name);
			put_errno(&b, errors, s->name, s->err);
			continue;
		}
		/* Numbers as numbers, as the audit prints them; the rest as the text. */
		errno = 0;
		v = strtoll(s->value, &end, 10);
		if (*s->value && !*end && v >= 0 && errno != ERANGE)
			put(&b, sysctls, s->name, json_new_int(v));
		else
			put(&b, sysctls, s->name, json_new_string(s->value));
	}
	put(&b, doc, "sysctls", sysctls);
	put(&b, doc, "sysctl_errors", errors);

	kinds = json_new_object();
	for (size_t i = 0; kinds && i < HOST_NQDISC_KINDS; i++) {
		const struct qdisc_kind_avail *k = &h->qdisc_kinds[i];

		if (!k->kind)
			continue;
		if (k->avail == QDISC_AVAIL_UNKNOWN)
			put_null(&b, kinds, k->kind);
		else
			put(&b, kinds, k->kind, json_new_bool(k->avail == QDISC_AVAIL_YES));
	}
	put(&b, doc, "qdisc_kinds", kinds);

	if (b.err) {
		json_free(doc);
		return b.err;
	}
	*out = doc;
	return 0;
}

/* ---- reading ---- */

struct reader {
	char *err; /* the message for the caller */
	size_t errlen;
	size_t nqdiscs; /* in the current tree */
};

static int fail(struct reader *rd, int err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct reader *rd, int err, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (rd->errlen) {
		if (path && *path)
			n = snprintf(rd->err, rd->errlen, "%s: ", path);
		if (n < 0 || (size_t)n >= rd->errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *kind_word(const struct jval *v)
{
	switch (json_kind_of(v)) {
	case JSON_KIND_BOOL:
		return "a boolean";
	case JSON_KIND_INT:
		return "an integer";
	case JSON_KIND_DOUBLE:
		return "a fraction";
	case JSON_KIND_STRING:
		return "a string";
	case JSON_KIND_OBJECT:
		return "an object";
	case JSON_KIND_ARRAY:
		return "an array";
	case JSON_KIND_NULL:
	default:
		return "null";
	}
}

/* "interfaces[2]" or "interfaces[2].qdisc" */
static void sub(char *buf, size_t len, const char *path, const char *key)
{
	snprintf(buf, len, "%s%s%s", path, *path ? "." : "", key);
}

static int wrong_type(struct reader *rd, const char *path, const char *key, const char *want,
		      const struct jval *v)
{
	char p[256];

	sub(p, sizeof(p), path, key);
	return fail(rd, -EINVAL, p, "expected %s, got %s", want, kind_word(v));
}

static int missing(struct reader *rd, const char *path, const char *key)
{
	return fail(rd, -EINVAL, path, "the key \"%s\" is missing", key);
}

/*
 * An integer in [min, max]. An absent or null key leaves *out alone and returns
 * -ENOENT (a caller that needs it says so), other failures -EINVAL.
 */
static int get_int(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		   int64_t min, int64_t max, int64_t *out)
{
	struct jval *v = json_get(obj, key);
	char p[256];
	int64_t x;

	if (!v)
		return -ENOENT;
	if (json_int_of(v, &x) < 0)
		return wrong_type(rd, path, key, "an integer", v);
	if (x < min || x > max) {
		sub(p, sizeof(p), path, key);
		return fail(rd, -EINVAL, p,
			    "%" PRId64 " is out of range (%" PRId64 " to %" PRId64 ")", x, min,
			    max);
	}
	*out = x;
	return 0;
}

static int need_int(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		    int64_t min, int64_t max, int64_t *out)
{
	int r = get_int(rd, obj, path, key, min, max, out);

	return r == -ENOENT ? missing(rd, path, key) : r;
}

static int get_u32(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		   bool required, uint32_t *out)
{
	int64_t x;
	int r = required ? need_int(rd, obj, path, key, 0, UINT32_MAX, &x)
			 : get_int(rd, obj, path, key, 0, UINT32_MAX, &x);

	if (r == 0)
		*out = (uint32_t)x;
	return r == -ENOENT ? 0 : r;
}

/* -1 when absent or null: the "unknown" of struct iface and struct bql_queue. */
static int get_maybe(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		     int64_t *out)
{
	int r;

	*out = -1;
	r = get_int(rd, obj, path, key, 0, INT64_MAX, out);
	return r == -ENOENT ? 0 : r;
}

static int get_bool(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		    bool *out)
{
	struct jval *v = json_get(obj, key);

	if (!v)
		return 0;
	if (json_bool_of(v, out) < 0)
		return wrong_type(rd, path, key, "true or false", v);
	return 0;
}

static int get_feature(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		       enum feature_state *out)
{
	bool on = false;
	int r;

	*out = FEATURE_UNKNOWN;
	if (!json_get(obj, key))
		return 0;
	r = get_bool(rd, obj, path, key, &on);
	if (r == 0)
		*out = on ? FEATURE_ON : FEATURE_OFF;
	return r;
}

/* A string that fits buf (with its NUL); absent or null leaves buf alone. */
static int get_str(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		   bool required, char *buf, size_t len)
{
	struct jval *v = json_get(obj, key);
	const char *s;
	char p[256];

	if (!v)
		return required ? missing(rd, path, key) : 0;
	s = json_string_of(v);
	if (!s)
		return wrong_type(rd, path, key, "a string", v);
	if (strlen(s) >= len) {
		sub(p, sizeof(p), path, key);
		return fail(rd, -EINVAL, p, "\"%.40s\" is too long (at most %zu characters)", s,
			    len - 1);
	}
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* An object or array value, or absent/null (NULL, 0). */
static int get_container(struct reader *rd, const struct jval *obj, const char *path,
			 const char *key, enum json_kind kind, struct jval **out)
{
	struct jval *v = json_get(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (json_kind_of(v) != kind)
		return wrong_type(rd, path, key,
				  kind == JSON_KIND_OBJECT ? "an object" : "an array", v);
	*out = v;
	return 0;
}

/* "root", "ingress", "none", "8001:", "1:a" (hex, as tc writes them). */
static int parse_handle(const char *s, uint32_t *out)
{
	unsigned long maj, min = 0;
	char *end;

	if (!strcmp(s, "root")) {
		*out = 0xFFFFFFFFU;
		return 0;
	}
	if (!strcmp(s, "ingress")) {
		*out = 0xFFFFFFF1U;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	if (*s == ':') { /* ":1", as tc writes mq's children */
		maj = 0;
		end = (char *)s;
	} else {
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		      (*s >= 'A' && *s <= 'F')))
			return -EINVAL;
		maj = strtoul(s, &end, 16);
	}
	if (*end != ':' || maj > 0xFFFF)
		return -EINVAL;
	s = end + 1;
	if (*s) {
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		      (*s >= 'A' && *s <= 'F')))
			return -EINVAL;
		min = strtoul(s, &end, 16);
		if (*end || min > 0xFFFF)
			return -EINVAL;
	}
	*out = (uint32_t)(maj << 16 | min);
	return 0;
}

static int get_handle(struct reader *rd, const struct jval *obj, const char *path, const char *key,
		      uint32_t *out)
{
	char buf[32] = "", p[256];
	int r = get_str(rd, obj, path, key, false, buf, sizeof(buf));

	if (r < 0 || !buf[0])
		return r;
	if (parse_handle(buf, out) < 0) {
		sub(p, sizeof(p), path, key);
		return fail(rd, -EINVAL, p, "\"%s\" is not a handle (\"8001:\", \"1:a\", \"root\")",
			    buf);
	}
	return 0;
}

struct option_ctx {
	struct reader *rd;
	const char *path;
	struct qdisc *q;
};

static int read_option(const char *key, struct jval *v, void *data)
{
	struct option_ctx *ctx = data;
	struct value val;
	char p[256];
	bool b;

	/* Every option key the qdisc decoders make, with its type and unit, is in the
	 * kinds' tables (src/qkind/). struct value keys must outlive the host, so a key
	 * read from a file is replaced by the table's. */
	if (!qkind_key_value(key, &val) || json_kind_of(v) == JSON_KIND_NULL)
		return 0; /* a structural key, one from a newer debloat, or unknown */
	switch (val.type) {
	case VALUE_BOOL:
		if (json_bool_of(v, &b) < 0)
			return wrong_type(ctx->rd, ctx->path, key, "true or false", v);
		val.u = b;
		break;
	case VALUE_LIST:
		if (json_kind_of(v) != JSON_KIND_ARRAY)
			return wrong_type(ctx->rd, ctx->path, key, "an array", v);
		sub(p, sizeof(p), ctx->path, key);
		if (json_array_len(v) > VALUE_LIST_MAX)
			return fail(ctx->rd, -EINVAL, p, "more than %d entries", VALUE_LIST_MAX);
		for (size_t i = 0; i < json_array_len(v); i++) {
			int64_t x;

			if (json_int_of(json_array_at(v, i), &x) < 0 || x < 0 || x > 255)
				return fail(ctx->rd, -EINVAL, p,
					    "entry %zu is not an integer from 0 to 255", i);
			val.list[val.nlist++] = (uint8_t)x;
		}
		break;
	case VALUE_UINT:
	default:
		if (json_int_of(v, (int64_t *)&val.u) < 0)
			return wrong_type(ctx->rd, ctx->path, key, "an integer", v);
		if ((int64_t)val.u < 0) {
			sub(p, sizeof(p), ctx->path, key);
			return fail(ctx->rd, -EINVAL, p, "%" PRId64 " is negative", (int64_t)val.u);
		}
		break;
	}
	if (ctx->q->noptions == QDISC_MAX_OPTIONS)
		return fail(ctx->rd, -EINVAL, ctx->path, "more than %d options", QDISC_MAX_OPTIONS);
	ctx->q->options[ctx->q->noptions++] = val;
	return 0;
}

static int read_qdisc(struct reader *rd, const struct jval *o, const char *path, int ifindex,
		      uint32_t default_parent, unsigned depth, struct qdisc *q)
{
	struct option_ctx ctx = {.rd = rd, .path = path, .q = q};
	struct jval *children;
	bool malformed = false;
	int r;

	if (json_kind_of(o) != JSON_KIND_OBJECT)
		return fail(rd, -EINVAL, path, "expected an object, got %s", kind_word(o));
	if (depth > QDISC_MAX_DEPTH) /* as deep as host_qdisc_tree() builds, no deeper */
		return fail(rd, -EINVAL, path, "qdiscs nested deeper than %d", QDISC_MAX_DEPTH);
	if (++rd->nqdiscs > SNAPSHOT_MAX_QDISCS)
		return fail(rd, -EINVAL, path, "more than %d qdiscs", SNAPSHOT_MAX_QDISCS);
	q->ifindex = ifindex;
	q->parent = default_parent;
	r = get_str(rd, o, path, "kind", true, q->kind, sizeof(q->kind));
	if (r == 0)
		r = get_handle(rd, o, path, "handle", &q->handle);
	if (r == 0)
		r = get_handle(rd, o, path, "parent", &q->parent);
	if (r == 0)
		r = get_bool(rd, o, path, "options_malformed", &malformed);
	if (r == 0) {
		int64_t rate = 0;

		r = get_int(rd, o, path, "class_rate_bps", 0, INT64_MAX, &rate);
		q->class_rate_bps = (uint64_t)rate;
		r = r == -ENOENT ? 0 : r;
	}
	if (r == 0)
		r = json_object_foreach(o, read_option, &ctx);
	if (r == 0)
		r = get_container(rd, o, path, "children", JSON_KIND_ARRAY, &children);
	if (r < 0)
		return r;
	q->options_err = malformed ? -EBADMSG : 0;
	if (!json_array_len(children))
		return 0;
	q->children = calloc(json_array_len(children), sizeof(*q->children));
	if (!q->children)
		return fail(rd, -ENOMEM, path, "out of memory");
	for (size_t i = 0; i < json_array_len(children); i++) {
		char p[256];

		snprintf(p, sizeof(p), "%s.children[%zu]", path, i);
		q->nchildren++;
		r = read_qdisc(rd, json_array_at(children, i), p, ifindex, q->handle, depth + 1,
			       &q->children[i]);
		if (r < 0)
			return r; /* the caller frees the tree, partial children included */
	}
	return 0;
}

static int read_bql(struct reader *rd, const struct jval *o, const char *path, struct iface *ifc)
{
	struct jval *queues;
	int r;

	if (json_kind_of(o) != JSON_KIND_OBJECT)
		return fail(rd, -EINVAL, path, "expected an object or null, got %s", kind_word(o));
	r = get_container(rd, o, path, "queues", JSON_KIND_ARRAY, &queues);
	if (r < 0)
		return r;
	ifc->bql_read = true;
	if (json_array_len(queues) > SNAPSHOT_MAX_QUEUES)
		return fail(rd, -EINVAL, path, "more than %d queues", SNAPSHOT_MAX_QUEUES);
	if (!json_array_len(queues))
		return 0;
	ifc->bql = calloc(json_array_len(queues), sizeof(*ifc->bql));
	if (!ifc->bql)
		return fail(rd, -ENOMEM, path, "out of memory");
	for (size_t i = 0; i < json_array_len(queues); i++) {
		const struct jval *e = json_array_at(queues, i);
		struct bql_queue *q = &ifc->bql[ifc->nbql++];
		int64_t n = 0;
		char p[256];

		snprintf(p, sizeof(p), "%s.queues[%zu]", path, i);
		if (json_kind_of(e) != JSON_KIND_OBJECT)
			return fail(rd, -EINVAL, p, "expected an object, got %s", kind_word(e));
		q->present = true;
		if ((r = need_int(rd, e, p, "queue", 0, SNAPSHOT_MAX_QUEUES - 1, &n)) < 0 ||
		    (r = get_bool(rd, e, p, "present", &q->present)) < 0)
			return r;
		for (size_t k = 0; k < BQL_NFIELDS; k++) {
			int64_t v;

			r = get_maybe(rd, e, p, bql_fields[k].key, &v);
			if (r < 0)
				return r;
			bql_field_set(q, &bql_fields[k], v);
		}
		q->queue = (unsigned)n;
	}
	return 0;
}

/* An errno by name ("ENOENT") or number; -1 if neither. */
static int parse_errno(const struct jval *v)
{
	const char *s = json_string_of(v);
	int64_t n;

	if (s) {
		for (size_t i = 0; i < COUNT(errno_names); i++)
			if (!strcmp(errno_names[i].name, s))
				return errno_names[i].err;
		return -1;
	}
	if (json_int_of(v, &n) == 0 && n > 0 && n < 4096)
		return (int)n;
	return -1;
}

static int read_unreadable(struct reader *rd, const struct jval *arr, const char *path,
			   struct iface *ifc)
{
	for (size_t i = 0; i < json_array_len(arr); i++) {
		const struct jval *e = json_array_at(arr, i);
		const char *what = "other";
		char p[256], name[32] = "";
		int r, err;

		snprintf(p, sizeof(p), "%s.unreadable[%zu]", path, i);
		if (json_kind_of(e) != JSON_KIND_OBJECT)
			return fail(rd, -EINVAL, p, "expected an object, got %s", kind_word(e));
		r = get_str(rd, e, p, "what", true, name, sizeof(name));
		if (r < 0)
			return r;
		if (!json_get(e, "error"))
			return missing(rd, p, "error");
		err = parse_errno(json_get(e, "error"));
		if (err < 0)
			return fail(rd, -EINVAL, p,
				    "\"error\" is not an errno name (\"ENOENT\") or number");
		for (size_t k = 0; k < COUNT(unreadable_names); k++)
			if (!strcmp(unreadable_names[k], name))
				what = unreadable_names[k];
		iface_note_unreadable(ifc, what, -err);
	}
	return 0;
}

static int read_iface(struct reader *rd, const struct jval *o, const char *path, size_t index,
		      struct iface *ifc)
{
	struct jval *qdisc, *bql, *unreadable;
	char duplex[8] = "";
	int64_t ifindex = (int64_t)index + 1, speed = 0;
	int r;

	if (json_kind_of(o) != JSON_KIND_OBJECT)
		return fail(rd, -EINVAL, path, "expected an object, got %s", kind_word(o));
	ifc->ring_tx = ifc->ring_tx_max = ifc->ring_rx = ifc->ring_rx_max = -1;
	snprintf(ifc->operstate, sizeof(ifc->operstate), "unknown");
	if ((r = get_str(rd, o, path, "name", true, ifc->name, sizeof(ifc->name))) < 0 ||
	    (r = get_str(rd, o, path, "kind", true, ifc->kind, sizeof(ifc->kind))) < 0 ||
	    (r = get_u32(rd, o, path, "mtu", true, &ifc->mtu)) < 0 ||
	    (r = get_u32(rd, o, path, "txqueuelen", true, &ifc->txqueuelen)) < 0 ||
	    (r = get_u32(rd, o, path, "tx_queues", true, &ifc->tx_queues)) < 0 ||
	    (r = get_u32(rd, o, path, "gso_max_size", false, &ifc->gso_max_size)) < 0)
		return r;
	if (iface_name_invalid(ifc->name))
		return fail(rd, -EINVAL, path, "\"name\" is not an interface name: %s",
			    iface_name_invalid(ifc->name));
	r = get_int(rd, o, path, "ifindex", 1, INT32_MAX, &ifindex);
	if (r < 0 && r != -ENOENT)
		return r;
	ifc->ifindex = (int)ifindex;
	r = get_int(rd, o, path, "speed_mbps", 0, UINT32_MAX, &speed);
	if (r < 0 && r != -ENOENT)
		return r;
	ifc->speed_mbps = (uint32_t)speed;
	speed = 0;
	r = get_int(rd, o, path, "usb_speed_mbps", 0, UINT32_MAX, &speed);
	if (r < 0 && r != -ENOENT)
		return r;
	ifc->usb_speed_mbps = (uint32_t)speed;
	if (json_get(o, "tx_packets")) {
		int64_t packets = 0, bytes = 0;

		if ((r = need_int(rd, o, path, "tx_packets", 0, INT64_MAX, &packets)) < 0)
			return r;
		r = get_int(rd, o, path, "tx_bytes", 0, INT64_MAX, &bytes);
		if (r < 0 && r != -ENOENT)
			return r;
		ifc->have_stats = true;
		ifc->tx_packets = (uint64_t)packets;
		ifc->tx_bytes = (uint64_t)bytes;
	}
	if ((r = get_bool(rd, o, path, "physical", &ifc->physical)) < 0 ||
	    (r = get_bool(rd, o, path, "loopback", &ifc->loopback)) < 0 ||
	    (r = get_str(rd, o, path, "operstate", false, ifc->operstate, sizeof(ifc->operstate))) <
		0 ||
	    (r = get_str(rd, o, path, "root_qdisc", false, ifc->root_qdisc,
			 sizeof(ifc->root_qdisc))) < 0 ||
	    (r = get_str(rd, o, path, "driver", false, ifc->driver, sizeof(ifc->driver))) < 0 ||
	    (r = get_str(rd, o, path, "bus", false, ifc->bus, sizeof(ifc->bus))) < 0 ||
	    (r = get_str(rd, o, path, "duplex", false, duplex, sizeof(duplex))) < 0 ||
	    (r = get_maybe(rd, o, path, "ring_tx", &ifc->ring_tx)) < 0 ||
	    (r = get_maybe(rd, o, path, "ring_tx_max", &ifc->ring_tx_max)) < 0 ||
	    (r = get_maybe(rd, o, path, "ring_rx", &ifc->ring_rx)) < 0 ||
	    (r = get_maybe(rd, o, path, "ring_rx_max", &ifc->ring_rx_max)) < 0 ||
	    (r = get_feature(rd, o, path, "tso", &ifc->tso)) < 0 ||
	    (r = get_feature(rd, o, path, "gso", &ifc->gso)) < 0 ||
	    (r = get_feature(rd, o, path, "gro", &ifc->gro)) < 0 ||
	    (r = get_feature(rd, o, path, "lro", &ifc->lro)) < 0)
		return r;
	if (!strcmp(duplex, "full"))
		ifc->duplex = IFACE_DUPLEX_FULL;
	else if (!strcmp(duplex, "half"))
		ifc->duplex = IFACE_DUPLEX_HALF;
	else if (duplex[0])
		return fail(rd, -EINVAL, path,
			    "\"duplex\" is \"%s\", not \"full\", \"half\" or null", duplex);
	if ((r = get_container(rd, o, path, "unreadable", JSON_KIND_ARRAY, &unreadable)) < 0 ||
	    (r = read_unreadable(rd, unreadable, path, ifc)) < 0)
		return r;

	qdisc = json_get(o, "qdisc");
	if (qdisc) {
		char p[256];

		sub(p, sizeof(p), path, "qdisc");
		ifc->qdisc = calloc(1, sizeof(*ifc->qdisc));
		if (!ifc->qdisc)
			return fail(rd, -ENOMEM, path, "out of memory");
		rd->nqdiscs = 0;
		r = read_qdisc(rd, qdisc, p, ifc->ifindex, 0xFFFFFFFFU, 0, ifc->qdisc);
		if (r < 0)
			return r;
		if (!ifc->root_qdisc[0])
			memcpy(ifc->root_qdisc, ifc->qdisc->kind, sizeof(ifc->root_qdisc));
	}
	bql = json_get(o, "bql");
	if (bql) {
		char p[256];

		sub(p, sizeof(p), path, "bql");
		r = read_bql(rd, bql, p, ifc);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_sysctls(struct reader *rd, const struct jval *doc, struct host *h)
{
	struct jval *values, *errors;
	int r;

	if ((r = get_container(rd, doc, "", "sysctls", JSON_KIND_OBJECT, &values)) < 0 ||
	    (r = get_container(rd, doc, "", "sysctl_errors", JSON_KIND_OBJECT, &errors)) < 0)
		return r;
	for (size_t i = 0; i < HOST_NSYSCTLS; i++) {
		struct sysctl_entry *s = &h->sysctls[i];
		struct jval *v = json_get(values, host_sysctl_names[i]), *e;
		char p[128];
		int64_t n;

		s->name = host_sysctl_names[i];
		snprintf(p, sizeof(p), "sysctls.%s", s->name);
		if (json_int_of(v, &n) == 0) {
			snprintf(s->value, sizeof(s->value), "%" PRId64, n);
		} else if (json_string_of(v)) {
			if (strlen(json_string_of(v)) >= sizeof(s->value))
				return fail(rd, -EINVAL, p, "longer than %zu characters",
					    sizeof(s->value) - 1);
			snprintf(s->value, sizeof(s->value), "%s", json_string_of(v));
		} else if (v) {
			return fail(rd, -EINVAL, p, "expected a string, an integer or null, got %s",
				    kind_word(v));
		} else {
			/* Not in the file, or null: unreadable, ENOENT unless it says why. */
			s->err = -ENOENT;
			e = json_get(errors, s->name);
			if (e) {
				int err = parse_errno(e);

				if (err < 0)
					return fail(rd, -EINVAL, "sysctl_errors",
						    "\"%s\" is not an errno name or number",
						    s->name);
				s->err = -err;
			}
		}
	}
	return 0;
}

static int read_kinds(struct reader *rd, const struct jval *doc, struct host *h)
{
	struct jval *kinds;
	int r;

	r = get_container(rd, doc, "", "qdisc_kinds", JSON_KIND_OBJECT, &kinds);
	if (r < 0)
		return r;
	for (size_t i = 0; i < HOST_NQDISC_KINDS; i++) {
		struct qdisc_kind_avail *k = &h->qdisc_kinds[i];
		bool yes = false;

		k->kind = avail_qdisc_kinds[i];
		k->avail = QDISC_AVAIL_UNKNOWN;
		if (!json_get(kinds, k->kind))
			continue;
		r = get_bool(rd, kinds, "qdisc_kinds", k->kind, &yes);
		if (r < 0)
			return r;
		k->avail = yes ? QDISC_AVAIL_YES : QDISC_AVAIL_NO;
	}
	return 0;
}

/* Absent or null: unknown (a snapshot from before it was recorded); [] no device tree. */
static int read_compatible(struct reader *rd, const struct jval *doc, struct host *h)
{
	struct jval *list;
	int r;

	r = get_container(rd, doc, "", "machine_compatible", JSON_KIND_ARRAY, &list);
	if (r < 0 || !list)
		return r;
	if (json_array_len(list) > HOST_MAX_COMPATIBLE)
		return fail(rd, -EINVAL, "machine_compatible", "more than %d entries",
			    HOST_MAX_COMPATIBLE);
	for (size_t i = 0; i < json_array_len(list); i++) {
		const char *e = json_string_of(json_array_at(list, i));
		char p[64];

		snprintf(p, sizeof(p), "machine_compatible[%zu]", i);
		if (!e)
			return fail(rd, -EINVAL, p, "expected a string, got %s",
				    kind_word(json_array_at(list, i)));
		if (!*e || strlen(e) >= HOST_COMPATIBLE_MAX)
			return fail(rd, -EINVAL, p,
				    "\"%.40s\" is empty or too long (at most %d characters)", e,
				    HOST_COMPATIBLE_MAX - 1);
		memcpy(h->compatible[h->ncompatible++], e, strlen(e) + 1);
	}
	h->compatible_known = true;
	return 0;
}

static int read_host(struct reader *rd, const struct jval *doc, struct host *h)
{
	struct jval *ifaces;
	int64_t version;
	int r;

	if (json_kind_of(doc) != JSON_KIND_OBJECT)
		return fail(rd, -EINVAL, NULL, "expected an object at the top, got %s",
			    kind_word(doc));
	r = get_int(rd, doc, "", "debloat_snapshot", INT64_MIN, INT64_MAX, &version);
	if (r == -ENOENT)
		return fail(rd, -EINVAL, NULL,
			    "not a debloat snapshot (the key \"debloat_snapshot\" is missing)");
	if (r < 0)
		return r;
	if (version != SNAPSHOT_VERSION)
		return fail(rd, -EPROTONOSUPPORT, NULL,
			    "unknown format version %" PRId64 " (this debloat reads version %d)",
			    version, SNAPSHOT_VERSION);
	if ((r = get_bool(rd, doc, "", "constructed", &h->constructed)) < 0 ||
	    (r = get_str(rd, doc, "", "source", false, h->source, sizeof(h->source))) < 0 ||
	    (r = get_str(rd, doc, "", "hostname", false, h->hostname, sizeof(h->hostname))) < 0 ||
	    (r = get_str(rd, doc, "", "kernel_release", false, h->kernel_release,
			 sizeof(h->kernel_release))) < 0 ||
	    (r = read_compatible(rd, doc, h)) < 0 || (r = read_sysctls(rd, doc, h)) < 0 ||
	    (r = read_kinds(rd, doc, h)) < 0)
		return r;
	r = get_container(rd, doc, "", "interfaces", JSON_KIND_ARRAY, &ifaces);
	if (r < 0)
		return r;
	if (!ifaces)
		return missing(rd, NULL, "interfaces");
	if (json_array_len(ifaces) > SNAPSHOT_MAX_IFACES)
		return fail(rd, -EINVAL, "interfaces", "more than %d interfaces",
			    SNAPSHOT_MAX_IFACES);
	if (json_array_len(ifaces)) {
		h->ifaces = calloc(json_array_len(ifaces), sizeof(*h->ifaces));
		if (!h->ifaces)
			return fail(rd, -ENOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < json_array_len(ifaces); i++) {
		char p[64];

		snprintf(p, sizeof(p), "interfaces[%zu]", i);
		h->n++;
		r = read_iface(rd, json_array_at(ifaces, i), p, i, &h->ifaces[i]);
		if (r < 0)
			return r;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(h->ifaces[k].name, h->ifaces[i].name))
				return fail(rd, -EINVAL, p, "a second interface named \"%s\"",
					    h->ifaces[i].name);
	}
	h->from_snapshot = true;
	return 0;
}

int snapshot_from_json(const struct jval *doc, struct host *out, char *err, size_t errlen)
{
	struct reader rd = {.err = err, .errlen = errlen};
	struct host h = {0};
	int r;

	if (errlen)
		err[0] = '\0';
	r = read_host(&rd, doc, &h);
	if (r < 0) {
		host_free(&h);
		return r;
	}
	*out = h;
	return 0;
}

static int parse_failed(struct reader *rd, int r, const struct json_error *je)
{
	if (r == -EFBIG)
		return fail(rd, r, NULL, "larger than %u bytes", SNAPSHOT_MAX_BYTES);
	if (r == -EINVAL) {
		char why[sizeof(je->reason) + 64];

		json_say_error(je, why, sizeof(why));
		return fail(rd, r, NULL, "%s", why);
	}
	return fail(rd, r, NULL, "%s", strerror(-r));
}

int snapshot_parse(const char *buf, size_t len, struct host *out, char *err, size_t errlen)
{
	struct reader rd = {.err = err, .errlen = errlen};
	struct json_error je = {0};
	struct jval *doc = NULL;
	int r;

	if (len > SNAPSHOT_MAX_BYTES)
		return parse_failed(&rd, -EFBIG, &je);
	r = json_parse(buf, len, &doc, &je);
	if (r < 0)
		return parse_failed(&rd, r, &je);
	r = snapshot_from_json(doc, out, err, errlen);
	json_free(doc);
	return r;
}

int snapshot_read_file(const char *path, struct host *out, char *err, size_t errlen)
{
	struct reader rd = {.err = err, .errlen = errlen};
	struct json_error je = {0};
	char *buf = NULL;
	size_t len = 0;
	int r;

	/* Gzipped or not, like result files (snapshot -o - | gzip works). */
	r = gz_read_any(path, SNAPSHOT_MAX_BYTES, &buf, &len);
	if (r == -EBADMSG)
		return fail(&rd, r, NULL, "corrupt or truncated gzip data");
	if (r < 0)
		return parse_failed(&rd, r, &je);
	r = snapshot_parse(buf, len, out, err, errlen);
	free(buf);
	return r;
}

int snapshot_select(struct host *h, char *const names[], size_t nnames, size_t *bad_name)
{
	struct iface *picked;
	bool *taken;
	size_t count = 0;

	if (!nnames)
		return 0;
	for (size_t i = 0; i < nnames; i++) {
		size_t j = 0;

		while (j < h->n && strcmp(h->ifaces[j].name, names[i]))
			j++;
		if (j == h->n) {
			*bad_name = i;
			return -ENODEV;
		}
	}
	picked = calloc(nnames, sizeof(*picked));
	taken = calloc(h->n ? h->n : 1, sizeof(*taken));
	if (!picked || !taken) {
		free(picked);
		free(taken);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nnames; i++) {
		for (size_t j = 0; j < h->n; j++) {
			if (!strcmp(h->ifaces[j].name, names[i]) && !taken[j]) {
				taken[j] = true;
				picked[count++] = h->ifaces[j];
			}
		}
	}
	for (size_t j = 0; j < h->n; j++)
		if (!taken[j])
			iface_free(&h->ifaces[j]);
	free(taken);
	free(h->ifaces);
	h->ifaces = picked;
	h->n = count;
	return 0;
}
