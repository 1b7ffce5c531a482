/* SPDX-License-Identifier: MIT */
/*
 * lab/compare.c - lab/compare.h: `debloat lab compare` and `debloat lab seed`, each run
 * a child `debloat lab ... -- debloat test ...`, then the runs side by side.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/fsutil.h"
#include "base/json.h"
#include "base/print.h"
#include "lab/compare.h"
#include "lab/profile.h"
#include "meter/cc.h"
#include "meter/load-tests.h"
#include "plot/plot.h"
#include "plot/run-file.h"
#include "plot/svg.h"

#include "compare-int.h"

/* Beyond the test's own length: the lab's set-up and tear-down, then we stop waiting. */
#define LC_SETUP_S 3.0
#define LC_GRACE_S 60.0
#define LC_KILL_S  15.0

const char *const lab_seed_profiles[LAB_SEED_RUNS] = {"bbb-stock", "bbb-bql", "bbb-bql-fq",
						      "bbb-bql-fq_codel"};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A profile's name as a file stem: letters, digits, '.', '_' and '-' only. */
static void make_stem(const char *name, char *out, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++) {
		char c = name[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'
			     ? c
			     : '_';
	}
	out[i] = '\0';
	if (!i || out[0] == '.')
		out[0] = '_', out[1 < len ? 1 : 0] = '\0';
}

/*
 * Load each profile with the overrides, as the lab will: a typo fails here, before
 * minutes of runs. Fills the runs' stems (unique), descriptions and congestion control.
 */
static int load_profiles(const struct lc_args *a, struct lc_run *runs)
{
	struct lab_profile *prof = malloc(sizeof(*prof));
	char err[256];
	int ret = EXIT_USAGE;

	if (!prof) {
		cli_error(a->cmd, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < a->nprofiles; i++) {
		struct lc_run *lr = &runs[i];
		unsigned dup = 1;

		lr->profile = a->profiles[i];
		lr->bql_limit_p50 = lr->bql_limit_max = lr->ring_max = NAN;
		lr->sched_p99_us = lr->sched_bound_us = NAN;
		lr->send_mbps = lr->send_loaded_p50 = NAN;
		if (lab_profile_load(prof, a->profiles[i], err, sizeof(err)) < 0) {
			cli_usage_error(a->cmd, a->usage, "%s", err);
			goto out;
		}
		if (lab_profile_set_words(prof, a->sets, a->nsets, err, sizeof(err)) < 0) {
			cli_usage_error(a->cmd, a->usage, "%s", err);
			goto out;
		}
		/* A congestion control this host lacks would fail every flow of the run. */
		if (prof->cc[0]) {
			int r = cc_usable(prof->cc);

			if (r < 0 && r != -EPERM) {
				cli_usage_error(
				    a->cmd, a->usage,
				    "%s: this host cannot use congestion control \"%s\": %s "
				    "(see net.ipv4.tcp_available_congestion_control)",
				    prof->name, prof->cc,
				    r == -ENOENT ? "no such algorithm" : strerror(-r));
				goto out;
			}
		}
		make_stem(prof->name, lr->base, sizeof(lr->base));
		snprintf(lr->stem, sizeof(lr->stem), "%s", lr->base);
		/* The same name twice (a profile, or a file named like it): P, P-2, P-3. */
		for (size_t k = 0; k < i; k++)
			if (!strcmp(runs[k].base, lr->base))
				dup++;
		if (dup > 1) {
			size_t len = strlen(lr->stem);

			snprintf(lr->stem + len, sizeof(lr->stem) - len, "-%u", dup);
		}
		if (lab_profile_describe(prof, lr->describe, sizeof(lr->describe)) < 0)
			lr->describe[0] = '\0';
		snprintf(lr->cc, sizeof(lr->cc), "%s", prof->cc[0] ? prof->cc : "cubic");
		lr->bql = prof->bql;
	}
	ret = -1;
out:
	free(prof);
	return ret;
}

/* The last line of the log that says why (a "debloat: ..." message), else the last. */
static void log_reason(const char *log, char *out, size_t len)
{
	char line[512], last[512] = "", said[512] = "";
	FILE *f = fopen(log, "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		/* A progress line rewritten in place: keep what follows the last \r. */
		if ((e = strrchr(s, '\r')))
			s = e + 1;
		s[strcspn(s, "\n")] = '\0';
		if (!*s || !strncmp(s, "\033[K", 3))
			continue;
		snprintf(last, sizeof(last), "%s", s);
		if (!strncmp(s, PROG_NAME ": ", strlen(PROG_NAME) + 2) && !strstr(s, ": note: "))
			snprintf(said, sizeof(said), "%s", s);
	}
	fclose(f);
	snprintf(out, len, "%s", said[0] ? said : last);
}

/* The child: the lab around the test, output into the log. Never returns. */
static void exec_run(const struct lc_args *a, const char *self, const char *dir,
		     const struct lc_run *lr, const char *test)
{
	/* The board's address is only known inside the lab: sh reads it. */
	static const char inner[] =
	    "exec \"$0\" test -l \"$2\" -d \"$3\" --cc \"$4\" --label \"$5\" -o \"$6\" "
	    "--flent \"$7\" \"$1\" \"${DEBLOAT_LAB_BOARD:?the lab did not set it}\"";
	char lab_json[PATH_MAX], telemetry[PATH_MAX], log[PATH_MAX], out[PATH_MAX], flent[PATH_MAX],
	    length[32], delay[32];
	const char *argv[32 + 2 * LC_MAX_SETS];
	size_t n = 0;
	int fd;

	lc_file_path(lab_json, sizeof(lab_json), dir, lr->stem, ".lab.json");
	lc_file_path(telemetry, sizeof(telemetry), dir, lr->stem, ".telemetry.json");
	lc_file_path(log, sizeof(log), dir, lr->stem, ".log");
	lc_file_path(out, sizeof(out), dir, lr->stem, ".json");
	lc_file_path(flent, sizeof(flent), dir, lr->stem, ".flent.gz");
	snprintf(length, sizeof(length), "%g", a->length_s);
	snprintf(delay, sizeof(delay), "%g", a->delay_s);

	argv[n++] = self;
	argv[n++] = "lab";
	argv[n++] = "--profile";
	argv[n++] = lr->profile;
	for (size_t k = 0; k < a->nsets; k++) {
		argv[n++] = "--set";
		argv[n++] = a->sets[k];
	}
	argv[n++] = "-q";
	argv[n++] = "--json-summary";
	argv[n++] = lab_json;
	argv[n++] = "--telemetry";
	argv[n++] = telemetry;
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = inner;
	argv[n++] = self; /* $0 */
	argv[n++] = test;
	argv[n++] = length;
	argv[n++] = delay;
	argv[n++] = lr->cc;
	argv[n++] = lr->stem;
	argv[n++] = out;
	argv[n++] = flent;
	argv[n] = NULL;

	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(126);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	execv(self, (char *const *)argv);
	cli_error(NULL, "cannot run %s: %s", self, strerror(errno));
	_exit(127);
}

static void show_progress(const struct lc_args *a, size_t i, const struct lc_run *lr,
			  double elapsed, double expect, bool tty)
{
	if (tty)
		fprintf(stderr, "\r\033[K[%zu/%zu] %-22s %5.0f s of about %.0f s", i + 1,
			a->nprofiles, lr->stem, elapsed, expect);
	else
		fprintf(stderr, "[%zu/%zu] %s: running (about %.0f s)\n", i + 1, a->nprofiles,
			lr->stem, expect);
	fflush(stderr);
}

/*
 * Wait for the child, showing progress; stop it when it runs far past its time or
 * when we are told to stop. Fills lr->ok / lr->error from how it ended.
 */
static void wait_run(const struct lc_args *a, size_t i, struct lc_run *lr, pid_t pid,
		     const char *log)
{
	double start = now_s(), expect = a->length_s + 2 * a->delay_s + LC_SETUP_S;
	double deadline = expect + LC_GRACE_S, shown = -1;
	bool tty = isatty(STDERR_FILENO), termed = false, killed = false, timed_out = false;
	struct timespec tick = {0, 100 * 1000 * 1000};
	int status = 0;
	char why[256];

	if (!tty)
		show_progress(a, i, lr, 0, expect, false);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		double t = now_s() - start;

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			snprintf(lr->error, sizeof(lr->error), "cannot wait for the lab: %s",
				 strerror(errno));
			lr->elapsed_s = t;
			return;
		}
		if (tty && t - shown >= 1) {
			show_progress(a, i, lr, t, expect, true);
			shown = floor(t);
		}
		/* A terminal's ^C reached the lab too; a signal sent to us alone is passed on. */
		if (cli_signal && !termed && (cli_signal != SIGINT || t > 2)) {
			kill(pid, SIGTERM);
			termed = true;
			deadline = t;
		}
		if (t > deadline && !termed) {
			kill(pid, SIGTERM);
			termed = timed_out = true;
			deadline = t;
		}
		if (termed && !killed && t > deadline + LC_KILL_S) {
			kill(pid, SIGKILL);
			killed = true;
		}
		nanosleep(&tick, NULL);
	}
	lr->elapsed_s = now_s() - start;
	if (tty)
		fputs("\r\033[K", stderr);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		lr->ok = true;
		return;
	}
	log_reason(log, why, sizeof(why));
	if (timed_out)
		snprintf(lr->error, sizeof(lr->error),
			 "stopped after %.0f s (expected about %.0f s)%s%s", lr->elapsed_s, expect,
			 why[0] ? ": " : "", why);
	else if (cli_signal)
		snprintf(lr->error, sizeof(lr->error), "interrupted");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(lr->error, sizeof(lr->error), "%s", why[0] ? why : "cannot run the lab");
	else if (WIFEXITED(status))
		snprintf(lr->error, sizeof(lr->error), "exit status %d%s%s", WEXITSTATUS(status),
			 why[0] ? ": " : "", why);
	else
		snprintf(lr->error, sizeof(lr->error), "killed by signal %d%s%s", WTERMSIG(status),
			 why[0] ? ": " : "", why);
}

/* A number at obj.key, or NaN. */
static double num_at(const struct jval *obj, const char *key)
{
	double d = NAN;

	if (json_double_of(json_get(obj, key), &d) < 0)
		return NAN;
	return d;
}

static int read_stage(const char *key, struct jval *v, void *data)
{
	struct lc_run *lr = data;
	struct lc_stage *st;

	if (lr->nstages == LC_MAX_STAGES || json_kind_of(v) != JSON_KIND_OBJECT)
		return 0;
	st = &lr->stages[lr->nstages++];
	snprintf(st->name, sizeof(st->name), "%s", key);
	st->drops = num_at(v, "drops");
	st->marks = num_at(v, "marks");
	return 0;
}

/*
 * What the lab's summary (--json-summary, docs/json.md) adds to a run: where the BQL
 * limit settled and how far it went, the ring's high-water mark, and each stage's
 * drops and marks. Missing keys stay NaN; -errno when the file cannot be read.
 */
static int read_lab_summary(const char *path, struct lc_run *lr)
{
	struct json_error jerr;
	struct jval *doc = NULL, *bql, *stages;
	int r;

	lr->bql_limit_p50 = lr->bql_limit_max = lr->ring_max = NAN;
	lr->sched_p99_us = lr->sched_bound_us = NAN;
	r = json_read_file(path, 4u << 20, &doc, &jerr);
	if (r < 0)
		return r;
	bql = json_get(doc, "bql");
	if (bql) {
		lr->bql_limit_p50 = num_at(bql, "limit_p50_bytes");
		lr->bql_limit_max = num_at(bql, "limit_max_bytes");
	}
	lr->ring_max = num_at(json_get(doc, "ring"), "max_descriptors");
	lr->sched_p99_us = num_at(json_get(doc, "sched_error"), "p99_us");
	lr->sched_bound_us = num_at(doc, "sched_error_bound_us");
	stages = json_get(doc, "stages");
	if (stages)
		json_object_foreach(stages, read_stage, lr);
	json_free(doc);
	return 0;
}

/* Read one finished run's files back. The run fails if its result cannot be read. */
static void read_run(const char *dir, struct lc_run *lr)
{
	char path[PATH_MAX], err[256];
	struct json_error jerr;
	int r;

	lc_file_path(path, sizeof(path), dir, lr->stem, ".json");
	lr->run = calloc(1, sizeof(*lr->run));
	if (!lr->run) {
		snprintf(lr->error, sizeof(lr->error), "out of memory");
		lr->ok = false;
		return;
	}
	r = run_read(path, lr->run, err, sizeof(err));
	if (r < 0) {
		snprintf(lr->error, sizeof(lr->error), "cannot read %s: %s", path,
			 r == -EINVAL && err[0] ? err : strerror(-r));
		goto fail;
	}
	r = json_read_file(path, RUN_MAX_FILE_BYTES, &lr->doc, &jerr);
	if (r < 0) {
		snprintf(lr->error, sizeof(lr->error), "cannot read %s: %s", path, strerror(-r));
		run_free(lr->run);
		goto fail;
	}
	lc_file_path(path, sizeof(path), dir, lr->stem, ".lab.json");
	r = read_lab_summary(path, lr);
	if (r < 0)
		cli_error("lab", "note: %s: cannot read the lab's summary %s: %s", lr->stem, path,
			  strerror(-r));
	return;
fail:
	free(lr->run);
	lr->run = NULL;
	lr->ok = false;
}

/* One run's plot over time (P.svg), and the comparison of every run (compare.svg). */
static int draw(const char *path, const struct run *runs, size_t n, enum plot_kind kind,
		const char *title)
{
	struct plot_options o = {kind, title};
	char *svg = NULL;
	size_t len = 0;
	int r = plot_render(runs, n, &o, &svg, &len);

	if (!r)
		r = svg_write_file(path, svg, len);
	free(svg);
	return r;
}

/* ---- The command ---- */

/* Plots: one per run that worked, and the comparison of them all. */
static bool draw_plots(const struct lc_args *a, const char *dir, struct lc_run *runs,
		       const char *cmp_path)
{
	struct run ok[LC_MAX_PROFILES];
	char path[PATH_MAX], title[192];
	size_t n = 0;
	int r;

	for (size_t i = 0; i < a->nprofiles; i++) {
		if (!runs[i].run)
			continue;
		ok[n++] = *runs[i].run; /* shallow: drawing only reads */
		lc_file_path(path, sizeof(path), dir, runs[i].stem, ".svg");
		r = draw(path, runs[i].run, 1, PLOT_ALL, NULL);
		if (r < 0)
			cli_error(a->cmd, "cannot write %s: %s", path, strerror(-r));
		runs[i].plotted = r >= 0;
	}
	if (!n)
		return false;
	snprintf(title, sizeof(title), "%s%s, %g s of load per run",
		 a->seed ? "The 2014 BeagleBone result in the lab: " : "debloat lab compare: ",
		 a->test, a->length_s);
	r = draw(cmp_path, ok, n, PLOT_COMPARE, title);
	if (r < 0) {
		cli_error(a->cmd, "cannot write %s: %s", cmp_path, strerror(-r));
		return false;
	}
	return true;
}

static void print_text_files(struct printer *p, const struct lc_run *runs, size_t n,
			     const char *shown_dir, bool plotted, bool sending)
{
	print_nl(p);
	if (plotted) {
		print_text(
		    p, "Plot: %s/compare.svg (latency CDFs and throughput; open it in a browser)",
		    shown_dir);
		print_nl(p);
	}
	print_text(p,
		   "Per run P in %s/: P.svg (over time), P.json, P.flent.gz (flent -i FILE), "
		   "P.lab.json, P.telemetry.json, P.log%s",
		   shown_dir,
		   sending ? "; the same as P" LC_SEND_SUFFIX ".* for its sending-only run" : "");
	print_nl(p);
	if (!plotted)
		return;
	/* print_text puts one space between items. */
	print_text(p, "Side by side again later: %s compare", PROG_NAME);
	for (size_t i = 0; i < n; i++)
		if (runs[i].run)
			print_text(p, "%s/%s.json", shown_dir, runs[i].stem);
	print_nl(p);
}

static void print_report(struct printer *p, const struct lc_args *a, const char *dir,
			 const char *shown_dir, struct lc_run *runs, bool plotted,
			 const char *cmp_path)
{
	struct seed_reading sr = {0};
	size_t base = a->nprofiles;

	for (size_t i = 0; i < a->nprofiles && base == a->nprofiles; i++)
		if (runs[i].run)
			base = i;
	if (a->seed && !a->board)
		lc_seed_read(runs, a->nprofiles, &sr);
	if (print_is_json(p)) {
		print_str(p, "command", a->seed ? "seed" : "compare", PRINT_JSON_ONLY);
		print_str(p, "test", a->test, PRINT_JSON_ONLY);
		print_str(p, "sending_test", a->sending ? LC_SEND_TEST : NULL, PRINT_JSON_ONLY);
		print_double(p, "length_s", a->length_s, 1, PRINT_JSON_ONLY);
		print_double(p, "delay_s", a->delay_s, 1, PRINT_JSON_ONLY);
		print_str(p, "dir", dir, PRINT_JSON_ONLY);
		print_str(p, "plot", plotted ? cmp_path : NULL, PRINT_JSON_ONLY);
		lc_print_runs(p, dir, runs, a->nprofiles, base);
		if (a->board)
			lc_board_json(p, a, runs);
		else if (a->seed)
			lc_seed_json(p, &sr);
		return;
	}
	if (a->board)
		lc_board_header(p, a);
	else if (a->seed)
		lc_seed_header(p, a);
	lc_print_runs(p, dir, runs, a->nprofiles, base);
	for (size_t i = 0; i < a->nprofiles; i++) {
		if (!runs[i].ok) {
			print_text(p, "%s FAILED: %s (log: %s/%s.log)", runs[i].stem, runs[i].error,
				   shown_dir, runs[i].stem);
			print_nl(p);
		}
		if (runs[i].send_tried && !runs[i].send_ok) {
			print_text(p, "%s%s FAILED: %s (log: %s/%s%s.log)", runs[i].stem,
				   LC_SEND_SUFFIX, runs[i].send_error, shown_dir, runs[i].stem,
				   LC_SEND_SUFFIX);
			print_nl(p);
		}
	}
	if (a->seed && base < a->nprofiles) {
		print_nl(p);
		if (a->board)
			lc_board_footer(p, a, runs);
		else
			lc_seed_footer(p, &sr);
	}
	print_text_files(p, runs, a->nprofiles, shown_dir, plotted, a->sending);
}

/* One child run of profile lr->profile with test, its files under lr->stem; fills lr. */
static void run_one(const struct lc_args *a, const char *self, const char *dir, size_t i,
		    struct lc_run *lr, const char *test)
{
	char log[PATH_MAX];
	pid_t pid;

	if (cli_signal) {
		snprintf(lr->error, sizeof(lr->error), "not run: interrupted");
		return;
	}
	lc_file_path(log, sizeof(log), dir, lr->stem, ".log");
	/* Stale files of an earlier run in the same directory must not pass for this one. */
	for (size_t k = 0; k < COUNT(lc_run_files); k++) {
		char old[PATH_MAX];

		lc_file_path(old, sizeof(old), dir, lr->stem, lc_run_files[k][1]);
		unlink(old);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(lr->error, sizeof(lr->error), "cannot start the lab: %s", strerror(errno));
		return;
	}
	if (!pid)
		exec_run(a, self, dir, lr, test);
	wait_run(a, i, lr, pid, log);
	if (lr->ok)
		read_run(dir, lr);
	if (lr->ok)
		fprintf(stderr, "[%zu/%zu] %s: done in %.0f s\n", i + 1, a->nprofiles, lr->stem,
			lr->elapsed_s);
	else
		fprintf(stderr, "[%zu/%zu] %s: FAILED after %.0f s: %s\n", i + 1, a->nprofiles,
			lr->stem, lr->elapsed_s, lr->error);
}

/*
 * --sending: the same profile again with LC_SEND_TEST, the board sending and the client
 * only acknowledging (an NFS or iSCSI server's traffic), into DIR/STEM.send.*; what it
 * measured goes into lr's send fields.
 */
static void run_sending(const struct lc_args *a, const char *self, const char *dir, size_t i,
			struct lc_run *lr)
{
	struct lc_run *sr = calloc(1, sizeof(*sr));

	lr->send_tried = true;
	if (!sr) {
		snprintf(lr->send_error, sizeof(lr->send_error), "out of memory");
		return;
	}
	sr->profile = lr->profile;
	memcpy(sr->cc, lr->cc, sizeof(sr->cc));
	sr->bql = lr->bql;
	snprintf(sr->stem, sizeof(sr->stem), "%s%s", lr->stem, LC_SEND_SUFFIX);
	run_one(a, self, dir, i, sr, LC_SEND_TEST);
	lr->send_ok = sr->ok;
	snprintf(lr->send_error, sizeof(lr->send_error), "%s", sr->ok ? "" : sr->error);
	if (sr->run) {
		lr->send_mbps = sr->run->s.download.sum_mbps;
		lr->send_loaded_p50 = sr->run->s.loaded.p50;
		run_free(sr->run);
		free(sr->run);
	}
	json_free(sr->doc);
	free(sr);
}

/* This binary's path, for the children (the lab, and the test inside it). */
static int self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (strstr(buf, " (deleted)"))
		return -ESTALE;
	return 0;
}

static void free_runs(struct lc_run *runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++) {
		if (runs[i].run) {
			run_free(runs[i].run);
			free(runs[i].run);
		}
		json_free(runs[i].doc);
	}
	free(runs);
}

int lab_compare_run(struct lc_args *a)
{
	char self[PATH_MAX], dir[PATH_MAX], shown[PATH_MAX], cmp_path[PATH_MAX];
	char berr[512];
	struct sigaction sa = {.sa_handler = cli_on_signal}, old_int, old_term, old_hup;
	struct printer *p = NULL;
	struct lc_run *runs = NULL;
	bool plotted, failed = false;
	int ret, r;

	if (a->board) {
		/* The board's profiles are made (and checked) before anything is created. */
		a->boardp = calloc(1, sizeof(*a->boardp));
		if (!a->boardp) {
			cli_error(a->cmd, "out of memory");
			return 1;
		}
		r = lc_board_prepare(a->board, &a->plan, a->boardp, berr, sizeof(berr));
		if (r < 0) {
			cli_error(a->cmd, "%s", berr);
			free(a->boardp);
			return 1;
		}
		a->nprofiles = a->boardp->n;
	}
	runs = calloc(a->nprofiles, sizeof(*runs));
	if (!runs) {
		cli_error(a->cmd, "out of memory");
		free(a->boardp);
		return 1;
	}
	if (!a->board) {
		ret = load_profiles(a, runs);
		if (ret >= 0)
			goto cleanup;
	}
	ret = 1;
	if (geteuid() != 0) {
		cli_error(a->cmd, "the lab needs root (network namespaces, tun devices): "
				  "run it with sudo");
		goto cleanup;
	}
	r = self_path(self, sizeof(self));
	if (r < 0) {
		cli_error(a->cmd, "cannot find this program's path: %s",
			  r == -ESTALE ? "it was replaced while running" : strerror(-r));
		goto cleanup;
	}
	if (a->dir) {
		snprintf(shown, sizeof(shown), "%s", a->dir);
	} else {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(shown, sizeof(shown), "debloat-lab-%Y%m%d-%H%M%S", &tm);
	}
	r = mkdir_p(shown);
	if (r < 0 || !realpath(shown, dir)) {
		cli_error(a->cmd, "cannot create %s: %s", shown, strerror(r < 0 ? -r : errno));
		goto cleanup;
	}
	snprintf(cmp_path, sizeof(cmp_path), "%s/compare.svg", dir);
	unlink(cmp_path);
	if (a->board) {
		if (lc_board_write(a->boardp, dir, a, berr, sizeof(berr)) < 0) {
			cli_error(a->cmd, "%s", berr);
			goto cleanup;
		}
		ret = load_profiles(a, runs);
		if (ret >= 0)
			goto cleanup;
		ret = 1;
	}

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	for (size_t i = 0; i < a->nprofiles; i++) {
		run_one(a, self, dir, i, &runs[i], a->test);
		if (a->sending)
			run_sending(a, self, dir, i, &runs[i]);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	fputc('\n', stderr);

	plotted = draw_plots(a, dir, runs, cmp_path);
	p = print_new(stdout, a->json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error(a->cmd, "out of memory");
		goto cleanup;
	}
	print_report(p, a, dir, shown, runs, plotted, cmp_path);
	r = print_finish(p);
	if (r < 0) {
		cli_error(a->cmd, "cannot print: %s", strerror(-r));
		goto cleanup;
	}
	for (size_t i = 0; i < a->nprofiles; i++)
		failed |= !runs[i].ok || (runs[i].send_tried && !runs[i].send_ok);
	if (cli_signal)
		cli_error(a->cmd, "interrupted");
	ret = failed || cli_signal ? 1 : 0;
cleanup:
	print_free(p);
	free_runs(runs, a->nprofiles);
	free(a->boardp);
	return ret;
}
