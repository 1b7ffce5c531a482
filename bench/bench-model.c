/* SPDX-License-Identifier: MIT */
/*
 * bench-model.c - nanoseconds per enqueue+dequeue for every discipline with 1, 64
 * and 1024 active flows, and per DQL queued+completed pair.
 *
 * Method: preload a standing backlog (64 packets for 1 flow, 2 per flow otherwise),
 * then in steady state each iteration dequeues one packet and enqueues it again as
 * the next flow's packet, so the backlog and the number of active flows stay fixed.
 * The disciplines' clock advances 1 us per iteration (sojourn stays below CoDel's
 * target: we time the forwarding path, not the drop path). Each figure is the
 * median of 5 runs. The anchor is a bare intrusive FIFO doing the same work with no
 * policy at all: the ratio column says what each discipline's policy costs over it.
 *
 *   bench-model [--json] [--iterations N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "debloat/dql.h"
#include "debloat/model.h"

#define POOL 4096
#define RUNS 5

struct result {
	char name[64];
	double value;
	const char *unit;
	double ratio; /* to the anchor with as many flows; 0 when none */
};

static struct result results[64];
static int nresults;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), by_value);
	return v[RUNS / 2];
}

static struct db_pkt pool[POOL];

static void fill(struct db_pkt *p, unsigned flow)
{
	p->len = 1514;
	p->segs = 1;
	p->hash = flow * 0x9e3779b9U + 1;
	p->tos = 0;
	p->flags = 0;
}

static unsigned backlog_for(unsigned flows)
{
	return flows == 1 ? 64 : 2 * flows;
}

/* The anchor: a singly linked FIFO, the least any queue can do per packet. */
static double run_anchor(unsigned flows, long iters)
{
	struct db_pkt *head = NULL, *tail = NULL;
	unsigned backlog = backlog_for(flows);
	volatile uint32_t sink = 0;

	for (unsigned i = 0; i < backlog; i++) {
		fill(&pool[i], i % flows);
		pool[i].next = NULL;
		if (tail)
			tail->next = &pool[i];
		else
			head = &pool[i];
		tail = &pool[i];
	}
	uint64_t t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		struct db_pkt *p = head;
		head = p->next;
		if (!head)
			tail = NULL;
		sink += p->len;
		fill(p, (unsigned)i % flows);
		p->next = NULL;
		if (tail)
			tail->next = p;
		else
			head = p;
		tail = p;
	}
	(void)sink;
	return (double)(now_ns() - t0) / (double)iters;
}

static double run_qdisc(const char *spec, unsigned flows, long iters)
{
	struct db_qdisc *q;
	char err[160];
	unsigned backlog = backlog_for(flows);
	uint64_t clock = 1000000;

	if (db_qdisc_create(spec, NULL, &q, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-model: %s: %s\n", spec, err);
		exit(1);
	}
	for (unsigned i = 0; i < backlog; i++) {
		fill(&pool[i], i % flows);
		db_qdisc_enqueue(q, &pool[i], clock);
	}
	uint64_t t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		clock += 1000;
		struct db_pkt *p = db_qdisc_dequeue(q, clock);
		if (!p) {
			fprintf(stderr, "bench-model: %s: dequeue came back empty with a backlog\n",
				spec);
			exit(1);
		}
		fill(p, (unsigned)i % flows);
		db_qdisc_enqueue(q, p, clock);
	}
	double ns = (double)(now_ns() - t0) / (double)iters;
	db_qdisc_destroy(q);
	return ns;
}

static double run_dql(long iters)
{
	struct db_dql dql;
	uint64_t clock = 0;
	volatile int sink = 0;

	db_dql_init(&dql, 1000000000ULL);
	uint64_t t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		clock += 123040; /* one 1538 B frame at 100 Mbit/s */
		db_dql_queued(&dql, 1514);
		sink += db_dql_avail(&dql) < 0;
		db_dql_completed(&dql, 1514, clock);
	}
	(void)sink;
	return (double)(now_ns() - t0) / (double)iters;
}

static void add(const char *name, double value, const char *unit, double ratio)
{
	struct result *r = &results[nresults++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->value = value;
	r->unit = unit;
	r->ratio = ratio;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *spec;
	} kinds[] = {
	    {"pfifo", "pfifo limit 10000"},
	    {"bfifo", "bfifo limit 100000000"},
	    {"pfifo_fast", "pfifo_fast txqueuelen 10000"},
	    {"codel", "codel limit 10000"},
	    {"fq_codel", "fq_codel"},
	    {"fq", "fq"},
	};
	static const unsigned flow_counts[] = {1, 64, 1024};
	long iters = 2000000;
	int json = 0;
	double runs[RUNS], anchor[3];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
			iters = strtol(argv[++i], NULL, 10);
			if (iters < 1000) {
				fprintf(stderr, "bench-model: --iterations must be >= 1000\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: bench-model [--json] [--iterations N]\n");
			return 2;
		}
	}

	for (int f = 0; f < 3; f++) {
		char name[64];
		for (int r = 0; r < RUNS; r++)
			runs[r] = run_anchor(flow_counts[f], iters);
		anchor[f] = median(runs);
		snprintf(name, sizeof(name), "anchor_fifo_%u_flows", flow_counts[f]);
		add(name, anchor[f], "ns/pkt", 1.0);
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int f = 0; f < 3; f++) {
			char name[64];
			for (int r = 0; r < RUNS; r++)
				runs[r] = run_qdisc(kinds[k].spec, flow_counts[f], iters);
			double v = median(runs);
			snprintf(name, sizeof(name), "%s_%u_flows", kinds[k].name, flow_counts[f]);
			add(name, v, "ns/pkt", v / anchor[f]);
		}
	for (int r = 0; r < RUNS; r++)
		runs[r] = run_dql(iters);
	add("dql_queued_completed", median(runs), "ns/pair", 0);

	if (json) {
		printf("{\"results\": [");
		for (int i = 0; i < nresults; i++)
			printf("%s\n  {\"name\": \"%s\", \"value\": %.2f, \"unit\": \"%s\"}",
			       i ? "," : "", results[i].name, results[i].value, results[i].unit);
		printf("\n]}\n");
		return 0;
	}
	printf("%-28s %10s  %-8s %s\n", "benchmark", "value", "unit", "x anchor");
	for (int i = 0; i < nresults; i++) {
		printf("%-28s %10.2f  %-8s", results[i].name, results[i].value, results[i].unit);
		if (results[i].ratio > 0)
			printf(" %.2f", results[i].ratio);
		printf("\n");
	}
	printf("(%ld iterations, median of %d runs; anchor = bare linked FIFO, same work)\n", iters,
	       RUNS);
	return 0;
}
