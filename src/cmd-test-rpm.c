/* SPDX-License-Identifier: MIT */
/*
 * cmd-test-rpm.c - `debloat test rpm URL`: the responsiveness test of
 * draft-ietf-ippm-responsiveness-09 against any server that publishes its config at
 * URL (meter/rpm.h). cmd-test.c hands `test rpm` over to here. Prints the summary (or
 * JSON) and writes -o; a stage cut short still prints what it measured, then exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/cli.h"
#include "debloat/rpm.h"
#include "meter/result-print.h"
#include "meter/rpm.h"
#include "meter/summary.h"
#include "meter/tls.h"
#include "base/print.h"

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
    "\n"
    "  -v, --verbose          the draft's verbose report: probes, goodput, parameters\n"
    "      --http2            HTTP/2 only (http://: h2c, the default there)\n"
    "      --http1            HTTP/1.1 only; self probes use the load connections' TCP RTT\n"
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

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static bool parse_num(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min) || !(v <= max))
		return false;
	*out = v;
	return true;
}

/* -1 to run, else the exit status. */
static int parse_args(int argc, char *argv[], struct rpm_args *a)
{
	enum {
		O_HTTP1 = 256,
		O_HTTP2,
		O_DOWN,
		O_UP,
		O_SEQ,
		O_CONC,
		O_MAD,
		O_ID,
		O_TMP,
		O_SDT,
		O_MNP,
		O_MPS,
		O_PTC,
		O_LABEL
	};
	static const struct option options[] = {
	    {"verbose", no_argument, NULL, 'v'},
	    {"http1", no_argument, NULL, O_HTTP1},
	    {"http2", no_argument, NULL, O_HTTP2},
	    {"download", no_argument, NULL, O_DOWN},
	    {"upload", no_argument, NULL, O_UP},
	    {"sequential", no_argument, NULL, O_SEQ},
	    {"concurrent", no_argument, NULL, O_CONC},
	    {"mad", required_argument, NULL, O_MAD},
	    {"id", required_argument, NULL, O_ID},
	    {"tmp", required_argument, NULL, O_TMP},
	    {"sdt", required_argument, NULL, O_SDT},
	    {"mnp", required_argument, NULL, O_MNP},
	    {"mps", required_argument, NULL, O_MPS},
	    {"ptc", required_argument, NULL, O_PTC},
	    {"max-time", required_argument, NULL, 'm'},
	    {"label", required_argument, NULL, O_LABEL},
	    {"output", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {"insecure", no_argument, NULL, 'k'},
	    {0},
	};
	const char *what = NULL, *want = NULL;
	double v;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vkm:o:j46h", options, NULL)) != -1) {
		switch (c) {
		case 'v':
			a->verbose = true;
			break;
		case O_HTTP1:
			a->p.proto = HC_HTTP1;
			a->proto_given = true;
			break;
		case O_HTTP2:
			a->p.proto = HC_H2C;
			a->proto_given = true;
			break;
		case 'k':
			a->insecure = true;
			break;
		case O_DOWN:
			a->down = true;
			break;
		case O_UP:
			a->up = true;
			break;
		case O_SEQ:
			a->p.sequential = true;
			break;
		case O_CONC:
			a->p.sequential = false;
			break;
		case O_MAD:
			if (!parse_num(optarg, 1, RPM_MAX_MAD, &v) || v != floor(v))
				goto bad_mad;
			a->p.mad = (unsigned)v;
			break;
		case O_ID:
			if (!parse_num(optarg, 0.05, 60, &a->p.id_s))
				goto bad_id;
			break;
		case O_TMP:
			if (!parse_num(optarg, 1, 100, &v) || v != floor(v))
				goto bad_tmp;
			a->p.tmp = (unsigned)v;
			break;
		case O_SDT:
			if (!parse_num(optarg, 0, 100, &v))
				goto bad_sdt;
			a->p.sdt = v / 100;
			break;
		case O_MNP:
			if (!parse_num(optarg, 1, 64, &v) || v != floor(v))
				goto bad_mnp;
			a->p.mnp = (unsigned)v;
			break;
		case O_MPS:
			if (!parse_num(optarg, 1, 1000, &v) || v != floor(v))
				goto bad_mps;
			a->p.mps = (unsigned)v;
			break;
		case O_PTC:
			if (!parse_num(optarg, 0.1, 100, &v))
				goto bad_ptc;
			a->p.ptc = v / 100;
			break;
		case 'm':
			if (!parse_num(optarg, 0.1, 3600, &a->p.max_s))
				goto bad_max;
			break;
		case '4':
			a->family = AF_INET;
			break;
		case '6':
			a->family = AF_INET6;
			break;
		case O_LABEL:
			a->label = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case 'h':
			return fputs(usage, stdout) == EOF ? 1 : 0;
		default:
			if (optopt && optopt != '?' && strchr("mo", optopt))
				return cli_usage_error("test rpm", usage,
						       "option \"%s\" needs a value",
						       argv[optind - 1]);
			if (optopt >= O_MAD && optopt <= O_LABEL)
				return cli_usage_error("test rpm", usage,
						       "option \"%s\" needs a value",
						       argv[optind - 1]);
			return cli_usage_error("test rpm", usage, "unknown option \"%s\"",
					       cli_bad_option(argv));
		}
	}
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
bad_mad:
	what = "moving-average distance", want = "a whole number, 1 to 64";
	goto bad;
bad_id:
	what = "interval duration", want = "seconds, 0.05 to 60";
	goto bad;
bad_tmp:
	what = "trimmed-mean percentage", want = "a whole number, 1 to 100";
	goto bad;
bad_sdt:
	what = "standard-deviation tolerance", want = "a percentage, 0 to 100";
	goto bad;
bad_mnp:
	what = "connection limit", want = "a whole number, 1 to 64";
	goto bad;
bad_mps:
	what = "probe rate", want = "a whole number, 1 to 1000";
	goto bad;
bad_ptc:
	what = "probe share", want = "a percentage, 0.1 to 100";
	goto bad;
bad_max:
	what = "maximum time", want = "seconds, 0.1 to 3600";
bad:
	return cli_usage_error("test rpm", usage, "bad %s \"%s\": want %s", what, optarg, want);
}

/* The first address of host:port of the family asked for; prints its own error. */
static int resolve(const char *host, const char *port, int family, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_STREAM}, *ai;
	int r = getaddrinfo(host, port, &hints, &ai);

	if (r) {
		fprintf(stderr, "%s: test rpm: cannot resolve \"%s\": %s\n", PROG_NAME, host,
			gai_strerror(r));
		return -EHOSTUNREACH;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
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
		fprintf(stderr, "%s: test rpm: %s: %s\n", PROG_NAME, a->url, why);
	return r;
}

static int write_outputs(const struct rpm_args *a, struct test_result *r)
{
	struct summary s;
	struct printer *p;
	int err = summary_compute(r, &s), ret = 0;

	if (err < 0) {
		fprintf(stderr, "%s: test rpm: cannot compute the summary: %s\n", PROG_NAME,
			strerror(-err));
		return err;
	}
	p = print_new(stdout, a->json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p)
		return -ENOMEM;
	result_print_rpm(p, r, &s, a->verbose);
	err = print_finish(p);
	print_free(p);
	if (err < 0) {
		fprintf(stderr, "%s: test rpm: cannot write the summary: %s\n", PROG_NAME,
			strerror(-err));
		ret = err;
	}
	if (a->output && (err = result_write_json(a->output, r, &s)) < 0) {
		fprintf(stderr, "%s: test rpm: cannot write %s: %s\n", PROG_NAME, a->output,
			strerror(-err));
		ret = err;
	}
	return ret;
}

int cmd_test_rpm(int argc, char *argv[])
{
	struct rpm_args a = {0};
	struct test_result *r = calloc(1, sizeof(*r));
	struct sigaction sa = {.sa_handler = on_interrupt};
	struct sockaddr_storage ss;
	struct nq_config cfg;
	struct nq_url url;
	struct tls_ctx *tls = NULL;
	enum hc_proto spoken;
	socklen_t len;
	char why[256];
	int ret = 1, err;

	if (!r) {
		fprintf(stderr, "%s: test rpm: out of memory\n", PROG_NAME);
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
		fprintf(stderr, "%s: test rpm: cannot read the config at %s: %s\n", PROG_NAME,
			a.url, why);
		goto cleanup;
	}
	if (a.proto_given && spoken != a.p.proto) { /* offered alone, and not chosen */
		fprintf(stderr, "%s: test rpm: %s: the server did not choose %s (ALPN)\n",
			PROG_NAME, a.url, a.p.proto == HC_HTTP1 ? "http/1.1" : "h2");
		goto cleanup;
	}
	/* the test's connections speak what the config's did, when the scheme is the same */
	if (cfg.large.tls == url.tls)
		a.p.proto = spoken;
	if (cfg.large.tls && !tls && make_tls(&a, &tls) < 0)
		goto cleanup;
	a.p.tls = cfg.large.tls ? tls : NULL;
	a.p.server_name = cfg.large.host;
	if (resolve(cfg.test_endpoint[0] ? cfg.test_endpoint : cfg.large.host, cfg.large.port,
		    a.family, &ss, &len) < 0)
		goto cleanup;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	a.p.interrupt = &interrupted;
	err = rpm_run(&a.p, (struct sockaddr *)&ss, len, &cfg, r, why, sizeof(why));
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
		fprintf(stderr, "%s: test rpm: %s\n", PROG_NAME, why);
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
