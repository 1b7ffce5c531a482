/* SPDX-License-Identifier: MIT */
/* test-cli.c - src/base/cli.c: the commands' number parsers, their one error line and
 * their option tables. */
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

/* ---- cli_parse_options(): one table of options per command ---- */

struct opts {
	bool json, keep;
	const char *output;
	unsigned interval_ms;
	uint16_t port;
	uint64_t count;
	unsigned whole;
	int family;
	double length_s, share;
	const char *kinds[4];
	int nkinds;
};

static const char usage_text[] = "Usage: debloat demo [OPTIONS]\n";

/* A call: takes "a" or "b", says its own message after two of them. */
static int take_kind(void *ctx, const char *value)
{
	struct opts *o = ctx;

	if (strcmp(value, "a") && strcmp(value, "b"))
		return -1;
	if (o->nkinds == 2)
		return cli_usage_error("demo", usage_text, "two kinds at most");
	o->kinds[o->nkinds++] = value;
	return 0;
}

/*
 * Parse words (after "demo") into *o with the demo table; the status, and what went to
 * stdout and stderr in out and err.
 */
static int parse(struct opts *o, const char *const words[], char *out, char *err, size_t len)
{
	const struct cli_option table[] = {
	    {"json", 'j', CLI_FLAG, CLI_TO(&o->json)},
	    {"keep", 0, CLI_FLAG, CLI_TO(&o->keep)},
	    {"output", 'o', CLI_STR, CLI_TO(&o->output), .needs = "a file"},
	    {"interval", 'i', CLI_UINT, CLI_TO(&o->interval_ms), .min = 1, .max = 60, .scale = 1000,
	     .bad = "bad interval \"%s\": want 1 to 60 s"},
	    {"port", 'p', CLI_UINT, CLI_TO(&o->port), .min = 1, .max = 65535,
	     .bad = "bad port \"%s\": want 1 to 65535"},
	    {"count", 0, CLI_UINT, CLI_TO(&o->count), .min = 1, .max = UINT64_MAX},
	    {"whole", 0, CLI_WHOLE, CLI_TO(&o->whole), .lo = 1, .hi = 64,
	     .bad = "--whole takes 1 to 64, not \"%s\""},
	    {"length", 'l', CLI_DOUBLE, CLI_TO(&o->length_s), .lo = 0.1, .hi = 10, .unit = "s",
	     .bad = "bad length \"%s\""},
	    {"share", 0, CLI_DOUBLE, CLI_TO(&o->share), .lo = 0, .hi = 100, .per = 100},
	    {"kind", 'k', CLI_CALL, .call = take_kind, .value = true, .bad = "unknown kind \"%s\""},
	    {NULL, '4', CLI_SET, CLI_TO(&o->family), .set = 4},
	    {NULL, '6', CLI_SET, CLI_TO(&o->family), .set = 6},
	    CLI_OPTION_HELP,
	    {0},
	};
	char *argv[32] = {"demo"};
	int argc = 1, r, saved_out, saved_err;
	FILE *fo = tmpfile(), *fe = tmpfile();
	size_t n;

	for (; words[argc - 1] && argc < 31; argc++)
		argv[argc] = (char *)words[argc - 1];
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	dup2(fileno(fo), STDOUT_FILENO);
	dup2(fileno(fe), STDERR_FILENO);
	r = cli_parse_options("demo", usage_text, table, o, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	rewind(fo);
	n = fread(out, 1, len - 1, fo);
	out[n] = '\0';
	rewind(fe);
	n = fread(err, 1, len - 1, fe);
	err[n] = '\0';
	fclose(fo);
	fclose(fe);
	return r;
}

#define SEE "\nsee 'debloat demo --help'\n"

TEST(parse_options_sets_each_kind)
{
	const char *words[] = {"-j",	      "--keep",	 "-o", "f.json",      "-i",	"5",
			       "--port=8080", "--count", "7",  "--whole=1e1", "-l2.5s", "--share",
			       "50",	      "-k",	 "a",  "-6",	      "x",	NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, words, out, err, sizeof(out)), -1);
	CHECK_STR(out, "");
	CHECK_STR(err, "");
	CHECK(o.json && o.keep);
	CHECK_STR(o.output, "f.json");
	CHECK_EQ(o.interval_ms, 5000); /* times .scale */
	CHECK_EQ(o.port, 8080);
	CHECK_EQ(o.count, 7);
	CHECK_EQ(o.whole, 10);
	CHECK(o.length_s == 2.5);
	CHECK(o.share == 0.5); /* divided by .per */
	CHECK_EQ(o.nkinds, 1);
	CHECK_EQ(o.family, 6);
	CHECK_EQ(optind, 17); /* the operand "x" is left, after the options */
}

TEST(parse_options_help_prints_usage_and_stops)
{
	const char *words[] = {"--help", "--nosuch", NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, words, out, err, sizeof(out)), 0);
	CHECK_STR(out, usage_text);
	CHECK_STR(err, "");
}

TEST(parse_options_unknown_option)
{
	const char *long_words[] = {"--nosuch", NULL}, *short_words[] = {"-jz", NULL},
		   *valued[] = {"--json=1", NULL}, *set_words[] = {"-4", "--zz", NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, long_words, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: unknown option \"--nosuch\"" SEE);
	CHECK_STR(out, "");
	CHECK_EQ(parse(&o, short_words, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: unknown option \"-z\"" SEE);
	/* a value where none goes: the option as typed is unknown */
	CHECK_EQ(parse(&o, valued, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: unknown option \"--json=1\"" SEE);
	CHECK_EQ(parse(&o, set_words, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: unknown option \"--zz\"" SEE);
}

TEST(parse_options_missing_value)
{
	const char *long_words[] = {"--port", NULL}, *bundled[] = {"-ji", NULL},
		   *file[] = {"-o", NULL}, *long_only[] = {"--count", NULL},
		   *abbrev[] = {"--out", NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, long_words, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: option \"--port\" needs a value" SEE);
	CHECK_EQ(parse(&o, bundled, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: option \"-i\" needs a value" SEE);
	CHECK_EQ(parse(&o, file, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: option \"-o\" needs a file" SEE);
	CHECK_EQ(parse(&o, long_only, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: option \"--count\" needs a value" SEE);
	CHECK_EQ(parse(&o, abbrev, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: option \"--out\" needs a file" SEE);
}

TEST(parse_options_bad_values_say_the_rows_message)
{
	const char *range[] = {"-i", "61", NULL}, *sign[] = {"--port", "+5", NULL},
		   *unit[] = {"-l", "2ms", NULL}, *frac[] = {"--whole", "1.5", NULL},
		   *call[] = {"-k", "c", NULL}, *none[] = {"--count", "0", NULL},
		   *pct[] = {"--share", "50%", NULL};
	struct opts o = {.interval_ms = 3, .port = 4};
	char out[256], err[256];

	CHECK_EQ(parse(&o, range, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: bad interval \"61\": want 1 to 60 s" SEE);
	CHECK_EQ(o.interval_ms, 3); /* untouched */
	CHECK_EQ(parse(&o, sign, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: bad port \"+5\": want 1 to 65535" SEE);
	CHECK_EQ(o.port, 4);
	CHECK_EQ(parse(&o, unit, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: bad length \"2ms\"" SEE);
	CHECK_EQ(parse(&o, frac, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: --whole takes 1 to 64, not \"1.5\"" SEE);
	CHECK_EQ(parse(&o, call, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: unknown kind \"c\"" SEE);
	/* a row without a message of its own */
	CHECK_EQ(parse(&o, none, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: bad value \"0\" for \"--count\"" SEE);
	CHECK_EQ(parse(&o, pct, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(out, "");
}

TEST(parse_options_call_says_its_own_message)
{
	const char *words[] = {"-k", "a", "-k", "b", "-k", "a", "-j", NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, words, out, err, sizeof(out)), EXIT_USAGE);
	CHECK_STR(err, "debloat: demo: two kinds at most" SEE);
	CHECK_EQ(o.nkinds, 2);
	CHECK(!o.json); /* parsing stopped there */
}

TEST(parse_options_starts_over)
{
	const char *first[] = {"-j", "x", NULL}, *second[] = {"-i", "2", "y", "z", NULL};
	struct opts o = {0};
	char out[256], err[256];

	CHECK_EQ(parse(&o, first, out, err, sizeof(out)), -1);
	CHECK_EQ(optind, 2);
	CHECK_EQ(parse(&o, second, out, err, sizeof(out)), -1);
	CHECK_EQ(optind, 3);
	CHECK_EQ(o.interval_ms, 2000);
}
