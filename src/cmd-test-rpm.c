/* SPDX-License-Identifier: MIT */
/*
 * cmd-test-rpm.c - `debloat test rpm URL`: the responsiveness test of
 * draft-ietf-ippm-responsiveness-09 against any server that publishes its config at
 * URL (meter/rpm-client.h). cmd-test.c hands `test rpm` over to here. Prints the summary (or
 * JSON) and writes -o; a stage cut short still prints what it measured, then exits 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/peer.h"
#include "base/print.h"
#include "debloat/rpm.h"
#include "http/tls.h"
#include "meter/result-print.h"
#include "meter/rpm-client.h"
#include "meter/summary.h"

#define CONFIG_TIMEOUT_S 10

static const char usage[] =
    "Usage: " PROG_NAME " test rpm [OPTIONS] URL\n"
    "\n"
    "Measure responsiveness under working conditions as the IETF defines it\n"
    "(draft-ietf-ippm-responsiveness-09): fetch the test's config from URL\n"
    "(http://HOST:PORT/.well-known/nq or any compliant server's), load the path with\n"
    "up to MNP connections until goodput saturates, and probe it meanwhile: foreign\n"
    "probes on new connections (TCP handshake, TLS handshake for https://, HTTP GET\n"
    "of the 1-byte object) and self probes on the load connections. Prints the RPM\n"
    "(round trips per minute), its class and confidence. http:// runs HTTP/2 over\n"
    "cleartext (h2c, prior knowledge) or HTTP/1.1; https:// runs TLS, verifying the\n"
    "server's certificate against the system's trust store, and the server's ALPN\n"
    "choice among those offered (h2 and http/1.1 unless --http1 or --http2).\n"
    "Meanwhile, on a terminal, a line a second on standard error: the goodput and\n"
    "connections each way and the RPM so far. The defaults and formulas are the\n"
    "draft's (" RPM_DRAFT ").\n"
    "\n"
    "  -v, --verbose          the draft's verbose report: probes, goodput,\n"
    "                         parameters; the progress lines also when stderr is\n"
    "                         no terminal\n"
    "      --http2            HTTP/2 only (http://: h2c, the default there)\n"
    "      --http1            HTTP/1.1 only; self probes use the load connections'\n"
    "                         TCP RTT\n"
    "  -k, --insecure         https://: do not verify the server's certificate\n"
    "      --download         load the download direction only\n"
    "      --upload           load the upload direction only\n"
    "      --sequential       download, then upload, each with its own RPM\n"
    "      --concurrent       both directions at once, one RPM (the default)\n"
    "      --mad N            moving-average distance, intervals (default 4)\n"
    "      --id SECONDS       interval duration (default 5)\n"
    "      --tmp PERCENT      trimmed-mean percentage kept (default 95)\n"
    "      --sdt PERCENT      standard-deviation tolerance (default 5)\n"
    "      --mnp N            maximum load connections per direction (default 16)\n"
    "      --mps N            maximum probe pairs per second (default 100)\n"
    "      --ptc PERCENT      share of the goodput probes may take (default 5)\n"
    "  -m, --max-time SECONDS the longest a stage runs (default 60)\n"
    "  -4, -6                 use IPv4 or IPv6 only\n"
    "      --label TEXT       a label stored in the results\n"
    "  -o, --output FILE      write the result as JSON (keys: docs/json.md)\n"
    "  -j, --json             print the JSON result on stdout instead of the summary\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 done, 1 the test could not run or was cut short, 2 bad options.\n";

struct rpm_args {
	struct rpm_params p;
	const char *output, *label, *url;
	bool json, verbose, down, up, insecure;
	bool proto_given; /* --http1 or --http2: over TLS, offer that one alone */
	int family;
};

static volatile sig_atomic_t interrupted;

/* How the progress lines end: on a terminal each replaces the last. */
struct progress_out {
	bool tty;
};

/*
 * " 12.3/60 s  connections 4+2  down 941.2  up 35.1 Mbit/s  RPM 1180" (concurrent) or
 * " 12.3/60 s  upload (2/2)  connections 4  up 35.1 Mbit/s  RPM 1180" (sequential):
 * within 80 columns with the widest figures (3600 s, 64+64, 99999.9, six digits).
 */
static void show_progress(void *ctx, const struct rpm_progress *pr)
{
	static const char *const word[2] = {"down", "up"};
	const struct progress_out *o = ctx;
	bool loaded[2] = {pr->conns[0] || !isnan(pr->mbps[0]), pr->conns[1] || !isnan(pr->mbps[1])};

	fprintf(stderr, "%s%5.1f/%.0f s", o->tty ? "\r\033[K" : "", pr->elapsed_s, pr->max_s);
	if (pr->nstages > 1)
		fprintf(stderr, "  %s (%u/%u)", pr->direction, pr->stage, pr->nstages);
	fputs("  connections ", stderr);
	if (loaded[0])
		fprintf(stderr, "%u%s", pr->conns[0], loaded[1] ? "+" : "");
	if (loaded[1])
		fprintf(stderr, "%u", pr->conns[1]);
	for (int d = 0; d < 2; d++)
		if (loaded[d])
			fprintf(stderr, "  %s %.1f", word[d],
				isnan(pr->mbps[d]) ? 0.0 : pr->mbps[d]);
	fputs(" Mbit/s  RPM ", stderr);
	if (isnan(pr->rpm))
		fputs("-", stderr);
	else
		fprintf(stderr, "%.0f", pr->rpm);
	fputs(o->tty ? "" : "\n", stderr);
	fflush(stderr);
}

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int take_http1(void *ctx, const char *value)
{
	struct rpm_args *a = ctx;

	a->p.proto = HC_HTTP1;
	a->proto_given = true;
	return 0;
}

static int take_http2(void *ctx, const char *value)
{
	struct rpm_args *a = ctx;

	a->p.proto = HC_H2C;
	a->proto_given = true;
	return 0;
}

/* -1 to run, else the exit status. */
static int parse_args(int argc, char *argv[], struct rpm_args *a)
{
	const struct cli_option options[] = {
	    {"verbose", 'v', CLI_FLAG, CLI_TO(&a->verbose)},
	    {"http1", 0, CLI_CALL, .call = take_http1},
	    {"http2", 0, CLI_CALL, .call = take_http2},
	    {"download", 0, CLI_FLAG, CLI_TO(&a->down)},
	    {"upload", 0, CLI_FLAG, CLI_TO(&a->up)},
	    {"sequential", 0, CLI_FLAG, CLI_TO(&a->p.sequential)},
	    {"concurrent", 0, CLI_SET, CLI_TO(&a->p.sequential), .set = false},
	    {"mad", 0, CLI_WHOLE, CLI_TO(&a->p.mad), .lo = 1, .hi = RPM_MAX_MAD,
	     .bad = "bad moving-average distance \"%s\": want a whole number, 1 to " CLI_DIGITS(
		 RPM_MAX_MAD)},
	    {"id", 0, CLI_DOUBLE, CLI_TO(&a->p.id_s), .lo = 0.05, .hi = 60,
	     .bad = "bad interval duration \"%s\": want seconds, 0.05 to 60"},
	    {"tmp", 0, CLI_WHOLE, CLI_TO(&a->p.tmp), .lo = 1, .hi = 100,
	     .bad = "bad trimmed-mean percentage \"%s\": want a whole number, 1 to 100"},
	    {"sdt", 0, CLI_DOUBLE, CLI_TO(&a->p.sdt), .lo = 0, .hi = 100, .per = 100,
	     .bad = "bad standard-deviation tolerance \"%s\": want a percentage, 0 to 100"},
	    {"mnp", 0, CLI_WHOLE, CLI_TO(&a->p.mnp), .lo = 1, .hi = 64,
	     .bad = "bad connection limit \"%s\": want a whole number, 1 to 64"},
	    {"mps", 0, CLI_WHOLE, CLI_TO(&a->p.mps), .lo = 1, .hi = 1000,
	     .bad = "bad probe rate \"%s\": want a whole number, 1 to 1000"},
	    {"ptc", 0, CLI_DOUBLE, CLI_TO(&a->p.ptc), .lo = 0.1, .hi = 100, .per = 100,
	     .bad = "bad probe share \"%s\": want a percentage, 0.1 to 100"},
	    {"max-time", 'm', CLI_DOUBLE, CLI_TO(&a->p.max_s), .lo = 0.1, .hi = 3600,
	     .bad = "bad maximum time \"%s\": want seconds, 0.1 to 3600"},
	    {"label", 0, CLI_STR, CLI_TO(&a->label)},
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    CLI_OPTION_HELP,
	    {"insecure", 'k', CLI_FLAG, CLI_TO(&a->insecure)},
	    {NULL, '4', CLI_SET, CLI_TO(&a->family), .set = AF_INET},
	    {NULL, '6', CLI_SET, CLI_TO(&a->family), .set = AF_INET6},
	    {0},
	};
	int r = cli_parse_options("test rpm", usage, options, a, argc, argv);

	if (r >= 0)
		return r;
	if (argc - optind != 1)
		return cli_usage_error("test rpm", usage,
				       argc - optind < 1 ? "missing URL"
							 : "too many operands: want URL");
	a->url = argv[optind];
	a->p.dirs = a->down == a->up ? RPM_BOTH : a->down ? RPM_DOWNLOAD : RPM_UPLOAD;
	if (a->p.sequential && a->p.dirs != RPM_BOTH)
		return cli_usage_error("test rpm", usage,
				       "--sequential runs both directions: drop --%s",
				       a->down ? "download" : "upload");
	if (a->p.id_s > a->p.max_s)
		return cli_usage_error("test rpm", usage,
				       "the interval (%g s) is longer than --max-time (%g s)",
				       a->p.id_s, a->p.max_s);
	return -1;
}

/* The first address of host:port of the family asked for; prints its own error. */
static int resolve(const char *host, const char *port, int family, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_STREAM}, *ai;
	int r = getaddrinfo(host, port, &hints, &ai);

	if (r) {
		cli_error("test rpm", "cannot resolve \"%s\": %s", host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/*
 * Whether the test may go to target, the address the config at cfg_addr sent it to: a
 * config is a stranger's, and one served from elsewhere must not steer the test's
 * GETs and endless POST into this host (loopback) or its links (link-local). It may
 * when it is served from an address of that scope itself. Prints its own error.
 */
static bool target_ok(const struct rpm_args *a, const struct sockaddr_storage *cfg_addr,
		      const struct sockaddr_storage *target, const char *port)
{
	enum peer_scope want = peer_scope(target);
	char ip[INET6_ADDRSTRLEN];

	if (want == PEER_SCOPE_GLOBAL || peer_scope(cfg_addr) == want)
		return true;
	peer_text(target, ip, sizeof(ip));
	cli_error("test rpm", "refusing %s port %s: the config at %s sends the test to %s", ip,
		  port, a->url, want == PEER_SCOPE_HOST ? "this host" : "a link-local address");
	cli_note("test rpm", "a config may do that only when it is served from there itself");
	return false;
}

/* The client's TLS context: ALPN offers both protocols unless one was asked for. */
static int make_tls(const struct rpm_args *a, struct tls_ctx **out)
{
	struct tls_client_opts o = {
	    .insecure = a->insecure,
	    .alpn = !a->proto_given	     ? TLS_ALPN_H2 | TLS_ALPN_HTTP1
		    : a->p.proto == HC_HTTP1 ? TLS_ALPN_HTTP1
					     : TLS_ALPN_H2,
	};
	char why[TLS_ERRLEN];
	int r = tls_client_ctx_new(out, &o, why, sizeof(why));

	if (r < 0)
		cli_error("test rpm", "%s: %s", a->url, why);
	return r;
}

static int write_outputs(const struct rpm_args *a, struct test_result *r)
{
	struct summary s;
	struct printer *p;
	int err = summary_compute(r, &s), ret = 0;

	if (err < 0) {
		cli_error("test rpm", "cannot compute the summary: %s", strerror(-err));
		return err;
	}
	p = print_new(stdout, a->json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p)
		return -ENOMEM;
	result_print_rpm(p, r, &s, a->verbose);
	err = cli_print_finish("test rpm", p, "cannot write the summary");
	print_free(p);
	if (err < 0)
		ret = err;
	if (a->output && (err = result_write_json(a->output, r, &s)) < 0) {
		cli_error("test rpm", "cannot write %s: %s", a->output, strerror(-err));
		ret = err;
	}
	return ret;
}

int cmd_test_rpm(int argc, char *argv[])
{
	struct rpm_args a = {0};
	struct progress_out progress = {0};
	struct test_result *r = calloc(1, sizeof(*r));
	struct sigaction sa = {.sa_handler = on_interrupt};
	struct sockaddr_storage ss, cfg_ss;
	struct nq_config cfg;
	struct nq_url url;
	struct tls_ctx *tls = NULL;
	enum hc_proto spoken;
	socklen_t len;
	char why[256];
	int ret = 1, err;

	if (!r) {
		cli_error("test rpm", "out of memory");
		return 1;
	}
	rpm_params_default(&a.p);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		goto cleanup;
	ret = 1;
	if (nq_url_parse(a.url, &url) < 0) {
		ret = cli_usage_error("test rpm", usage,
				      "bad URL \"%s\": want http[s]://HOST[:PORT]/PATH", a.url);
		goto cleanup;
	}
	if (url.tls && make_tls(&a, &tls) < 0)
		goto cleanup;
	a.p.tls = url.tls ? tls : NULL;
	if (resolve(url.host, url.port, a.family, &ss, &len) < 0)
		goto cleanup;
	err = rpm_fetch_config(&a.p, (struct sockaddr *)&ss, len, &url, CONFIG_TIMEOUT_S, &cfg,
			       &spoken, why, sizeof(why));
	if (err < 0) {
		cli_error("test rpm", "cannot read the config at %s: %s", a.url, why);
		goto cleanup;
	}
	if (a.proto_given && spoken != a.p.proto) { /* offered alone, and not chosen */
		cli_error("test rpm", "%s: the server did not choose %s (ALPN)", a.url,
			  a.p.proto == HC_HTTP1 ? "http/1.1" : "h2");
		goto cleanup;
	}
	/* the test's connections speak what the config's did, when the scheme is the same */
	if (cfg.large.tls == url.tls)
		a.p.proto = spoken;
	if (cfg.large.tls && !tls && make_tls(&a, &tls) < 0)
		goto cleanup;
	a.p.tls = cfg.large.tls ? tls : NULL;
	a.p.server_name = cfg.large.host;
	cfg_ss = ss;
	if (resolve(cfg.test_endpoint[0] ? cfg.test_endpoint : cfg.large.host, cfg.large.port,
		    a.family, &ss, &len) < 0 ||
	    !target_ok(&a, &cfg_ss, &ss, cfg.large.port))
		goto cleanup;
	{
		char ip[INET6_ADDRSTRLEN];

		peer_text(&ss, ip, sizeof(ip));
		cli_note("test rpm", "testing %s port %s (%s)", ip, cfg.large.port,
			 cfg.test_endpoint[0] ? cfg.test_endpoint : cfg.large.host);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	a.p.interrupt = &interrupted;
	progress.tty = isatty(STDERR_FILENO);
	if (progress.tty || a.verbose)
		a.p.progress = show_progress, a.p.progress_ctx = &progress;
	err = rpm_run(&a.p, (struct sockaddr *)&ss, len, &cfg, r, why, sizeof(why));
	if (a.p.progress && progress.tty)
		fputs("\r\033[K", stderr);
	snprintf(r->rpm.draft, sizeof(r->rpm.draft), "%s", RPM_DRAFT);
	snprintf(r->host, sizeof(r->host), "%s", url.host);
	snprintf(r->label, sizeof(r->label), "%s", a.label ? a.label : "");
	snprintf(r->rpm.protocol, sizeof(r->rpm.protocol), "%s",
		 a.p.proto == HC_HTTP1 ? "http/1.1"
		 : a.p.tls	       ? "h2"
				       : "h2c");
	r->rpm.tls = a.p.tls != NULL;
	snprintf(r->rpm.config_url, sizeof(r->rpm.config_url), "%s", a.url);
	r->rpm.sequential = a.p.sequential;
	r->rpm.mad = a.p.mad, r->rpm.tmp = a.p.tmp, r->rpm.mnp = a.p.mnp, r->rpm.mps = a.p.mps;
	r->rpm.id_s = a.p.id_s, r->rpm.sdt = a.p.sdt, r->rpm.ptc = a.p.ptc,
	r->rpm.max_s = a.p.max_s;
	if (err < 0)
		cli_error("test rpm", "%s", why);
	if (r->rpm.nstages && write_outputs(&a, r) < 0)
		goto cleanup;
	if (err < 0 || r->interrupted)
		goto cleanup;
	ret = 0;
cleanup:
	tls_ctx_free(tls);
	result_free(r);
	free(r);
	return ret;
}
