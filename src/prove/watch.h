/* SPDX-License-Identifier: MIT */
/*
 * watch.h - where the queue builds, from an interface's own counters while a test runs:
 * its qdiscs' backlog and drops (RTM_GETQDISC, TCA_STATS2's queue statistics) and its
 * TX queues' BQL inflight (sysfs), sampled at every step of the test.
 *
 *	backlog_max   the largest backlog of the root qdisc seen (bytes; a classful root
 *	              counts its children's); 0 on noqueue
 *	drops         qdisc drops over the test, summed over every qdisc of the interface
 *	inflight_max  the largest BQL inflight of any TX queue (bytes; -1 without BQL)
 *
 * watch_where() puts it in words: "here" when this host's qdisc held more than two
 * full frames or dropped, "driver" when the driver held more than BQL's usual few
 * kilobytes (WATCH_DRIVER_BYTES) and, on a link of known speed, more than
 * WATCH_DRIVER_MS of sending at that speed, else "beyond" (the queue is past this
 * host). The time matters on a NIC with TSO: BQL lets one or two 64 KB super-packets
 * be in flight, over 30000 bytes but well under a millisecond at 1 Gbit/s, while the
 * queue of hundreds of milliseconds is upstream. watch_open() reads the speed
 * (ethtool; 0 when the driver reports none, and then the bytes alone decide).
 * Nothing prints; errors make a sample count as missing, not the test fail.
 */
#ifndef DEBLOAT_PROVE_WATCH_H
#define DEBLOAT_PROVE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "host/bql.h"

#define WATCH_DRIVER_BYTES 30000
#define WATCH_DRIVER_MS	   5

struct prove_watch {
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t speed_mbps; /* the link's, 0 when unknown */
	struct bql_watch bql;
	struct bql_queue *queues; /* one sample's, bql.n of them */
	bool have_bql;
	bool have_start;
	uint64_t drops_start, drops_now;
	uint64_t backlog_max;
	int64_t inflight_max;
	unsigned samples;
};

/* 0, or -ENODEV. */
int watch_open(struct prove_watch *w, const char *ifname);
/* One sample (at every step of the test). */
void watch_sample(struct prove_watch *w);
void watch_close(struct prove_watch *w);

uint64_t watch_drops(const struct prove_watch *w);
const char *watch_where(const struct prove_watch *w, uint32_t mtu);

#endif
