/* SPDX-License-Identifier: MIT */
/*
 * cmd-lab-compare.c - `debloat lab compare PROFILE...` and `debloat lab seed`: their
 * options and help; lab/compare.h is what they do and print.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "lab/board.h"
#include "lab/compare.h"
#include "meter/load-tests.h"
#include "plot/lab-table.h"

static const char usage_compare[] =
    "Usage: " PROG_NAME " lab compare [-l SECONDS] [-d SECONDS] [--test NAME]\n"
    "           [--set KEY=VALUE]... [--sending] [-o DIR] [--json] PROFILE...\n"
    "\n"
    "Run the same latency-under-load test through each lab profile in turn, then show\n"
    "the runs side by side: idle and loaded latency (p50, p99, pooled and per probe),\n"
    "throughput each way, the latency the load added, grade, the BQL limit reached\n"
    "and the drops at each stage, with each run's ratio to the first. Needs root.\n"
    "\n"
    "  -l, --length SECONDS   load duration of each run (default 60)\n"
    "  -d, --delay SECONDS    idle time before and after the load (default 5)\n"
    "      --test NAME        rrul (default), rrul_be, tcp_upload, tcp_download,\n"
    "                         tcp_nup, tcp_ndown or ping\n"
    "      --set KEY=VALUE    override a profile setting in every run (lab --help)\n"
    "      --sending          run each profile a second time sending only (" LC_SEND_TEST "\n"
    "                         from the client: the board sends, as a file server\n"
    "                         does, and receives only ACKs); its goodput and\n"
    "                         loaded p50 get rows of their own\n"
    "  -o, --output DIR       where the files go (default ./debloat-lab-DATE-TIME):\n"
    "                         per run P.json, P.flent.gz, P.svg, P.lab.json,\n"
    "                         P.telemetry.json, P.log (P" LC_SEND_SUFFIX ".* for --sending);\n"
    "                         and compare.svg\n"
    "  -j, --json             print JSON (keys: docs/json.md)\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 every run worked, 1 a run failed (the others are still shown),\n"
    "2 bad options.\n";

static const char usage_seed[] =
    "Usage: " PROG_NAME " lab seed [--board NAME [--shape RATE]\n"
    "                     [--ingress RATE | --no-ingress]] [--sending] [-l SECONDS]\n"
    "                     [-d SECONDS] [-o DIR] [--json]\n"
    "\n"
    "Reproduce the 2014 BeagleBone Black result in the lab: `" PROG_NAME " lab compare`\n"
    "of bbb-stock (pfifo_fast, txqueuelen 1000, no BQL), bbb-bql, bbb-bql-fq and\n"
    "bbb-bql-fq_codel with RRUL, and what the table says against the 2014 email's\n"
    "4-10x and \"two full size packets\". Needs root. Four runs of LENGTH + 2 x DELAY\n"
    "seconds.\n"
    "\n"
    "With --board, one board of the 2014 thread instead (" PROG_NAME " lab boards): its\n"
    "stock profile, its snapshot with the plan `" PROG_NAME " fix --from SNAPSHOT\n"
    "--dry-run` makes applied (lab --snapshot --fixed), and its driver with BQL under\n"
    "fq_codel where the board has such a variant: the cure that costs beside the one\n"
    "that does not.\n"
    "\n"
    "  -b, --board NAME       a board of lab boards (raspberry-pi-4), or its profile\n"
    "                         (rpi4)\n"
    "      --sending          each run a second time sending only (" LC_SEND_TEST " from\n"
    "                         the client: the board sends, as an NFS or iSCSI server\n"
    "                         does): the one-direction goodput each setup keeps\n"
    "      --shape RATE, --ingress RATE, --no-ingress\n"
    "                         plan the fixed run as `" PROG_NAME " fix` would with them\n"
    "                         (--board only), to model a split of a shared ceiling\n"
    "                         other than half each way\n"
    "  -l, --length SECONDS   load duration of each run (default 60)\n"
    "  -d, --delay SECONDS    idle time before and after the load (default 5)\n"
    "  -o, --output DIR       where the files go (default ./debloat-lab-DATE-TIME)\n"
    "  -j, --json             print JSON (keys: docs/json.md)\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 every run worked, 1 a run failed (the others are still shown),\n"
    "2 bad options.\n";

static int take_board(void *ctx, const char *value)
{
	struct lc_args *a = ctx;
	char names[256] = "";

	a->board = lab_board_find(value);
	if (a->board)
		return 0;
	for (const struct lab_board_entry *e = lab_boards; e->snapshot; e++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 names[0] ? ", " : "", e->snapshot);
	return cli_usage_error(a->cmd, a->usage, "no board \"%s\" (boards: %s)", value, names);
}

static int take_shape(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct lc_args *)ctx)->plan.shape_rate);
}

static int take_ingress(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct lc_args *)ctx)->plan.ingress_rate);
}

static int take_test(void *ctx, const char *value)
{
	struct test_spec spec;

	if (test_spec_get(value, 0, &spec) < 0)
		return -1;
	((struct lc_args *)ctx)->test = value;
	return 0;
}

static int take_set(void *ctx, const char *value)
{
	struct lc_args *a = ctx;

	if (a->nsets == LC_MAX_SETS)
		return cli_usage_error(a->cmd, a->usage, "more than %d --set", LC_MAX_SETS);
	if (!strchr(value, '=') || value[0] == '=')
		return -1;
	a->sets[a->nsets++] = value;
	return 0;
}

static int take_dir(void *ctx, const char *value)
{
	if (!*value)
		return -1;
	((struct lc_args *)ctx)->dir = value;
	return 0;
}

#define LC_LENGTH_ROW(a)                                                                           \
	{                                                                                          \
		"length", 'l', CLI_DOUBLE, CLI_TO(&(a)->length_s),                                 \
		    .lo = 1, .hi = 86400, .unit = "s",                                             \
		    .bad = "bad length \"%s\": want seconds, 1 to 86400"                           \
	}
#define LC_DELAY_ROW(a)                                                                            \
	{                                                                                          \
		"delay", 'd', CLI_DOUBLE, CLI_TO(&(a)->delay_s),                                   \
		    .lo = 0, .hi = 3600, .unit = "s",                                              \
		    .bad = "bad delay \"%s\": want seconds, 0 to 3600"                             \
	}
#define LC_SENDING_ROW(a)                                                                          \
	{                                                                                          \
		"sending", 0, CLI_FLAG, CLI_TO(&(a)->sending)                                      \
	}
#define LC_OUTPUT_ROW                                                                              \
	{                                                                                          \
		"output", 'o', CLI_CALL, .call = take_dir, .value = true,                          \
					 .bad = "empty output directory"                           \
	}

/* -1 to run, else the exit status to return now. */
static int parse_args(int argc, char *argv[], struct lc_args *a)
{
	const struct cli_option compare_options[] = {
	    LC_LENGTH_ROW(a),
	    LC_DELAY_ROW(a),
	    {"test", 0, CLI_CALL, .call = take_test, .value = true, .bad = "unknown test \"%s\""},
	    {"set", 0, CLI_CALL, .call = take_set, .value = true,
	     .bad = "bad --set \"%s\": want KEY=VALUE"},
	    LC_OUTPUT_ROW,
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    LC_SENDING_ROW(a),
	    CLI_OPTION_HELP,
	    {0},
	};
	/* seed: its four profiles as they are. */
	const struct cli_option seed_options[] = {
	    LC_LENGTH_ROW(a),
	    LC_DELAY_ROW(a),
	    LC_OUTPUT_ROW,
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {"board", 'b', CLI_CALL, .call = take_board, .value = true},
	    LC_SENDING_ROW(a),
	    {"shape", 0, CLI_CALL, .call = take_shape, .value = true,
	     .bad = "--shape takes a rate from 64kbit to 100gbit (e.g. 400mbit), not \"%s\""},
	    {"ingress", 0, CLI_CALL, .call = take_ingress, .value = true,
	     .bad = "--ingress takes a rate from 64kbit to 100gbit (e.g. 50mbit), not \"%s\""},
	    {"no-ingress", 0, CLI_FLAG, CLI_TO(&a->plan.no_ingress)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options(a->cmd, a->usage, a->seed ? seed_options : compare_options, a,
				  argc, argv);

	if (r >= 0)
		return r;
	if (a->seed) {
		if (optind < argc)
			return cli_usage_error(a->cmd, a->usage, "unexpected operand \"%s\"",
					       argv[optind]);
		if (a->board)
			return -1; /* its profiles come from lc_board_prepare */
		if (a->plan.shape_rate || a->plan.ingress_rate || a->plan.no_ingress)
			return cli_usage_error(a->cmd, a->usage,
					       "--shape, --ingress and --no-ingress plan a "
					       "board's fixed run: add --board");
		for (size_t i = 0; i < LAB_SEED_RUNS; i++)
			a->profiles[a->nprofiles++] = lab_seed_profiles[i];
		return -1;
	}
	if (optind >= argc)
		return cli_usage_error(a->cmd, a->usage, "no profiles to compare");
	if (argc - optind > LC_MAX_PROFILES)
		return cli_usage_error(a->cmd, a->usage, "more than %d profiles", LC_MAX_PROFILES);
	for (int i = optind; i < argc; i++)
		a->profiles[a->nprofiles++] = argv[i];
	return -1;
}

static int lab_compare_command(int argc, char *argv[], bool seed)
{
	struct lc_args a = {.cmd = seed ? "lab seed" : "lab compare",
			    .usage = seed ? usage_seed : usage_compare,
			    .seed = seed,
			    .length_s = 60,
			    .delay_s = 5,
			    .test = "rrul"};
	int ret = parse_args(argc, argv, &a);

	return ret >= 0 ? ret : lab_compare_run(&a);
}

int cmd_lab_compare(int argc, char *argv[])
{
	return lab_compare_command(argc, argv, false);
}

int cmd_lab_seed(int argc, char *argv[])
{
	return lab_compare_command(argc, argv, true);
}
