/* SPDX-License-Identifier: MIT */
/*
 * model.h - one interface over every libdebloat queueing discipline.
 *
 * Model: a discipline is an ops table (like a Linux Qdisc_ops) plus private state.
 * It can be made from a tc-style spec string,
 *
 *     db_qdisc_create("fq_codel limit 800 quantum 300 target 5ms ecn", &env, &q, err, n)
 *
 * or driven through its own header (dql.h, codel.h, fq_codel.h, fq.h,
 * pfifo_fast.h, fifo.h) when the caller wants the native structs.
 *
 * Contract, the same for every discipline:
 *  - Time is passed in (`now_ns`, CLOCK_MONOTONIC-like nanoseconds, never
 *    decreasing across calls); the library never reads a clock.
 *  - Packets live in caller storage (packet.h); enqueue and dequeue never allocate.
 *    Only create/init allocates (flow tables), and destroy frees.
 *  - Every packet offered to enqueue leaves exactly once: returned by dequeue, or
 *    handed to env->drop (with a reason), never both, never twice. This holds for
 *    the offered packet itself when it is refused, for packets a discipline drops
 *    from its queues (AQM, fat-flow, flow limit), and for everything flushed by
 *    reset or destroy.
 *  - ECN: a discipline that marks instead of dropping sets the CE bits in pkt->tos
 *    and then calls env->mark_ce so the caller can rewrite the real header (and
 *    fix its checksum). Only ECT packets are ever marked.
 *  - Not thread-safe: one caller at a time per discipline instance.
 *  - Errors are negative errno values; nothing is printed. Parsers also fill a
 *    caller buffer with a message that quotes the bad input.
 */
#ifndef DEBLOAT_MODEL_H
#define DEBLOAT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "packet.h"

enum db_drop_reason {
	DB_DROP_OVERLIMIT = 1, /* the queue (or the whole discipline) was full */
	DB_DROP_AQM,	       /* CoDel decided to drop */
	DB_DROP_FLOW_LIMIT,    /* fq: the packet's flow was at flow_limit */
	DB_DROP_MEMORY,	       /* fq_codel: memory_limit */
	DB_DROP_RESET,	       /* flushed by reset or destroy */
};

struct db_qdisc_env {
	/* Called once for every packet the discipline gives up. May be NULL. */
	void (*drop)(struct db_pkt *pkt, enum db_drop_reason why, void *ctx);
	/* Called after pkt->tos got CE: rewrite the real packet. May be NULL. */
	void (*mark_ce)(struct db_pkt *pkt, void *ctx);
	void *ctx;
};

/* Counters every discipline keeps. Packet and byte counters only grow. */
struct db_qdisc_stats {
	uint64_t backlog_bytes; /* bytes queued now */
	uint32_t backlog_pkts;	/* packets queued now */
	uint64_t drops;		/* packets handed to env->drop, any reason */
	uint64_t overlimits;	/* of which because a limit was hit */
	uint64_t ecn_marks;	/* packets marked CE instead of dropped */
};

/* One named kind-specific counter or gauge (xstats), in raw units. */
struct db_stat {
	const char *name; /* stable key, e.g. "new_flow_count", "maxpacket_bytes" */
	uint64_t value;
};

struct db_qdisc_ops {
	const char *kind;  /* tc name: "fq_codel", "pfifo_fast", ... */
	const char *usage; /* option synopsis, e.g. "[limit PACKETS] [target TIME] ..." */
	size_t params_size;
	size_t priv_size;
	void (*defaults)(void *params);
	/* Parse tc-style options over defaults(); -EINVAL with a message in err. */
	int (*parse)(void *params, int argc, char *const argv[], char *err, size_t errlen);
	/* Write the full spec ("kind opt val ...") that parse reads back to equal params. */
	int (*format)(const void *params, char *buf, size_t len);
	int (*init)(void *priv, const void *params, const struct db_qdisc_env *env);
	void (*destroy)(void *priv); /* flushes with DB_DROP_RESET, frees what init took */
	/* 0: queued. 1: this packet was dropped (and reported). Others may be dropped too. */
	int (*enqueue)(void *priv, struct db_pkt *pkt, uint64_t now_ns);
	struct db_pkt *(*dequeue)(void *priv, uint64_t now_ns);
	void (*reset)(void *priv); /* flush everything with DB_DROP_RESET, keep params */
	void (*stats)(const void *priv, struct db_qdisc_stats *st);
	int (*xstats)(const void *priv, struct db_stat *out, int max); /* returns count */
	/* When a packet is queued but held back (pacing): earliest time dequeue can
	 * return one; 0 when nothing is held back. NULL: the discipline never holds back. */
	uint64_t (*next_ns)(const void *priv, uint64_t now_ns);
};

#define DB_ENQ_QUEUED  0
#define DB_ENQ_DROPPED 1

struct db_qdisc {
	const struct db_qdisc_ops *ops;
	void *params; /* parsed parameters, ops->params_size bytes */
	void *priv;   /* discipline state, ops->priv_size bytes */
};

/* All known kinds, NULL-terminated, in a stable order. */
extern const struct db_qdisc_ops *const db_qdisc_kinds[];

const struct db_qdisc_ops *db_qdisc_find(const char *kind);

/*
 * Make a discipline from a spec: words separated by blanks, the first the kind.
 * On failure returns -EINVAL (bad spec; message in err), -ENOENT (unknown kind),
 * -ENOMEM; *out is left untouched.
 */
int db_qdisc_create(const char *spec, const struct db_qdisc_env *env, struct db_qdisc **out,
		    char *err, size_t errlen);
void db_qdisc_destroy(struct db_qdisc *q);

/* The spec of q with every parameter spelled out. Returns length or -ENOSPC. */
int db_qdisc_format(const struct db_qdisc *q, char *buf, size_t len);

static inline int db_qdisc_enqueue(struct db_qdisc *q, struct db_pkt *pkt, uint64_t now_ns)
{
	return q->ops->enqueue(q->priv, pkt, now_ns);
}

static inline struct db_pkt *db_qdisc_dequeue(struct db_qdisc *q, uint64_t now_ns)
{
	return q->ops->dequeue(q->priv, now_ns);
}

static inline void db_qdisc_reset(struct db_qdisc *q)
{
	q->ops->reset(q->priv);
}

static inline void db_qdisc_stats(const struct db_qdisc *q, struct db_qdisc_stats *st)
{
	q->ops->stats(q->priv, st);
}

static inline int db_qdisc_xstats(const struct db_qdisc *q, struct db_stat *out, int max)
{
	return q->ops->xstats ? q->ops->xstats(q->priv, out, max) : 0;
}

static inline uint64_t db_qdisc_next_ns(const struct db_qdisc *q, uint64_t now_ns)
{
	return q->ops->next_ns ? q->ops->next_ns(q->priv, now_ns) : 0;
}

#endif
