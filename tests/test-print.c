/* SPDX-License-Identifier: MIT */
/* test-print.c - src/base/print.c: the same calls make text for people and JSON for programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/print.h"
#include "harness.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static struct printer *start(struct capture *c, enum print_mode mode)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f ? print_new(c->f, mode) : NULL;
}

/* Finish, close the stream, return what was written (caller frees c->buf). */
static int stop(struct capture *c, struct printer *p)
{
	int r = print_finish(p);

	print_free(p);
	fclose(c->f);
	return r;
}

/* The one emitter both tests run. */
static void emit(struct printer *p)
{
	print_uint(p, "delay_us", 123040, UNIT_US);
	print_uint(p, "speed_mbps", 100, UNIT_MBPS);
	print_uint(p, "limit_bytes", 1879048192, UNIT_BYTES);
	print_uint(p, "limit_packets", 1000, UNIT_PACKETS);
	print_null(p, "duplex", "unknown", 0);
	print_str(p, "kind", "pfifo_fast", PRINT_BARE);
	print_bool(p, "ecn", true, 0);
	print_uint(p, "ifindex", 4, UNIT_NONE | PRINT_JSON_ONLY);
	print_text(p, "(text only)");
	print_nl(p);
	print_open_array(p, "children");
	print_open_object(p, NULL);
	print_str(p, "kind", "fq_codel", 0);
	print_close(p);
	print_close(p);
}

TEST(one_call_makes_text)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	emit(p);
	REQUIRE_EQ(stop(&c, p), 0);
	/* Past PRINT_WIDTH the line breaks between words, the rest two columns in. */
	CHECK_STR(c.buf, "delay 123 ms speed 100Mbit limit 1792MiB limit 1000p duplex unknown "
			 "pfifo_fast\n  ecn yes (text only)\nkind fq_codel\n");
	free(c.buf);
}

TEST(text_fits_80_columns_and_commands_stay_whole)
{
	static const char cmd[] = "tc qdisc replace dev eth0 root handle 1: fq_codel limit 800 ecn";
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);
	const char *nl;

	REQUIRE(p);
	print_indent(p, 1);
	print_text(p, "a sentence long enough to need a break, because it goes on and on past "
		      "the eightieth column of a terminal, and then some more words");
	print_nl(p);
	print_text(p, "then type this command as root:");
	print_str(p, NULL, cmd, PRINT_BARE | PRINT_NOWRAP);
	print_nl(p);
	REQUIRE_EQ(stop(&c, p), 0);
	/* every line within 80 columns, none ending in a blank */
	for (const char *l = c.buf; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		REQUIRE(nl);
		CHECK((size_t)(nl - l) <= 80);
		CHECK(nl == l || nl[-1] != ' ');
	}
	CHECK(strstr(c.buf, "  a sentence long enough") == c.buf);
	CHECK(strstr(c.buf, "\n    ") != NULL); /* the continuation, two columns further in */
	/* the command on a line of its own, whole */
	CHECK(strstr(c.buf, "as root:\n    tc qdisc replace dev eth0 root handle 1: fq_codel "
			    "limit 800 ecn\n") != NULL);
	free(c.buf);
}

TEST(a_long_command_breaks_with_a_shell_continuation)
{
	static const char cmd[] = "tc filter add dev eth0 parent ffff: protocol all u32 match u32 "
				  "0 0 action mirred egress redirect dev ifb4eth0";
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);
	const char *nl;

	REQUIRE(p);
	print_indent(p, 2);
	print_str(p, NULL, cmd, PRINT_BARE | PRINT_COMMAND);
	print_nl(p);
	REQUIRE_EQ(stop(&c, p), 0);
	for (const char *l = c.buf; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		REQUIRE(nl);
		CHECK((size_t)(nl - l) <= 80);
	}
	CHECK_STR(c.buf, "    tc filter add dev eth0 parent ffff: protocol all u32 match u32 0 0 "
			 "action \\\n      mirred egress redirect dev ifb4eth0\n");
	free(c.buf);
	/* JSON keeps it whole */
	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_str(p, "cmd", cmd, PRINT_BARE | PRINT_COMMAND);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK(strstr(c.buf, cmd) != NULL);
	free(c.buf);
}

TEST(one_call_makes_json_with_raw_units)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_JSON);

	REQUIRE(p);
	emit(p);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK(strstr(c.buf, "\"delay_us\": 123040") != NULL);
	CHECK(strstr(c.buf, "\"speed_mbps\": 100") != NULL);
	CHECK(strstr(c.buf, "\"limit_bytes\": 1879048192") != NULL);
	CHECK(strstr(c.buf, "\"limit_packets\": 1000") != NULL);
	CHECK(strstr(c.buf, "\"duplex\": null") != NULL);
	CHECK(strstr(c.buf, "\"kind\": \"pfifo_fast\"") != NULL);
	CHECK(strstr(c.buf, "\"ecn\": true") != NULL);
	CHECK(strstr(c.buf, "\"ifindex\": 4") != NULL);
	CHECK(strstr(c.buf, "text only") == NULL);
	CHECK(strstr(c.buf, "\"kind\": \"fq_codel\"") != NULL);
	CHECK(c.buf[0] == '{');
	free(c.buf);
}

TEST(indent_applies_to_new_lines)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_text(p, "eth0:");
	print_nl(p);
	print_indent(p, 2);
	print_uint(p, "mtu", 1500, UNIT_NONE);
	print_text(p, ",");
	print_uint(p, "txqueuelen", 1000, UNIT_NONE);
	REQUIRE_EQ(stop(&c, p), 0); /* finish ends the open line */
	CHECK_STR(c.buf, "eth0:\n    mtu 1500, txqueuelen 1000\n");
	free(c.buf);
}

TEST(lists_are_arrays_in_json_and_words_in_text)
{
	struct value map = {.key = "priomap", .type = VALUE_LIST, .nlist = 3, .list = {1, 2, 0}};
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_value(p, &map, 0);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf, "priomap 1 2 0\n");
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_value(p, &map, 0);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK(strstr(c.buf, "\"priomap\": [") != NULL);
	free(c.buf);
}

TEST(unbalanced_containers_are_an_error)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_JSON);

	REQUIRE(p);
	print_open_object(p, "a");
	CHECK_EQ(stop(&c, p), -EINVAL);
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_close(p);
	CHECK_EQ(stop(&c, p), -EINVAL);
	free(c.buf);

	/* A keyless value in an object has nowhere to go. */
	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_uint(p, NULL, 1, UNIT_NONE);
	CHECK_EQ(stop(&c, p), -EINVAL);
	free(c.buf);
}

static const char *fmt(uint64_t v, enum unit unit)
{
	static char buf[48];

	print_format_unit(buf, sizeof(buf), v, unit);
	return buf;
}

/* Sizes decimal with three significant digits, rates as iperf3 prints them. */
TEST(sizes_and_rates_read_like_iperf3)
{
	char buf[48];

	print_format_size(buf, sizeof(buf), 0);
	CHECK_STR(buf, "0 B");
	print_format_size(buf, sizeof(buf), 999);
	CHECK_STR(buf, "999 B");
	print_format_size(buf, sizeof(buf), 4894208);
	CHECK_STR(buf, "4.89 MB");
	print_format_size(buf, sizeof(buf), 6270000000ULL);
	CHECK_STR(buf, "6.27 GB");
	print_format_size(buf, sizeof(buf), 12400);
	CHECK_STR(buf, "12.4 KB");
	print_format_rate(buf, sizeof(buf), 950);
	CHECK_STR(buf, "950 bit/s");
	print_format_rate(buf, sizeof(buf), 19576832);
	CHECK_STR(buf, "19.6 Mbit/s");
	print_format_rate(buf, sizeof(buf), 14700000000ULL);
	CHECK_STR(buf, "14.7 Gbit/s");
}

TEST(units_read_like_tc)
{
	CHECK_STR(fmt(123040, UNIT_US), "123 ms");
	CHECK_STR(fmt(1230, UNIT_US), "1.23 ms");
	CHECK_STR(fmt(5000, UNIT_US), "5 ms");
	CHECK_STR(fmt(850, UNIT_US), "850 us");
	CHECK_STR(fmt(1500000, UNIT_US), "1.5 s");
	CHECK_STR(fmt(0, UNIT_US), "0 us");
	CHECK_STR(fmt(1000, UNIT_MS), "1 s");
	CHECK_STR(fmt(10000, UNIT_NS), "10 us");
	CHECK_STR(fmt(95000000, UNIT_BPS), "95Mbit");
	CHECK_STR(fmt(550000, UNIT_BPS), "550Kbit");
	CHECK_STR(fmt(2500000000ULL, UNIT_BPS), "2.5Gbit");
	CHECK_STR(fmt(100, UNIT_MBPS), "100Mbit");
	CHECK_STR(fmt(10000, UNIT_MBPS), "10Gbit");
	CHECK_STR(fmt(833, UNIT_BYTES), "833B");
	CHECK_STR(fmt(65536, UNIT_BYTES), "64KiB");
	CHECK_STR(fmt(4194304, UNIT_BYTES), "4MiB");
	CHECK_STR(fmt(1000000, UNIT_BYTES), "1000000B");
	CHECK_STR(fmt(1000, UNIT_PACKETS), "1000p");
	CHECK_STR(fmt(16, UNIT_HEX), "0x10");
}

TEST(doubles_are_numbers_in_json_and_rounded_in_text)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_double(p, "latency_ms", 12.345, 1, UNIT_MS);
	print_double(p, "rate_mbps", 94.126, 2, UNIT_MBPS);
	print_double(p, "rpm", 0.0 / 0.0, 0, UNIT_NONE);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf, "latency 12.3 ms rate 94.13 Mbit/s rpm n/a\n");
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_set_compact(p);
	print_double(p, "latency_ms", 12.345, 1, UNIT_MS);
	print_double(p, "step_s", 0.2, 1, UNIT_NONE);
	print_double(p, "rpm", 0.0 / 0.0, 0, UNIT_NONE);
	CHECK_EQ(stop(&c, p), 0);
	/* raw numbers, shortest exact form; NaN is null (JSON has no NaN) */
	CHECK_STR(c.buf, "{\"latency_ms\":12.345,\"step_s\":0.2,\"rpm\":null}\n");
	free(c.buf);
}

/* Text from the network or a file cannot drive the terminal: control bytes are escaped. */
TEST(escape_control_characters_and_backslash)
{
	char out[64];

	CHECK_STR(print_escape(out, sizeof(out), "ok"), "ok");
	CHECK_STR(print_escape(out, sizeof(out), "\x1b[2Jcleared\r\n"),
		  "\\x1b[2Jcleared\\x0d\\x0a");
	CHECK_STR(print_escape(out, sizeof(out), "a\\b\x7f"), "a\\\\b\\x7f");
	CHECK_STR(print_escape(out, 6, "\x01\x02"), "\\x01"); /* never half an escape */
	CHECK_STR(print_escape(out, sizeof(out), "caf\xc3\xa9"), "caf\xc3\xa9"); /* UTF-8 kept */
}

TEST(print_str_escapes_in_text_and_keeps_json_exact)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_str(p, "cc", "evil\x1b]0;title\x07", 0);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK(!strchr(c.buf, 0x1b) && !strchr(c.buf, 0x07));
	CHECK(strstr(c.buf, "evil\\x1b]0;title\\x07") != NULL);
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_str(p, "cc", "evil\x1b", 0);
	REQUIRE_EQ(stop(&c, p), 0);
	CHECK(strstr(c.buf, "evil\\u001b") != NULL); /* JSON's own escape, value intact */
	free(c.buf);
}

/* Phrases: each fact once, JSON under its key, text as written, laid out per line. */
static void emit_phrases(struct printer *p)
{
	print_str_phrase(p, "profile", "bbb", "lab: %s", "bbb");
	print_nl(p);
	print_double_phrase(p, "duration_s", 10, "  ran %.1f s", 10.0);
	print_int_phrase(p, "exit_status", 3, ", exit status %d", 3);
	print_bool_phrase(p, "bql", false, "%s", "; no BQL");
	print_null_phrase(p, "max_urbs", "%s", "");
	print_uint_phrase(p, "drops", 12, "; drops %u", 12u);
	print_phrase(p, "; and then some words that make the line longer than eighty columns");
	print_nl(p);
}

TEST(phrases_make_one_line_of_text_and_keys_in_json)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	emit_phrases(p);
	CHECK_EQ(stop(&c, p), 0);
	/* no blank added before ',' or ';', no labels; wrapped as a whole line */
	CHECK_STR(
	    c.buf,
	    "lab: bbb\n"
	    "  ran 10.0 s, exit status 3; no BQL; drops 12; and then some words that make the\n"
	    "  line longer than eighty columns\n");
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_set_compact(p);
	emit_phrases(p);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf, "{\"profile\":\"bbb\",\"duration_s\":10,\"exit_status\":3,\"bql\":false,"
			 "\"max_urbs\":null,\"drops\":12}\n");
	free(c.buf);
}

/* A table: a column per object in JSON, rows of cells in text; a ratio appends to its cell. */
static void emit_table(struct printer *p)
{
	print_table_begin(p);
	print_open_array(p, "runs");
	for (size_t i = 0; i < 2; i++) {
		print_open_object(p, NULL);
		print_str_cell(p, "name", i ? "b" : "a", i, "", "%s", i ? "b" : "a");
		print_double_cell(p, "rate_mbps", 10.0 * (double)(i + 1), i, "rate", "%.1f",
				  10.0 * (double)(i + 1));
		print_table_row(p, "heading:");
		print_double_cell(p, "gone", 1, i, NULL, "%s", "json only");
		print_cell(p, i, "note", "%s", i ? "text only" : "-");
		print_open_object(p, "ratio");
		print_double_cell(p, "rate_mbps", (double)(i + 1), i, "rate", "%s",
				  i ? " (x2)" : "");
		print_close(p);
		print_close(p);
	}
	print_close(p);
	print_table_end(p, &(struct print_table_layout){.label_w = 6, .col_w = 5, .sep = " "});
}

TEST(tables_are_columns_in_text_and_objects_in_json)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	emit_table(p);
	CHECK_EQ(stop(&c, p), 0);
	/* rows in the order first named, a heading alone, cells padded (text drops blanks at
	 * the end of a line) */
	CHECK_STR(c.buf, "       a     b\n"
			 "rate   10.0  20.0 (x2)\n"
			 "heading:\n"
			 "note   -     text only\n");
	free(c.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_set_compact(p);
	emit_table(p);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(
	    c.buf,
	    "{\"runs\":[{\"name\":\"a\",\"rate_mbps\":10,\"gone\":1,\"ratio\":{\"rate_mbps\":1}},"
	    "{\"name\":\"b\",\"rate_mbps\":20,\"gone\":1,\"ratio\":{\"rate_mbps\":2}}]}\n");
	free(c.buf);
}

/* fit: columns as wide as their widest cell; the ones past the width in a block below. */
static void emit_fit_table(struct printer *p, size_t ncols)
{
	print_table_begin(p);
	print_table_row(p, "");
	print_table_row(p, "rate");
	print_table_row(p, "heading:");
	print_table_row(p, "a long label");
	for (size_t i = 0; i < ncols; i++) {
		print_cell(p, i, "", "run%zu", i);
		print_cell(p, i, "rate", "%s", i == 1 ? "123.4 (x12.34)" : "1.0");
		print_cell(p, i, "a long label", "%s", "-");
	}
	print_table_end(p,
			&(struct print_table_layout){.sep = "  ", .trim_last = true, .fit = true});
}

TEST(fit_tables_take_their_cells_width_and_break_into_blocks)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	emit_fit_table(p, 3);
	CHECK_EQ(stop(&c, p), 0);
	/* the widest cell sets its column, whether or not it is the last line's */
	CHECK_STR(c.buf, "              run0  run1            run2\n"
			 "rate          1.0   123.4 (x12.34)  1.0\n"
			 "heading:\n"
			 "a long label  -     -               -\n");
	free(c.buf);

	/* 6 columns: 12 + 6 + 16 + 4 x 6 = 58 columns; at width 34, three blocks, the
	 * first exactly 34 */
	p = start(&c, PRINT_MODE_TEXT);
	REQUIRE(p);
	print_set_width(p, 34);
	emit_fit_table(p, 6);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf, "              run0  run1\n"
			 "rate          1.0   123.4 (x12.34)\n"
			 "heading:\n"
			 "a long label  -     -\n"
			 "\n"
			 "              run2  run3  run4\n"
			 "rate          1.0   1.0   1.0\n"
			 "heading:\n"
			 "a long label  -     -     -\n"
			 "\n"
			 "              run5\n"
			 "rate          1.0\n"
			 "heading:\n"
			 "a long label  -\n");
	for (char *line = c.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		CHECK(nl - line <= 34);
	free(c.buf);
}

/* Sections: facts in one order (the JSON's), their text in another, laid out as a whole. */
static void emit_sections(struct printer *p)
{
	print_section(p, 2);
	print_uint_phrase(p, "c", 3, ", c %u; and then some words that make the line long", 3);
	print_nl(p);
	print_section(p, 0);
	print_uint_phrase(p, "a", 1, "a %u", 1);
	print_section(p, PRINT_SECTION_NONE);
	print_uint_phrase(p, "gone", 9, "never shown %u", 9);
	print_nl(p);
	print_section(p, 1);
	print_uint_phrase(p, "b", 2, " and b %u", 2);
	print_section(p, 4);
	print_table_begin(p);
	print_cell(p, 0, "a row wider than eighty columns", "%-30s", "never broken");
	print_cell(p, 1, "a row wider than eighty columns", "%-30s", "nor ending in blanks");
	print_section(p, 3);
	print_indent(p, 1);
	print_uint(p, "indented_us", 5000, UNIT_US);
	print_nl(p);
	print_indent(p, 0);
	print_section(p, 4);
	print_table_end(p, &(struct print_table_layout){.label_w = 32, .col_w = 30, .sep = " "});
	print_sections_end(p);
	print_text(p, "after");
	print_nl(p);
}

/* The same text written in reading order, without sections. */
static void emit_in_order(struct printer *p)
{
	print_phrase(p, "a 1 and b 2, c 3; and then some words that make the line long");
	print_nl(p);
	print_indent(p, 1);
	print_uint(p, "indented_us", 5000, UNIT_US);
	print_nl(p);
	print_indent(p, 0);
	print_table_begin(p);
	print_cell(p, 0, "a row wider than eighty columns", "%-30s", "never broken");
	print_cell(p, 1, "a row wider than eighty columns", "%-30s", "nor ending in blanks");
	print_table_end(p, &(struct print_table_layout){.label_w = 32, .col_w = 30, .sep = " "});
	print_text(p, "after");
	print_nl(p);
}

TEST(sections_lay_text_out_in_their_order)
{
	struct capture c, d;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	emit_sections(p);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf,
		  "a 1 and b 2, c 3; and then some words that make the line long\n"
		  "  indented 5 ms\n"
		  "a row wider than eighty columns  never broken                   nor ending in "
		  "blanks\n"
		  "after\n");
	p = start(&d, PRINT_MODE_TEXT);
	REQUIRE(p);
	emit_in_order(p);
	CHECK_EQ(stop(&d, p), 0);
	CHECK_STR(c.buf, d.buf);
	free(c.buf);
	free(d.buf);

	p = start(&c, PRINT_MODE_JSON);
	REQUIRE(p);
	print_set_compact(p);
	emit_sections(p);
	CHECK_EQ(stop(&c, p), 0);
	CHECK_STR(c.buf, "{\"c\":3,\"a\":1,\"gone\":9,\"b\":2,\"indented_us\":5000}\n");
	free(c.buf);
}

/* A line cut by sections wraps where the whole line would. */
TEST(a_line_across_sections_wraps_as_one)
{
	static const char *const words[] = {"the first words of a line, ",
					    "then the middle of it that goes on and on, ",
					    "and its end, past eighty columns"};
	struct capture c, d;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	for (unsigned i = 3; i-- > 0;) {
		print_section(p, i);
		print_phrase(p, "%s", words[i]);
	}
	print_section(p, 2); /* the line ends in the last section */
	print_nl(p);
	CHECK_EQ(stop(&c, p), 0);
	p = start(&d, PRINT_MODE_TEXT);
	REQUIRE(p);
	print_phrase(p, "%s%s%s", words[0], words[1], words[2]);
	print_nl(p);
	CHECK_EQ(stop(&d, p), 0);
	CHECK_STR(c.buf, d.buf);
	CHECK(strchr(c.buf, '\n') < c.buf + strlen(c.buf) - 1); /* it did wrap */
	free(c.buf);
	free(d.buf);
}

/* Cut anywhere, even inside a word, a line is laid out as the whole line is. */
TEST(a_line_cut_anywhere_wraps_as_one)
{
	static const char line[] = "foreign 1678 RPM (TCP handshake 35.07 ms, HTTP GET 36.46 ms), "
				   "loaded 158 RPM (HTTP GET on the load 380.81 ms)";
	struct capture c, d;
	struct printer *p = start(&d, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_indent(p, 1);
	print_phrase(p, "%s", line);
	print_nl(p);
	REQUIRE_EQ(stop(&d, p), 0);
	for (int cut = 1; cut < (int)sizeof(line) - 1; cut++) {
		p = start(&c, PRINT_MODE_TEXT);
		REQUIRE(p);
		print_section(p, 1);
		print_phrase(p, "%s", line + cut);
		print_nl(p);
		print_section(p, 0);
		print_indent(p, 1);
		print_phrase(p, "%.*s", cut, line);
		CHECK_EQ(stop(&c, p), 0);
		if (!CHECK_STR(c.buf, d.buf))
			cut = (int)sizeof(line);
		free(c.buf);
	}
	free(d.buf);
}

TEST(a_section_past_the_last_is_an_error)
{
	struct capture c;
	struct printer *p = start(&c, PRINT_MODE_TEXT);

	REQUIRE(p);
	print_section(p, PRINT_SECTION_NONE + 1);
	CHECK_EQ(stop(&c, p), -EINVAL);
	free(c.buf);
}
