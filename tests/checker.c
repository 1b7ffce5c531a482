/* SPDX-License-Identifier: MIT */
/* checker.c - the discipline invariant checker of checker.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "checker.h"

enum slot_state {
	SLOT_FREE,
	SLOT_OFFERED, /* inside an enqueue call */
	SLOT_QUEUED,
};

/*
 * Small limits so that overflow, fat-flow drops and per-band overflow happen
 * within a few hundred operations; defaults too, for the common case.
 */
const char *const checker_specs[] = {
    "pfifo_fast",
    "pfifo_fast txqueuelen 8",
    "pfifo limit 16",
    "bfifo limit 20000",
    "codel limit 32 target 1ms interval 20ms",
    "codel limit 1000 ecn",
    "fq_codel limit 24 flows 16 quantum 300 target 1ms interval 20ms",
    "fq_codel limit 64 flows 1024 memory_limit 100000 drop_batch 4 ecn ce_threshold 2ms",
    "fq_codel noecn flows 1",
    "fq limit 32 flow_limit 6 quantum 1514 initial_quantum 3028 buckets 16",
    "fq limit 64 flow_limit 10 maxrate 10mbit buckets 64",
    "fq",
    "shaper rate 10mbit child pfifo limit 16",
    "shaper rate 1mbit overhead 24 mpu 64 child fq_codel limit 24 flows 16 target 1ms interval "
    "20ms",
    "shaper rate 100mbit child fq limit 32 flow_limit 6 maxrate 10mbit buckets 16",
};
const size_t checker_nspecs = sizeof(checker_specs) / sizeof(checker_specs[0]);

static int fail(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failure[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->failure, sizeof(c->failure), fmt, ap);
	va_end(ap);
	return -1;
}

static int slot_of(struct checker *c, const struct db_pkt *pkt)
{
	if (pkt < c->pkts || pkt >= c->pkts + CHECKER_POOL)
		return -1;
	return (int)(pkt - c->pkts);
}

static void on_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	struct checker *c = ctx;
	int i = slot_of(c, pkt);

	if (i < 0) {
		fail(c, "drop callback got a packet not from the pool");
		return;
	}
	if (c->state[i] == SLOT_FREE) {
		fail(c, "packet %d reported dropped but was not queued (reason %d)", i, why);
		return;
	}
	if (why < DB_DROP_OVERLIMIT || why > DB_DROP_RESET)
		fail(c, "packet %d dropped with unknown reason %d", i, why);
	if (c->state[i] == SLOT_QUEUED) {
		c->queued_bytes -= pkt->len;
		c->queued_pkts--;
	}
	c->state[i] = SLOT_FREE;
	c->dropped++;
}

static void on_mark(struct db_pkt *pkt, void *ctx)
{
	struct checker *c = ctx;
	int i = slot_of(c, pkt);

	if (i < 0 || c->state[i] == SLOT_FREE) {
		fail(c, "mark callback on a packet that is not queued");
		return;
	}
	if ((c->orig_tos[i] & DB_ECN_MASK) == DB_ECN_NOT_ECT)
		fail(c, "packet %d marked CE but it was Not-ECT", i);
	if ((pkt->tos & DB_ECN_MASK) != DB_ECN_CE)
		fail(c, "packet %d: mark callback before the CE bits were set", i);
	if ((pkt->tos & ~DB_ECN_MASK) != (c->orig_tos[i] & ~DB_ECN_MASK))
		fail(c, "packet %d: marking changed the DSCP bits", i);
	c->marked++;
}

int checker_init(struct checker *c, const char *spec)
{
	struct db_qdisc_env env = {on_drop, on_mark, c};
	int ret;

	memset(c, 0, sizeof(*c));
	ret = db_qdisc_create(spec, &env, &c->q, c->failure, sizeof(c->failure));
	return ret;
}

static int check_stats(struct checker *c, const char *after)
{
	struct db_qdisc_stats st;

	db_qdisc_stats(c->q, &st);
	if (st.backlog_pkts != c->queued_pkts || st.backlog_bytes != c->queued_bytes)
		return fail(c,
			    "after %s: backlog %u pkts %llu bytes, but %u pkts %llu bytes queued",
			    after, st.backlog_pkts, (unsigned long long)st.backlog_bytes,
			    c->queued_pkts, (unsigned long long)c->queued_bytes);
	if (st.drops != c->dropped)
		return fail(c, "after %s: stats say %llu drops, callback saw %llu", after,
			    (unsigned long long)st.drops, (unsigned long long)c->dropped);
	if (c->offered != c->dequeued + c->dropped + c->queued_pkts)
		return fail(c, "after %s: %llu offered != %llu dequeued + %llu dropped + %u queued",
			    after, (unsigned long long)c->offered, (unsigned long long)c->dequeued,
			    (unsigned long long)c->dropped, c->queued_pkts);
	return 0;
}

static int do_enqueue(struct checker *c, const uint8_t op[4])
{
	int i, ret;

	/* Take the first free slot after a position chosen by the input. */
	for (i = 0; i < CHECKER_POOL; i++) {
		int k = (op[3] * 2 + i) % CHECKER_POOL;
		if (c->state[k] == SLOT_FREE) {
			i = k;
			break;
		}
	}
	if (i == CHECKER_POOL)
		return 0; /* pool exhausted: a no-op, the next dequeue frees one */

	struct db_pkt *pkt = &c->pkts[i];
	uint32_t len = ((uint32_t)op[1] << 8 | op[2]);
	if (len == 0)
		len = 60;
	memset(pkt, 0, sizeof(*pkt));
	pkt->data = &c->state[i];
	pkt->len = len;
	pkt->segs = (uint16_t)(len > 1514 ? (len + 1447) / 1448 : 1);
	pkt->hash = 0x9e3779b9U * (uint32_t)(op[3] & 31); /* 32 flows */
	pkt->tos = (uint8_t)((op[3] & 0xe0) | (op[2] & 0x1c) | (op[0] >> 6));
	if (op[0] & 0x20) {
		pkt->flags = DB_PKT_HAS_PRIORITY;
		pkt->priority = op[2] & 0x1f;
	}
	c->orig_tos[i] = pkt->tos;
	c->state[i] = SLOT_OFFERED;
	c->offered++;

	ret = db_qdisc_enqueue(c->q, pkt, c->now_ns);
	if (ret == DB_ENQ_QUEUED) {
		if (c->state[i] != SLOT_OFFERED)
			return fail(c, "enqueue said queued but packet %d was dropped", i);
		c->state[i] = SLOT_QUEUED;
		c->queued_pkts++;
		c->queued_bytes += len;
	} else if (ret == DB_ENQ_DROPPED) {
		if (c->state[i] != SLOT_FREE)
			return fail(c, "enqueue said dropped but packet %d was not reported", i);
	} else {
		return fail(c, "enqueue returned %d", ret);
	}
	return check_stats(c, "enqueue");
}

static int do_dequeue(struct checker *c)
{
	struct db_pkt *pkt = db_qdisc_dequeue(c->q, c->now_ns);
	int i;

	if (!pkt) {
		struct db_qdisc_stats st;
		db_qdisc_stats(c->q, &st);
		if (st.backlog_pkts && db_qdisc_next_ns(c->q, c->now_ns) <= c->now_ns)
			return fail(c,
				    "dequeue returned nothing with %u packets queued and none "
				    "held back",
				    st.backlog_pkts);
		return check_stats(c, "empty dequeue");
	}
	i = slot_of(c, pkt);
	if (i < 0)
		return fail(c, "dequeue returned a packet not from the pool");
	if (c->state[i] != SLOT_QUEUED)
		return fail(c, "dequeue returned packet %d which is not queued", i);
	if (pkt->enqueue_ns > c->now_ns)
		return fail(c, "packet %d stamped in the future", i);
	c->state[i] = SLOT_FREE;
	c->queued_pkts--;
	c->queued_bytes -= pkt->len;
	c->dequeued++;
	return check_stats(c, "dequeue");
}

int checker_step(struct checker *c, const uint8_t op[4])
{
	if (c->failure[0])
		return -1;
	switch (op[0] & 7) {
	case 0:
	case 1:
	case 2:
		return do_enqueue(c, op);
	case 3:
	case 4:
	case 5:
		return do_dequeue(c);
	case 6:
		/* up to 65535 x 10 us: long enough for CoDel intervals and pacing gaps */
		c->now_ns += ((uint64_t)op[1] << 8 | op[2]) * 10000ULL;
		return 0;
	default:
		if (op[1] == 0xff && op[2] == 0xff) {
			db_qdisc_reset(c->q);
			if (c->queued_pkts)
				return fail(c, "reset left %u packets unreported", c->queued_pkts);
			return check_stats(c, "reset");
		}
		return do_dequeue(c);
	}
}

int checker_finish(struct checker *c)
{
	if (!c->q)
		return c->failure[0] ? -1 : 0;
	db_qdisc_destroy(c->q);
	c->q = NULL;
	if (c->failure[0])
		return -1;
	for (int i = 0; i < CHECKER_POOL; i++)
		if (c->state[i] != SLOT_FREE)
			return fail(c, "destroy did not flush packet %d", i);
	if (c->offered != c->dequeued + c->dropped)
		return fail(c, "%llu offered but %llu dequeued + %llu dropped",
			    (unsigned long long)c->offered, (unsigned long long)c->dequeued,
			    (unsigned long long)c->dropped);
	return 0;
}
