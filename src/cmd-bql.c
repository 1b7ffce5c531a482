/* SPDX-License-Identifier: MIT */
/*
 * cmd-bql.c - `debloat bql`: a live view of every TX queue's byte queue limits, like
 * bqlmon. Read-only.
 *
 * Samples are spaced by an absolute periodic timerfd on CLOCK_MONOTONIC, so they do
 * not drift however long a sample takes. SIGINT and SIGTERM arrive through a signalfd
 * and end the view cleanly with status 0: stopping is how a live view is meant to end.
 *
 * DEBLOAT_SYSFS (a testing aid, read here only) replaces /sys, so tests can run the
 * view over a fake tree and change its files between samples.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "audit/bqlview.h"
#include "base/cli.h"
#include "base/print.h"
#include "host/host.h"

#define INTERVAL_MIN_MS	    10
#define INTERVAL_MAX_MS	    3600000
#define INTERVAL_DEFAULT_MS 1000

static const char usage[] =
    "Usage: " PROG_NAME " bql [-i MS] [-n COUNT] [--json] [IFACE]\n"
    "\n"
    "Watch the byte queue limits of each TX queue live, like bqlmon: limit,\n"
    "limit_min, limit_max, inflight, hold_time, the stall counters where the kernel\n"
    "has them, and how many bytes and packets the interface sent since the last\n"
    "sample. Without IFACE, every interface that has byte_queue_limits. On a\n"
    "terminal one table refreshes in\n"
    "place; otherwise each sample prints one line per queue, timestamp first (Unix\n"
    "seconds), numbers raw. Ctrl-C or SIGTERM stops it (exit status 0).\n"
    "\n"
    "  -i, --interval MS  time between samples in ms (default 1000, at least 10)\n"
    "  -n, --count COUNT  stop after COUNT samples (default: run until stopped)\n"
    "  -j, --json         one JSON object per sample per line (keys: docs/json.md)\n"
    "  -h, --help         show this help\n"
    "\n"
    "DEBLOAT_SYSFS=DIR reads DIR in place of /sys (a testing aid).\n";

struct bql_args {
	unsigned interval_ms;
	uint64_t count; /* 0: until stopped */
	bool json;
	const char *ifname;
};

/* -1 to run the view, else the exit status to return at once (help, usage error). */
static int parse_args(int argc, char *argv[], struct bql_args *a)
{
	const struct cli_option options[] = {
	    {"interval", 'i', CLI_UINT, CLI_TO(&a->interval_ms), .min = INTERVAL_MIN_MS,
	     .max = INTERVAL_MAX_MS,
	     .bad = "bad interval \"%s\": want " CLI_DIGITS(INTERVAL_MIN_MS) " to " CLI_DIGITS(
		 INTERVAL_MAX_MS) " ms"},
	    {"count", 'n', CLI_UINT, CLI_TO(&a->count), .min = 1, .max = UINT64_MAX,
	     .bad = "bad count \"%s\": want 1 or more"},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options("bql", usage, options, NULL, argc, argv);

	if (r >= 0)
		return r;
	if (argc - optind > 1)
		return cli_usage_error("bql", usage, "one interface at most, not \"%s\"",
				       argv[optind + 1]);
	a->ifname = optind < argc ? argv[optind] : NULL;
	return -1;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The timerfd (every interval_ms from now, absolute, so late wake-ups do not add up)
 * and the signalfd for SIGINT and SIGTERM, which are blocked from here on. -errno.
 */
static int open_clock(unsigned interval_ms, int *timer, int *sig)
{
	struct itimerspec its = {
	    .it_interval = {interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L},
	};
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	*sig = signalfd(-1, &mask, SFD_CLOEXEC);
	if (*sig < 0)
		return -errno;
	*timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (*timer < 0)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &its.it_value);
	its.it_value.tv_sec += its.it_interval.tv_sec;
	its.it_value.tv_nsec += its.it_interval.tv_nsec;
	if (its.it_value.tv_nsec >= 1000000000L) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000L;
	}
	return timerfd_settime(*timer, TFD_TIMER_ABSTIME, &its, NULL) < 0 ? -errno : 0;
}

/* 1 when the next tick came, 0 when a signal asks to stop, -errno. */
static int wait_tick(int timer, int sig)
{
	struct pollfd fds[2] = {{.fd = timer, .events = POLLIN}, {.fd = sig, .events = POLLIN}};
	uint64_t ticks;

	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (fds[1].revents)
			return 0;
		/* Missed ticks (a stopped process, a slow sample) are skipped, not caught up. */
		if (read(timer, &ticks, sizeof(ticks)) == sizeof(ticks))
			return 1;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

/* One sample printed; -errno from the printer (a closed pipe, a full disk). */
static int show_sample(const struct bqlview *v, enum bqlview_style style)
{
	struct printer *p =
	    print_new(stdout, style == BQLVIEW_JSON ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	int r;

	if (!p)
		return -ENOMEM;
	if (style == BQLVIEW_JSON)
		print_set_compact(p);
	bqlview_print(v, p, style);
	r = print_finish(p);
	print_free(p);
	return r;
}

static void show_end(enum bqlview_style style)
{
	struct printer *p = print_new(stdout, PRINT_MODE_TEXT);

	if (!p)
		return;
	bqlview_print_end(p, style);
	print_finish(p);
	print_free(p);
}

int cmd_bql(int argc, char *argv[])
{
	struct bql_args a = {.interval_ms = INTERVAL_DEFAULT_MS};
	const char *sysfs = getenv("DEBLOAT_SYSFS"), *gone = NULL;
	enum bqlview_style style = BQLVIEW_LINES;
	struct bqlview v = {0};
	int ret = 1, r, timer = -1, sig = -1;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	r = bqlview_open(&v, sysfs && *sysfs ? sysfs : host_default_paths.sysfs, a.ifname);
	if (r == -ENODEV) {
		cli_error("bql", "cannot find interface %s", a.ifname);
		goto cleanup;
	}
	if (r == -EOPNOTSUPP && a.ifname) {
		cli_error("bql",
			  "%s has no byte queue limits: none of its TX queues has a "
			  "byte_queue_limits directory (queueless devices such as veth and lo have "
			  "none)",
			  a.ifname);
		goto cleanup;
	}
	if (r == -EOPNOTSUPP) {
		cli_error("bql", "no interface here has byte queue limits (no byte_queue_limits "
				 "directory in sysfs)");
		goto cleanup;
	}
	if (r < 0) {
		cli_error("bql", "cannot read %s: %s", a.ifname ? a.ifname : "the interfaces",
			  strerror(-r));
		goto cleanup;
	}
	v.interval_ms = a.interval_ms;
	style = a.json ? BQLVIEW_JSON : isatty(STDOUT_FILENO) ? BQLVIEW_TABLE : BQLVIEW_LINES;
	r = open_clock(a.interval_ms, &timer, &sig);
	if (r < 0) {
		cli_error("bql", "cannot set up the timer: %s", strerror(-r));
		goto cleanup;
	}
	do {
		r = bqlview_sample(&v, clock_ns(CLOCK_MONOTONIC),
				   clock_ns(CLOCK_REALTIME) / 1000000, &gone);
		if (r < 0) {
			cli_error("bql", "cannot read %s: %s", gone,
				  r == -ENODEV ? "the interface went away" : strerror(-r));
			goto cleanup;
		}
		r = show_sample(&v, style);
		if (r < 0) {
			cli_error("bql", "cannot write: %s", strerror(-r));
			goto cleanup;
		}
		if (a.count && v.samples >= a.count)
			break;
		r = wait_tick(timer, sig);
	} while (r > 0);
	if (r < 0) {
		cli_error("bql", "cannot wait for the next sample: %s", strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (v.samples)
		show_end(style);
	if (timer >= 0)
		close(timer);
	if (sig >= 0)
		close(sig);
	bqlview_close(&v);
	return ret;
}
