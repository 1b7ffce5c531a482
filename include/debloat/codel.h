/* SPDX-License-Identifier: MIT */
/*
 * codel.h - CoDel, the Controlled Delay AQM (RFC 8289), with Linux's arithmetic, and the
 * single-queue `codel` discipline built on it (Linux sch_codel: one FIFO guarded by CoDel).
 *
 * Model: CoDel watches the sojourn time of the packet at the head of a queue, measured at
 * dequeue. While the sojourn stays at or above `target` for a whole `interval` (and the
 * queue holds more than one MTU), CoDel enters the dropping state: it drops (or, with ECN,
 * marks) the head packet and schedules the next drop by the control law
 *
 *     drop_next = t + interval / sqrt(count)
 *
 * where t is the previous drop time (NOT (t + interval) / sqrt(count), a known simulator
 * bug) and count the drops of this episode. It leaves the state as soon as a packet's
 * sojourn is below target or the backlog is at most one MTU. On re-entry it resumes
 * near the previous drop rate (RFC 8289 section 5.5, the Linux variant):
 *
 *     count = (count - lastcount > 1 && now - drop_next < 16 * interval)
 *             ? count - lastcount : 1
 *
 * Arithmetic (deliberately Linux's, so results match a Linux qdisc bit for bit where
 * our inputs are the same):
 *  - Time is `db_codel_time_t`: now_ns >> 10, i.e. units of 1024 ns, in 32 bits. It
 *    wraps every ~73 minutes; it is only ever compared with the wrap-safe helpers below,
 *    so spans must stay under 2^31 units (~36 min). 16 * interval is one such span:
 *    we allow target, interval and ce_threshold up to 60 s.
 *  - 1/sqrt(count) is kept in Q0.32 (`rec_inv_sqrt`, 0xffffffff ~ 1.0) and refreshed by
 *    ONE Newton step, y' = y * (3 - count * y^2) / 2, each time count changes. It is
 *    not exact: from count 1 (y = 1.0) the steps give 0.5, 0.5625, 0.4878, ... instead
 *    of 0.7071, 0.5774, 0.5. Linux's sch_codel and sch_fq_codel do exactly this; CAKE's
 *    COBALT instead caches converged values for count < 16, which would make the first
 *    drops slower. We do NOT cache: the project's reference vector
 *    (docs/design/emulation.md section 3) is Linux's: with one Newton step per count,
 *    20 x 1000 B packets queued at t = 0 (target 5 ms, interval 100 ms) lose 1 packet at
 *    210 ms and 3 more at 420 ms, with drop_next 310 -> 360 -> 416.25 -> 465 ms (exact
 *    sqrt: 2 more, 380.7 -> 438.4 ms).
 *    Linux has stored rec_inv_sqrt in 16 bits (Q0.16) since 3.7, and so do we by default:
 *    each Newton step starts from the stored value shifted up 16 bits and keeps the top
 *    16 bits of its result. Keeping all 32 (`wide_inv_sqrt`) is closer to exact, but
 *    it is not a small difference: with the same drop count, drop_next moves by up to
 *    3.2 ms, and random traces drop or mark other packets than Linux
 *    (tests/test-kernel-diff.sh prints how many traces differ).
 *  - count saturates at 2^32 - 1 instead of wrapping (Linux lets it wrap; unreachable
 *    in practice, but a wrap would make the Newton step overflow).
 *
 * Kernel versions: the kernel's decisions are the specification; this follows Linux
 * 6.12 as Debian's 6.12.118 has it (docs/design/kernel-fidelity.md). An empty queue ends
 * a dropping episode and, since upstream's fix of March 2026 (in 6.12 stable, as RFC
 * 8289's dodequeue has it), also clears first_above_time; older kernels keep it, so a
 * packet arriving after the queue emptied can be dropped at once against a deadline set
 * before: `keep_first_above` emulates them.
 *
 * ECN: with `ecn`, a packet CoDel would drop is marked CE instead if it is ECT(0), ECT(1)
 * or already CE (it is then delivered and counted in ecn_mark); Not-ECT packets are still
 * dropped. `ce_threshold` (Linux fq_codel semantics, 0 = off): independently of the drop
 * state, every delivered ECT packet whose sojourn is above ce_threshold is marked CE and
 * counted in ce_mark (used for DCTCP/L4S-style shallow marking). Marking sets
 * DB_ECN_CE in pkt->tos and then calls the queue's mark_ce callback, only when the bits
 * actually changed.
 *
 * Structure (as Linux): `db_codel_params` is configuration, `db_codel_vars` the state of
 * one guarded queue, `db_codel_stats` counters that several queues may share (fq_codel
 * runs one vars per flow and one stats for all). db_codel_dequeue() is generic over the
 * queue it guards: it pulls packets through a callback and reports drops through
 * another, so the same code serves sch_codel's FIFO and each fq_codel flow. It is the
 * per-packet fast path, so it is static inline here: with the callbacks known at the
 * call site, the compiler inlines the pull and makes the drop and mark calls direct.
 *
 * Units: nanoseconds and bytes in every public struct except db_codel_vars, which holds
 * db_codel_time_t values. Concurrency: none; one caller at a time per vars/stats.
 */
#ifndef DEBLOAT_CODEL_H
#define DEBLOAT_CODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "packet.h"
#include "pktq.h"

/* ---- the algorithm ---------------------------------------------------------------------- */

#define DB_CODEL_SHIFT	     10			     /* db_codel_time_t = ns >> 10 */
#define DB_CODEL_TIME_MAX_NS (60ULL * 1000000000ULL) /* bound for target/interval/ce_threshold */

typedef uint32_t db_codel_time_t;

struct db_codel_params {
	uint64_t target_ns;	  /* acceptable standing sojourn; 5 ms */
	uint64_t interval_ns;	  /* sliding window, ~ a worst-case RTT; 100 ms */
	uint64_t ce_threshold_ns; /* mark ECT packets whose sojourn exceeds this; 0 = off */
	uint32_t mtu;		  /* never drop while the backlog is <= this many bytes; 1514 */
	bool ecn;		  /* mark ECT packets instead of dropping them */
	bool keep_first_above;	  /* older kernels: first_above_time survives an empty
				     queue (see "Kernel versions" above) */
	bool wide_inv_sqrt;	  /* keep rec_inv_sqrt in 32 bits, not Linux's 16 */
};

/* Per-queue state; all zero is the valid initial state. Keep it at 28 bytes. */
struct db_codel_vars {
	uint32_t count;			  /* drops (or marks) in this dropping episode */
	uint32_t lastcount;		  /* count when the last episode began */
	uint32_t rec_inv_sqrt;		  /* 1/sqrt(count): Q0.16 as Linux keeps it, or Q0.32
					     with wide_inv_sqrt; one Newton step per change */
	db_codel_time_t first_above_time; /* when sojourn may be declared persistent; 0 = below */
	db_codel_time_t drop_next;	  /* when to drop next while dropping */
	db_codel_time_t ldelay;		  /* sojourn of the last packet examined */
	bool dropping;			  /* in the dropping state */
};

/* Counters, shareable by several queues. Only grow, except maxpacket which tracks a max. */
struct db_codel_stats {
	uint32_t maxpacket;  /* largest packet seen at dequeue, bytes */
	uint64_t drop_count; /* packets CoDel dropped */
	uint64_t drop_len;   /* bytes CoDel dropped */
	uint64_t ecn_mark;   /* packets marked CE instead of dropped */
	uint64_t ce_mark;    /* packets marked CE by ce_threshold */
};

/*
 * The queue CoDel guards. dequeue() takes the head packet off the queue and lowers the
 * backlog that db_codel_dequeue() reads through its `backlog` pointer, or returns NULL
 * when the queue is empty. drop() receives a packet CoDel dropped (already dequeued).
 * mark_ce() (may be NULL) is told that pkt->tos just got CE.
 */
struct db_codel_queue {
	struct db_pkt *(*dequeue)(void *ctx);
	void (*drop)(struct db_pkt *pkt, void *ctx);
	void (*mark_ce)(struct db_pkt *pkt, void *ctx);
	void *ctx;
};

/* target 5 ms, interval 100 ms, mtu 1514, ecn off, ce_threshold off. */
void db_codel_defaults(struct db_codel_params *p);
/* -EINVAL unless target, interval and ce_threshold are within 0..60 s and interval > 0. */
int db_codel_params_check(const struct db_codel_params *p);
void db_codel_vars_init(struct db_codel_vars *v);

static inline db_codel_time_t db_codel_time(uint64_t ns)
{
	return (db_codel_time_t)(ns >> DB_CODEL_SHIFT);
}

static inline uint64_t db_codel_time_to_ns(db_codel_time_t t)
{
	return (uint64_t)t << DB_CODEL_SHIFT;
}

/* a after b, modulo 2^32: the difference is in (0, 2^31). Portable, no signed casts. */
static inline bool db_codel_time_after(db_codel_time_t a, db_codel_time_t b)
{
	return (uint32_t)(a - b - 1U) < 0x7fffffffU;
}

static inline bool db_codel_time_after_eq(db_codel_time_t a, db_codel_time_t b)
{
	return (uint32_t)(a - b) < 0x80000000U;
}

static inline bool db_codel_time_before(db_codel_time_t a, db_codel_time_t b)
{
	return db_codel_time_after(b, a);
}

/*
 * One Newton step of y = 1/sqrt(count) in Q0.32: y' = y * (3 - count * y^2) / 2.
 * (3 - count * y^2) is at most 3 (Q2.32 fits in 64 bits); it is shifted right by 2 so
 * that the product with y fits too, and the final shift puts the 1/2 and the 2 back.
 */
static inline uint32_t db_codel_newton(uint32_t count, uint32_t rec_inv_sqrt)
{
	uint64_t y = rec_inv_sqrt;
	uint64_t y2 = (y * y) >> 32;
	uint64_t val = (3ULL << 32) - (uint64_t)count * y2;

	val >>= 2;
	val = (val * y) >> (32 - 2 + 1);
	return (uint32_t)val;
}

/* The Newton step on a Q0.32 rec_inv_sqrt (wide_inv_sqrt). */
static inline void db_codel_newton_step(struct db_codel_vars *v)
{
	v->rec_inv_sqrt = db_codel_newton(v->count, v->rec_inv_sqrt);
}

#define DB_CODEL_INV_SQRT_SHIFT 16 /* Linux keeps the top 16 bits of the Q0.32 value */

/* 1/sqrt(count) in Q0.32, however v keeps it. */
static inline uint32_t db_codel_inv_sqrt(const struct db_codel_params *p,
					 const struct db_codel_vars *v)
{
	return p->wide_inv_sqrt ? v->rec_inv_sqrt : v->rec_inv_sqrt << DB_CODEL_INV_SQRT_SHIFT;
}

/* After count changed: one Newton step, kept at the width p asks for. */
static inline void db_codel_update_inv_sqrt(const struct db_codel_params *p,
					    struct db_codel_vars *v)
{
	uint32_t y = db_codel_newton(v->count, db_codel_inv_sqrt(p, v));

	v->rec_inv_sqrt = p->wide_inv_sqrt ? y : y >> DB_CODEL_INV_SQRT_SHIFT;
}

/* count is 1 again: 1/sqrt(1) ~ 1.0 at the width p asks for. */
static inline void db_codel_inv_sqrt_one(const struct db_codel_params *p, struct db_codel_vars *v)
{
	v->rec_inv_sqrt = p->wide_inv_sqrt ? UINT32_MAX : UINT32_MAX >> DB_CODEL_INV_SQRT_SHIFT;
}

/* drop_next = t + interval / sqrt(count): interval scaled by y, added to t (not divided). */
static inline db_codel_time_t db_codel_control_law(db_codel_time_t t, db_codel_time_t interval,
						   uint32_t rec_inv_sqrt)
{
	return t + (db_codel_time_t)(((uint64_t)interval * rec_inv_sqrt) >> 32);
}

/* Set CE on an ECT packet. False (and nothing done) for Not-ECT; true if already CE. */
static inline bool db_codel_set_ce(struct db_pkt *pkt, const struct db_codel_queue *queue)
{
	if (!db_pkt_is_ect(pkt))
		return false;
	if ((pkt->tos & DB_ECN_MASK) != DB_ECN_CE) {
		pkt->tos |= DB_ECN_CE;
		if (queue->mark_ce)
			queue->mark_ce(pkt, queue->ctx);
	}
	return true;
}

/*
 * Is pkt (just dequeued, backlog already lowered) a candidate for dropping? Only once the
 * sojourn has stayed at or above target for a full interval, and never at <= one MTU.
 */
static inline bool db_codel_should_drop(const struct db_pkt *pkt, const struct db_codel_params *p,
					struct db_codel_vars *v, struct db_codel_stats *st,
					uint64_t backlog, db_codel_time_t now)
{
	if (!pkt) {
		v->first_above_time = 0;
		return false;
	}
	v->ldelay = now - db_codel_time(pkt->enqueue_ns);
	if (pkt->len > st->maxpacket)
		st->maxpacket = pkt->len;
	if (db_codel_time_before(v->ldelay, db_codel_time(p->target_ns)) || backlog <= p->mtu) {
		v->first_above_time = 0;
		return false;
	}
	if (v->first_above_time == 0) {
		/* 0 means "below"; a deadline that wraps to 0 is taken one unit later */
		v->first_above_time = now + db_codel_time(p->interval_ns);
		if (v->first_above_time == 0)
			v->first_above_time = 1;
		return false;
	}
	return db_codel_time_after(now, v->first_above_time);
}

static inline void db_codel_drop(struct db_pkt *pkt, struct db_codel_stats *st,
				 const struct db_codel_queue *queue)
{
	st->drop_len += pkt->len;
	st->drop_count++;
	queue->drop(pkt, queue->ctx);
}

/*
 * Dequeue through CoDel: the packet to send, or NULL when the queue is (or became)
 * empty. Packets it drops on the way have gone to queue->drop. `backlog` points at the
 * bytes still queued: the guarded queue's, or the whole discipline's (fq_codel's default).
 */
static inline struct db_pkt *db_codel_dequeue(const struct db_codel_params *p,
					      struct db_codel_vars *v, struct db_codel_stats *st,
					      const uint64_t *backlog, uint64_t now_ns,
					      const struct db_codel_queue *queue)
{
	db_codel_time_t now = db_codel_time(now_ns);
	db_codel_time_t interval = db_codel_time(p->interval_ns);
	struct db_pkt *pkt = queue->dequeue(queue->ctx);
	bool drop;

	if (!pkt) {
		/* An empty queue ends the episode; since 6.12.77 it also forgets the sojourn. */
		if (!p->keep_first_above)
			v->first_above_time = 0;
		v->dropping = false;
		return NULL;
	}
	drop = db_codel_should_drop(pkt, p, v, st, *backlog, now);
	if (v->dropping) {
		if (!drop) {
			v->dropping = false;
		} else {
			/* A long backlog can call for several drops at once, hence the loop. */
			while (v->dropping && db_codel_time_after_eq(now, v->drop_next)) {
				if (v->count != UINT32_MAX)
					v->count++;
				db_codel_update_inv_sqrt(p, v);
				if (p->ecn && db_codel_set_ce(pkt, queue)) {
					st->ecn_mark++;
					v->drop_next = db_codel_control_law(
					    v->drop_next, interval, db_codel_inv_sqrt(p, v));
					break;
				}
				db_codel_drop(pkt, st, queue);
				pkt = queue->dequeue(queue->ctx);
				if (!db_codel_should_drop(pkt, p, v, st, *backlog, now))
					v->dropping = false;
				else
					v->drop_next = db_codel_control_law(
					    v->drop_next, interval, db_codel_inv_sqrt(p, v));
			}
		}
	} else if (drop) {
		uint32_t delta;

		if (p->ecn && db_codel_set_ce(pkt, queue)) {
			st->ecn_mark++;
		} else {
			db_codel_drop(pkt, st, queue);
			pkt = queue->dequeue(queue->ctx);
			/* only to refresh first_above_time / ldelay for the new head */
			db_codel_should_drop(pkt, p, v, st, *backlog, now);
		}
		v->dropping = true;
		/* Came back soon after the last episode: its drop rate is a good start. */
		delta = v->count - v->lastcount;
		if (delta > 1 && db_codel_time_before(now - v->drop_next, 16 * interval)) {
			v->count = delta;
			db_codel_update_inv_sqrt(p, v);
		} else {
			v->count = 1;
			db_codel_inv_sqrt_one(p, v);
		}
		v->lastcount = v->count;
		v->drop_next = db_codel_control_law(now, interval, db_codel_inv_sqrt(p, v));
	}
	if (pkt && p->ce_threshold_ns &&
	    db_codel_time_after(v->ldelay, db_codel_time(p->ce_threshold_ns)) &&
	    db_codel_set_ce(pkt, queue))
		st->ce_mark++;
	return pkt;
}

/* ---- the `codel` discipline: one FIFO + CoDel (Linux sch_codel) ------------------------- */

/*
 * Spec: codel [limit PACKETS] [target TIME] [interval TIME] [ecn|noecn]
 *             [ce_threshold TIME] [mtu BYTES] [keep_first_above] [wide_inv_sqrt]
 * Defaults as sch_codel: limit 1000 packets, target 5 ms, interval 100 ms, noecn,
 * ce_threshold off (0), mtu 1514 (Linux takes the device's MTU + link header; `mtu` is
 * our option for it). A packet arriving at `limit` is dropped (DB_DROP_OVERLIMIT,
 * counted in drop_overlimit); CoDel drops are DB_DROP_AQM.
 * keep_first_above and wide_inv_sqrt: see "Kernel versions" and "Arithmetic" above.
 */
struct db_codel_qdisc_params {
	uint32_t limit; /* packets; 1000 */
	struct db_codel_params codel;
};

struct db_codel_qdisc {
	struct db_codel_qdisc_params params;
	struct db_qdisc_env env;
	/* the FIFO, touched by enqueue and dequeue */
	struct db_pktq queue;
	uint64_t backlog_bytes;
	uint32_t backlog_pkts;
	/* CoDel */
	struct db_codel_vars vars;
	struct db_codel_stats cstats;
	/* counters */
	uint64_t drops;		 /* every packet handed to env->drop */
	uint64_t drop_overlimit; /* refused at limit */
};

void db_codel_qdisc_defaults(struct db_codel_qdisc_params *p);
/* Copies params and env (env may be NULL). -EINVAL for bad params; nothing to destroy then. */
int db_codel_qdisc_init(struct db_codel_qdisc *q, const struct db_codel_qdisc_params *p,
			const struct db_qdisc_env *env);
/* Flushes with DB_DROP_RESET. Allocates nothing, so this is db_codel_qdisc_reset(). */
void db_codel_qdisc_destroy(struct db_codel_qdisc *q);
int db_codel_qdisc_enqueue(struct db_codel_qdisc *q, struct db_pkt *pkt, uint64_t now_ns);
struct db_pkt *db_codel_qdisc_dequeue(struct db_codel_qdisc *q, uint64_t now_ns);
/* Flush every packet with DB_DROP_RESET and restart CoDel; counters are kept. */
void db_codel_qdisc_reset(struct db_codel_qdisc *q);
void db_codel_qdisc_stats(const struct db_codel_qdisc *q, struct db_qdisc_stats *st);

/*
 * xstats keys: maxpacket_bytes, count, lastcount, ldelay_ns, dropping, drop_overlimit,
 * ecn_mark, ce_mark, drop_aqm (as tc -s qdisc show for codel, plus CoDel's own drops).
 */
extern const struct db_qdisc_ops db_codel_ops;

#endif
