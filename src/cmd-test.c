/* SPDX-License-Identifier: MIT */
/*
 * cmd-test.c - `debloat test NAME HOST`: run one latency-under-load test (rrul,
 * rrul_be, tcp_upload, tcp_download, tcp_nup, tcp_ndown, ping) against `debloat server`
 * on HOST, print the summary, and write the result files asked for. `debloat rrul
 * HOST` (cmd-rrul.c) is the same with NAME = rrul.
 *
 * A test that fails midway (the server went away) still prints and writes what it
 * measured, then exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/print.h"
#include "meter/cc.h"
#include "meter/egress.h"
#include "meter/engine.h"
#include "meter/flent.h"
#include "meter/load-tests.h"
#include "meter/result-print.h"
#include "meter/summary.h"

/* The usage leads with the command the user typed: `rrul` is `test rrul`. */
#define USAGE_BODY                                                                                 \
	"\n"                                                                                       \
	"Run a latency-under-load test against `" PROG_NAME " server` on HOST, as flent\n"         \
	"runs it: probes measure the round-trip time for DELAY seconds idle, then while\n"         \
	"TCP flows load the path for LENGTH seconds, then DELAY seconds idle again.\n"             \
	"Prints idle and loaded latency, the latency the load added, throughput each way,\n"       \
	"loss, a grade and responsiveness (RPM). Ctrl-C ends it early and keeps what was\n"        \
	"measured, marked interrupted.\n"                                                          \
	"\n"                                                                                       \
	"Tests: rrul (4 uploads + 4 downloads marked BE, BK, CS5, EF; UDP EF, BK, BE and\n"        \
	"ICMP probes), rrul_be (the same, all best effort), tcp_upload, tcp_download,\n"           \
	"tcp_nup, tcp_ndown (--streams flows), ping (probes only). The RPM printed\n"              \
	"here is responsiveness from probe p50 (60000 / loaded p50); `" PROG_NAME " test rpm\n"    \
	"URL` runs the IETF responsiveness test against an HTTP server instead (see\n"             \
	"`" PROG_NAME " test rpm --help`).\n"                                                      \
	"\n"                                                                                       \
	"  -l, --length SECONDS   load duration (default 60)\n"                                    \
	"  -d, --delay SECONDS    idle time before and after the load (default 5)\n"               \
	"  -s, --step SECONDS     sampling step and probe interval (default 0.2)\n"                \
	"  -4, -6                 use IPv4 or IPv6 only\n"                                         \
	"  -p, --port PORT        the server's TCP and UDP port (default 9911)\n"                  \
	"      --label TEXT       a label stored in the results\n"                                 \
	"      --cc ALGO          TCP congestion control of every flow, at both ends\n"            \
	"      --local ADDR       source address of every socket (one of this host's)\n"           \
	"      --streams N        flows of tcp_nup and tcp_ndown (default 4, at most 16)\n"        \
	"      --key FILE         the shared key of a private server\n"                            \
	"  -o, --output FILE      write the result as JSON (keys: docs/json.md)\n"                 \
	"      --flent FILE       write the result in flent's format (FILE.flent.gz)\n"            \
	"  -j, --json             print the JSON result on stdout instead of the summary\n"        \
	"  -h, --help             show this help\n"                                                \
	"\n"                                                                                       \
	"The grade is the worst of: the DSLReports scale on the induced latency (loaded\n"         \
	"p50 - idle p50: A+ under 5 ms, A 30, B 60, C 200, D 400, else F); the same\n"             \
	"scale at twice its bounds on the tail (loaded p99 - idle p50); and the probes'\n"         \
	"loss (above 5%: B at best, above 25%: C at best). docs/grades.md.\n"                      \
	"\n"                                                                                       \
	"Exit status: 0 done, 1 the test could not run or was cut short, 2 bad options.\n"

static const char usage_test[] = "Usage: " PROG_NAME " test [OPTIONS] NAME HOST\n"
				 "       " PROG_NAME " rrul [OPTIONS] HOST\n"
				 "       " PROG_NAME " test rpm [OPTIONS] URL\n" USAGE_BODY;
static const char usage_rrul[] = "Usage: " PROG_NAME " rrul [OPTIONS] HOST\n"
				 "       " PROG_NAME " test [OPTIONS] NAME HOST\n" USAGE_BODY;

static const char *usage_for(const char *cmd)
{
	return strcmp(cmd, "rrul") ? usage_test : usage_rrul;
}

struct test_args {
	struct engine_opts o;
	const char *output, *flent, *keyfile;
	bool json;
	uint8_t key[PROTO_MAX_KEY];
};

/* --local: an address of this host, of the family -4/-6 asked for. -1, or EXIT_USAGE. */
static int check_local(const char *cmd, const struct engine_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int r = engine_local_addr(o->local, &ss, &len);

	if (r == -EINVAL)
		return cli_usage_error(cmd, usage_for(cmd),
				       "bad local address \"%s\": want an IP address", o->local);
	if (r < 0)
		return cli_usage_error(
		    cmd, usage_for(cmd), "cannot use local address \"%s\": %s", o->local,
		    r == -EADDRNOTAVAIL ? "no interface of this host has it" : strerror(-r));
	if (o->family != AF_UNSPEC && o->family != ss.ss_family)
		return cli_usage_error(
		    cmd, usage_for(cmd), "local address \"%s\" is not an IPv%c address (%s)",
		    o->local, o->family == AF_INET ? '4' : '6', o->family == AF_INET ? "-4" : "-6");
	return -1;
}

_Static_assert(PROTO_CC_LEN == 16, "--cc's message says 15 characters");

static int take_cc(void *ctx, const char *value)
{
	if (!*value || strlen(value) >= PROTO_CC_LEN)
		return -1;
	((struct test_args *)ctx)->o.cc = value;
	return 0;
}

/* -1 to run, else the exit status to return now. argv[optind..] are the operands. */
static int parse_args(const char *cmd, int argc, char *argv[], struct test_args *a)
{
	const struct cli_option options[] = {
	    {"length", 'l', CLI_DOUBLE, CLI_TO(&a->o.length_s), .lo = 0.1, .hi = 86400, .unit = "s",
	     .bad = "bad length \"%s\": want seconds, 0.1 to 86400"},
	    {"delay", 'd', CLI_DOUBLE, CLI_TO(&a->o.delay_s), .lo = 0, .hi = 3600, .unit = "s",
	     .bad = "bad delay \"%s\": want seconds, 0 to 3600"},
	    {"step", 's', CLI_DOUBLE, CLI_TO(&a->o.step_s), .lo = 0.01, .hi = 10, .unit = "s",
	     .bad = "bad step \"%s\": want seconds, 0.01 to 10"},
	    {"port", 'p', CLI_UINT, CLI_TO(&a->o.port), .min = 1, .max = 65535,
	     .bad = "bad port \"%s\": want 1 to 65535"},
	    {"label", 0, CLI_STR, CLI_TO(&a->o.label)},
	    {"cc", 0, CLI_CALL, .call = take_cc, .value = true,
	     .bad = "bad congestion control \"%s\": want a name of at most 15 characters"},
	    {"local", 0, CLI_STR, CLI_TO(&a->o.local)},
	    {"streams", 0, CLI_UINT, CLI_TO(&a->o.streams), .min = 1, .max = TEST_MAX_STREAMS,
	     .bad = "bad stream count \"%s\": want 1 to " CLI_DIGITS(TEST_MAX_STREAMS)},
	    {"key", 0, CLI_STR, CLI_TO(&a->keyfile)},
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"flent", 0, CLI_STR, CLI_TO(&a->flent)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {NULL, '4', CLI_SET, CLI_TO(&a->o.family), .set = AF_INET},
	    {NULL, '6', CLI_SET, CLI_TO(&a->o.family), .set = AF_INET6},
	    CLI_OPTION_HELP,
	    {0},
	};
	int c = cli_parse_options(cmd, usage_for(cmd), options, a, argc, argv);

	if (c >= 0)
		return c;
	if (a->o.step_s > a->o.length_s)
		return cli_usage_error(cmd, usage_for(cmd),
				       "the step (%g s) is longer than the load (%g s)",
				       a->o.step_s, a->o.length_s);
	if (a->o.local && (c = check_local(cmd, &a->o)) >= 0)
		return c;
	/* before anything starts: a run that cannot set it fails its flows midway */
	if (a->o.cc && (c = cc_usable(a->o.cc)) < 0)
		return cli_usage_error(cmd, usage_for(cmd),
				       "this host cannot use congestion control \"%s\": %s "
				       "(see sysctl net.ipv4.tcp_available_congestion_control)",
				       a->o.cc, c == -ENOENT ? "no such algorithm" : strerror(-c));
	return -1;
}

/* One line, rewritten in place: only called when stderr is a terminal. */
static void show_progress(void *ctx, const struct engine_progress *p)
{
	(void)ctx;
	fprintf(stderr, "\r\033[K%5.1f/%.1f s  %s  down %7.2f Mbit/s  up %7.2f Mbit/s  latency ",
		p->elapsed_s, p->total_s, p->loaded ? "load" : "idle", p->download_mbps,
		p->upload_mbps);
	if (isnan(p->latency_ms))
		fputs("   -   ", stderr);
	else
		fprintf(stderr, "%7.2f ms", p->latency_ms);
	fflush(stderr);
}

/* The summary or JSON on stdout, and the files asked for. -errno of the first failure. */
static int write_outputs(const char *cmd, const struct test_args *a, const struct test_result *r)
{
	struct summary s;
	struct printer *p;
	int r1 = summary_compute(r, &s), ret = 0;

	if (r1 < 0) {
		cli_error(cmd, "cannot compute the summary: %s", strerror(-r1));
		return r1;
	}
	p = print_new(stdout, a->json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p)
		return -ENOMEM;
	result_print(p, r, &s);
	r1 = cli_print_finish(cmd, p, "cannot write the summary");
	print_free(p);
	if (r1 < 0)
		ret = r1;
	if (a->output && (r1 = result_write_json(a->output, r, &s)) < 0) {
		cli_error(cmd, "cannot write %s: %s", a->output, strerror(-r1));
		ret = r1;
	}
	if (a->flent && (r1 = flent_write(a->flent, r)) < 0) {
		cli_error(cmd, "cannot write %s: %s", a->flent, strerror(-r1));
		ret = r1;
	}
	return ret;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Ctrl-C or SIGTERM ends the test early, keeping what was measured (as iperf3 does). */
static void catch_interrupts(void)
{
	struct sigaction sa = {.sa_handler = on_interrupt}; /* no SA_RESTART: wake the loop */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_test_named(const char *cmd, const char *test, int argc, char *argv[])
{
	struct test_args *a = calloc(1, sizeof(*a));
	struct test_result *r = calloc(1, sizeof(*r));
	struct engine_notes notes = {0};
	struct test_spec spec;
	size_t keylen = 0;
	char why[256];
	int ret = 1, err, operands = test ? 1 : 2;

	if (!a || !r) {
		cli_error(cmd, "out of memory");
		goto cleanup;
	}
	a->o = (struct engine_opts){.length_s = 60, .delay_s = 5, .step_s = 0.2};
	ret = parse_args(cmd, argc, argv, a);
	if (ret >= 0)
		goto cleanup;
	ret = EXIT_USAGE;
	if (argc - optind != operands) {
		cli_usage_error(cmd, usage_for(cmd),
				argc - optind < operands ? "missing %s"
							 : "too many operands: want %s",
				test ? "HOST" : "NAME and HOST");
		goto cleanup;
	}
	a->o.test = test ? test : argv[optind];
	a->o.host = argv[argc - 1];
	if (test_spec_get(a->o.test, a->o.streams, &spec) < 0) {
		cli_usage_error(cmd, usage_for(cmd), "unknown test \"%s\"", a->o.test);
		goto cleanup;
	}
	ret = 1;
	if (a->keyfile && (err = proto_key_read(a->keyfile, a->key, sizeof(a->key), &keylen)) < 0) {
		cli_error(cmd, "cannot read the key %s: %s", a->keyfile,
			  err == -EINVAL ? "it is empty" : strerror(-err));
		goto cleanup;
	}
	if (keylen)
		a->o.key = a->key, a->o.keylen = keylen;
	if (isatty(STDERR_FILENO))
		a->o.progress = show_progress;
	a->o.interrupt = &interrupted;
	catch_interrupts();
	err = engine_run(&a->o, r, &notes, why, sizeof(why));
	if (a->o.progress)
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < notes.n; i++)
		cli_error(cmd, "note: %s", notes.text[i]);
	if (err < 0)
		cli_error(cmd, "%s", why);
	/* flent's EGRESS_INFO and SYSCTLS; a file without them still loads. */
	if (r->nsteps && a->flent)
		egress_info(a->o.host, &r->egress_info_json, &r->sysctls_json);
	if (r->nsteps && write_outputs(cmd, a, r) < 0)
		goto cleanup;
	if (err < 0)
		goto cleanup;
	ret = 0;
cleanup:
	if (r)
		result_free(r);
	free(r);
	free(a);
	return ret;
}

/*
 * `test rpm` speaks HTTP to any responsiveness server, with options of its own
 * (cmd-test-rpm.c): the index of the word "rpm" when it is the test's name, else 0.
 */
static int rpm_word(int argc, char *argv[])
{
	static const char *const with_value[] = {
	    "-l",	 "-d",	   "-s",       "-p",	  "-o",	  "--length",
	    "--delay",	 "--step", "--port",   "--label", "--cc", "--local",
	    "--streams", "--key",  "--output", "--flent", NULL,
	};

	for (int i = 1; i < argc; i++) {
		bool is_value = false;

		for (size_t k = 0; with_value[k]; k++) /* "--label rpm" is no test name */
			is_value = is_value || !strcmp(argv[i - 1], with_value[k]);
		if (argv[i][0] != '-' && !is_value)
			return strcmp(argv[i], "rpm") ? 0 : i;
	}
	return 0;
}

int cmd_test(int argc, char *argv[])
{
	int i = rpm_word(argc, argv);

	if (i) { /* drop the word: the rest are rpm's */
		memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof(*argv));
		return cmd_test_rpm(argc - 1, argv);
	}
	return cmd_test_named("test", NULL, argc, argv);
}
