/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the commands share: the program's name in messages, the usage-error
 * path (exit status 2), and the command functions the table in debloat.c lists.
 *
 * A command returns the process's exit status: 0 done, 1 failed (the message says
 * what, on what, and why), 2 a usage error.
 */
#ifndef DEBLOAT_CLI_H
#define DEBLOAT_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define PROG_NAME "debloat"

enum {
	EXIT_USAGE = 2,
};

/*
 * "debloat: fix: needs root" and a newline on stderr: the one shape of a command's
 * message (what failed, on what, and why); cmd NULL: "debloat: needs root". fmt has no
 * trailing newline.
 */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * "debloat: audit: unknown option "--nosuch"" and "see 'debloat audit --help'" on
 * stderr, two lines, not the whole help; returns EXIT_USAGE. cmd may be NULL for the top
 * level. usage is kept for the callers' sake and not printed.
 */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The word getopt_long just rejected: "--nosuch", or "-x" for a short option. */
const char *cli_bad_option(char *const argv[]);
/*
 * After getopt_long returned '?' or ':' (c): does the option lack its value? It does
 * for a short option among the letters of with_value, or for a long option numbered 256
 * and up (getopt_long leaves optopt at the option's number). The option is then named
 * as typed by argv[optind - 1] ("--port", not "-p").
 */
bool cli_lacks_value(int c, const char *with_value);

/*
 * Numbers in option values: the whole string or false, and *out untouched when false.
 * cli_parse_uint: decimal digits, no sign (blanks before them are skipped, as strtoull()
 * does), from min to max.
 * cli_parse_double: what strtod() reads, finite, from min to max, followed by nothing
 * or by exactly unit ("s"; NULL: by nothing). The unit is not applied: "50%" with
 * unit "%" gives 50.
 */
bool cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
bool cli_parse_double(const char *s, double min, double max, const char *unit, double *out);

/*
 * A command that stops cleanly on SIGINT/SIGTERM installs cli_on_signal() as the
 * handler (sigaction) and polls cli_signal: 0 until a signal came, then its number.
 * One process runs one command, so one flag serves them all.
 */
extern volatile sig_atomic_t cli_signal;
void cli_on_signal(int sig);

int cmd_audit(int argc, char *argv[]);
int cmd_bql(int argc, char *argv[]);
int cmd_compare(int argc, char *argv[]);
int cmd_exporter(int argc, char *argv[]);
int cmd_fix(int argc, char *argv[]);
int cmd_lab(int argc, char *argv[]);
/* `debloat lab compare` and `debloat lab seed` (argv[0] is the word). */
int cmd_lab_compare(int argc, char *argv[]);
int cmd_lab_seed(int argc, char *argv[]);
int cmd_undo(int argc, char *argv[]);
int cmd_plot(int argc, char *argv[]);
int cmd_prove(int argc, char *argv[]);
int cmd_server(int argc, char *argv[]);
int cmd_snapshot(int argc, char *argv[]);
int cmd_test(int argc, char *argv[]);
/* `debloat test rpm URL` (argv without the word rpm). */
int cmd_test_rpm(int argc, char *argv[]);
int cmd_rrul(int argc, char *argv[]);
/* `debloat test` under another command's name; test NULL takes it from the operands. */
int cmd_test_named(const char *cmd, const char *test, int argc, char *argv[]);

#endif
