/* SPDX-License-Identifier: MIT */
/* cli.c - cli.h: usage errors, said the same way by every command, and their signal flag. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG_NAME);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", PROG_NAME);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
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
