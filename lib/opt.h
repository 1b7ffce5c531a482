/* SPDX-License-Identifier: MIT */
/*
 * opt.h - table-driven parsing and formatting of tc-style discipline options
 * (private to lib/).
 *
 * A discipline describes its options once, as a table of {name, type, offset in
 * the params struct, bounds}; db_opt_parse reads "limit 800 target 5ms ecn" into
 * the struct and db_opt_format writes the struct back as a spec that parses to the
 * same values. Units follow tc:
 *   TIME  "5ms", "100us", "1s", "250ns", "1.5ms"; a bare number is microseconds.
 *   SIZE  "1514", "64k"/"64kb" (x1024), "1m"/"1mb", "1g"/"1gb", "8kbit" (/8); bytes.
 *   RATE  "100mbit", "1gbit", "500kbit", "12mbps" (bytes), "1000bit"; a bare number
 *         is bits per second (tc's reading). Stored as bytes per second, decimal
 *         prefixes (k = 1000), "kibit" etc. binary.
 *   U32   a decimal integer.
 *   FLAG / NOFLAG  a word alone ("ecn" sets the bool, "noecn" clears it).
 *   U8_LIST  `count` integers following the name (pfifo_fast's priomap).
 * Errors are -EINVAL with a message that quotes the bad word:
 *   unknown option "quantom" for fq_codel
 *   bad value "5xs" for fq_codel target: expected a time like 5ms
 *   fq_codel limit 0 is out of range (1..4294967295)
 */
#ifndef DEBLOAT_LIB_OPT_H
#define DEBLOAT_LIB_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "debloat/units.h"

enum db_opt_type {
	DB_OPT_U32,	/* uint32_t */
	DB_OPT_SIZE,	/* uint32_t bytes */
	DB_OPT_TIME,	/* uint64_t nanoseconds */
	DB_OPT_RATE,	/* uint64_t bytes per second */
	DB_OPT_FLAG,	/* bool, set by the word */
	DB_OPT_NOFLAG,	/* bool, cleared by the word */
	DB_OPT_U8_LIST, /* uint8_t[count] */
};

struct db_opt {
	const char *name;
	enum db_opt_type type;
	size_t offset;	   /* offsetof(params struct, field) */
	uint64_t min, max; /* inclusive bounds for numbers and list items */
	unsigned count;	   /* U8_LIST: number of values */
};

int db_opt_parse(const struct db_opt *table, size_t n, const char *kind, void *params, int argc,
		 char *const argv[], char *err, size_t errlen);
int db_opt_format(const struct db_opt *table, size_t n, const char *kind, const void *params,
		  char *buf, size_t len);

/* snprintf into err if err is not NULL. Always returns -EINVAL. */
int db_opt_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define DB_OPT_COUNT(t) (sizeof(t) / sizeof((t)[0]))

#endif
