/* SPDX-License-Identifier: MIT */
/*
 * cmd-prove.c - `debloat prove`: its options, the comparison plot and the report to paste
 * into a forum post. The proof itself (measure, fix on trial, measure again, keep or
 * put back) is prove/proof.h.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/outfile.h"
#include "base/print.h"
#include "fix/apply.h"
#include "fix/plan.h"
#include "host/iface.h"
#include "meter/cc.h"
#include "meter/load-tests.h"
#include "plot/plot.h"
#include "plot/run-file.h"
#include "plot/svg.h"
#include "prove/proof.h"

static const char usage[] =
    "Usage: " PROG_NAME " prove SERVER [IFACE...] [--test NAME] [-l SECONDS] [-d SECONDS]\n"
    "           [--shape RATE] [--ingress | --no-ingress] [--min-gain X]\n"
    "           [--max-loss F] [--role host|server] [--keep | --undo] [-o DIR]\n"
    "           [--json] [-p PORT] [--key FILE] [--cc ALGO] [--state-dir DIR]\n"
    "\n"
    "Prove a fix on this host against `" PROG_NAME " server` on SERVER: measure latency\n"
    "under load, apply `" PROG_NAME " fix` on trial, measure again, and keep the change\n"
    "only when the second run is better: induced latency at least --min-gain times\n"
    "lower and no direction's goodput down by more than --max-loss. Otherwise\n"
    "everything is put back at once. Each direction is judged on its own: its rate\n"
    "from this host's own TCP counters (in a run loading it alone), its queue from\n"
    "the probes' one-way delays. A direction whose queue grew is shaped just below\n"
    "its rate: the upload at the egress, the download through an ifb device. IFACE:\n"
    "the interfaces to fix (default: the one the route to SERVER leaves by). Needs\n"
    "root.\n"
    "\n"
    "  -t, --test NAME       the test of both runs (default rrul; see `" PROG_NAME " test`)\n"
    "  -l, --length SECONDS  load per run (default 30)\n"
    "  -d, --delay SECONDS   idle time before and after each load (default 5)\n"
    "      --shape RATE      shape at RATE (as tc spells it: 80mbit), not as measured\n"
    "      --ingress         shape the download whatever its delay (ifb + mirred)\n"
    "      --no-ingress      never shape the download\n"
    "      --min-gain X      keep only if induced latency is X times lower (2)\n"
    "      --max-loss F      keep only if goodput fell by at most F, 0 to 1 or a\n"
    "                        percentage (0.15)\n"
    "  -r, --role ROLE       host (default) or server: passed to fix\n"
    "      --keep            keep the change whatever the verdict\n"
    "      --undo            put it back whatever the verdict (measure only)\n"
    "  -o, --output DIR      where the files go (default ./debloat-prove-DATE-TIME)\n"
    "  -j, --json            print prove.json on stdout instead of the report\n"
    "  -p, --port PORT       the server's port (default 9911)\n"
    "      --key FILE        the shared key of a private server\n"
    "      --cc ALGO         TCP congestion control of the test's flows, at both ends\n"
    "  -s, --state-dir DIR   fix's journal (default " APPLY_STATE_DIR ")\n"
    "  -h, --help            show this help\n"
    "\n"
    "Each run's grade is the worst of the DSLReports scale on its induced latency\n"
    "(A+ under 5 ms, A 30, B 60, C 200, D 400, else F), the same scale at twice its\n"
    "bounds on its tail (loaded p99 - idle p50), and its probe loss (above 5%: B at\n"
    "best, above 25%: C at best): docs/grades.md.\n"
    "\n"
    "Exit status: 0 kept (or nothing to change), 3 put back (not proven better),\n"
    "1 the proof could not run (everything put back), 2 bad options.\n";

#define PROVE_EXIT_PUT_BACK 3

static int take_shape(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct proof_opts *)ctx)->shape);
}

/* A fraction, or a percentage with its sign. */
static int take_max_loss(void *ctx, const char *value)
{
	double v;

	if (!cli_parse_double(value, 0, 100, "%", &v))
		return -1;
	if (strchr(value, '%'))
		v /= 100;
	if (v > 1)
		return -1;
	((struct proof_opts *)ctx)->max_loss = v;
	return 0;
}

static int take_role(void *ctx, const char *value)
{
	if (strcmp(value, "host") && strcmp(value, "server"))
		return -1;
	((struct proof_opts *)ctx)->role = value;
	return 0;
}

static int parse_args(int argc, char *argv[], struct proof_opts *a)
{
	const struct cli_option options[] = {
	    {"test", 't', CLI_STR, CLI_TO(&a->test)},
	    {"length", 'l', CLI_DOUBLE, CLI_TO(&a->length_s), .lo = 2, .hi = 3600,
	     .bad = "--length takes 2 to 3600 seconds, not \"%s\""},
	    {"delay", 'd', CLI_DOUBLE, CLI_TO(&a->delay_s), .lo = 1, .hi = 60,
	     .bad = "--delay takes 1 to 60 seconds, not \"%s\""},
	    {"shape", 0, CLI_CALL, .call = take_shape, .value = true,
	     .bad = "--shape takes a rate from 64kbit to 100gbit (\"80mbit\"), not \"%s\""},
	    {"min-gain", 0, CLI_DOUBLE, CLI_TO(&a->min_gain), .lo = 1, .hi = 1000,
	     .bad = "--min-gain takes a factor from 1 to 1000, not \"%s\""},
	    {"max-loss", 0, CLI_CALL, .call = take_max_loss, .value = true,
	     .bad = "--max-loss takes a fraction from 0 to 1 (or 0% to 100%), not \"%s\""},
	    {"role", 'r', CLI_CALL, .call = take_role, .value = true,
	     .bad = "--role is host or server, not \"%s\""},
	    {"keep", 0, CLI_FLAG, CLI_TO(&a->keep)},
	    {"undo", 0, CLI_FLAG, CLI_TO(&a->undo)},
	    {"output", 'o', CLI_STR, CLI_TO(&a->out_dir)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {"port", 'p', CLI_WHOLE, CLI_TO(&a->port), .lo = 1, .hi = 65535,
	     .bad = "--port takes 1 to 65535, not \"%s\""},
	    {"key", 0, CLI_STR, CLI_TO(&a->keyfile)},
	    {"cc", 0, CLI_STR, CLI_TO(&a->cc)},
	    {"ingress", 0, CLI_FLAG, CLI_TO(&a->ingress)},
	    {"no-ingress", 0, CLI_FLAG, CLI_TO(&a->no_ingress)},
	    {"state-dir", 's', CLI_STR, CLI_TO(&a->state_dir)},
	    CLI_OPTION_HELP,
	    {0},
	};
	struct test_spec spec;
	int c = cli_parse_options("prove", usage, options, a, argc, argv);

	if (c >= 0)
		return c;
	if (a->keep && a->undo)
		return cli_usage_error("prove", usage, "--keep or --undo, not both");
	if (a->ingress && a->no_ingress)
		return cli_usage_error("prove", usage, "--ingress or --no-ingress, not both");
	if (optind >= argc)
		return cli_usage_error("prove", usage, "missing SERVER");
	a->server = argv[optind++];
	for (; optind < argc; optind++) {
		if (a->nifaces == PROOF_MAX_IFACES)
			return cli_usage_error("prove", usage, "at most %d interfaces",
					       PROOF_MAX_IFACES);
		if (iface_name_invalid(argv[optind]))
			return cli_usage_error("prove", usage, "\"%s\" is no interface name: %s",
					       argv[optind], iface_name_invalid(argv[optind]));
		a->ifaces[a->nifaces++] = argv[optind];
	}
	if (test_spec_get(a->test, 0, &spec) < 0)
		return cli_usage_error("prove", usage, "unknown test \"%s\"", a->test);
	/* before anything changes: a run that cannot set it fails its flows midway */
	if (a->cc && (c = cc_usable(a->cc)) < 0)
		return cli_usage_error("prove", usage,
				       "this host cannot use congestion control \"%s\": %s", a->cc,
				       c == -ENOENT ? "no such algorithm" : strerror(-c));
	return -1;
}

/* A sentence from the proof as it goes. */
static void note(void *ctx, const char *text)
{
	(void)ctx;
	cli_error("prove", "%s", text);
}

/* A progress line on a terminal; p NULL: the test ended, clear it. */
static void progress(void *ctx, const char *label, const struct engine_progress *p)
{
	(void)ctx;
	if (!p) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%s: %5.1f/%.1f s  down %7.2f  up %7.2f Mbit/s", label,
		p->elapsed_s, p->total_s, p->download_mbps, p->upload_mbps);
	fflush(stderr);
}

static void on_signal(int sig)
{
	static const char changed[] =
	    PROG_NAME ": prove: interrupted: the change on trial was put back\n";
	static const char unchanged[] = PROG_NAME ": prove: interrupted: nothing was changed\n";

	(void)sig;
	if (proof_put_back_now())
		(void)!write(STDERR_FILENO, changed, sizeof(changed) - 1);
	else
		(void)!write(STDERR_FILENO, unchanged, sizeof(unchanged) - 1);
	_exit(1);
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The comparison plot of both runs. */
static void draw(struct proof *r)
{
	char *paths[2] = {r->path[PROOF_BEFORE], r->path[PROOF_AFTER]};
	struct plot_options o = {PLOT_COMPARE, "debloat prove: before and after"};
	struct run *runs = NULL;
	char err[256], *svg = NULL;
	size_t len = 0;

	if (run_read_all(paths, 2, &runs, err, sizeof(err)) < 0)
		return;
	if (plot_render(runs, 2, &o, &svg, &len) == 0)
		svg_write_file(r->path[PROOF_PLOT], svg, len);
	free(svg);
	run_free_all(runs, 2);
}

static void print_report(struct printer *p, const struct proof *r)
{
	struct prove_report rep;

	proof_report(r, &rep);
	prove_report_print(p, &rep);
}

static int write_report(struct proof *r)
{
	struct outfile o;
	struct printer *p;
	int ret;

	ret = outfile_open(&o, r->path[PROOF_PROVE]);
	if (ret < 0)
		return ret;
	p = print_new(o.f, PRINT_MODE_JSON);
	if (!p) {
		outfile_close(&o, 1);
		return -ENOMEM;
	}
	print_report(p, r);
	ret = print_finish(p);
	print_free(p);
	return outfile_close(&o, ret < 0) < 0 ? -EIO : ret;
}

int cmd_prove(int argc, char *argv[])
{
	struct proof *r = calloc(1, sizeof(*r));
	struct printer *p;
	int ret = 1, pr, wr;

	if (!r) {
		cli_error("prove", "out of memory");
		return 1;
	}
	r->a = (struct proof_opts){.test = "rrul",
				   .length_s = 30,
				   .delay_s = 5,
				   .min_gain = PROVE_DEFAULT_MIN_GAIN,
				   .max_loss = PROVE_DEFAULT_MAX_LOSS};
	pr = parse_args(argc, argv, &r->a);
	if (pr >= 0) {
		free(r);
		return pr;
	}
	if (geteuid() != 0) {
		cli_error("prove", "needs root (fix changes qdiscs and links)");
		free(r);
		return 1;
	}
	if (isatty(STDERR_FILENO) && !r->a.json)
		r->a.progress = progress;
	r->a.note = note;
	if (proof_setup(r) < 0) {
		cli_error("prove", "%s", r->why);
		goto cleanup;
	}
	catch_signals();
	pr = proof_run(r);
	ret = pr < 0 ? 1 : pr > 0 ? PROVE_EXIT_PUT_BACK : 0;
	if (r->have_before && r->have_after)
		draw(r);
	if ((wr = write_report(r)) < 0) {
		cli_error("prove", "cannot write %s: %s", r->path[PROOF_PROVE], strerror(-wr));
		ret = 1;
	}
	if (pr < 0)
		cli_error("prove", "%s", r->why);
	p = print_new(stdout, r->a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (p) {
		print_report(p, r);
		if (print_finish(p) < 0)
			ret = 1;
		print_free(p);
	}
cleanup:
	proof_free(r);
	free(r);
	return ret;
}
