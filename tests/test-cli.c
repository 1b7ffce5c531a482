/* SPDX-License-Identifier: MIT */
/* test-cli.c - src/base/cli.c: the commands' number parsers and their one error line. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "harness.h"

TEST(parse_uint_whole_string_in_range)
{
	uint64_t v = 7;

	CHECK(cli_parse_uint("1", 1, 10, &v) && v == 1);
	CHECK(cli_parse_uint("10", 1, 10, &v) && v == 10);
	CHECK(cli_parse_uint("18446744073709551615", 1, UINT64_MAX, &v) && v == UINT64_MAX);
	/* blanks before the digits are skipped, as strtoull() does */
	CHECK(cli_parse_uint(" 5", 1, 10, &v) && v == 5);
	v = 7;
	CHECK(!cli_parse_uint("0", 1, 10, &v));
	CHECK(!cli_parse_uint("11", 1, 10, &v));
	CHECK(!cli_parse_uint("", 1, 10, &v));
	CHECK(!cli_parse_uint("+5", 1, 10, &v));
	CHECK(!cli_parse_uint("-1", 0, UINT64_MAX, &v)); /* not ULLONG_MAX */
	CHECK(!cli_parse_uint("5s", 1, 10, &v));
	CHECK(!cli_parse_uint("5 ", 1, 10, &v));
	CHECK(!cli_parse_uint("1.0", 1, 10, &v));
	CHECK(!cli_parse_uint("18446744073709551616", 1, UINT64_MAX, &v)); /* ERANGE */
	CHECK_EQ(v, 7);							   /* untouched */
}

TEST(parse_double_with_and_without_unit)
{
	double v = 7;

	CHECK(cli_parse_double("0.5", 0, 1, NULL, &v) && v == 0.5);
	CHECK(cli_parse_double("1e1", 0, 10, NULL, &v) && v == 10);
	CHECK(cli_parse_double("2.5s", 0, 10, "s", &v) && v == 2.5);
	CHECK(cli_parse_double("3", 0, 10, "s", &v) && v == 3);
	CHECK(cli_parse_double("50%", 0, 100, "%", &v) && v == 50); /* the unit not applied */
	v = 7;
	CHECK(!cli_parse_double("2.5s", 0, 10, NULL, &v));
	CHECK(!cli_parse_double("2.5ms", 0, 10, "s", &v));
	CHECK(!cli_parse_double("2.5 s", 0, 10, "s", &v));
	CHECK(!cli_parse_double("s", 0, 10, "s", &v));
	CHECK(!cli_parse_double("", 0, 10, NULL, &v));
	CHECK(!cli_parse_double("10.01", 0, 10, NULL, &v));
	CHECK(!cli_parse_double("-0.1", 0, 10, NULL, &v));
	CHECK(!cli_parse_double("nan", 0, 10, NULL, &v));
	CHECK(!cli_parse_double("inf", 0, INFINITY, NULL, &v));
	CHECK(!cli_parse_double("1e999", 0, INFINITY, NULL, &v)); /* ERANGE */
	CHECK(v == 7);
}

/* What cli_error() writes on stderr, read back from a temporary file. */
static void error_line(char *buf, size_t len, const char *cmd, const char *what)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	buf[0] = '\0';
	if (!tmp || saved < 0)
		return;
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	cli_error(cmd, "cannot read %s: %s", what, "No such file or directory");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

TEST(error_line_names_program_and_command)
{
	char buf[256];

	error_line(buf, sizeof(buf), "plot", "a.json");
	CHECK_STR(buf, "debloat: plot: cannot read a.json: No such file or directory\n");
	error_line(buf, sizeof(buf), NULL, "a.json");
	CHECK_STR(buf, "debloat: cannot read a.json: No such file or directory\n");
}
