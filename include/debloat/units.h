/* SPDX-License-Identifier: MIT */
/*
 * units.h - reading and writing times, sizes and rates the way tc spells them.
 *
 *   time  "5ms", "100us", "1s", "250ns", "1.5ms"; a bare number is microseconds.
 *   size  "1514", "64k"/"64kb" (x1024), "1m"/"1mb", "1g"/"1gb", "8kbit" (bits / 8).
 *   rate  "100mbit", "1gbit", "500kbit", "1000bit", "12mbps" (bytes/s), "kibit" etc.
 *         binary (x1024), plain prefixes decimal (x1000); a bare number is bits/s.
 *         Rates are held as bytes per second.
 *
 * Parsers return 0, or -EINVAL for anything malformed, negative or out of range;
 * *out is untouched on error. Formatters write the shortest exact spelling
 * ("5ms", "1500us", "95mbit") and return the length, or -ENOSPC.
 */
#ifndef DEBLOAT_UNITS_H
#define DEBLOAT_UNITS_H

#include <stddef.h>
#include <stdint.h>

int db_parse_u32(const char *s, uint32_t *out);
int db_parse_time_ns(const char *s, uint64_t *out);
int db_parse_size(const char *s, uint32_t *out);
int db_parse_rate(const char *s, uint64_t *bytes_per_sec);

int db_format_time(uint64_t ns, char *buf, size_t len);
int db_format_rate(uint64_t bytes_per_sec, char *buf, size_t len);

#endif
