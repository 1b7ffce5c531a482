/* SPDX-License-Identifier: MIT */
/*
 * cmd-server.c - `debloat server`: serve latency-under-load tests (`debloat rrul`) on
 * one TCP and UDP port until SIGINT or SIGTERM, one log line per finished test on
 * stderr. The protocol and its protections are src/meter/server.h's.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "base/cli.h"
#include "http/tls.h"
#include "meter/cc.h"
#include "meter/server.h"
#include "meter/serverlog.h"

static const char usage[] =
    "Usage: " PROG_NAME " server [-p PORT] [-4|-6] [--bind ADDR] [--max-clients N]\n"
    "                      [--max-duration S] [--min-interval MS] [--max-probe-len B]\n"
    "                      [--key-file F] [--allow-cc NAME[,NAME...]]\n"
    "                      [--udp-buffer KB] [--max-hold MS]\n"
    "                      [--stats-interval S] [--v6-prefix BITS] [--json]\n"
    "                      [--rpm [PORT]] [--rpm-max-time S] [--rpm-max-conns N]\n"
    "                      [--rpm-per-addr N] [--rpm-idle S] [--rpm-head S]\n"
    "                      [--rpm-max-streams N] [--cert FILE --key FILE]\n"
    "\n"
    "Serve latency-under-load tests (debloat rrul, debloat test) on one TCP and UDP\n"
    "port until SIGINT or SIGTERM. Each test gets a token bound to the client's\n"
    "address; its duration, probe interval and probe size are clamped to the limits\n"
    "below and\n"
    "reported back; probes are rate-limited and their replies never longer than the\n"
    "request. One line per finished test on stderr, and one with the probes' hold\n"
    "and processing times (p50, p99, max) every --stats-interval and at exit.\n"
    "\n"
    "  -p, --port PORT         TCP and UDP port (default 9911)\n"
    "  -4, -6                  IPv4 or IPv6 only (default: both)\n"
    "  -b, --bind ADDR         listen on this address only\n"
    "  -c, --max-clients N     tests at once, 1 to 65536 (default 32); more get\n"
    "                          \"busy\"; a ping test holds ~8 KB and one descriptor\n"
    "  -D, --max-duration S    longest test in seconds (default 180)\n"
    "  -i, --min-interval MS   shortest probe interval in ms (default 10)\n"
    "  -L, --max-probe-len B   longest probe accepted in bytes (default 1472)\n"
    "  -k, --key-file F        private server: clients must know the key in F (HMAC)\n"
    "      --allow-cc NAMES    congestion controls a client may ask for besides\n"
    "                          net.ipv4.tcp_allowed_congestion_control's\n"
    "                          (comma-separated; each must be loaded already: the\n"
    "                          server loads no module)\n"
    "      --udp-buffer KB     UDP receive buffer to ask for (default 8192; 0: the\n"
    "                          kernel's); as root past net.core.rmem_max\n"
    "      --max-hold MS       a probe held longer flags its test overloaded\n"
    "                          (default 2)\n"
    "      --stats-interval S  log the probes' hold and processing times every S\n"
    "                          seconds (default 60; 0: only at exit)\n"
    "      --v6-prefix BITS    per-address limits count an IPv6 client per /BITS\n"
    "                          (default 64: one host holds a /64; 128: per address)\n"
    "      --rpm [PORT]        also serve the responsiveness test (debloat test rpm,\n"
    "                          or any client of draft-ietf-ippm-responsiveness) over\n"
    "                          HTTP/2 cleartext and HTTP/1.1 on its own TCP port\n"
    "                          (default 4043): config at /.well-known/nq\n"
    "      --rpm-max-time S    longest download or upload of that test (default 90)\n"
    "      --rpm-max-conns N   its connections at once (default 512)\n"
    "      --rpm-per-addr N    ... from one client address (default 64)\n"
    "      --rpm-idle S        close its connections idle this long (default 10)\n"
    "      --rpm-head S        longest TLS handshake and request head (default 5)\n"
    "      --rpm-max-streams N its HTTP/2 streams at once, all connections\n"
    "                          (default 16384)\n"
    "      --cert FILE         with --key: the rpm port also speaks TLS (https://,\n"
    "                          ALPN h2 or http/1.1) with this PEM certificate chain\n"
    "      --key FILE          ... and this PEM private key (not --key-file's key)\n"
    "  -j, --json              log lines as JSON (keys: docs/json.md)\n"
    "  -h, --help              show this help\n";

/* NAME[,NAME...], each a congestion control name (cc.h). */
static bool cc_names_ok(const char *list)
{
	char name[CC_NAME_MAX + 1];

	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");

		if (n > CC_NAME_MAX)
			return false;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!cc_name_ok(name))
			return false;
		p += n;
		if (!*p)
			return true;
	}
}

struct server_args {
	struct server_config cfg;
	const char *key_file;
	const char *cert, *tls_key; /* the rpm port's TLS */
	bool json;
	int argc; /* the words --rpm may take its port from */
	char **argv;
};

static int take_allow_cc(void *ctx, const char *value)
{
	if (!cc_names_ok(value))
		return -1;
	((struct server_args *)ctx)->cfg.allow_cc = value;
	return 0;
}

/* --rpm, --rpm=PORT, or --rpm PORT (a number as the next word) */
static int take_rpm(void *ctx, const char *value)
{
	struct server_args *a = ctx;
	uint64_t v;

	if (!value && optind < a->argc && a->argv[optind][0] >= '0' && a->argv[optind][0] <= '9')
		value = a->argv[optind++];
	if (value && !cli_parse_uint(value, 1, 65535, &v))
		return cli_usage_error("server", usage, "bad rpm port \"%s\": want 1 to 65535",
				       value);
	a->cfg.rpm = true;
	if (value)
		a->cfg.rpm_port = (uint16_t)v;
	return 0;
}

/* The smallest probe the server takes, named in --max-probe-len's message. */
_Static_assert(PROTO_PROBE_LEN + PROTO_MAC_LEN == 66, "--max-probe-len's message says 66");

static int parse_args(int argc, char *argv[], struct server_args *a)
{
	const struct cli_option options[] = {
	    {"port", 'p', CLI_UINT, CLI_TO(&a->cfg.port), .min = 1, .max = 65535,
	     .bad = "bad port \"%s\": want 1 to 65535"},
	    {NULL, '4', CLI_SET, CLI_TO(&a->cfg.family), .set = AF_INET},
	    {NULL, '6', CLI_SET, CLI_TO(&a->cfg.family), .set = AF_INET6},
	    {"bind", 'b', CLI_STR, CLI_TO(&a->cfg.bind)},
	    {"max-clients", 'c', CLI_UINT, CLI_TO(&a->cfg.max_clients), .min = 1,
	     .max = SERVER_MAX_CLIENTS,
	     .bad = "bad client limit \"%s\": want 1 to " CLI_DIGITS(SERVER_MAX_CLIENTS)},
	    {"max-duration", 'D', CLI_UINT, CLI_TO(&a->cfg.max_duration_ms), .min = 1, .max = 86400,
	     .scale = 1000, .bad = "bad duration \"%s\": want 1 to 86400 s"},
	    {"min-interval", 'i', CLI_UINT, CLI_TO(&a->cfg.min_interval_us), .min = 1, .max = 60000,
	     .scale = 1000, .bad = "bad interval \"%s\": want 1 to 60000 ms"},
	    {"max-probe-len", 'L', CLI_UINT, CLI_TO(&a->cfg.max_probe_len),
	     .min = PROTO_PROBE_LEN + PROTO_MAC_LEN, .max = 2048,
	     .bad = "bad probe length \"%s\": want 66 to 2048 bytes"},
	    {"key-file", 'k', CLI_STR, CLI_TO(&a->key_file)},
	    {"allow-cc", 0, CLI_CALL, .call = take_allow_cc, .value = true,
	     .bad = "bad --allow-cc \"%s\": want congestion control names separated by "
		    "commas (e.g. bbr,cubic)"},
	    {"udp-buffer", 0, CLI_UINT, CLI_TO(&a->cfg.udp_rcvbuf), .min = 0, .max = 1024 * 1024,
	     .scale = 1024, .bad = "bad UDP buffer \"%s\": want 0 to 1048576 KB"},
	    {"max-hold", 0, CLI_UINT, CLI_TO(&a->cfg.hold_max_us), .min = 1, .max = 10000,
	     .scale = 1000, .bad = "bad hold bound \"%s\": want 1 to 10000 ms"},
	    {"stats-interval", 0, CLI_UINT, CLI_TO(&a->cfg.stats_ms), .min = 0, .max = 86400,
	     .scale = 1000, .bad = "bad stats interval \"%s\": want 0 to 86400 s"},
	    {"rpm", 0, CLI_CALL, .call = take_rpm, .value = true, .optional = true},
	    {"rpm-max-time", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.max_time_ms), .min = 1,
	     .max = 86400, .scale = 1000, .bad = "bad rpm time limit \"%s\": want 1 to 86400 s"},
	    {"rpm-max-conns", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.max_conns), .min = 1,
	     .max = 65536, .bad = "bad rpm connection limit \"%s\": want 1 to 65536"},
	    {"rpm-per-addr", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.max_conns_per_addr), .min = 1,
	     .max = 65536, .bad = "bad rpm per-address limit \"%s\": want 1 to 65536"},
	    {"rpm-idle", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.idle_ms), .min = 1, .max = 3600,
	     .scale = 1000, .bad = "bad rpm idle time \"%s\": want 1 to 3600 s"},
	    {"rpm-head", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.head_ms), .min = 1, .max = 3600,
	     .scale = 1000, .bad = "bad rpm head time \"%s\": want 1 to 3600 s"},
	    {"rpm-max-streams", 0, CLI_UINT, CLI_TO(&a->cfg.rpm_cfg.max_streams), .min = 1,
	     .max = 1 << 20, .bad = "bad rpm stream limit \"%s\": want 1 to 1048576"},
	    {"v6-prefix", 0, CLI_UINT, CLI_TO(&a->cfg.v6_prefix), .min = 1, .max = 128,
	     .bad = "bad IPv6 prefix \"%s\": want 1 to 128 bits"},
	    {"cert", 0, CLI_STR, CLI_TO(&a->cert)},
	    {"key", 0, CLI_STR, CLI_TO(&a->tls_key)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r;

	a->argc = argc;
	a->argv = argv;
	r = cli_parse_options("server", usage, options, a, argc, argv);
	if (r >= 0)
		return r;
	if (optind < argc)
		return cli_usage_error("server", usage, "unexpected argument \"%s\"", argv[optind]);
	if (!a->cert != !a->tls_key)
		return cli_usage_error("server", usage, "--cert and --key go together");
	if (a->cert && !a->cfg.rpm)
		return cli_usage_error("server", usage,
				       "--cert and --key are for the rpm port: add --rpm");
	return -1;
}

/*
 * Every test holds a descriptor or more: lift the soft limit to the hard one, and say
 * when even that is short of the client limit (the server then sheds connections).
 */
static void raise_fd_limit(unsigned max_clients)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_clients + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < want)
		fprintf(
		    stderr,
		    "%s: server: warning: %llu file descriptors allowed (ulimit -n), %u clients "
		    "need at least %llu\n",
		    PROG_NAME, (unsigned long long)rl.rlim_cur, max_clients,
		    (unsigned long long)want);
}

/* The log lines come from two threads (the rpm port's is its own, http/hthread.h):
 * each holds stderr for its whole line. */
struct log_ctx {
	bool json;
};

/* One line per finished test, on stderr. */
static void log_test(void *ctx, const struct server_test_summary *t)
{
	flockfile(stderr);
	server_log_test(stderr, ((struct log_ctx *)ctx)->json, t);
	fflush(stderr);
	funlockfile(stderr);
}

/* A finished download or upload of the responsiveness test. */
static void log_rpm(void *ctx, const struct hserver_transfer *t)
{
	flockfile(stderr);
	server_log_rpm(stderr, ((struct log_ctx *)ctx)->json, t);
	fflush(stderr);
	funlockfile(stderr);
}

/* The probes' hold and processing times: every --stats-interval, and at exit. */
static void log_stats(void *ctx, const struct server_probe_stats *st)
{
	flockfile(stderr);
	server_log_stats(stderr, ((struct log_ctx *)ctx)->json, st);
	fflush(stderr);
	funlockfile(stderr);
}

int cmd_server(int argc, char *argv[])
{
	struct server_args a = {0};
	struct log_ctx lc;
	struct sigaction sa = {.sa_handler = cli_on_signal};
	uint8_t key[PROTO_MAX_KEY];
	struct server *s = NULL;
	struct tls_ctx *tls = NULL;
	char err[TLS_ERRLEN];
	int ret = 1, r;

	server_config_defaults(&a.cfg);
	a.cfg.stats_ms = 60000;
	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	if (a.key_file) {
		r = proto_key_read(a.key_file, key, sizeof(key), &a.cfg.keylen);
		if (r < 0) {
			cli_error("server", "cannot use key file %s: %s", a.key_file,
				  r == -EINVAL	   ? "it is empty"
				  : r == -EMSGSIZE ? "longer than 1024 bytes"
						   : strerror(-r));
			goto cleanup;
		}
		a.cfg.key = key;
	}
	if (a.cert) {
		r = tls_server_ctx_new(&tls, a.cert, a.tls_key, TLS_ALPN_H2 | TLS_ALPN_HTTP1, err,
				       sizeof(err));
		if (r < 0) {
			cli_error("server", "cannot use --cert %s --key %s: %s", a.cert, a.tls_key,
				  r == -ENOTSUP ? "this build has no TLS"
				  : err[0]	? err
						: strerror(-r));
			goto cleanup;
		}
		a.cfg.rpm_cfg.tls = tls;
	}
	raise_fd_limit(a.cfg.max_clients);
	lc.json = a.json;
	a.cfg.on_test_end = log_test;
	a.cfg.on_stats = log_stats;
	a.cfg.ctx = &lc;
	a.cfg.rpm_cfg.on_transfer = log_rpm;
	a.cfg.rpm_cfg.ctx = &lc;
	r = server_new(&a.cfg, &s);
	if (r < 0) {
		cli_error("server", "cannot listen on %s port %u%s: %s",
			  a.cfg.bind ? a.cfg.bind : "any address", a.cfg.port,
			  a.cfg.rpm ? " or its rpm port" : "",
			  r == -EINVAL ? "not an address of that family" : strerror(-r));
		goto cleanup;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	cli_note("server", "listening on TCP and UDP port %u%s", server_port(s),
		 a.cfg.keylen ? " (keyed)" : "");
	if (a.cfg.rpm)
		cli_note("server",
			 "responsiveness test on TCP port %u (HTTP/2 and HTTP/1.1%s, "
			 "config at /.well-known/nq)",
			 server_rpm_port(s), tls ? ", cleartext or TLS" : " cleartext");
	/* The kernel reports twice what it was asked (its own overhead). */
	cli_note("server", "UDP receive buffer %d KB (asked %d KB)",
		 server_udp_rcvbuf(s) / 2 / 1024, a.cfg.udp_rcvbuf / 1024);
	r = server_run(s, &cli_signal);
	if (r < 0) {
		cli_error("server", "event loop failed: %s", strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	server_free(s);
	tls_ctx_free(tls);
	memset(key, 0, sizeof(key));
	return ret;
}
