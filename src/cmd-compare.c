/* SPDX-License-Identifier: MIT */
/*
 * cmd-compare.c - `debloat compare`: several test results side by side, each with
 * its ratio to the first (plot/compare-runs.h), and with -o the same runs drawn overlaid.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "plot/compare-runs.h"
#include "plot/plot.h"
#include "plot/svg.h"

static const char usage[] =
    "Usage: " PROG_NAME " compare FILE... [--json] [-o OUT.svg]\n"
    "\n"
    "Show test results side by side: throughput, idle and loaded latency (p50, p99),\n"
    "the latency the load added, loss, grade and responsiveness, with each run's\n"
    "ratio to the first. FILE is the JSON of `" PROG_NAME " test -o` or a flent file.\n"
    "\n"
    "  -o, --output FILE  also draw the runs overlaid (latency CDFs, throughput bars)\n"
    "  -t, --title TEXT   the drawing's title\n"
    "  -j, --json         print JSON (keys: docs/json.md)\n"
    "  -h, --help         show this help\n";

struct compare_args {
	const char *output, *title;
	bool json;
};

/* -1 to compare, else the exit status to return at once. */
static int parse_args(int argc, char *argv[], struct compare_args *a)
{
	const struct cli_option options[] = {
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"title", 't', CLI_STR, CLI_TO(&a->title)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options("compare", usage, options, NULL, argc, argv);

	if (r < 0)
		r = cli_want_files("compare", usage, argc, "result files", RUN_MAX_FILES);
	return r;
}

/* The overlaid drawing; prints its own error. */
static int draw(const struct compare_args *a, const struct run *runs, size_t n)
{
	struct plot_options o = {PLOT_COMPARE, a->title};
	char *svg = NULL;
	size_t len = 0;
	int r;

	r = plot_render(runs, n, &o, &svg, &len);
	if (!r)
		r = svg_write_file(a->output, svg, len);
	if (r < 0)
		cli_error("compare", "cannot write %s: %s", a->output, strerror(-r));
	free(svg);
	return r;
}

int cmd_compare(int argc, char *argv[])
{
	struct compare_args a = {0};
	struct printer *p = NULL;
	struct run *runs = NULL;
	size_t n;
	char err[256];
	int ret = 1, r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	n = (size_t)(argc - optind);
	if (run_read_all(argv + optind, n, &runs, err, sizeof(err)) < 0) {
		cli_error("compare", "cannot read %s", err);
		return 1;
	}
	if (a.output && draw(&a, runs, n) < 0)
		goto cleanup;
	p = print_new(stdout, a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error("compare", "out of memory");
		goto cleanup;
	}
	compare_print(p, runs, (const char *const *)(argv + optind), n);
	if (cli_print_finish("compare", p, "cannot print") < 0)
		goto cleanup;
	ret = 0;
cleanup:
	print_free(p);
	run_free_all(runs, n);
	return ret;
}
