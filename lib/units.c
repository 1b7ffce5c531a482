/* SPDX-License-Identifier: MIT */
/* units.c - tc-style times, sizes and rates, parsed and formatted in integers. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "debloat/units.h"

struct unit {
	const char *name;
	uint64_t num, den; /* value = number * num / den */
};

/*
 * Read "123", "1.5", then a unit word from a table; value = number * num / den in
 * integers (no floating point, so "1.5ms" is exactly 1500000 ns). Fraction digits
 * beyond what the unit can resolve are truncated.
 */
static int parse_scaled(const char *s, const struct unit *units, size_t nunits,
			const struct unit *bare, uint64_t max, uint64_t *out)
{
	uint64_t ip = 0, frac = 0, scale = 1;
	const char *p = s;
	bool digits = false;

	if (!s)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		ip = ip * 10 + (uint64_t)(*p - '0');
		digits = true;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;

	const struct unit *u = NULL;
	if (*p == '\0') {
		u = bare;
	} else {
		for (size_t i = 0; i < nunits; i++)
			if (!strcasecmp(p, units[i].name))
				u = &units[i];
	}
	if (!u)
		return -EINVAL;

	/* ip * num / den, checked; then the fraction's share, split so that no
	 * product overflows 64 bits (scale <= 1e9, frac < scale): frac * num / scale
	 * = frac * (num / scale) + frac * (num % scale) / scale. */
	if (u->num && ip > UINT64_MAX / u->num)
		return -EINVAL;
	uint64_t v = ip * u->num / u->den;
	uint64_t extra = (ip * u->num) % u->den;
	if (frac)
		extra += frac * (u->num / scale) + frac * (u->num % scale) / scale;
	if (extra / u->den > UINT64_MAX - v)
		return -EINVAL;
	v += extra / u->den;
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static const struct unit time_units[] = {
    {"s", 1000000000, 1}, {"sec", 1000000000, 1}, {"secs", 1000000000, 1}, {"ms", 1000000, 1},
    {"msec", 1000000, 1}, {"msecs", 1000000, 1},  {"us", 1000, 1},	   {"usec", 1000, 1},
    {"usecs", 1000, 1},	  {"ns", 1, 1},		  {"nsec", 1, 1},	   {"nsecs", 1, 1},
};
static const struct unit time_bare = {"", 1000, 1}; /* tc: microseconds */

static const struct unit size_units[] = {
    {"b", 1, 1},	   {"k", 1024, 1},	    {"kb", 1024, 1},	  {"kbit", 1024, 8},
    {"m", 1048576, 1},	   {"mb", 1048576, 1},	    {"mbit", 1048576, 8}, {"g", 1073741824, 1},
    {"gb", 1073741824, 1}, {"gbit", 1073741824, 8},
};
static const struct unit size_bare = {"", 1, 1};

static const struct unit rate_units[] = {
    {"bit", 1, 8},
    {"kbit", 1000ULL, 8},
    {"mbit", 1000000ULL, 8},
    {"gbit", 1000000000ULL, 8},
    {"tbit", 1000000000000ULL, 8},
    {"kibit", 1024ULL, 8},
    {"mibit", 1048576ULL, 8},
    {"gibit", 1073741824ULL, 8},
    {"tibit", 1099511627776ULL, 8},
    {"bps", 1, 1},
    {"kbps", 1000ULL, 1},
    {"mbps", 1000000ULL, 1},
    {"gbps", 1000000000ULL, 1},
    {"tbps", 1000000000000ULL, 1},
    {"kibps", 1024ULL, 1},
    {"mibps", 1048576ULL, 1},
    {"gibps", 1073741824ULL, 1},
    {"tibps", 1099511627776ULL, 1},
};
static const struct unit rate_bare = {"", 1, 8}; /* tc: bits per second */

#define N(a) (sizeof(a) / sizeof((a)[0]))

int db_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int db_parse_time_ns(const char *s, uint64_t *out)
{
	return parse_scaled(s, time_units, N(time_units), &time_bare, UINT64_MAX, out);
}

int db_parse_size(const char *s, uint32_t *out)
{
	uint64_t v;
	int ret = parse_scaled(s, size_units, N(size_units), &size_bare, UINT32_MAX, &v);

	if (ret < 0)
		return ret;
	*out = (uint32_t)v;
	return 0;
}

int db_parse_rate(const char *s, uint64_t *bytes_per_sec)
{
	return parse_scaled(s, rate_units, N(rate_units), &rate_bare, UINT64_MAX / 8,
			    bytes_per_sec);
}

static int fit(int n, size_t len)
{
	return (n < 0 || (size_t)n >= len) ? -ENOSPC : n;
}

int db_format_time(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % 1000000000ULL == 0)
		return fit(snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL)),
			   len);
	if (ns % 1000000ULL == 0)
		return fit(snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ULL)),
			   len);
	if (ns % 1000ULL == 0)
		return fit(snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ULL)), len);
	return fit(snprintf(buf, len, "%lluns", (unsigned long long)ns), len);
}

int db_format_rate(uint64_t bytes_per_sec, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint64_t bits;
	} steps[] = {
	    {"tbit", 1000000000000ULL},
	    {"gbit", 1000000000ULL},
	    {"mbit", 1000000ULL},
	    {"kbit", 1000ULL},
	};
	uint64_t bits = bytes_per_sec * 8;

	if (bytes_per_sec > UINT64_MAX / 8)
		return -ERANGE;
	for (size_t i = 0; i < N(steps); i++)
		if (bits && bits % steps[i].bits == 0)
			return fit(snprintf(buf, len, "%llu%s",
					    (unsigned long long)(bits / steps[i].bits),
					    steps[i].name),
				   len);
	return fit(snprintf(buf, len, "%llubit", (unsigned long long)bits), len);
}
