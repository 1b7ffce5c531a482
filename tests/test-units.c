/* SPDX-License-Identifier: MIT */
/* test-units.c - tc-style times, sizes and rates, and the option tables built on them. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "debloat/units.h"
#include "harness.h"
#include "opt.h"

TEST(time_units_match_tc)
{
	uint64_t ns = 0;

	CHECK_EQ(db_parse_time_ns("5ms", &ns), 0);
	CHECK_EQ(ns, 5000000);
	CHECK_EQ(db_parse_time_ns("100us", &ns), 0);
	CHECK_EQ(ns, 100000);
	CHECK_EQ(db_parse_time_ns("1s", &ns), 0);
	CHECK_EQ(ns, 1000000000);
	CHECK_EQ(db_parse_time_ns("2secs", &ns), 0);
	CHECK_EQ(ns, 2000000000);
	CHECK_EQ(db_parse_time_ns("250ns", &ns), 0);
	CHECK_EQ(ns, 250);
	CHECK_EQ(db_parse_time_ns("1.5ms", &ns), 0);
	CHECK_EQ(ns, 1500000);
	CHECK_EQ(db_parse_time_ns("0.25s", &ns), 0);
	CHECK_EQ(ns, 250000000);
	CHECK_EQ(db_parse_time_ns("7MS", &ns), 0); /* tc compares units case-insensitively */
	CHECK_EQ(ns, 7000000);
}

TEST(bare_time_is_microseconds)
{
	uint64_t ns = 0;

	CHECK_EQ(db_parse_time_ns("5000", &ns), 0);
	CHECK_EQ(ns, 5000000);
}

TEST(bad_times_are_refused_and_leave_output_alone)
{
	const char *bad[] = {
	    "", "ms", "5xs", "-5ms", "5 ms", "5ms ", ".", "1e3", "99999999999999999999s"};
	uint64_t ns = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(db_parse_time_ns(bad[i], &ns), -EINVAL);
		CHECK_EQ(ns, 42);
	}
	CHECK_EQ(db_parse_time_ns(NULL, &ns), -EINVAL);
}

TEST(sizes_use_binary_prefixes_like_tc)
{
	uint32_t b = 0;

	CHECK_EQ(db_parse_size("1514", &b), 0);
	CHECK_EQ(b, 1514);
	CHECK_EQ(db_parse_size("64k", &b), 0);
	CHECK_EQ(b, 65536);
	CHECK_EQ(db_parse_size("64kb", &b), 0);
	CHECK_EQ(b, 65536);
	CHECK_EQ(db_parse_size("32m", &b), 0);
	CHECK_EQ(b, 33554432);
	CHECK_EQ(db_parse_size("8kbit", &b), 0);
	CHECK_EQ(b, 1024);
	CHECK_EQ(db_parse_size("1.5k", &b), 0);
	CHECK_EQ(b, 1536);
	b = 7;
	CHECK_EQ(db_parse_size("4g", &b), -EINVAL); /* does not fit 32 bits */
	CHECK_EQ(db_parse_size("12q", &b), -EINVAL);
	CHECK_EQ(b, 7);
}

TEST(rates_are_bits_with_decimal_prefixes)
{
	uint64_t r = 0;

	CHECK_EQ(db_parse_rate("100mbit", &r), 0);
	CHECK_EQ(r, 12500000);
	CHECK_EQ(db_parse_rate("1gbit", &r), 0);
	CHECK_EQ(r, 125000000);
	CHECK_EQ(db_parse_rate("95Mbit", &r), 0);
	CHECK_EQ(r, 11875000);
	CHECK_EQ(db_parse_rate("12mbps", &r), 0); /* bytes per second */
	CHECK_EQ(r, 12000000);
	CHECK_EQ(db_parse_rate("8000", &r), 0); /* bare number: bits per second */
	CHECK_EQ(r, 1000);
	CHECK_EQ(db_parse_rate("1kibit", &r), 0);
	CHECK_EQ(r, 128);
	CHECK_EQ(db_parse_rate("1.5mbit", &r), 0);
	CHECK_EQ(r, 187500);
	r = 3;
	CHECK_EQ(db_parse_rate("100mbits", &r), -EINVAL);
	CHECK_EQ(r, 3);
}

TEST(u32_rejects_signs_blanks_and_overflow)
{
	uint32_t v = 9;

	CHECK_EQ(db_parse_u32("4294967295", &v), 0);
	CHECK_EQ(v, 4294967295U);
	v = 9;
	CHECK_EQ(db_parse_u32("4294967296", &v), -EINVAL);
	CHECK_EQ(db_parse_u32("-1", &v), -EINVAL);
	CHECK_EQ(db_parse_u32("+1", &v), -EINVAL);
	CHECK_EQ(db_parse_u32(" 1", &v), -EINVAL);
	CHECK_EQ(db_parse_u32("", &v), -EINVAL);
	CHECK_EQ(v, 9);
}

TEST(formatting_picks_the_shortest_exact_unit)
{
	char buf[32];

	CHECK_EQ(db_format_time(5000000, buf, sizeof(buf)), 3);
	CHECK_STR(buf, "5ms");
	db_format_time(1500000, buf, sizeof(buf));
	CHECK_STR(buf, "1500us");
	db_format_time(2000000000, buf, sizeof(buf));
	CHECK_STR(buf, "2s");
	db_format_time(0, buf, sizeof(buf));
	CHECK_STR(buf, "0ms");
	db_format_time(7, buf, sizeof(buf));
	CHECK_STR(buf, "7ns");
	db_format_rate(12500000, buf, sizeof(buf));
	CHECK_STR(buf, "100mbit");
	db_format_rate(11875000, buf, sizeof(buf));
	CHECK_STR(buf, "95mbit");
	db_format_rate(1, buf, sizeof(buf));
	CHECK_STR(buf, "8bit");
	CHECK_EQ(db_format_time(5000000, buf, 3), -ENOSPC);
}

struct demo_params {
	uint32_t limit;
	uint32_t quantum;
	uint64_t target_ns;
	uint64_t rate;
	bool ecn;
	uint8_t map[4];
};

static const struct db_opt demo_opts[] = {
    {"limit", DB_OPT_U32, offsetof(struct demo_params, limit), 1, 1000, 0},
    {"quantum", DB_OPT_SIZE, offsetof(struct demo_params, quantum), 64, 65536, 0},
    {"target", DB_OPT_TIME, offsetof(struct demo_params, target_ns), 1, UINT64_MAX, 0},
    {"rate", DB_OPT_RATE, offsetof(struct demo_params, rate), 0, UINT64_MAX, 0},
    {"ecn", DB_OPT_FLAG, offsetof(struct demo_params, ecn), 0, 0, 0},
    {"noecn", DB_OPT_NOFLAG, offsetof(struct demo_params, ecn), 0, 0, 0},
    {"map", DB_OPT_U8_LIST, offsetof(struct demo_params, map), 0, 2, 4},
};

static int parse_words(struct demo_params *p, const char *line, char *err, size_t errlen)
{
	static char copy[256];
	char *argv[32];
	int argc = 0;

	strcpy(copy, line);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	return db_opt_parse(demo_opts, DB_OPT_COUNT(demo_opts), "demo", p, argc, argv, err, errlen);
}

TEST(option_table_parses_every_type)
{
	struct demo_params p = {0};
	char err[128] = "";

	CHECK_EQ(parse_words(&p, "limit 800 quantum 1k target 5ms rate 95mbit ecn map 0 1 2 1", err,
			     sizeof(err)),
		 0);
	CHECK_EQ(p.limit, 800);
	CHECK_EQ(p.quantum, 1024);
	CHECK_EQ(p.target_ns, 5000000);
	CHECK_EQ(p.rate, 11875000);
	CHECK(p.ecn);
	CHECK_EQ(p.map[2], 2);
	CHECK_EQ(parse_words(&p, "noecn", err, sizeof(err)), 0);
	CHECK(!p.ecn);
}

TEST(option_errors_quote_the_bad_word)
{
	struct demo_params p = {0};
	char err[128];

	CHECK_EQ(parse_words(&p, "quantom 300", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown option \"quantom\" for demo");
	CHECK_EQ(parse_words(&p, "target 5xs", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "bad value \"5xs\" for demo target: expected a time like 5ms");
	CHECK_EQ(parse_words(&p, "limit 0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "demo limit 0 is out of range (1..1000)");
	CHECK_EQ(parse_words(&p, "limit", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "demo limit needs 1 value");
	CHECK_EQ(parse_words(&p, "map 0 1 2", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "demo map needs 4 values");
	CHECK_EQ(parse_words(&p, "map 0 1 3 0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "demo map 3 is out of range (0..2)");
}

TEST(format_round_trips_through_parse)
{
	struct demo_params p = {500, 300, 1500000, 11875000, true, {2, 1, 0, 1}};
	struct demo_params q = {0};
	char buf[256], err[128];

	CHECK(db_opt_format(demo_opts, DB_OPT_COUNT(demo_opts), "demo", &p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "demo limit 500 quantum 300 target 1500us rate 95mbit ecn map 2 1 0 1");
	CHECK_EQ(parse_words(&q, buf + strlen("demo "), err, sizeof(err)), 0);
	CHECK_EQ(q.limit, p.limit);
	CHECK_EQ(q.quantum, p.quantum);
	CHECK_EQ(q.target_ns, p.target_ns);
	CHECK_EQ(q.rate, p.rate);
	CHECK_EQ(q.ecn, p.ecn);
	CHECK(memcmp(p.map, q.map, sizeof(p.map)) == 0);
	CHECK_EQ(db_opt_format(demo_opts, DB_OPT_COUNT(demo_opts), "demo", &p, buf, 10), -ENOSPC);
}
