/* SPDX-License-Identifier: MIT */
/* debloat.c - the subcommand table and main(): everything else is in cmd-*.c. */
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "base/cli.h"

#ifndef DEBLOAT_VERSION
#error "DEBLOAT_VERSION must be defined (meson passes the project version)"
#endif

static const struct {
	const char *name;
	int (*function)(int argc, char *argv[]);
	const char *description;
} subcommands[] = {
    {"audit", cmd_audit, "Show each interface's queues, the delay they add, the fix, a grade"},
    {"bql", cmd_bql, "Watch each TX queue's byte queue limits live (limit, inflight)"},
    {"server", cmd_server, "Serve latency-under-load tests (debloat rrul) to other hosts"},
    {"snapshot", cmd_snapshot, "Save what audit reads as JSON, to audit later: audit --from FILE"},
    {"rrul", cmd_rrul, "Measure latency under load against a debloat server: test rrul HOST"},
    {"test", cmd_test, "Run a latency-under-load test (rrul, ping...), or IETF RPM (rpm URL)"},
    {"plot", cmd_plot, "Draw test results (JSON or flent files) as SVG: over time, CDF, box"},
    {"compare", cmd_compare, "Show several test results side by side, with ratios to the first"},
    {"fix", cmd_fix, "Apply the recommended queueing setup, journaled for undo"},
    {"undo", cmd_undo, "Restore what fix changed, from its journal"},
    {"prove", cmd_prove, "Measure, fix on trial, measure again: keep the fix if better"},
    {"lab", cmd_lab, "Emulate a board's link between two namespaces and measure across it"},
    {"exporter", cmd_exporter, "Serve every queue's counters, BQL and audit grade to Prometheus"},
};

#define NSUBCOMMANDS (COUNT(subcommands))

static void show_usage(FILE *f)
{
	fprintf(f, "Usage: %s [COMMAND] [ARGS...]\n\n", PROG_NAME);
	fprintf(f, "Find bufferbloat on this host: which queues can add delay under load, how\n"
		   "much, and what to do about it. Without a command, runs audit.\n\n");
	fprintf(f, "Commands:\n");
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].description);
	fprintf(f, "  %-8s %s\n", "help", "Show this text, or a command's options: help COMMAND");
	fprintf(f, "\nOptions: --help, --version. Every command takes --help.\n");
}

static int find_subcommand(const char *name)
{
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		if (!strcmp(subcommands[i].name, name))
			return (int)i;
	return -1;
}

int main(int argc, char *argv[])
{
	char *help_argv[] = {NULL, "--help", NULL};
	char *default_argv[] = {NULL, NULL};
	int i;

	if (argc < 2) {
		default_argv[0] = (char *)subcommands[0].name;
		return subcommands[0].function(1, default_argv);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc < 3 || strcmp(argv[1], "help")) {
			show_usage(stdout);
			return 0;
		}
		i = find_subcommand(argv[2]);
		if (i < 0)
			return cli_usage_error(NULL, NULL, "no help for unknown command \"%s\"",
					       argv[2]);
		help_argv[0] = argv[2];
		return subcommands[i].function(2, help_argv);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", PROG_NAME, DEBLOAT_VERSION);
		return 0;
	}
	if (argv[1][0] == '-')
		return cli_usage_error(NULL, NULL, "unknown option \"%s\"", argv[1]);
	i = find_subcommand(argv[1]);
	if (i < 0)
		return cli_usage_error(NULL, NULL, "unknown command \"%s\"", argv[1]);
	return subcommands[i].function(argc - 1, argv + 1);
}
