/* SPDX-License-Identifier: MIT */
/* qdisc.c - qdisc.h: RTM_NEWQDISC decoding, one small decoder per kind, tree building. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "array.h"
#include "host/qdisc.h"
#include "host/qstats.h"

static void add_option(struct qdisc *q, struct value v)
{
	/* 16 slots hold every option of every kind we decode; extras are dropped. */
	if (q->noptions < QDISC_MAX_OPTIONS)
		q->options[q->noptions++] = v;
}

/* pfifo, bfifo: TCA_OPTIONS is a bare struct tc_fifo_qopt, not nested attributes. */
static int decode_fifo(struct qdisc *q, const void *opts, size_t len, const char *key,
		       enum unit unit)
{
	struct tc_fifo_qopt fifo;

	if (len < sizeof(fifo))
		return -EBADMSG;
	memcpy(&fifo, opts, sizeof(fifo));
	add_option(q, value_uint(key, fifo.limit, unit));
	return 0;
}

static int decode_pfifo(struct qdisc *q, const void *opts, size_t len)
{
	return decode_fifo(q, opts, len, "limit_packets", UNIT_PACKETS);
}

static int decode_bfifo(struct qdisc *q, const void *opts, size_t len)
{
	return decode_fifo(q, opts, len, "limit_bytes", UNIT_BYTES);
}

/* pfifo_fast and prio: a bare struct tc_prio_qopt (prio may append attributes). */
static int decode_prio(struct qdisc *q, const void *opts, size_t len)
{
	struct tc_prio_qopt prio;
	struct value map = {.key = "priomap", .type = VALUE_LIST};

	if (len < sizeof(prio))
		return -EBADMSG;
	memcpy(&prio, opts, sizeof(prio));
	add_option(q, value_uint("bands", (uint32_t)prio.bands, UNIT_NONE));
	for (unsigned i = 0; i <= TC_PRIO_MAX && i < VALUE_LIST_MAX; i++)
		map.list[map.nlist++] = prio.priomap[i];
	add_option(q, map);
	return 0;
}

/* Nested kinds: a table maps each attribute to a key, a unit and how to read it. */
enum field_read {
	FIELD_U32,
	FIELD_U32_BOOL,
	FIELD_U8_BOOL,
	FIELD_U32_LOG2,	      /* stored as log2: report 1 << value */
	FIELD_U32_UNLESS_MAX, /* ~0U means "off": report nothing */
	FIELD_U32_RATE,	      /* bytes/s, ~0U unlimited: report bits/s */
	FIELD_U64_RATE,	      /* bytes/s, 0 unlimited: report bits/s */
};

struct field {
	uint16_t type;
	const char *key;
	enum unit unit;
	enum field_read read;
};

static int decode_fields(struct qdisc *q, const void *opts, size_t len, const struct field *fields,
			 size_t nfields, unsigned maxtype)
{
	const struct nlattr *tb[32];
	uint32_t u32;
	uint8_t u8;
	int r;

	if (maxtype >= COUNT(tb))
		maxtype = COUNT(tb) - 1;
	r = nl_attrs(opts, len, tb, maxtype);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nfields; i++) {
		const struct field *f = &fields[i];
		const struct nlattr *a = f->type <= maxtype ? tb[f->type] : NULL;

		if (!a)
			continue;
		if (f->read == FIELD_U64_RATE) {
			uint64_t u64;

			if (nl_attr_u64(a, &u64) < 0)
				return -EBADMSG;
			if (u64 && u64 <= UINT64_MAX / 8)
				add_option(q, value_uint(f->key, u64 * 8, f->unit));
			continue;
		}
		if (f->read == FIELD_U8_BOOL) {
			if (nl_attr_u8(a, &u8) < 0)
				return -EBADMSG;
			add_option(q, value_bool(f->key, u8));
			continue;
		}
		if (nl_attr_u32(a, &u32) < 0)
			return -EBADMSG;
		switch (f->read) {
		case FIELD_U32_BOOL:
			add_option(q, value_bool(f->key, u32));
			break;
		case FIELD_U32_LOG2:
			if (u32 < 32)
				add_option(q, value_uint(f->key, 1ULL << u32, f->unit));
			break;
		case FIELD_U32_UNLESS_MAX:
			if (u32 != ~0U)
				add_option(q, value_uint(f->key, u32, f->unit));
			break;
		case FIELD_U32_RATE:
			if (u32 != ~0U)
				add_option(q, value_uint(f->key, (uint64_t)u32 * 8, f->unit));
			break;
		default:
			add_option(q, value_uint(f->key, u32, f->unit));
			break;
		}
	}
	return 0;
}

/* Attribute numbers are the kernel's ABI (linux/pkt_sched.h); spelled out here so
 * that older uapi headers still build this file. */
static const struct field fq_codel_fields[] = {
    {2, "limit_packets", UNIT_PACKETS, FIELD_U32},	/* TCA_FQ_CODEL_LIMIT */
    {5, "flows", UNIT_NONE, FIELD_U32},			/* _FLOWS */
    {6, "quantum_bytes", UNIT_BYTES, FIELD_U32},	/* _QUANTUM */
    {1, "target_us", UNIT_US, FIELD_U32},		/* _TARGET */
    {3, "interval_us", UNIT_US, FIELD_U32},		/* _INTERVAL */
    {9, "memory_limit_bytes", UNIT_BYTES, FIELD_U32},	/* _MEMORY_LIMIT */
    {4, "ecn", UNIT_NONE, FIELD_U32_BOOL},		/* _ECN */
    {7, "ce_threshold_us", UNIT_US, FIELD_U32},		/* _CE_THRESHOLD */
    {8, "drop_batch_packets", UNIT_PACKETS, FIELD_U32}, /* _DROP_BATCH_SIZE */
};

static const struct field fq_fields[] = {
    {1, "limit_packets", UNIT_PACKETS, FIELD_U32},	      /* TCA_FQ_PLIMIT */
    {2, "flow_limit_packets", UNIT_PACKETS, FIELD_U32},	      /* _FLOW_PLIMIT */
    {3, "quantum_bytes", UNIT_BYTES, FIELD_U32},	      /* _QUANTUM */
    {4, "initial_quantum_bytes", UNIT_BYTES, FIELD_U32},      /* _INITIAL_QUANTUM */
    {5, "rate_enable", UNIT_NONE, FIELD_U32_BOOL},	      /* _RATE_ENABLE */
    {7, "maxrate_bps", UNIT_BPS, FIELD_U32_RATE},	      /* _FLOW_MAX_RATE */
    {8, "buckets", UNIT_NONE, FIELD_U32_LOG2},		      /* _BUCKETS_LOG */
    {9, "refill_delay_us", UNIT_US, FIELD_U32},		      /* _FLOW_REFILL_DELAY */
    {10, "orphan_mask", UNIT_NONE, FIELD_U32},		      /* _ORPHAN_MASK */
    {11, "low_rate_threshold_bps", UNIT_BPS, FIELD_U32_RATE}, /* _LOW_RATE_THRESHOLD */
    {12, "ce_threshold_us", UNIT_US, FIELD_U32_UNLESS_MAX},   /* _CE_THRESHOLD */
    {13, "timer_slack_ns", UNIT_NS, FIELD_U32},		      /* _TIMER_SLACK */
    {14, "horizon_us", UNIT_US, FIELD_U32},		      /* _HORIZON */
    {15, "horizon_drop", UNIT_NONE, FIELD_U8_BOOL},	      /* _HORIZON_DROP */
};

/* cake: only what says how it shapes and how big it may grow; modes as raw numbers. */
static const struct field cake_fields[] = {
    {2, "bandwidth_bps", UNIT_BPS, FIELD_U64_RATE},	/* TCA_CAKE_BASE_RATE64 */
    {9, "autorate_ingress", UNIT_NONE, FIELD_U32_BOOL}, /* _AUTORATE */
    {7, "rtt_us", UNIT_US, FIELD_U32},			/* _RTT */
    {8, "target_us", UNIT_US, FIELD_U32},		/* _TARGET */
    {10, "memory_limit_bytes", UNIT_BYTES, FIELD_U32},	/* _MEMORY */
    {3, "diffserv_mode", UNIT_NONE, FIELD_U32},		/* _DIFFSERV_MODE */
    {5, "flow_mode", UNIT_NONE, FIELD_U32},		/* _FLOW_MODE */
    {11, "nat", UNIT_NONE, FIELD_U32_BOOL},		/* _NAT */
    {13, "wash", UNIT_NONE, FIELD_U32_BOOL},		/* _WASH */
    {15, "ingress", UNIT_NONE, FIELD_U32_BOOL},		/* _INGRESS */
    {17, "split_gso", UNIT_NONE, FIELD_U32_BOOL},	/* _SPLIT_GSO */
};

static int decode_cake(struct qdisc *q, const void *opts, size_t len)
{
	return decode_fields(q, opts, len, cake_fields, COUNT(cake_fields), 18);
}

static int decode_fq_codel(struct qdisc *q, const void *opts, size_t len)
{
	return decode_fields(q, opts, len, fq_codel_fields, COUNT(fq_codel_fields), 11);
}

static int decode_fq(struct qdisc *q, const void *opts, size_t len)
{
	return decode_fields(q, opts, len, fq_fields, COUNT(fq_fields), 17);
}

static int decode_tbf(struct qdisc *q, const void *opts, size_t len)
{
	const struct nlattr *tb[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt parms;
	const void *p;
	uint64_t rate64;
	int r;

	r = nl_attrs(opts, len, tb, TCA_TBF_MAX);
	if (r < 0)
		return r;
	p = nl_attr_data(tb[TCA_TBF_PARMS], sizeof(parms));
	if (!p)
		return -EBADMSG;
	memcpy(&parms, p, sizeof(parms));
	/* Rates above 4 GB/s do not fit the ratespec; the kernel then adds RATE64. */
	rate64 = parms.rate.rate;
	if (tb[TCA_TBF_RATE64] && nl_attr_u64(tb[TCA_TBF_RATE64], &rate64) < 0)
		return -EBADMSG;
	add_option(q, value_uint("rate_bps", rate64 * 8, UNIT_BPS));
	rate64 = parms.peakrate.rate;
	if (tb[TCA_TBF_PRATE64] && nl_attr_u64(tb[TCA_TBF_PRATE64], &rate64) < 0)
		return -EBADMSG;
	if (rate64)
		add_option(q, value_uint("peakrate_bps", rate64 * 8, UNIT_BPS));
	add_option(q, value_uint("limit_bytes", parms.limit, UNIT_BYTES));
	return 0;
}

static int decode_htb(struct qdisc *q, const void *opts, size_t len)
{
	const struct nlattr *tb[TCA_HTB_MAX + 1];
	struct tc_htb_glob glob;
	const void *p;
	uint32_t qlen;
	int r;

	r = nl_attrs(opts, len, tb, TCA_HTB_MAX);
	if (r < 0)
		return r;
	p = nl_attr_data(tb[TCA_HTB_INIT], sizeof(glob));
	if (!p)
		return -EBADMSG;
	memcpy(&glob, p, sizeof(glob));
	add_option(q, value_uint("default_class", glob.defcls, UNIT_HEX));
	add_option(q, value_uint("r2q", glob.rate2quantum, UNIT_NONE));
	if (tb[TCA_HTB_DIRECT_QLEN]) {
		if (nl_attr_u32(tb[TCA_HTB_DIRECT_QLEN], &qlen) < 0)
			return -EBADMSG;
		add_option(q, value_uint("direct_qlen_packets", qlen, UNIT_PACKETS));
	}
	return 0;
}

static const struct qdisc_decoder {
	const char *kind;
	int (*decode)(struct qdisc *q, const void *opts, size_t len);
} decoders[] = {
    {"pfifo", decode_pfifo}, {"pfifo_head_drop", decode_pfifo},
    {"bfifo", decode_bfifo}, {"pfifo_fast", decode_prio},
    {"prio", decode_prio},   {"fq_codel", decode_fq_codel},
    {"fq", decode_fq},	     {"cake", decode_cake},
    {"tbf", decode_tbf},     {"htb", decode_htb},
};

int qdisc_decode_options(struct qdisc *q, const void *opts, size_t len)
{
	for (size_t i = 0; i < COUNT(decoders); i++) {
		if (strcmp(q->kind, decoders[i].kind))
			continue;
		/* Decode into a copy: a malformed tail must not leave half a decode. */
		struct qdisc tmp = *q;
		int r;

		tmp.noptions = 0;
		r = decoders[i].decode(&tmp, opts, len);
		if (r < 0)
			return r;
		memcpy(q->options, tmp.options, sizeof(q->options));
		q->noptions = tmp.noptions;
		return 0;
	}
	return 0; /* a kind we only list by name */
}

int qdisc_from_msg(const struct nlmsghdr *nlh, struct qdisc *out)
{
	const struct tcmsg *tcm = nl_msg_header(nlh, sizeof(*tcm));
	const struct nlattr *tb[TCA_MAX + 1];
	struct qdisc q = {0};
	int r;

	if (!tcm)
		return -EBADMSG;
	r = nl_msg_attrs(nlh, sizeof(*tcm), tb, TCA_MAX);
	if (r < 0)
		return r;
	r = nl_attr_str(tb[TCA_KIND], q.kind, sizeof(q.kind));
	if (r < 0)
		return -EBADMSG;
	q.ifindex = tcm->tcm_ifindex;
	q.handle = tcm->tcm_handle;
	q.parent = tcm->tcm_parent;
	if (tb[TCA_OPTIONS])
		q.options_err = qdisc_decode_options(&q, nl_attr_data(tb[TCA_OPTIONS], 0),
						     nl_attr_len(tb[TCA_OPTIONS]));
	qstats_clear(&q);
	if (tb[TCA_STATS2]) {
		const struct nlattr *x = tb[TCA_XSTATS];

		q.stats_err = qstats_decode(&q, nl_attr_data(tb[TCA_STATS2], 0),
					    nl_attr_len(tb[TCA_STATS2]),
					    x ? nl_attr_data(x, 0) : NULL, x ? nl_attr_len(x) : 0);
	}
	*out = q;
	return 0;
}

struct qdisc_list {
	struct qdisc *v;
	size_t n, cap;
};

static int add_qdisc(const struct nlmsghdr *nlh, void *data)
{
	struct qdisc_list *l = data;
	struct qdisc q;
	int r;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return 0;
	r = qdisc_from_msg(nlh, &q);
	if (r < 0)
		return r;
	if (l->n == l->cap) {
		struct qdisc *v = array_grow(l->v, &l->cap, sizeof(*v), 32, QDISC_MAX_QDISCS, &r);

		if (!v)
			return r;
		l->v = v;
	}
	l->v[l->n++] = q;
	return 0;
}

int qdisc_list(struct nl *nl, struct qdisc **out, size_t *n)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC};
	struct qdisc_list l = {0};
	int r;

	r = nl_dump(nl, RTM_GETQDISC, &tcm, sizeof(tcm), add_qdisc, &l);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

static bool is_child(const struct qdisc *parent, const struct qdisc *q)
{
	if (q == parent || q->ifindex != parent->ifindex)
		return false;
	if (q->parent == TC_H_ROOT || TC_H_MAJ(q->parent) == TC_H_MAJ(TC_H_INGRESS))
		return false;
	return TC_H_MAJ(q->parent) == TC_H_MAJ(parent->handle);
}

static int cmp_parent(const void *a, const void *b)
{
	const struct qdisc *x = a, *y = b;

	return x->parent < y->parent ? -1 : x->parent > y->parent;
}

/*
 * Depth-first, bounded: handles come from the kernel and are unique per device, but
 * a bound costs nothing and makes a malformed list harmless.
 */
static int attach_children(struct qdisc *node, const struct qdisc *all, size_t n, unsigned depth)
{
	size_t count = 0;

	node->children = NULL;
	node->nchildren = 0;
	/* A handle-0 qdisc below the root is a default leaf (mq's pfifo_fast 0:): its
	 * major 0 would match its siblings' parents, so it has no children. */
	if (depth >= QDISC_MAX_DEPTH || (depth > 0 && TC_H_MAJ(node->handle) == 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		count += is_child(node, &all[i]);
	if (!count)
		return 0;
	node->children = calloc(count, sizeof(*node->children));
	if (!node->children)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (is_child(node, &all[i]))
			node->children[node->nchildren++] = all[i];
	qsort(node->children, node->nchildren, sizeof(*node->children), cmp_parent);
	for (size_t i = 0; i < node->nchildren; i++) {
		int r = attach_children(&node->children[i], all, n, depth + 1);

		if (r < 0)
			return r;
	}
	return 0;
}

int qdisc_tree(const struct qdisc *all, size_t n, int ifindex, struct qdisc **root)
{
	struct qdisc *r = NULL;
	int err;

	for (size_t i = 0; i < n; i++) {
		if (all[i].ifindex == ifindex && all[i].parent == TC_H_ROOT) {
			r = malloc(sizeof(*r));
			if (!r)
				return -ENOMEM;
			*r = all[i];
			break;
		}
	}
	if (!r)
		return -ENOENT;
	err = attach_children(r, all, n, 0);
	if (err < 0) {
		qdisc_free_children(r);
		free(r);
		return err;
	}
	*root = r;
	return 0;
}

const struct value *qdisc_option(const struct qdisc *q, const char *key)
{
	for (unsigned i = 0; i < q->noptions; i++)
		if (!strcmp(q->options[i].key, key))
			return &q->options[i];
	return NULL;
}

void qdisc_format_handle(uint32_t handle, char *buf, size_t len)
{
	if (handle == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (handle == TC_H_INGRESS)
		snprintf(buf, len, "ingress");
	else if (TC_H_MIN(handle))
		snprintf(buf, len, "%x:%x", TC_H_MAJ(handle) >> 16, TC_H_MIN(handle));
	else
		snprintf(buf, len, "%x:", TC_H_MAJ(handle) >> 16);
}
