/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the commands share: the program's name in messages, the usage-error
 * path (exit status 2), one table of options per command and the numbers in them, and
 * the command functions the table in debloat.c lists.
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
 * trailing newline. On a terminal a message longer than 80 columns wraps between words
 * (the rest indented two columns); elsewhere it stays one line.
 */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same shape for what a command tells as it goes ("debloat: server: listening on
 * ..."): information on stderr, not an error. */
void cli_note(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct printer;

/*
 * The end of a command's report: print_finish(p), and when that fails,
 * cli_error(cmd, "<what>: <why>") ("debloat: audit: cannot write the report: No space
 * left on device"). Returns print_finish's 0 or -errno.
 */
int cli_print_finish(const char *cmd, struct printer *p, const char *what);

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
 * A command's options, declared once: one row each, what it is called and what it sets.
 * cli_parse_options() runs getopt_long over the rows, so the commands say their usage
 * errors alike:
 *   unknown option "--nosuch"          an option no row names (or a value where none goes)
 *   option "--port" needs a value      a row that takes a value came without one
 *   the row's bad message              a value out of range, or one its call refused
 * each followed by "see 'debloat CMD --help'", exit status 2.
 *
 * What a row sets, through .to:
 *   CLI_FLAG   bool: true
 *   CLI_SET    an integer (as for CLI_UINT): .set
 *   CLI_STR    const char *: the value as given
 *   CLI_UINT   an unsigned integer of 1, 2, 4 or 8 bytes (or an int, for what fits in
 *              one): cli_parse_uint() from .min to .max, times .scale (0: 1)
 *   CLI_WHOLE  the same, from a number cli_parse_double() reads from .lo to .hi that is
 *              whole ("1e2" and "100.0" are 100)
 *   CLI_DOUBLE double: cli_parse_double() from .lo to .hi followed by .unit (NULL:
 *              nothing), divided by .per (0: 1; 100 makes a percentage a fraction)
 *   CLI_CALL   nothing itself: .call(ctx, value) (value NULL for a row without one); it
 *              returns 0 done, < 0 to have the bad message said, or > 0 an exit status
 *              it chose after printing its own message
 *   CLI_HELP   nothing: prints usage on stdout, and the command returns 0 at once
 * Every kind but CLI_FLAG, CLI_SET, CLI_HELP and CLI_CALL without .value takes a value.
 * bad is the message for a bad value, "%s" standing where the value goes (the message is
 * not a printf format: nothing else in it is expanded). needs names what a missing value
 * is ("a file"; NULL: "a value"). key is the short option's letter, or 0 for a long
 * option alone; name NULL for a short option alone. A row with neither ends the table.
 */
enum cli_kind { CLI_FLAG, CLI_SET, CLI_STR, CLI_UINT, CLI_WHOLE, CLI_DOUBLE, CLI_CALL, CLI_HELP };

/* A number macro's digits, for a bad message: "want 1 to " CLI_DIGITS(MAX) " ms". */
#define CLI_DIGITS(n)  CLI_DIGITS_(n)
#define CLI_DIGITS_(n) #n

/* One row's target and its size: CLI_TO(&a->port). */
#define CLI_TO(p) .to = (p), .size = sizeof(*(p))

struct cli_option {
	const char *name; /* long name, without "--", or NULL */
	int key;	  /* short letter, or 0 */
	enum cli_kind kind;
	void *to;
	size_t size;
	uint64_t min, max, scale, set; /* CLI_UINT, CLI_WHOLE's scale, CLI_SET */
	double lo, hi, per;	       /* CLI_WHOLE, CLI_DOUBLE */
	const char *unit;	       /* CLI_DOUBLE */
	int (*call)(void *ctx, const char *value);
	bool value;    /* CLI_CALL: takes a value */
	bool optional; /* CLI_CALL: ... that may be left out (--rpm or --rpm=PORT) */
	const char *bad;
	const char *needs;
};

/* -h, --help: every command's. */
#define CLI_OPTION_HELP                                                                            \
	{                                                                                          \
		"help", 'h', CLI_HELP, .to = NULL                                                  \
	}

/* At most this many rows in one command's table (checked: EXIT_USAGE past it). */
#define CLI_MAX_OPTIONS 32

/*
 * Parse argv's options by the table opts (ended by a row {0}) for the command
 * cmd, whose --help text is usage; ctx goes to the rows' calls. Returns -1 when the
 * command is to go on with argv[optind..] as its operands, else the exit status to return
 * at once (0 after --help, 2 after a usage error, said on stderr). Starts getopt over.
 */
int cli_parse_options(const char *cmd, const char *usage, const struct cli_option *opts, void *ctx,
		      int argc, char *argv[]);
/*
 * The same, for a command whose operands are a command line of their own (`lab --
 * COMMAND ARG...`): parsing stops at the first operand, so COMMAND's options stay its.
 */
int cli_parse_leading_options(const char *cmd, const char *usage, const struct cli_option *opts,
			      void *ctx, int argc, char *argv[]);

/*
 * After cli_parse_options(): argv[optind..] are from 1 to max files; else "no WHAT" or
 * "more than MAX files" as a usage error. -1, or EXIT_USAGE.
 */
int cli_want_files(const char *cmd, const char *usage, int argc, const char *what, int max);

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
