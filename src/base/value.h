/* SPDX-License-Identifier: MIT */
/*
 * value.h - a named number in a known unit: what decoded qdisc options and finding
 * evidence are made of, so one printer can show them as text ("5 ms") or JSON
 * ("target_us": 5000) without knowing where they came from.
 *
 * Keys name their unit when it is not obvious ("target_us", "limit_packets",
 * "quantum_bytes"); the value is always the raw integer in that unit.
 */
#ifndef DEBLOAT_VALUE_H
#define DEBLOAT_VALUE_H

#include <stdbool.h>
#include <stdint.h>

enum unit {
	UNIT_NONE,    /* a count or an id */
	UNIT_PACKETS, /* text "1000p" */
	UNIT_BYTES,   /* text "1514B", "64KiB", "4MiB" (exact binary multiples) */
	UNIT_NS,      /* text "850 ns" */
	UNIT_US,      /* text "5 ms", "1.23 ms", "850 us" */
	UNIT_MS,      /* text "123 ms", "1.5 s" */
	UNIT_BPS,     /* bits per second; text "95Mbit", "1Gbit" */
	UNIT_MBPS,    /* megabits per second; text "100Mbit" */
	UNIT_HEX,     /* an id tc writes in hex (class minors); text "0x10" */
};

enum value_type {
	VALUE_UINT,
	VALUE_BOOL,
	VALUE_LIST, /* up to VALUE_LIST_MAX small integers (a priomap) */
};

#define VALUE_LIST_MAX 16

struct value {
	const char *key; /* a string literal: stable JSON key */
	enum value_type type;
	enum unit unit;
	uint64_t u; /* VALUE_UINT; VALUE_BOOL as 0/1 */
	uint8_t list[VALUE_LIST_MAX];
	uint8_t nlist;
};

static inline struct value value_uint(const char *key, uint64_t u, enum unit unit)
{
	return (struct value){.key = key, .type = VALUE_UINT, .unit = unit, .u = u};
}

static inline struct value value_bool(const char *key, bool b)
{
	return (struct value){.key = key, .type = VALUE_BOOL, .u = b};
}

#endif
