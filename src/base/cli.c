/* SPDX-License-Identifier: MIT */
/* cli.c - cli.h: messages and usage errors said the same way by every command, the
 * numbers in their options, and their signal flag. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "print.h"

/* "debloat: CMD: " and the message, without the newline. */
__attribute__((format(printf, 2, 0))) static void message(const char *cmd, const char *fmt,
							  va_list ap)
{
	fprintf(stderr, "%s: ", PROG_NAME);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	vfprintf(stderr, fmt, ap);
}

/*
 * The message as one line; on a terminal, wrapped between words at PRINT_WIDTH with the
 * rest indented, as people read it. Elsewhere (a log, a pipe, a test) it stays one line
 * per message, whole for grep.
 */
__attribute__((format(printf, 2, 0))) static void line(const char *cmd, const char *fmt, va_list ap)
{
	char msg[2048];
	struct printer *p;

	if (isatty(STDERR_FILENO) && (p = print_new(stderr, PRINT_MODE_TEXT))) {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		print_text(p, "%s: %s%s%s", PROG_NAME, cmd ? cmd : "", cmd ? ": " : "", msg);
		print_nl(p);
		print_finish(p);
		print_free(p);
		return;
	}
	message(cmd, fmt, ap);
	fputc('\n', stderr);
}

void cli_note(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(cmd, fmt, ap);
	va_end(ap);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(cmd, fmt, ap);
	va_end(ap);
}

int cli_print_finish(const char *cmd, struct printer *p, const char *what)
{
	int r = print_finish(p);

	if (r < 0)
		cli_error(cmd, "%s: %s", what, strerror(-r));
	return r;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(cmd, fmt, ap);
	va_end(ap);
	/* One line, and where the whole usage is: a page of help would bury the error. */
	(void)usage;
	fprintf(stderr, "\nsee '%s%s%s --help'\n", PROG_NAME, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

bool cli_lacks_value(int c, const char *with_value)
{
	if (c == ':')
		return true;
	/* strchr() with a number above 255 would find the terminating NUL. */
	return optopt >= 256 || (optopt > 0 && strchr(with_value, optopt));
}

bool cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() would take a sign, and "-1" as ULLONG_MAX. */
	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_double(const char *s, double min, double max, const char *unit, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && (!unit || strcmp(end, unit))))
		return false;
	/* Written so that NaN fails too; a finite range leaves out the infinities. */
	if (!(v >= min && v <= max) || !isfinite(v))
		return false;
	*out = v;
	return true;
}

const char *cli_bad_option(char *const argv[])
{
	static char word[3];

	/* getopt_long sets optopt for a bad short option and leaves it 0 for a long one. */
	if (optopt && strncmp(argv[optind - 1], "--", 2)) {
		word[0] = '-';
		word[1] = (char)optopt;
		word[2] = '\0';
		return word;
	}
	return argv[optind - 1];
}

/* An unsigned value into a target of the row's size (an int target holds what fits). */
static void store_uint(const struct cli_option *o, uint64_t v)
{
	if (o->size == 1) {
		uint8_t x = (uint8_t)v;
		memcpy(o->to, &x, 1);
	} else if (o->size == 2) {
		uint16_t x = (uint16_t)v;
		memcpy(o->to, &x, 2);
	} else if (o->size == 4) {
		uint32_t x = (uint32_t)v;
		memcpy(o->to, &x, 4);
	} else {
		memcpy(o->to, &v, sizeof(v));
	}
}

/* The row's bad message with the value where its "%s" is; EXIT_USAGE. */
static int bad_value(const char *cmd, const char *usage, const struct cli_option *o,
		     const char *value)
{
	const char *at = o->bad ? strstr(o->bad, "%s") : NULL;

	if (!o->bad)
		return cli_usage_error(cmd, usage, "bad value \"%s\" for \"--%s\"", value, o->name);
	if (!at)
		return cli_usage_error(cmd, usage, "%s", o->bad);
	return cli_usage_error(cmd, usage, "%.*s%s%s", (int)(at - o->bad), o->bad, value, at + 2);
}

/* The row's value into its target: 0, or < 0 for a bad value, or > 0 a call's status. */
static int take(const struct cli_option *o, void *ctx, const char *value)
{
	uint64_t u;
	double d;

	switch (o->kind) {
	case CLI_FLAG:
		*(bool *)o->to = true;
		return 0;
	case CLI_SET:
		store_uint(o, o->set);
		return 0;
	case CLI_STR:
		*(const char **)o->to = value;
		return 0;
	case CLI_UINT:
		if (!cli_parse_uint(value, o->min, o->max, &u))
			return -1;
		store_uint(o, u * (o->scale ? o->scale : 1));
		return 0;
	case CLI_WHOLE:
		if (!cli_parse_double(value, o->lo, o->hi, NULL, &d) || d != floor(d))
			return -1;
		store_uint(o, (uint64_t)d * (o->scale ? o->scale : 1));
		return 0;
	case CLI_DOUBLE:
		if (!cli_parse_double(value, o->lo, o->hi, o->unit, &d))
			return -1;
		*(double *)o->to = o->per != 0 ? d / o->per : d;
		return 0;
	case CLI_CALL:
		return o->call(ctx, value);
	case CLI_HELP:
		break;
	}
	return 0;
}

static bool takes_value(const struct cli_option *o)
{
	if (o->kind == CLI_CALL)
		return o->value;
	return o->kind != CLI_FLAG && o->kind != CLI_SET && o->kind != CLI_HELP;
}

/* The row getopt_long returned c for: its letter, or 256 and up for a long one alone. */
static const struct cli_option *row_of(const struct cli_option *opts, int c)
{
	for (int i = 0; opts[i].name || opts[i].key; i++)
		if (opts[i].key ? opts[i].key == c : c == 256 + i)
			return &opts[i];
	return NULL;
}

static int parse_options(const char *cmd, const char *usage, const struct cli_option *opts,
			 void *ctx, bool leading, int argc, char *argv[])
{
	struct option longs[CLI_MAX_OPTIONS + 1] = {{0}}, *l = longs;
	char shorts[3 * CLI_MAX_OPTIONS + 2], *s = shorts;
	const struct cli_option *o;
	int i, c, r, has_arg;

	for (i = 0; opts[i].name || opts[i].key; i++) {
		if (i == CLI_MAX_OPTIONS)
			return cli_usage_error(cmd, usage, "more than %d options", CLI_MAX_OPTIONS);
		o = &opts[i];
		has_arg = !takes_value(o) ? no_argument
			  : o->optional	  ? optional_argument
					  : required_argument;
		if (o->name)
			*l++ = (struct option){o->name, has_arg, NULL, o->key ? o->key : 256 + i};
		if (o->key) {
			*s++ = (char)o->key;
			if (has_arg != no_argument)
				*s++ = ':';
			if (has_arg == optional_argument)
				*s++ = ':';
		}
	}
	*s = '\0';
	if (leading) {
		/* "+": getopt_long stops at the first operand */
		memmove(shorts + 1, shorts, (size_t)(s - shorts) + 1);
		shorts[0] = '+';
	}
	optind = 0; /* glibc: start over, whoever parsed before */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		o = c == '?' ? NULL : row_of(opts, c);
		if (!o) {
			/* getopt_long leaves the option's letter or number in optopt */
			o = optopt ? row_of(opts, optopt) : NULL;
			if (o && takes_value(o) && !o->optional)
				return cli_usage_error(cmd, usage, "option \"%s\" needs %s",
						       cli_bad_option(argv),
						       o->needs ? o->needs : "a value");
			return cli_usage_error(cmd, usage, "unknown option \"%s\"",
					       cli_bad_option(argv));
		}
		if (o->kind == CLI_HELP)
			return fputs(usage, stdout) == EOF ? 1 : 0;
		r = take(o, ctx, optarg);
		if (r < 0)
			return bad_value(cmd, usage, o, optarg ? optarg : "");
		if (r > 0)
			return r;
	}
	return -1;
}

int cli_parse_options(const char *cmd, const char *usage, const struct cli_option *opts, void *ctx,
		      int argc, char *argv[])
{
	return parse_options(cmd, usage, opts, ctx, false, argc, argv);
}

int cli_parse_leading_options(const char *cmd, const char *usage, const struct cli_option *opts,
			      void *ctx, int argc, char *argv[])
{
	return parse_options(cmd, usage, opts, ctx, true, argc, argv);
}

int cli_want_files(const char *cmd, const char *usage, int argc, const char *what, int max)
{
	if (optind >= argc)
		return cli_usage_error(cmd, usage, "no %s", what);
	if (argc - optind > max)
		return cli_usage_error(cmd, usage, "more than %d files", max);
	return -1;
}

volatile sig_atomic_t cli_signal;

void cli_on_signal(int sig)
{
	cli_signal = sig;
}
