/* SPDX-License-Identifier: MIT */
/* opt.c - the option tables of opt.h: one parser and one formatter for every kind. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "opt.h"

int db_opt_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *expected(enum db_opt_type type)
{
	switch (type) {
	case DB_OPT_U32:
	case DB_OPT_U8_LIST:
		return "an integer";
	case DB_OPT_SIZE:
		return "a size like 1514 or 64k";
	case DB_OPT_TIME:
		return "a time like 5ms";
	case DB_OPT_RATE:
		return "a rate like 100mbit";
	default:
		return "nothing";
	}
}

static const struct db_opt *lookup(const struct db_opt *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

/* One numeric word into a u64, checked against the entry's bounds. */
static int read_number(const struct db_opt *o, const char *kind, const char *word, uint64_t *v,
		       char *err, size_t errlen)
{
	uint32_t u32;
	int ret;

	switch (o->type) {
	case DB_OPT_U32:
	case DB_OPT_U8_LIST:
		ret = db_parse_u32(word, &u32);
		*v = u32;
		break;
	case DB_OPT_SIZE:
		ret = db_parse_size(word, &u32);
		*v = u32;
		break;
	case DB_OPT_TIME:
		ret = db_parse_time_ns(word, v);
		break;
	case DB_OPT_RATE:
		ret = db_parse_rate(word, v);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret < 0)
		return db_opt_error(err, errlen, "bad value \"%s\" for %s %s: expected %s", word,
				    kind, o->name, expected(o->type));
	if (*v < o->min || *v > o->max)
		return db_opt_error(err, errlen, "%s %s %s is out of range (%llu..%llu)", kind,
				    o->name, word, (unsigned long long)o->min,
				    (unsigned long long)o->max);
	return 0;
}

int db_opt_parse(const struct db_opt *table, size_t n, const char *kind, void *params, int argc,
		 char *const argv[], char *err, size_t errlen)
{
	char *base = params;
	uint64_t v;
	int ret;

	for (int i = 0; i < argc; i++) {
		const struct db_opt *o = lookup(table, n, argv[i]);

		if (!o)
			return db_opt_error(err, errlen, "unknown option \"%s\" for %s", argv[i],
					    kind);
		if (o->type == DB_OPT_FLAG || o->type == DB_OPT_NOFLAG) {
			*(bool *)(base + o->offset) = o->type == DB_OPT_FLAG;
			continue;
		}
		unsigned want = o->type == DB_OPT_U8_LIST ? o->count : 1;
		if (argc - i - 1 < (int)want)
			return db_opt_error(err, errlen, "%s %s needs %u value%s", kind, o->name,
					    want, want > 1 ? "s" : "");
		for (unsigned k = 0; k < want; k++) {
			ret = read_number(o, kind, argv[++i], &v, err, errlen);
			if (ret < 0)
				return ret;
			switch (o->type) {
			case DB_OPT_U32:
			case DB_OPT_SIZE:
				*(uint32_t *)(base + o->offset) = (uint32_t)v;
				break;
			case DB_OPT_TIME:
			case DB_OPT_RATE:
				*(uint64_t *)(base + o->offset) = v;
				break;
			case DB_OPT_U8_LIST:
				((uint8_t *)(base + o->offset))[k] = (uint8_t)v;
				break;
			default:
				break;
			}
		}
	}
	return 0;
}

struct out {
	char *buf;
	size_t len, pos;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos)
		o->full = true;
	else
		o->pos += (size_t)n;
}

int db_opt_format(const struct db_opt *table, size_t n, const char *kind, const void *params,
		  char *buf, size_t len)
{
	const char *base = params;
	struct out o = {buf, len, 0, len == 0};
	char word[48];

	put(&o, "%s", kind);
	for (size_t i = 0; i < n; i++) {
		const struct db_opt *t = &table[i];
		const void *field = base + t->offset;

		switch (t->type) {
		case DB_OPT_U32:
		case DB_OPT_SIZE:
			put(&o, " %s %u", t->name, *(const uint32_t *)field);
			break;
		case DB_OPT_TIME:
			db_format_time(*(const uint64_t *)field, word, sizeof(word));
			put(&o, " %s %s", t->name, word);
			break;
		case DB_OPT_RATE:
			db_format_rate(*(const uint64_t *)field, word, sizeof(word));
			put(&o, " %s %s", t->name, word);
			break;
		case DB_OPT_FLAG:
			if (*(const bool *)field)
				put(&o, " %s", t->name);
			break;
		case DB_OPT_NOFLAG:
			if (!*(const bool *)field)
				put(&o, " %s", t->name);
			break;
		case DB_OPT_U8_LIST:
			put(&o, " %s", t->name);
			for (unsigned k = 0; k < t->count; k++)
				put(&o, " %u", ((const uint8_t *)field)[k]);
			break;
		}
	}
	return o.full ? -ENOSPC : (int)o.pos;
}
