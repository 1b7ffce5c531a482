/* SPDX-License-Identifier: MIT */
/*
 * fq.h - fair queueing with per-flow pacing (Linux sch_fq, "tc qdisc ... fq").
 *
 * Model: packets are sorted into flows and the flows are served by deficit round
 * robin (DRR) over two lists, new_flows before old_flows, as in Linux sch_fq:
 *  - A flow's first packet gives it initial_quantum bytes of credit and puts it at
 *    the tail of new_flows.
 *  - Dequeue looks at the head flow of new_flows (or of old_flows when new_flows
 *    is empty). A flow whose credit is <= 0 gets +quantum and goes to the tail of
 *    old_flows; otherwise it sends its head packet and pays len bytes of credit.
 *  - A flow found empty on new_flows moves to old_flows (so a flow cannot stay
 *    "new" by sending one packet at a time); one found empty on old_flows is
 *    detached (on no list) and keeps its credit.
 *  - A detached flow that gets a packet joins new_flows again. If it was detached
 *    for more than refill_delay_ns (40 ms) its credit becomes at least quantum. If
 *    it was detached for more than DB_FQ_GC_AGE_NS (3 s) it starts over as a new
 *    flow: initial_quantum credit, no pacing history, counted in gc_flows.
 *
 * Flow identity: Linux keys flows by socket and falls back to the packet hash for
 * packets without one; packets from a tun device never have one, so every flow
 * here is a hash bucket: bucket = db_reciprocal_scale(db_hash_perturb(pkt->hash,
 * perturb), buckets) (flow.h). Flows that share a bucket share a queue, its
 * credit and its pacing. `perturb` is the caller's random seed; the library makes
 * no randomness of its own.
 *
 * Pacing: with maxrate > 0 every flow is limited to maxrate bytes per second.
 * After a flow sends a packet of len bytes at now_ns it may send again at
 * time_next_packet = now_ns + len * 1e9 / maxrate (the delay is capped at 1 s,
 * counted in pkts_too_long). A flow at the head of a list whose time has not come
 * is moved to a "throttled" set ordered by that time and comes back at the tail of
 * old_flows once now_ns reaches it. dequeue returns NULL while every queued packet
 * is held back; next_ns then says when to call it again.
 *
 * High priority: a packet with DB_PKT_HAS_PRIORITY and priority 7 (TC_PRIO_CONTROL,
 * low 4 bits) goes to one internal FIFO that is served before every flow, is never
 * paced and has no flow_limit (counted in highprio_packets).
 *
 * Limits: a packet arriving when `limit` packets are queued is dropped
 * (DB_DROP_OVERLIMIT); one whose flow already holds flow_limit packets is dropped
 * (DB_DROP_FLOW_LIMIT, counted in flows_plimit). Both count in overlimits. Only
 * the arriving packet is ever dropped.
 *
 * Units: bytes, packets, nanoseconds, rates in bytes per second. A GSO
 * super-packet counts as one packet and pkt->len bytes, for limits, credit and
 * pacing alike.
 *
 * Where we differ from Linux (6.x), on purpose:
 *  - Flows are the buckets of a fixed table allocated at init, not per-socket
 *    flows allocated on demand, so the per-packet path never allocates. So
 *    "flows" counts the buckets that have held a flow since init or reset, and
 *    the 3 s rule is applied when a bucket's next packet comes; Linux frees an
 *    idle flow only when a lookup of another flow in its tree walks past it (so
 *    its count lags too) and never on the flow's own lookup.
 *  - Pacing is per packet at maxrate. Linux paces by socket rate too and, above
 *    low_rate_threshold (550 kbit/s), in steps of one quantum; it also shortens the
 *    next gap by the lateness of the current dequeue (up to half). We have no
 *    sockets, and a dequeue that comes late simply sends late.
 *  - A flow's idle time runs from the dequeue that found it empty on old_flows,
 *    and dequeue does that walk even when nothing is queued; Linux 6.x returns
 *    at once from an empty qdisc, so the last flow to run it dry stays listed
 *    (and unrefilled) until traffic comes back.
 *  - No 3-band weighted priority (Linux 6.7+); the pre-6.7 internal high-priority
 *    queue instead. No EDT timestamps, horizon, ce_threshold, orphan_mask or
 *    low_rate_threshold.
 *  - No fastpath queue (Linux 6.7+): there, a packet of a flow with nothing queued and
 *    no pacing delay, arriving at an otherwise idle qdisc, goes to a short internal
 *    queue served before the flows, skipping their round robin. Here every packet
 *    goes through its flow. Not measured against the kernel.
 *
 * Concurrency: none inside. One caller at a time per instance (model.h).
 */
#ifndef DEBLOAT_FQ_H
#define DEBLOAT_FQ_H

#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "model.h"
#include "packet.h"
#include "pktq.h"

#define DB_FQ_MTU		  1514
#define DB_FQ_MAX_BUCKETS	  262144U	/* Linux: fq_trees_log <= 18 */
#define DB_FQ_MAX_QUANTUM	  (1U << 20)	/* Linux refuses a larger quantum */
#define DB_FQ_GC_AGE_NS		  3000000000ULL /* Linux FQ_GC_AGE: 3 s */
#define DB_FQ_MAX_PACING_DELAY_NS 1000000000ULL /* Linux caps one gap at 1 s */
#define DB_FQ_PRIO_CONTROL	  7		/* TC_PRIO_CONTROL */

struct db_fq_params {
	uint32_t limit;		  /* packets in the whole discipline (10000) */
	uint32_t flow_limit;	  /* packets per flow (100) */
	uint32_t quantum;	  /* bytes of credit per round (2 * MTU = 3028) */
	uint32_t initial_quantum; /* bytes of credit of a new flow (10 * MTU = 15140) */
	uint64_t maxrate;	  /* bytes/s per flow; 0 = no pacing (0) */
	uint32_t buckets;	  /* flow table size, a power of two (1024) */
	uint32_t perturb;	  /* hash seed, random per instance (0) */
	uint64_t refill_delay_ns; /* idle time after which credit >= quantum (40 ms) */
};

/* Where a flow is. */
enum db_fq_flow_state {
	DB_FQ_UNUSED = 0, /* no flow in this bucket (never used, reset, or idle > gc age) */
	DB_FQ_DETACHED,	  /* empty, on no list */
	DB_FQ_NEW,	  /* on new_flows */
	DB_FQ_OLD,	  /* on old_flows */
	DB_FQ_THROTTLED,  /* waiting for time_next_packet, in the throttled heap */
};

/* One bucket. Keep this struct <= 64 bytes: 1024 of them are one L2-resident table. */
struct db_fq_flow {
	struct db_pktq queue;	   /* this flow's packets, oldest first; counted in qlen */
	struct db_fq_flow *next;   /* link on new_flows / old_flows */
	int64_t credit;		   /* bytes it may send this round; may go negative */
	uint64_t time_next_packet; /* pacing: earliest next send, ns (0: none yet) */
	uint64_t detached_ns;	   /* when it was last detached */
	uint32_t qlen;		   /* packets queued */
	uint8_t state;		   /* enum db_fq_flow_state */
};

struct db_fq_list {
	struct db_fq_flow *first, *last;
};

/* A throttled flow, keyed by (time, seq) so equal times leave in arrival order. */
struct db_fq_delayed {
	uint64_t time_ns;
	uint64_t seq;
	uint32_t flow; /* bucket index */
};

/* Counters; they only grow (reset keeps them). */
struct db_fq_stats {
	uint64_t drops;			/* packets handed to env->drop, any reason */
	uint64_t overlimits;		/* drops by limit or flow_limit */
	uint64_t flows_plimit;		/* drops by flow_limit */
	uint64_t gc_flows;		/* flows ended by the gc age, then reused */
	uint64_t highprio_packets;	/* packets through the internal queue */
	uint64_t throttled;		/* times a flow was held back by pacing */
	uint64_t pkts_too_long;		/* pacing gaps capped at 1 s */
	uint64_t unthrottle_latency_ns; /* EWMA (1/8) of how late flows were released */
};

struct db_fq {
	/* Enqueue and dequeue. */
	struct db_fq_flow *flows;    /* [params.buckets] */
	struct db_fq_list new_flows; /* served first */
	struct db_fq_list old_flows;
	struct db_pktq prio;	 /* internal high-priority FIFO */
	uint32_t qlen;		 /* packets queued, all flows and the internal FIFO */
	uint64_t backlog;	 /* bytes queued */
	uint32_t flow_count;	 /* buckets holding a flow (state != UNUSED) */
	uint32_t inactive_flows; /* of which holding no packet */

	/* Pacing: a binary min-heap of throttled flows. */
	struct db_fq_delayed *delayed; /* [params.buckets]: a flow is in it at most once */
	uint32_t ndelayed;
	uint64_t delayed_seq;

	struct db_fq_stats stats;
	struct db_fq_params params;
	struct db_qdisc_env env;
};

/* Linux's defaults (the comments of struct db_fq_params). */
void db_fq_defaults(struct db_fq_params *p);

/*
 * Read tc-style options over *p: `[limit PACKETS] [flow_limit PACKETS] [quantum
 * BYTES] [initial_quantum BYTES] [maxrate RATE] [buckets N] [refill_delay TIME]
 * [perturb N]`. -EINVAL with a message quoting the bad word in err (buckets that
 * are not a power of two included); *p is untouched on failure.
 */
int db_fq_parse(struct db_fq_params *p, int argc, char *const argv[], char *err, size_t errlen);
/* "fq limit 10000 ..." with every option; length, or -ENOSPC. */
int db_fq_format(const struct db_fq_params *p, char *buf, size_t len);
/* 0, or -EINVAL if a value is out of range or buckets is not a power of two. */
int db_fq_check(const struct db_fq_params *p);

/* 0, -EINVAL (db_fq_check), -ENOMEM. env may be NULL (drops are then silent). */
int db_fq_init(struct db_fq *q, const struct db_fq_params *p, const struct db_qdisc_env *env);
/* Flush (DB_DROP_RESET) and free the tables. q may then be init'ed again. */
void db_fq_destroy(struct db_fq *q);
/* Flush everything with DB_DROP_RESET and forget all flows; keeps params and stats. */
void db_fq_reset(struct db_fq *q);

/* DB_ENQ_QUEUED, or DB_ENQ_DROPPED (pkt went to env->drop). */
int db_fq_enqueue(struct db_fq *q, struct db_pkt *pkt, uint64_t now_ns);
/* The next packet by DRR, or NULL when empty or every queued packet is paced. */
struct db_pkt *db_fq_dequeue(struct db_fq *q, uint64_t now_ns);
/*
 * Earliest time a throttled flow may send again, 0 when no flow is throttled.
 * Flows are found throttled by dequeue, so ask after a dequeue returned NULL:
 * then the answer is exact.
 */
uint64_t db_fq_next_ns(const struct db_fq *q, uint64_t now_ns);

void db_fq_stats(const struct db_fq *q, struct db_qdisc_stats *st);
/*
 * Up to max of, in this order (tc -s names): flows (buckets holding a flow),
 * inactive_flows (of which with no packet queued), throttled_flows (held back
 * now), gc_flows, highprio_packets, throttled (times a flow was held back),
 * flows_plimit, pkts_too_long, unthrottle_latency_ns, time_next_delayed_flow_ns
 * (absolute; 0 = none). Returns the number written.
 */
int db_fq_xstats(const struct db_fq *q, struct db_stat *out, int max);

/* The bucket a flow hash lands in. */
static inline uint32_t db_fq_bucket(const struct db_fq *q, uint32_t hash)
{
	return db_reciprocal_scale(db_hash_perturb(hash, q->params.perturb), q->params.buckets);
}

extern const struct db_qdisc_ops db_fq_ops;

#endif
