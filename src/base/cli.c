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

#include "cli.h"

/* "debloat: CMD: " and the message, without the newline. */
__attribute__((format(printf, 2, 0))) static void message(const char *cmd, const char *fmt,
							  va_list ap)
{
	fprintf(stderr, "%s: ", PROG_NAME);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	vfprintf(stderr, fmt, ap);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message(cmd, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

volatile sig_atomic_t cli_signal;

void cli_on_signal(int sig)
{
	cli_signal = sig;
}
