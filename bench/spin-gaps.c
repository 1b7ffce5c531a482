/* SPDX-License-Identifier: MIT */
/*
 * spin-gaps.c - how late can a thread that never sleeps be on this machine? The floor
 * under the lab emulator's scheduling error (bench-lab.sh prints both).
 *
 * Method: a thread at SCHED_FIFO priority 1 (as the lab's loop runs; without the
 * right it stays where it is, and says so) reads CLOCK_MONOTONIC in a loop for
 * --seconds, in 50 ms stretches with 5 ms of sleep between them so that the
 * kernel's real-time throttling never cuts in. Two consecutive reads more than 2 us
 * apart are a gap: the CPU was taken away (an interrupt, the hypervisor running
 * another guest or its own work). An event falling due at a random instant of the
 * spinning waits for the rest of the gap it falls in, so the residual wait exceeds x
 * with probability sum(max(0, gap - x)) / spinning time; the quantiles of that are
 * what a perfect spinning scheduler would show as its error on this machine.
 *
 * Prints the residual wait's p50/p90/p99/p99.9 and the gaps per second longer than
 * 20 and 50 us; --json: {"results": [{"name", "value", "unit"}, ...]}.
 *
 *   spin-gaps [--seconds S] [--json]
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GAP_NS	   2000ull
#define STRETCH_NS 50000000ull
#define REST_NS	   5000000ull
#define MAX_GAPS   (1u << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* P(residual wait > x) over the spinning time. */
static double tail(const uint64_t *gap, size_t n, double spun_ns, double x)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		if ((double)gap[i] > x)
			s += (double)gap[i] - x;
	return s / spun_ns;
}

/* The residual wait's quantile q: the x where the tail falls to 1 - q (bisection). */
static double quantile(const uint64_t *gap, size_t n, double spun_ns, double q)
{
	double lo = 0, hi = 0;

	for (size_t i = 0; i < n; i++)
		if ((double)gap[i] > hi)
			hi = (double)gap[i];
	if (tail(gap, n, spun_ns, 0) <= 1 - q)
		return 0;
	for (int it = 0; it < 50; it++) {
		double mid = (lo + hi) / 2;

		if (tail(gap, n, spun_ns, mid) > 1 - q)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int main(int argc, char **argv)
{
	struct sched_param sp = {.sched_priority = 1};
	double secs = 4, spun = 0;
	uint64_t *gap, end, n20 = 0, n50 = 0;
	size_t n = 0;
	int json = 0, rt;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			secs = atof(argv[++i]);
		} else {
			bool help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");

			fprintf(help ? stdout : stderr,
				"usage: spin-gaps [--seconds S] [--json]\n");
			return help ? 0 : 2;
		}
	}
	if (!(secs > 0 && secs <= 600)) {
		fprintf(stderr, "spin-gaps: --seconds must be in (0, 600]\n");
		return 2;
	}
	if (!(gap = malloc(MAX_GAPS * sizeof(*gap)))) {
		fprintf(stderr, "spin-gaps: out of memory\n");
		return 1;
	}
	rt = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0;
	if (!rt)
		fprintf(stderr, "spin-gaps: not real-time (%s): measuring at normal priority\n",
			strerror(errno));
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		uint64_t t0 = now_ns(), prev = t0, t = t0;
		struct timespec rest = {0, (long)REST_NS};

		while ((t = now_ns()) < t0 + STRETCH_NS) {
			uint64_t g = t - prev;

			if (g > GAP_NS && n < MAX_GAPS)
				gap[n++] = g;
			n20 += g > 20000;
			n50 += g > 50000;
			prev = t;
		}
		spun += (double)(t - t0);
		nanosleep(&rest, NULL);
	}
	struct {
		const char *name;
		double value;
		const char *unit;
	} r[] = {
	    {"spin_residual_wait_p50", quantile(gap, n, spun, 0.50) / 1e3, "us"},
	    {"spin_residual_wait_p90", quantile(gap, n, spun, 0.90) / 1e3, "us"},
	    {"spin_residual_wait_p99", quantile(gap, n, spun, 0.99) / 1e3, "us"},
	    {"spin_residual_wait_p999", quantile(gap, n, spun, 0.999) / 1e3, "us"},
	    {"spin_gaps_over_20us", (double)n20 / (spun / 1e9), "1/s"},
	    {"spin_gaps_over_50us", (double)n50 / (spun / 1e9), "1/s"},
	    {"spin_realtime", rt, "bool"},
	};
	size_t nr = sizeof(r) / sizeof(*r);

	if (json) {
		printf("{\"results\": [");
		for (size_t i = 0; i < nr; i++)
			printf("%s{\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}",
			       i ? ", " : "", r[i].name, r[i].value, r[i].unit);
		printf("]}\n");
	} else {
		printf("a spinning thread (%s) for %.1f s: residual wait at a random instant\n",
		       rt ? "SCHED_FIFO 1" : "normal priority", spun / 1e9);
		for (size_t i = 0; i < nr - 1; i++)
			printf("  %-28s %10.1f %s\n", r[i].name, r[i].value, r[i].unit);
	}
	free(gap);
	return 0;
}
