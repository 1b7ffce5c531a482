/* SPDX-License-Identifier: MIT */
/*
 * fifo.h - pfifo and bfifo: one tail-drop FIFO, limited in packets or in bytes.
 *
 * Model (Linux net/sched/sch_fifo.c): packets leave in arrival order; a packet
 * that does not fit is dropped at the tail (DB_DROP_OVERLIMIT) and nothing queued
 * is touched. This is the queue that bloats: 1000 full-size frames are ~123 ms
 * at 100 Mbit/s, and nothing in it tells the sender to slow down except loss.
 *
 *   pfifo: fits while packets queued < limit. A GSO super-packet is one packet.
 *   bfifo: fits while bytes queued + pkt->len <= limit (a GSO super-packet
 *          counts all its bytes, so one 64 KB packet can fill a small bfifo).
 *
 * Parameters (tc-style spec):
 *   pfifo [limit PACKETS]   default 1000 (Linux: the device's txqueuelen)
 *   bfifo [limit BYTES]     default 1514000 (Linux: txqueuelen x (MTU + 14)),
 *                           sizes as tc reads them ("64k" is 65536)
 * A limit of 0 is accepted, as Linux does: the queue then drops everything.
 *
 * Both kinds share one implementation (struct db_fifo); params.limit_in_bytes
 * says which one it is, and the kind's defaults() sets it. Linux's pfifo_head_drop
 * is not provided.
 *
 * xstats: peak_backlog_pkts, peak_backlog_bytes (the deepest the queue has been
 * since init; reset does not clear them: they say how bloated it got).
 *
 * Concurrency: none; one caller at a time (model.h).
 */
#ifndef DEBLOAT_FIFO_H
#define DEBLOAT_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "packet.h"
#include "pktq.h"

struct db_fifo_params {
	uint32_t limit;	     /* packets (pfifo) or bytes (bfifo) */
	bool limit_in_bytes; /* bfifo; set by the defaults, not an option */
};

struct db_fifo {
	struct db_fifo_params params;
	struct db_qdisc_env env;
	struct db_pktq queue; /* the packets; counted in stats.backlog_* */
	struct db_qdisc_stats stats;
	uint32_t peak_pkts;  /* deepest backlog seen, packets */
	uint64_t peak_bytes; /* deepest backlog seen, bytes */
};

extern const struct db_qdisc_ops db_pfifo_ops;
extern const struct db_qdisc_ops db_bfifo_ops;

void db_pfifo_defaults(struct db_fifo_params *params);
void db_bfifo_defaults(struct db_fifo_params *params);
/* Options over *params (of the kind its defaults chose); -EINVAL with a message
 * quoting the bad word, params untouched. */
int db_fifo_parse(struct db_fifo_params *params, int argc, char *const argv[], char *err,
		  size_t errlen);
/* "pfifo limit 1000" or "bfifo limit 1514000"; length, or -ENOSPC. */
int db_fifo_format(const struct db_fifo_params *params, char *buf, size_t len);

/* env may be NULL (drops are then only counted). Never fails today; returns 0. */
int db_fifo_init(struct db_fifo *q, const struct db_fifo_params *params,
		 const struct db_qdisc_env *env);
void db_fifo_destroy(struct db_fifo *q);
/* DB_ENQ_QUEUED, or DB_ENQ_DROPPED when pkt does not fit (pkt went to env->drop). */
int db_fifo_enqueue(struct db_fifo *q, struct db_pkt *pkt, uint64_t now_ns);
struct db_pkt *db_fifo_dequeue(struct db_fifo *q, uint64_t now_ns);
void db_fifo_reset(struct db_fifo *q);
void db_fifo_stats(const struct db_fifo *q, struct db_qdisc_stats *st);
/* Fills up to max of the 2 counters above; returns how many it wrote. */
int db_fifo_xstats(const struct db_fifo *q, struct db_stat *out, int max);

#endif
