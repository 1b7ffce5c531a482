/* SPDX-License-Identifier: MIT */
/*
 * cmd-exporter.c - `debloat exporter`: every queue of the host as Prometheus metrics,
 * served over HTTP at /metrics, written for node_exporter's textfile collector, or
 * printed once. Each scrape reads the host afresh. Read-only.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/cli.h"
#include "exporter/http.h"
#include "exporter/metrics.h"
#include "exporter/prom.h"
#include "exporter/textfile.h"
#include "fix/apply.h"
#include "fix/journal.h"
#include "host/host.h"
#include "host/hz.h"

/*
 * 19911: outside 9100-9999, the range the Prometheus project's list of exporter ports
 * has handed out in full, so no registered exporter uses it; the debloat server's
 * 9911 with a 1 in front, to be remembered.
 */
#define EXPORTER_DEFAULT_LISTEN	  ":19911"
#define EXPORTER_DEFAULT_INTERVAL 15
#define EXPORTER_CONTENT_TYPE	  "text/plain; version=0.0.4; charset=utf-8"

static const char usage[] =
    "Usage: " PROG_NAME " exporter [--listen ADDR:PORT] [--textfile DIR [--interval S]]\n"
    "                        [--once] [--state-dir DIR] [--list-metrics]\n"
    "\n"
    "Export every queue of this host as Prometheus metrics: each qdisc of each tree\n"
    "with its counters and backlog, BQL per TX queue, txqueuelen and link speed,\n"
    "audit's grade and findings, and whether fix changed the interface. Serves\n"
    "/metrics over HTTP (default), writes DIR/debloat.prom for node_exporter's\n"
    "textfile collector, or prints once. Each scrape reads the kernel afresh. Reads\n"
    "only; root is not needed.\n"
    "\n"
    "  -l, --listen ADDR:PORT  serve http://ADDR:PORT/metrics (default " EXPORTER_DEFAULT_LISTEN
    ",\n"
    "                          every address); [V6ADDR]:PORT for IPv6\n"
    "  -t, --textfile DIR      write DIR/" TEXTFILE_NAME " atomically, every --interval\n"
    "                          (without --listen, only that)\n"
    "  -i, --interval S        seconds between textfile writes (default 15)\n"
    "  -1, --once              one scrape: write the textfile, or print to standard\n"
    "                          output without --textfile; then exit\n"
    "  -s, --state-dir DIR     fix's journal (default fix's own: " APPLY_STATE_DIR ",\n"
    "                          or " APPLY_STATE_DIR "/netns-INODE in another network\n"
    "                          namespace)\n"
    "      --list-metrics      print every metric family (name, type, help) and exit\n"
    "  -h, --help              show this help\n";

struct exporter_args {
	const char *listen;
	const char *textfile;
	const char *state_dir;
	unsigned interval;
	bool once, list;
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/* What lives from scrape to scrape. */
struct exporter {
	const struct exporter_args *a;
	long hz;
	uint64_t scrapes, errors;
	int last_textfile_err;
};

static int parse_args(int argc, char *argv[], struct exporter_args *a)
{
	const struct cli_option options[] = {
	    {"listen", 'l', CLI_STR, CLI_TO(&a->listen)},
	    {"textfile", 't', CLI_STR, CLI_TO(&a->textfile)},
	    {"interval", 'i', CLI_UINT, CLI_TO(&a->interval), .min = 1, .max = 86400,
	     .bad = "bad interval \"%s\": want 1 to 86400 s"},
	    {"once", '1', CLI_FLAG, CLI_TO(&a->once)},
	    {"state-dir", 's', CLI_STR, CLI_TO(&a->state_dir)},
	    {"list-metrics", 0, CLI_FLAG, CLI_TO(&a->list)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options("exporter", usage, options, NULL, argc, argv);

	if (r >= 0)
		return r;
	if (optind < argc)
		return cli_usage_error("exporter", usage, "unexpected argument \"%s\"",
				       argv[optind]);
	if (a->once && a->listen) /* given: the default comes below */
		return cli_usage_error("exporter", usage,
				       "--once scrapes once and serves nothing: drop --listen");
	if (!a->listen && !a->textfile)
		a->listen = EXPORTER_DEFAULT_LISTEN;
	if (a->listen && !a->once && http_parse_listen(a->listen, &a->addr, &a->addrlen) < 0)
		return cli_usage_error("exporter", usage,
				       "bad --listen \"%s\": want ADDR:PORT, [V6ADDR]:PORT or "
				       ":PORT, a numeric address and a port from 1 to 65535",
				       a->listen);
	return -1;
}

static void list_metrics(void)
{
	for (size_t i = 0; i < metrics_nfamilies; i++) {
		const struct prom_family *f = metrics_families[i];

		printf("%s %s %s\n", f->name, f->type == PROM_COUNTER ? "counter" : "gauge",
		       f->help);
	}
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * One scrape: the host, fix's journal, the exposition. A host that cannot be read is
 * -errno (a 500 for Prometheus: its `up` then says so); a journal that cannot be read
 * is only debloat_fix_journal_valid 0.
 */
static int scrape(struct exporter *e, char **out, size_t *len)
{
	struct metrics_context ctx = {.hz = e->hz, .version = DEBLOAT_VERSION};
	char path[PATH_MAX], err[256];
	struct host h = {0};
	struct journal j;
	struct timespec t0;
	struct prom *w;
	size_t bad = 0;
	int r;

	e->scrapes++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = host_read(&h, &host_default_paths, NULL, 0, &bad);
	if (r < 0) {
		e->errors++;
		return r;
	}
	journal_init(&j);
	snprintf(path, sizeof(path), "%s/journal", e->a->state_dir);
	ctx.journal_err = journal_read_file(path, &j, err, sizeof(err));
	ctx.journal = ctx.journal_err == 0 ? &j : NULL;
	ctx.scrapes = e->scrapes;
	ctx.scrape_errors = e->errors;
	w = prom_new();
	if (!w) {
		r = -ENOMEM;
		goto out;
	}
	ctx.duration_s = seconds_since(&t0);
	metrics_collect(w, &h, &ctx);
	r = prom_finish(w, out, len);
out:
	prom_free(w);
	journal_free(&j);
	host_free(&h);
	return r;
}

static int serve_metrics(void *ctx, struct http_body *body)
{
	int r = scrape(ctx, &body->data, &body->len);

	body->content_type = EXPORTER_CONTENT_TYPE;
	return r;
}

/* One textfile write; a failure is told once until it changes, and the loop goes on. */
static int write_textfile(struct exporter *e)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = scrape(e, &buf, &len);
	if (r < 0) {
		if (r != e->last_textfile_err)
			cli_error("exporter", "cannot read the host: %s", strerror(-r));
	} else {
		r = textfile_write(e->a->textfile, buf, len);
		if (r < 0 && r != e->last_textfile_err)
			cli_error(
			    "exporter", "cannot write %s/%s: %s", e->a->textfile, TEXTFILE_NAME,
			    r == -EEXIST ? "it exists and is not a regular file; not replacing it"
					 : strerror(-r));
	}
	free(buf);
	e->last_textfile_err = r;
	return r;
}

static void tick_textfile(void *ctx)
{
	(void)write_textfile(ctx);
}

/* What textfile_check said, in words, for the command line's DIR. */
static void textfile_error(const char *dir, int r)
{
	const char *why = r == -ENOTDIR	 ? "not a directory"
			  : r == -EEXIST ? TEXTFILE_NAME
			      " there exists and is not a regular file; not replacing it"
					 : strerror(-r);

	cli_error("exporter", "cannot use --textfile %s: %s", dir, why);
}

static int print_once(struct exporter *e)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = scrape(e, &buf, &len);
	if (r < 0) {
		cli_error("exporter", "cannot read the host: %s", strerror(-r));
		return 1;
	}
	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) == EOF) {
		cli_error("exporter", "cannot write the metrics: %s", strerror(errno));
		free(buf);
		return 1;
	}
	free(buf);
	return 0;
}

int cmd_exporter(int argc, char *argv[])
{
	struct exporter_args a = {.interval = EXPORTER_DEFAULT_INTERVAL};
	char state_dir[64];
	struct sigaction sa = {.sa_handler = cli_on_signal};
	struct exporter e = {.a = &a};
	struct http_server s = {.fd = -1, .path = "/metrics", .stop = &cli_signal};
	struct utsname u;
	int ret = 1, r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	/* fix's default, so a journal written without --state-dir is found */
	if (!a.state_dir)
		a.state_dir = apply_default_state_dir(state_dir, sizeof(state_dir)) == 0
				  ? state_dir
				  : APPLY_STATE_DIR;
	if (a.list) {
		list_metrics();
		return fflush(stdout) == EOF ? 1 : 0;
	}
	if (uname(&u) < 0 || host_kernel_hz(&host_default_paths, u.release, &e.hz) < 0)
		e.hz = 0; /* BQL's stall_max (jiffies) is then left out */
	if (a.textfile) {
		r = textfile_check(a.textfile);
		if (r < 0) {
			textfile_error(a.textfile, r);
			return 1;
		}
	}
	if (a.once) {
		if (!a.textfile)
			return print_once(&e);
		return write_textfile(&e) < 0 ? 1 : 0;
	}
	if (a.listen) {
		r = http_listen(&a.addr, a.addrlen, &s.fd);
		if (r < 0) {
			cli_error("exporter", "cannot listen on %s: %s", a.listen, strerror(-r));
			return 1;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	s.serve = serve_metrics;
	s.ctx = &e;
	if (a.textfile) {
		s.tick = tick_textfile;
		s.tick_ms = a.interval * 1000;
	}
	if (a.listen && a.listen[0] == ':')
		cli_error("exporter", "serving /metrics on port %s of every address", a.listen + 1);
	else if (a.listen)
		cli_error("exporter", "serving http://%s/metrics", a.listen);
	if (a.textfile)
		cli_error("exporter", "writing %s/%s every %u s", a.textfile, TEXTFILE_NAME,
			  a.interval);
	r = http_serve(&s);
	if (r < 0) {
		cli_error("exporter", "event loop failed: %s", strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (s.fd >= 0)
		close(s.fd);
	return ret;
}
