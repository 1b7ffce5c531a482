/* SPDX-License-Identifier: MIT */
/* qstats.c - qstats.h: TCA_STATS2 and the xstats of fq_codel, fq and cake. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/nl.h"
#include "host/qstats.h"

/* linux/gen_stats.h */
enum {
	STATS_BASIC = 1,
	STATS_QUEUE = 3,
	STATS_APP = 4,
	STATS_PKT64 = 8,
	STATS_MAX = 8,
};

/* linux/pkt_sched.h: TCA_CAKE_STATS_* and TCA_CAKE_TIN_STATS_* */
enum {
	CAKE_STATS_MEMORY_USED = 3,
	CAKE_STATS_TIN_STATS = 9,
	CAKE_STATS_MAX = 15,
	CAKE_TIN_ECN_MARKED_PACKETS = 7,
	CAKE_TIN_SPARSE_FLOWS = 20,
	CAKE_TIN_BULK_FLOWS = 21,
	CAKE_TIN_UNRESPONSIVE_FLOWS = 22,
	CAKE_TIN_MAX = 24,
	CAKE_MAX_TINS = 8, /* diffserv8 */
};

void qstats_clear(struct qdisc *q)
{
	memset(&q->stats, 0, sizeof(q->stats));
	q->xstats = (struct qdisc_xstats){
	    .ecn_marks = -1,
	    .ce_marks = -1,
	    .drop_overlimit = -1,
	    .drop_overmemory = -1,
	    .new_flow_count = -1,
	    .flows = -1,
	    .memory_used_bytes = -1,
	    .throttled = -1,
	    .throttled_flows = -1,
	};
}

static uint32_t get_u32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint64_t get_u64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* A u32 at off when the payload reaches past it, else -1 (an older kernel's struct). */
static int64_t u32_at(const uint8_t *p, size_t len, size_t off)
{
	return off + 4 <= len ? (int64_t)get_u32(p, off) : -1;
}

static int64_t u64_at(const uint8_t *p, size_t len, size_t off)
{
	uint64_t v;

	if (off + 8 > len)
		return -1;
	v = get_u64(p, off);
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* struct tc_fq_codel_xstats: u32 type (0: qdisc), then struct tc_fq_codel_qd_stats. */
static int decode_fq_codel(struct qdisc_xstats *x, const uint8_t *p, size_t len)
{
	int64_t fresh, old;

	if (len < 4)
		return -EBADMSG;
	if (get_u32(p, 0) != 0) /* TCA_FQ_CODEL_XSTATS_CLASS: not a qdisc's */
		return 0;
	p += 4;
	len -= 4;
	x->drop_overlimit = u32_at(p, len, 4);
	x->ecn_marks = u32_at(p, len, 8);
	x->new_flow_count = u32_at(p, len, 12);
	fresh = u32_at(p, len, 16);
	old = u32_at(p, len, 20);
	x->flows = fresh >= 0 && old >= 0 ? fresh + old : -1;
	x->ce_marks = u32_at(p, len, 24);
	x->memory_used_bytes = u32_at(p, len, 28);
	x->drop_overmemory = u32_at(p, len, 32);
	return 0;
}

/* struct tc_fq_qd_stats: seven u64 counters, an s64, four u32, then u64 ce_mark... */
static int decode_fq(struct qdisc_xstats *x, const uint8_t *p, size_t len)
{
	if (len < 72) /* flows and its neighbours have been there since fq began */
		return -EBADMSG;
	x->throttled = u64_at(p, len, 24);
	x->flows = u32_at(p, len, 64);
	x->throttled_flows = u32_at(p, len, 72);
	x->ce_marks = u64_at(p, len, 80);
	return 0;
}

static int add_u32(const struct nlattr *a, int64_t *sum)
{
	uint32_t v;

	if (!a)
		return 0;
	if (nl_attr_u32(a, &v) < 0)
		return -EBADMSG;
	*sum = (*sum < 0 ? 0 : *sum) + v;
	return 0;
}

static int decode_cake(struct qdisc_xstats *x, const uint8_t *p, size_t len)
{
	const struct nlattr *tb[CAKE_STATS_MAX + 1], *tins[CAKE_MAX_TINS + 1];
	uint32_t mem;
	int r;

	r = nl_attrs(p, len, tb, CAKE_STATS_MAX);
	if (r < 0)
		return r;
	if (tb[CAKE_STATS_MEMORY_USED]) {
		if (nl_attr_u32(tb[CAKE_STATS_MEMORY_USED], &mem) < 0)
			return -EBADMSG;
		x->memory_used_bytes = mem;
	}
	if (!tb[CAKE_STATS_TIN_STATS])
		return 0;
	/* The tins are nested attributes numbered 1..n, one per tin. */
	r = nl_nested(tb[CAKE_STATS_TIN_STATS], tins, CAKE_MAX_TINS);
	if (r < 0)
		return r;
	for (unsigned t = 1; t <= CAKE_MAX_TINS; t++) {
		const struct nlattr *ts[CAKE_TIN_MAX + 1];

		if (!tins[t])
			continue;
		r = nl_nested(tins[t], ts, CAKE_TIN_MAX);
		if (r < 0)
			return r;
		if ((r = add_u32(ts[CAKE_TIN_ECN_MARKED_PACKETS], &x->ecn_marks)) < 0 ||
		    (r = add_u32(ts[CAKE_TIN_SPARSE_FLOWS], &x->flows)) < 0 ||
		    (r = add_u32(ts[CAKE_TIN_BULK_FLOWS], &x->flows)) < 0 ||
		    (r = add_u32(ts[CAKE_TIN_UNRESPONSIVE_FLOWS], &x->flows)) < 0)
			return r;
	}
	return 0;
}

static int decode_xstats(const char *kind, struct qdisc_xstats *x, const void *p, size_t len)
{
	if (!strcmp(kind, "fq_codel"))
		return decode_fq_codel(x, p, len);
	if (!strcmp(kind, "fq"))
		return decode_fq(x, p, len);
	if (!strcmp(kind, "cake"))
		return decode_cake(x, p, len);
	return 0;
}

static int decode(struct qdisc *q, const void *stats2, size_t len, const void *xstats, size_t xlen)
{
	const struct nlattr *tb[STATS_MAX + 1];
	const uint8_t *p;
	uint64_t pkt64;
	int r;

	r = nl_attrs(stats2, len, tb, STATS_MAX);
	if (r < 0)
		return r;
	/* struct gnet_stats_basic is 16 bytes with its padding; 12 carry data. */
	if (tb[STATS_BASIC]) {
		p = nl_attr_data(tb[STATS_BASIC], 12);
		if (!p)
			return -EBADMSG;
		q->stats.bytes = get_u64(p, 0);
		q->stats.packets = get_u32(p, 8);
	}
	if (tb[STATS_PKT64]) {
		if (nl_attr_u64(tb[STATS_PKT64], &pkt64) < 0)
			return -EBADMSG;
		q->stats.packets = pkt64;
	}
	if (tb[STATS_QUEUE]) {
		p = nl_attr_data(tb[STATS_QUEUE], 20);
		if (!p)
			return -EBADMSG;
		q->stats.backlog_packets = get_u32(p, 0);
		q->stats.backlog_bytes = get_u32(p, 4);
		q->stats.drops = get_u32(p, 8);
		q->stats.requeues = get_u32(p, 12);
		q->stats.overlimits = get_u32(p, 16);
	}
	if (tb[STATS_APP])
		r = decode_xstats(q->kind, &q->xstats, nl_attr_data(tb[STATS_APP], 0),
				  nl_attr_len(tb[STATS_APP]));
	else if (xstats)
		r = decode_xstats(q->kind, &q->xstats, xstats, xlen);
	if (r < 0)
		return r;
	q->stats.have = tb[STATS_BASIC] || tb[STATS_QUEUE];
	return 0;
}

int qstats_decode(struct qdisc *q, const void *stats2, size_t len, const void *xstats, size_t xlen)
{
	int r;

	qstats_clear(q);
	r = decode(q, stats2, len, xstats, xlen);
	if (r < 0)
		qstats_clear(q);
	return r;
}
