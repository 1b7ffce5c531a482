/* SPDX-License-Identifier: MIT */
/*
 * cmd-plot.c - `debloat plot`: draw test results (our JSON or flent files) as one
 * SVG file (plot/plot.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "plot/plot.h"
#include "plot/svg.h"
#include "plot/telemetry-file.h"

static const char usage[] =
    "Usage: " PROG_NAME " plot FILE... -o OUT.svg [--kind KIND] [--title TEXT]\n"
    "                    [--telemetry FILE]...\n"
    "\n"
    "Draw the results of latency-under-load tests as an SVG image. FILE is the JSON\n"
    "of `" PROG_NAME " test -o` or a flent file (`--flent`, or flent's own .flent.gz),\n"
    "told apart by content; both draw the same.\n"
    "\n"
    "  -o, --output FILE  the SVG file to write (replaced whole, never half written)\n"
    "  -k, --kind KIND    all (default): download, upload and latency over time\n"
    "                     latency, throughput: those panels only\n"
    "                     cdf: the latency distribution of each probe\n"
    "                     box: idle and loaded latency of each run as box plots\n"
    "  -t, --title TEXT   the title (default: test, label, hosts and date)\n"
    "  -T, --telemetry FILE\n"
    "                     the lab's telemetry of one of the runs: its queues, TX ring\n"
    "                     and BQL drawn under that run's latency (kinds all and\n"
    "                     latency), matched to the run by wall-clock time\n"
    "  -h, --help         show this help\n";

struct plot_args {
	const char *output;
	struct plot_options o;
	const char *telemetry[RUN_MAX_FILES];
	size_t ntelemetry;
};

static int take_kind(void *ctx, const char *value)
{
	struct plot_args *a = ctx;

	return plot_kind_parse(value, &a->o.kind);
}

static int take_telemetry(void *ctx, const char *value)
{
	struct plot_args *a = ctx;

	if (a->ntelemetry >= RUN_MAX_FILES)
		return cli_usage_error("plot", usage, "more than %d telemetry files",
				       RUN_MAX_FILES);
	a->telemetry[a->ntelemetry++] = value;
	return 0;
}

/* -1 to plot, else the exit status to return at once. */
static int parse_args(int argc, char *argv[], struct plot_args *a)
{
	const struct cli_option options[] = {
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"kind", 'k', CLI_CALL, .call = take_kind, .value = true, .bad = "unknown kind \"%s\""},
	    {"title", 't', CLI_STR, CLI_TO(&a->o.title)},
	    {"telemetry", 'T', CLI_CALL, .call = take_telemetry, .value = true},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options("plot", usage, options, a, argc, argv);

	if (r < 0)
		r = cli_want_files("plot", usage, argc, "result files", RUN_MAX_FILES);
	if (r >= 0)
		return r;
	if (!a->output)
		return cli_usage_error("plot", usage, "no output file (-o OUT.svg)");
	if (a->ntelemetry && a->o.kind != PLOT_ALL && a->o.kind != PLOT_LATENCY)
		return cli_usage_error("plot", usage,
				       "--telemetry is drawn under latency: --kind all or latency");
	return -1;
}

/* Read each telemetry file and lend it to the run it overlaps in time. 0, or 1 (said why). */
static int attach_telemetry(const struct plot_args *a, struct run *runs, size_t nruns,
			    struct telemetry *tele)
{
	char err[512];
	int r;

	for (size_t i = 0; i < a->ntelemetry; i++) {
		r = telemetry_read(a->telemetry[i], &tele[i], err, sizeof(err));
		if (r < 0) {
			cli_error("plot", "cannot read telemetry %s: %s", a->telemetry[i], err);
			return 1;
		}
		if (tele[i].truncated)
			cli_error("plot",
				  "note: telemetry %s was cut short: read up to its last "
				  "complete sample (t_s %.2f)",
				  a->telemetry[i], tele[i].t_s[tele[i].n - 1]);
		r = telemetry_match(&tele[i], runs, nruns, err, sizeof(err));
		if (r < 0) {
			cli_error("plot", "telemetry %s belongs to none of the runs: %s",
				  a->telemetry[i], err);
			return 1;
		}
		runs[r].telemetry = &tele[i];
	}
	return 0;
}

int cmd_plot(int argc, char *argv[])
{
	struct plot_args a = {0};
	struct telemetry tele[RUN_MAX_FILES];
	struct run *runs = NULL;
	char err[256], *svg = NULL;
	size_t n, len = 0;
	int ret = 1, r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	n = (size_t)(argc - optind);
	if (run_read_all(argv + optind, n, &runs, err, sizeof(err)) < 0) {
		cli_error("plot", "cannot read %s", err);
		return 1;
	}
	memset(tele, 0, sizeof(tele));
	if (attach_telemetry(&a, runs, n, tele))
		goto cleanup;
	r = plot_render(runs, n, &a.o, &svg, &len);
	if (r < 0) {
		cli_error("plot", "cannot draw: %s", strerror(-r));
		goto cleanup;
	}
	r = svg_write_file(a.output, svg, len);
	if (r < 0) {
		cli_error("plot", "cannot write %s: %s", a.output, strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(svg);
	for (size_t i = 0; i < a.ntelemetry; i++)
		telemetry_free(&tele[i]);
	run_free_all(runs, n);
	return ret;
}
