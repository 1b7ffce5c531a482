/* SPDX-License-Identifier: MIT */
/*
 * fq_codel.h - FQ-CoDel: flow queueing with CoDel per flow (RFC 8290, as Linux's
 * sch_fq_codel behaves).
 *
 * Model: packets are spread over `flows` buckets by
 *
 *     bucket = db_reciprocal_scale(db_hash_perturb(pkt->hash, perturbation), flows)
 *
 * (flow.h; pkt->hash is the caller's 5-tuple hash). Each bucket is a FIFO with its own
 * CoDel state (codel.h) and a byte deficit. Buckets with packets sit on one of two lists:
 *  - a bucket becoming active joins the tail of new_flows with deficit = quantum;
 *  - dequeue serves new_flows first, then old_flows. A head bucket whose deficit is <= 0
 *    gets + quantum and moves to the tail of old_flows; otherwise CoDel dequeues from it
 *    and the packet's length is taken off its deficit (so a bucket keeps the head for
 *    several packets while it has deficit);
 *  - a bucket found empty on new_flows moves to old_flows (when old_flows is not empty,
 *    as Linux: otherwise the move would only be undone), so that a flow that keeps
 *    emptying its queue cannot stay "new" forever and starve the old ones; one found
 *    empty on old_flows becomes inactive, keeping its deficit and CoDel state.
 * Overload: after each enqueue, when more than `limit` packets or more than
 * `memory_limit` bytes are queued, the fattest bucket (most bytes) loses packets from
 * its head until half of its bytes are gone or `drop_batch` packets were dropped. The
 * fattest is found by scanning all buckets' byte counts: see fq_codel.c for why that is
 * fine. The arriving packet itself is dropped only if it is in that batch.
 *
 * Parameters and defaults (spec words in brackets):
 *   [limit PACKETS]       10240   packets over all buckets
 *   [flows N]             1024    buckets, 1..65536
 *   [quantum BYTES]       1514    deficit added per round, 1..1048576
 *   [target TIME]         5ms     CoDel target
 *   [interval TIME]       100ms   CoDel interval
 *   [ecn|noecn]           ecn     mark ECT packets instead of dropping them (as Linux)
 *   [ce_threshold TIME]   0 (off) mark ECT packets whose sojourn exceeds it
 *   [memory_limit BYTES]  32mb    bytes over all buckets (see memory below)
 *   [drop_batch N]        64      most packets one overflow drops, >= 1
 *   [perturb N]           0       hash perturbation (our extension, see below)
 *   [mtu BYTES]           1514    CoDel never drops at <= this backlog (our extension)
 *   [mtu_per_flow]        off     compare the bucket's own backlog with mtu (our extension)
 *   [keep_first_above]    off     first_above_time survives an empty flow (kernels before
 *                                 the March 2026 CoDel fix; codel.h, "Kernel versions")
 *   [wide_inv_sqrt]       off     rec_inv_sqrt in 32 bits instead of Linux's 16 (codel.h)
 *
 * Kernel quirks kept, since the kernel's decisions are the specification (Linux 6.12):
 *  - Overload drops (drop_from_fattest) add their number to the flow's CoDel count
 *    ("tell codel to increase its signal strength"), wrapping as Linux's u32 does. On a
 *    flow whose CoDel never dropped, rec_inv_sqrt is still 0: when its first episode
 *    resumes from that count, the Newton step keeps 0 and the control law adds nothing,
 *    so drop_next stays at the episode's start and CoDel drops at every dequeue while the
 *    sojourn stays above target, until count falls back to 1 in a later episode.
 *
 * Where we deliberately differ from Linux:
 *  - perturbation: Linux draws a random one per qdisc instance. We take it as a
 *    parameter (randomness is passed in, like time), default 0 so that runs are
 *    reproducible; a caller facing untrusted traffic should pass a random value. `perturb`
 *    is not a tc option.
 *  - memory: Linux counts skb->truesize (buffer + metadata, typically 2-4x the length
 *    for small packets) against memory_limit; we count pkt->len, so memory_usage equals
 *    the backlog in bytes and 32 MB holds more small packets here than in the kernel.
 *  - quantum: Linux raises a quantum below 256 to 256; we take it as given (the deficit
 *    test vector uses 90).
 *  - mtu: Linux uses the device's MTU + link header for CoDel's "one MTU" rule; we take
 *    it as a parameter (the emulated link's).
 *  - the bucket of a packet comes only from pkt->hash (no tc filters).
 *  - CoDel's "no drop at <= one MTU" rule: Linux compares the WHOLE discipline's backlog
 *    with the MTU (so a flow can be drained to its last packet while others are queued),
 *    and so do we by default. With `mtu_per_flow` each bucket's own backlog is used
 *    instead, as ns-3's FqCoDel does (each flow is a CoDel queue with MinBytes 1500, the
 *    per-queue reading of RFC 8289): a bucket holding <= one MTU is never dropped from.
 *    The ECN vector of docs/design/emulation.md section 3 (5 x 20 x 120 B, 60 dequeues
 *    110 ms apart: 6 marks per ECT flow, 4 drops per Not-ECT flow, marking stops at
 *    1440 B < 1500 B in the flow) is ns-3's and holds only with mtu_per_flow. With Linux's rule the
 * same script gives 19, 12, 12 marks and 13, 13 drops: buckets are drained below one MTU while the
 * others keep the whole discipline above it.
 *
 * Stats (db_fq_codel_stats and xstats) follow tc -s qdisc show: maxpacket,
 * drop_overlimit, new_flow_count, ecn_mark, ce_mark, new_flows_len, old_flows_len,
 * memory_usage, drop_overmemory; db_fq_codel_flow_stats() shows one bucket (backlog,
 * deficit, head sojourn, CoDel state) for the lab's telemetry.
 *
 * Costs: enqueue and dequeue are O(1) without divisions (the bucket index is a multiply)
 * except the fattest-bucket scan when a limit is hit (O(flows), see fq_codel.c); dequeue
 * may step over buckets that are out of deficit or empty, as in Linux. Memory: 72 bytes
 * per bucket (a 64-byte bucket + its 8-byte backlog), allocated by init.
 * Concurrency: none; one caller at a time per instance.
 */
#ifndef DEBLOAT_FQ_CODEL_H
#define DEBLOAT_FQ_CODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "codel.h"
#include "model.h"
#include "packet.h"
#include "pktq.h"

#define DB_FQ_CODEL_MAX_FLOWS	65536
#define DB_FQ_CODEL_MAX_QUANTUM (1U << 20)

struct db_fq_codel_params {
	uint32_t limit;		      /* packets; 10240 */
	uint32_t flows;		      /* buckets; 1024 */
	uint32_t quantum;	      /* bytes; 1514 */
	uint32_t memory_limit;	      /* bytes of pkt->len; 32 MB */
	uint32_t drop_batch;	      /* packets; 64 */
	uint32_t perturbation;	      /* db_hash_perturb seed; 0 */
	struct db_codel_params codel; /* target 5 ms, interval 100 ms, ecn on, mtu 1514 */
	bool mtu_per_flow;	      /* codel.mtu against the bucket's backlog (ns-3), not all */
};

enum db_fq_codel_list {
	DB_FQ_CODEL_INACTIVE = 0, /* empty and on no list */
	DB_FQ_CODEL_NEW,	  /* on new_flows */
	DB_FQ_CODEL_OLD,	  /* on old_flows */
};

/* One bucket. Keep it at 64 bytes: one cache line per bucket touched per packet. */
struct db_fq_codel_flow {
	struct db_pktq queue;	       /* its packets, oldest first; bytes in backlogs[] */
	struct db_fq_codel_flow *next; /* link on new_flows or old_flows */
	int64_t deficit;	       /* bytes it may still send this round */
	struct db_codel_vars cvars;    /* its CoDel state */
	uint8_t list;		       /* enum db_fq_codel_list */
};

/* A list of buckets; only ever popped at the head and appended at the tail. */
struct db_fq_codel_flow_list {
	struct db_fq_codel_flow *head, *tail;
};

struct db_fq_codel_stats {
	uint64_t drops;		     /* every packet handed to env->drop */
	uint64_t drop_overlimit;     /* dropped by overload (limit or memory_limit) */
	uint64_t drop_overmemory;    /* of those, while memory_limit was exceeded */
	uint64_t new_flow_count;     /* times a bucket became active */
	struct db_codel_stats codel; /* maxpacket, CoDel drops, ecn_mark, ce_mark */
};

struct db_fq_codel {
	struct db_fq_codel_params params;
	struct db_qdisc_env env;
	/* per-packet path */
	struct db_fq_codel_flow *flows; /* params.flows buckets, 64-byte aligned */
	uint64_t *backlogs;		/* bytes per bucket, apart so the overflow scan is dense */
	struct db_fq_codel_flow_list new_flows, old_flows;
	uint64_t backlog_bytes; /* = memory usage: we count pkt->len */
	uint32_t backlog_pkts;
	/* counters */
	struct db_fq_codel_stats stats;
};

/* What db_fq_codel_flow_stats() reports about one bucket at a given time. */
struct db_fq_codel_flow_stats {
	uint64_t backlog_bytes;
	uint32_t backlog_pkts;
	int64_t deficit;     /* bytes */
	uint64_t sojourn_ns; /* age of the head packet at now_ns; 0 when empty */
	enum db_fq_codel_list list;
	bool dropping;	/* CoDel's dropping state */
	uint32_t count; /* CoDel drops this episode */
	uint32_t lastcount;
	int64_t drop_next_ns; /* next CoDel drop relative to now (< 0: overdue) if dropping */
};

void db_fq_codel_defaults(struct db_fq_codel_params *p);
/* Copies params and env (env may be NULL); allocates the buckets. -EINVAL for bad
 * params, -ENOMEM; on failure there is nothing to destroy. */
int db_fq_codel_init(struct db_fq_codel *q, const struct db_fq_codel_params *p,
		     const struct db_qdisc_env *env);
/* Flushes with DB_DROP_RESET and frees the buckets. */
void db_fq_codel_destroy(struct db_fq_codel *q);
/* DB_ENQ_QUEUED, or DB_ENQ_DROPPED when pkt itself went in an overload batch. */
int db_fq_codel_enqueue(struct db_fq_codel *q, struct db_pkt *pkt, uint64_t now_ns);
struct db_pkt *db_fq_codel_dequeue(struct db_fq_codel *q, uint64_t now_ns);
/* Flush every packet with DB_DROP_RESET, empty the lists, restart every bucket's CoDel
 * and deficit. Counters are kept. */
void db_fq_codel_reset(struct db_fq_codel *q);
void db_fq_codel_stats(const struct db_fq_codel *q, struct db_qdisc_stats *st);
/* The bucket a flow hash lands in (to find a flow for db_fq_codel_flow_stats). */
uint32_t db_fq_codel_bucket(const struct db_fq_codel *q, uint32_t hash);
/* One bucket's state at now_ns. -EINVAL (out untouched) if bucket >= params.flows.
 * Walks the bucket's packets to count them: telemetry, not the packet path. */
int db_fq_codel_flow_stats(const struct db_fq_codel *q, uint32_t bucket, uint64_t now_ns,
			   struct db_fq_codel_flow_stats *out);

/*
 * xstats keys: maxpacket_bytes, drop_overlimit, new_flow_count, ecn_mark, ce_mark,
 * new_flows_len, old_flows_len, memory_usage_bytes, drop_overmemory, drop_aqm.
 */
extern const struct db_qdisc_ops db_fq_codel_ops;

#endif
