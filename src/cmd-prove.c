/* SPDX-License-Identifier: MIT */
/*
 * cmd-prove.c - `debloat prove`: measure, fix on trial, measure again, keep the change
 * only when the second measurement is better (prove/verdict.h), else put it back
 * (prove/trial.h). Writes both runs, the fix's report, a comparison plot and
 * prove.json into one directory, and prints a report to paste into a forum post.
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

#include <debloat/units.h>

#include "base/array.h"
#include "base/cli.h"
#include "fix/apply.h"
#include "fix/journal.h"
#include "fix/plan.h"
#include "host/host.h"
#include "host/iface.h"
#include "base/json.h"
#include "meter/cc.h"
#include "meter/egress.h"
#include "meter/engine.h"
#include "meter/flent.h"
#include "meter/proto.h"
#include "meter/result-print.h"
#include "meter/summary.h"
#include "meter/tests.h"
#include "plot/plot.h"
#include "plot/run-file.h"
#include "plot/svg.h"
#include "base/outfile.h"
#include "audit/policy.h"
#include "base/print.h"
#include "prove/trial.h"
#include "prove/prove-print.h"
#include "prove/verdict.h"
#include "prove/watch.h"

static const char usage[] =
    "Usage: " PROG_NAME " prove SERVER [IFACE...] [--test NAME] [-l SECONDS] [-d SECONDS]\n"
    "           [--shape RATE] [--ingress] [--min-gain X] [--max-loss F]\n"
    "           [--role host|server] [--keep | --undo] [-o DIR] [--json] [-p PORT]\n"
    "           [--key FILE] [--cc ALGO] [--state-dir DIR]\n"
    "\n"
    "Prove a fix on this host against `" PROG_NAME " server` on SERVER: measure latency\n"
    "under load, apply `" PROG_NAME " fix` on trial, measure again, and keep the change\n"
    "only when the second run is better: induced latency at least --min-gain times\n"
    "lower and no direction's goodput down by more than --max-loss. Otherwise\n"
    "everything is put back at once. When the upload's bottleneck is beyond this host\n"
    "(its goodput well below the link speed) or the driver has no BQL, the fix shapes\n"
    "the egress just below the measured rate, virtual links included; with --ingress,\n"
    "the download too, through an ifb device. IFACE: the interfaces to fix (default:\n"
    "the one the route to SERVER leaves by). Needs root.\n"
    "\n"
    "  -t, --test NAME       the test of both runs (default rrul; see `" PROG_NAME " test`)\n"
    "  -l, --length SECONDS  load per run (default 30)\n"
    "  -d, --delay SECONDS   idle time before and after each load (default 5)\n"
    "      --shape RATE      shape at RATE (as tc spells it: 80mbit), not as measured\n"
    "      --ingress         shape the download too, at its goodput (ifb + mirred)\n"
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
#define PROVE_MAX_IFACES    8

struct prove_args {
	const char *server, *test, *out_dir, *keyfile, *state_dir, *role, *cc;
	char *ifaces[PROVE_MAX_IFACES];
	size_t nifaces;
	double length_s, delay_s, min_gain, max_loss;
	uint64_t shape;
	unsigned port;
	bool keep, undo, json, ingress;
};

static int take_shape(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct prove_args *)ctx)->shape);
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
	((struct prove_args *)ctx)->max_loss = v;
	return 0;
}

static int take_role(void *ctx, const char *value)
{
	if (strcmp(value, "host") && strcmp(value, "server"))
		return -1;
	((struct prove_args *)ctx)->role = value;
	return 0;
}

static int parse_args(int argc, char *argv[], struct prove_args *a)
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
	if (optind >= argc)
		return cli_usage_error("prove", usage, "missing SERVER");
	a->server = argv[optind++];
	for (; optind < argc; optind++) {
		if (a->nifaces == PROVE_MAX_IFACES)
			return cli_usage_error("prove", usage, "at most %d interfaces",
					       PROVE_MAX_IFACES);
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

/* ---- the state of one proof ---- */

struct prove_run {
	struct prove_args a;
	struct host host;
	const struct iface *ifc; /* the first interface */
	struct verdict audit;
	char dir[1024];
	char path[8][1100]; /* files in dir, by enum file */
	struct prove_numbers before, after;
	struct prove_watch watch_before, watch_after; /* the first interface's counters */
	bool have_before, have_after;
	struct prove_capacity cap;
	struct prove_verdict verdict;
	const char *outcome; /* "kept", "put-back", "already-fixed", "nothing-to-change",
				"failed" */
	char why[512];
	bool already; /* the journal holds debloat's change to these interfaces */
	struct jval *fix; /* fix's JSON report, when it ran */
	struct trial trial;
	uint8_t key[64];
	size_t keylen;
	char *route_iface; /* the interface found from the route, when none was named */
};

enum file { F_BEFORE, F_BEFORE_FLENT, F_AFTER, F_AFTER_FLENT, F_FIX, F_FIX_LOG, F_PLOT, F_PROVE };
static const char *const file_names[] = {"before.json",	    "before.flent.gz", "after.json",
					 "after.flent.gz",  "fix.json",	       "fix.log",
					 "compare.svg",	    "prove.json"};

/* The trial's child, for the signal handler: put back before dying. */
static volatile pid_t trial_pid;

static void on_signal(int sig)
{
	static const char changed[] =
	    PROG_NAME ": prove: interrupted: the change on trial was put back\n";
	static const char unchanged[] = PROG_NAME ": prove: interrupted: nothing was changed\n";
	pid_t pid = trial_pid;
	int status;

	(void)sig;
	if (pid > 0) {
		kill(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		(void)!write(STDERR_FILENO, changed, sizeof(changed) - 1);
	} else {
		(void)!write(STDERR_FILENO, unchanged, sizeof(unchanged) - 1);
	}
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

static int make_dir(struct prove_run *r)
{
	struct stat st;
	int n;

	if (r->a.out_dir) {
		n = snprintf(r->dir, sizeof(r->dir), "%s", r->a.out_dir);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		n = (int)strftime(r->dir, sizeof(r->dir), "debloat-prove-%Y%m%d-%H%M%S", &tm);
	}
	if (n <= 0 || (size_t)n >= sizeof(r->dir))
		return -ENAMETOOLONG;
	if (mkdir(r->dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (stat(r->dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	for (int i = 0; i <= F_PROVE; i++)
		snprintf(r->path[i], sizeof(r->path[i]), "%s/%s", r->dir, file_names[i]);
	return 0;
}

/* Does the journal hold a step of one of our interfaces? */
static bool journaled(struct prove_run *r)
{
	struct apply_env env;
	struct journal j;
	char path[APPLY_PATH_MAX], err[256];
	bool found = false;

	apply_env_init(&env, r->a.state_dir);
	if (apply_state_path(&env, "journal", path, sizeof(path)) < 0 ||
	    journal_read_file(path, &j, err, sizeof(err)) < 0)
		return false;
	for (size_t i = 0; i < j.n && !found; i++)
		for (size_t k = 0; k < r->host.n; k++)
			found |= !strcmp(j.steps[i].knob.ifname, r->host.ifaces[k].name);
	journal_free(&j);
	return found;
}

struct progress_ctx {
	const char *label;
	struct prove_watch *watch;
	bool tty;
};

/* Every step: the interface's counters, and a progress line on a terminal. */
static void progress(void *ctx, const struct engine_progress *p)
{
	struct progress_ctx *c = ctx;

	watch_sample(c->watch);
	if (!c->tty)
		return;
	fprintf(stderr, "\r\033[K%s: %5.1f/%.1f s  down %7.2f  up %7.2f Mbit/s", c->label,
		p->elapsed_s, p->total_s, p->download_mbps, p->upload_mbps);
	fflush(stderr);
}

/* One test run into its files. 0, or -errno with why filled. */
static int measure(struct prove_run *r, const char *label, enum file json, enum file flent,
		   struct prove_numbers *out, struct prove_watch *watch, char *why, size_t whylen)
{
	struct progress_ctx pc = {label, watch, isatty(STDERR_FILENO) && !r->a.json};
	struct engine_opts o = {.test = r->a.test,
				.host = r->a.server,
				.port = (uint16_t)r->a.port,
				.length_s = r->a.length_s,
				.delay_s = r->a.delay_s,
				.step_s = 0.2,
				.label = label,
				.cc = r->a.cc};
	struct test_result *res = calloc(1, sizeof(*res));
	struct engine_notes notes = {0};
	struct summary s;
	int ret;

	if (!res)
		return -ENOMEM;
	if (r->keylen)
		o.key = r->key, o.keylen = r->keylen;
	o.progress = progress;
	o.progress_ctx = &pc;
	watch_open(watch, r->ifc->name);
	cli_error("prove", "%s: %s for %.0f s against %s", label, r->a.test,
		  r->a.length_s + 2 * r->a.delay_s, r->a.server);
	ret = engine_run(&o, res, &notes, why, whylen);
	watch_close(watch);
	if (pc.tty)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < notes.n; i++)
		cli_error("prove", "note: %s", notes.text[i]);
	if (res->nsteps && summary_compute(res, &s) == 0) {
		egress_info(r->a.server, &res->egress_info_json, &res->sysctls_json);
		if (result_write_json(r->path[json], res, &s) < 0 ||
		    flent_write(r->path[flent], res) < 0)
			cli_error("prove", "cannot write %s's files in %s", label, r->dir);
		prove_numbers_of(&s, out);
	} else if (ret == 0) {
		snprintf(why, whylen, "the test measured nothing");
		ret = -EIO;
	}
	result_free(res);
	free(res);
	return ret;
}

/* fix's arguments for the trial: IFACE... --json --try S [--shape R] [--role] [--state-dir]. */
static int fix_argv(struct prove_run *r, char **argv, size_t max, char *try_s, char *rate,
		    char *down)
{
	size_t n = 0;

	for (size_t i = 0; i < r->host.n && n + 10 < max; i++)
		argv[n++] = r->host.ifaces[i].name;
	argv[n++] = "--json";
	argv[n++] = "--try";
	snprintf(try_s, 16, "%.0f", r->a.length_s + 2 * r->a.delay_s + ENGINE_GRACE_S + 60);
	argv[n++] = try_s;
	if (r->cap.shape_rate) {
		if (db_format_rate(r->cap.shape_rate, rate, 32) < 0)
			return -EINVAL;
		argv[n++] = "--shape";
		argv[n++] = rate;
	}
	if (r->cap.shape_down_rate) {
		if (db_format_rate(r->cap.shape_down_rate, down, 32) < 0)
			return -EINVAL;
		argv[n++] = "--ingress";
		argv[n++] = down;
	}
	if (r->a.role) {
		argv[n++] = "--role";
		argv[n++] = (char *)r->a.role;
	}
	if (r->a.state_dir) {
		argv[n++] = "--state-dir";
		argv[n++] = (char *)r->a.state_dir;
	}
	argv[n] = NULL;
	return 0;
}

/* fix's own words when it failed: its "error", else the last line of its log. */
static void fix_error(struct prove_run *r, char *buf, size_t len)
{
	const char *e = NULL;
	FILE *f;
	char line[512];

	if (r->fix && json_get_string(r->fix, "error", &e) == 0 && e) {
		snprintf(buf, len, "%s", e);
		return;
	}
	snprintf(buf, len, "see %s", r->path[F_FIX_LOG]);
	f = fopen(r->path[F_FIX_LOG], "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\r' && strlen(line) > 1) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line);
		}
	fclose(f);
}

static void read_fix(struct prove_run *r)
{
	struct json_error err;

	json_free(r->fix);
	r->fix = NULL;
	if (json_read_file(r->path[F_FIX], 16 << 20, &r->fix, &err) < 0)
		r->fix = NULL;
}

static const char *fix_result(const struct prove_run *r)
{
	const char *s = NULL;

	return r->fix && json_get_string(r->fix, "result", &s) == 0 && s ? s : "";
}

/* The comparison plot of both runs. */
static void draw(struct prove_run *r)
{
	char *paths[2] = {r->path[F_BEFORE], r->path[F_AFTER]};
	struct plot_options o = {PLOT_COMPARE, "debloat prove: before and after"};
	struct run *runs = NULL;
	char err[256], *svg = NULL;
	size_t len = 0;

	if (run_read_all(paths, 2, &runs, err, sizeof(err)) < 0)
		return;
	if (plot_render(runs, 2, &o, &svg, &len) == 0)
		svg_write_file(r->path[F_PLOT], svg, len);
	free(svg);
	run_free_all(runs, 2);
}

/* The report of this proof (prove/prove-print.h). */
static void print_report(struct printer *p, const struct prove_run *r)
{
	const struct prove_report rep = {
	    .server = r->a.server,
	    .test = r->a.test,
	    .dir = r->dir,
	    .host = &r->host,
	    .mtu = r->ifc->mtu,
	    .before = r->have_before ? &r->before : NULL,
	    .after = r->have_after ? &r->after : NULL,
	    .watch_before = &r->watch_before,
	    .watch_after = &r->watch_after,
	    .cap = &r->cap,
	    .fix = r->fix,
	    .outcome = r->outcome,
	    .why = r->why,
	    .verdict = &r->verdict,
	    .min_gain = r->a.min_gain,
	    .max_loss = r->a.max_loss,
	};

	prove_report_print(p, &rep);
}

static int write_report(struct prove_run *r)
{
	struct outfile o;
	struct printer *p;
	int ret;

	ret = outfile_open(&o, r->path[F_PROVE]);
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

/* ---- the proof ---- */

static int setup(struct prove_run *r)
{
	size_t bad = 0;
	char name[IF_NAMESIZE];
	int ret;

	if (!r->a.nifaces) {
		ret = egress_iface(r->a.server, name, sizeof(name));
		if (ret < 0) {
			cli_error("prove", "cannot find the interface the route to %s uses: %s",
				  r->a.server, strerror(-ret));
			return ret;
		}
		r->route_iface = strdup(name);
		if (!r->route_iface)
			return -ENOMEM;
		r->a.ifaces[0] = r->route_iface;
		r->a.nifaces = 1;
	}
	ret = host_read(&r->host, &host_default_paths, r->a.ifaces, r->a.nifaces, &bad);
	if (ret < 0) {
		cli_error("prove", "cannot read interface %s: %s",
			  r->a.ifaces[ret == -ENODEV ? bad : 0], strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < r->host.n; i++)
		if (r->host.ifaces[i].loopback) {
			cli_error("prove", "%s is loopback: there is nothing to fix",
				  r->host.ifaces[i].name);
			return -EINVAL;
		}
	r->ifc = &r->host.ifaces[0];
	policy_iface(r->ifc, &r->host, &r->audit);
	ret = make_dir(r);
	if (ret < 0) {
		cli_error("prove", "cannot use %s as the output directory: %s", r->dir,
			  strerror(-ret));
		return ret;
	}
	if (r->a.keyfile) {
		ret = proto_key_read(r->a.keyfile, r->key, sizeof(r->key), &r->keylen);
		if (ret < 0) {
			cli_error("prove", "cannot read the key %s: %s", r->a.keyfile,
				  ret == -EINVAL ? "it is empty" : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The second run and the decision, with the change on trial. */
static int judge_trial(struct prove_run *r)
{
	char why[256], err[512];
	int ret;

	ret = measure(r, "after", F_AFTER, F_AFTER_FLENT, &r->after, &r->watch_after, why,
		      sizeof(why));
	if (ret < 0) {
		ret = trial_put_back(&r->trial);
		trial_pid = 0;
		read_fix(r);
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why),
			 "the second test failed (%s): the change was %s", why,
			 ret < 0 ? "not put back: run `debloat undo`" : "put back");
		return -1;
	}
	r->have_after = true;
	prove_judge(&r->before, &r->after, r->a.min_gain, r->a.max_loss, &r->verdict);
	bool keep = r->a.keep || (!r->a.undo && r->verdict.kept);

	if (keep) {
		ret = trial_keep(&r->trial);
		trial_pid = 0;
		read_fix(r);
		if (ret < 0) {
			fix_error(r, err, sizeof(err));
			r->outcome = "failed";
			snprintf(r->why, sizeof(r->why), "keeping the change failed (%s): %s",
				 strerror(-ret), err);
			return -1;
		}
		r->outcome = "kept";
		snprintf(r->why, sizeof(r->why), "%s%s", r->verdict.why,
			 r->a.keep && !r->verdict.kept ? " (kept anyway: --keep)" : "");
		return 0;
	}
	ret = trial_put_back(&r->trial);
	trial_pid = 0;
	read_fix(r);
	r->outcome = "put-back";
	snprintf(r->why, sizeof(r->why), "%s%s%s", r->verdict.why,
		 r->a.undo && r->verdict.kept ? " (put back anyway: --undo)" : "",
		 ret < 0 ? "; putting it back failed: run `debloat undo`" : "; everything was put back");
	return ret < 0 ? -1 : 1;
}

/* 0 kept or nothing to do, 1 put back, -1 failed (r->why says why). */
static int prove(struct prove_run *r)
{
	char why[256], try_s[16], rate[32], down[32], err[512], *argv[PROVE_MAX_IFACES + 14];
	int ret;

	r->already = journaled(r);
	cli_error("prove", "%s (%s): a baseline, then fix on trial and a second run", r->ifc->name,
		  r->ifc->driver[0] ? r->ifc->driver : r->ifc->kind);
	cli_error("prove", "interrupted or killed, it puts everything back (else: %s undo %s)",
		  PROG_NAME, r->ifc->name);
	ret = measure(r, "before", F_BEFORE, F_BEFORE_FLENT, &r->before, &r->watch_before, why,
		      sizeof(why));
	if (ret < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "the baseline test failed (%s): nothing was changed",
			 why);
		return -1;
	}
	r->have_before = true;
	prove_capacity(&r->before, r->ifc->speed_mbps, r->audit.bql_in_use,
		       r->already ? 0 : r->a.shape, r->a.ingress, &r->cap);
	{
		size_t n = strlen(r->cap.why);

		snprintf(r->cap.why + n, sizeof(r->cap.why) - n,
			 "; during the baseline the queue was %s (%s's own counters)",
			 watch_where(&r->watch_before, r->ifc->mtu), r->ifc->name);
	}
	if (r->already) {
		r->cap.shape_rate = 0;
		r->cap.shape_down_rate = 0;
		r->cap.source = "none";
		snprintf(r->cap.why, sizeof(r->cap.why),
			 "debloat's own change is in place (its journal): no new shaper below it");
		r->outcome = "already-fixed";
		if (prove_good(&r->before))
			snprintf(r->why, sizeof(r->why),
				 "debloat's change is in place and the state is good: induced "
				 "latency %.1f ms (grade %s); nothing left to fix",
				 r->before.induced_ms, r->before.grade[0] ? r->before.grade : "-");
		else
			snprintf(r->why, sizeof(r->why),
				 "debloat's change is in place, but induced latency is still %.1f ms: "
				 "prove does not shape below its own change; the queue may be "
				 "elsewhere (the download's, upstream); `debloat undo %s` and prove "
				 "again to start over",
				 r->before.induced_ms, r->ifc->name);
		return 0;
	}
	if (fix_argv(r, argv, COUNT(argv), try_s, rate, down) < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "cannot spell the shaper's rate");
		return -1;
	}
	cli_error("prove", "fix on trial%s%s%s%s", r->cap.shape_rate ? ", shaping at " : "",
		  r->cap.shape_rate ? rate : "", r->cap.shape_down_rate ? ", the download at " : "",
		  r->cap.shape_down_rate ? down : "");
	ret = trial_start(&r->trial, r->a.state_dir, argv, r->path[F_FIX], r->path[F_FIX_LOG]);
	trial_pid = r->trial.pid;
	if (ret < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "cannot run fix: %s; nothing was changed",
			 strerror(-ret));
		return -1;
	}
	if (!r->trial.ready) {
		trial_pid = 0;
		read_fix(r);
		if (trial_exit_code(&r->trial) == 0 && !strcmp(fix_result(r), "already-fixed")) {
			r->outcome = "nothing-to-change";
			snprintf(r->why, sizeof(r->why),
				 "fix finds nothing to change on %s: the state measured is the "
				 "state it would leave",
				 r->ifc->name);
			return 0;
		}
		fix_error(r, err, sizeof(err));
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "fix did not apply (%s): nothing was changed", err);
		return -1;
	}
	return judge_trial(r);
}

int cmd_prove(int argc, char *argv[])
{
	struct prove_run *r = calloc(1, sizeof(*r));
	struct printer *p;
	int ret = 1, pr, wr;

	if (!r) {
		cli_error("prove", "out of memory");
		return 1;
	}
	r->a = (struct prove_args){.test = "rrul",
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
	if (setup(r) < 0)
		goto cleanup;
	catch_signals();
	pr = prove(r);
	ret = pr < 0 ? 1 : pr > 0 ? PROVE_EXIT_PUT_BACK : 0;
	if (r->have_before && r->have_after)
		draw(r);
	if ((wr = write_report(r)) < 0) {
		cli_error("prove", "cannot write %s: %s", r->path[F_PROVE], strerror(-wr));
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
	json_free(r->fix);
	host_free(&r->host);
	free(r->route_iface);
	free(r);
	return ret;
}
