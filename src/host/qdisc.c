/* SPDX-License-Identifier: MIT */
/* qdisc.c - qdisc.h: RTM_NEWQDISC decoding (each kind's options by its table in
 * src/qkind/), tree building, the rates of shaping classes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "host/qdisc.h"
#include "host/qstats.h"
#include "qkind/qkind.h"

int host_qdisc_decode_options(struct qdisc *q, const void *opts, size_t len)
{
	const struct qkind *k = qkind_find(q->kind);
	struct value tmp[QDISC_MAX_OPTIONS];
	struct qshown shown = {.v = tmp, .max = QDISC_MAX_OPTIONS};
	int r;

	if (!k)
		return 0; /* a kind we only list by name */
	/* Decode into a copy: a malformed tail must not leave half a decode. */
	r = qkind_show(k, opts, len, &shown);
	if (r < 0)
		return r;
	memcpy(q->options, tmp, shown.n * sizeof(*tmp));
	q->noptions = shown.n;
	return 0;
}

int host_qdisc_from_msg(const struct nlmsghdr *nlh, struct qdisc *out)
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
		q.options_err = host_qdisc_decode_options(&q, nl_attr_data(tb[TCA_OPTIONS], 0),
							  nl_attr_len(tb[TCA_OPTIONS]));
	qstats_clear(&q);
	if (tb[TCA_STATS2]) {
		const struct nlattr *x = tb[TCA_XSTATS];

		q.stats_err =
		    qstats_decode(&q, nl_attr_data(tb[TCA_STATS2], 0), nl_attr_len(tb[TCA_STATS2]),
				  x ? nl_attr_data(x, 0) : NULL, x ? nl_attr_len(x) : 0);
	}
	*out = q;
	return 0;
}

static int decode_qdisc(const struct nlmsghdr *nlh, void *elem)
{
	return host_qdisc_from_msg(nlh, elem);
}

int host_qdisc_list(struct nl *nl, struct qdisc **out, size_t *n)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC};
	const struct nl_list spec = {
	    .type = RTM_GETQDISC,
	    .want = RTM_NEWQDISC,
	    .hdr = &tcm,
	    .hdrlen = sizeof(tcm),
	    .decode = decode_qdisc,
	    .elem = sizeof(**out),
	    .first = 32,
	    .max = QDISC_MAX_QDISCS,
	};
	void *v;
	int r = nl_dump_list(nl, &spec, &v, n);

	if (r == 0)
		*out = v;
	return r;
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

int host_qdisc_tree(const struct qdisc *all, size_t n, int ifindex, struct qdisc **root)
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
		host_qdisc_free_children(r);
		free(r);
		return err;
	}
	*root = r;
	return 0;
}

const struct value *host_qdisc_option(const struct qdisc *q, const char *key)
{
	for (unsigned i = 0; i < q->noptions; i++)
		if (!strcmp(q->options[i].key, key))
			return &q->options[i];
	return NULL;
}

void host_qdisc_format_handle(uint32_t handle, char *buf, size_t len)
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

/* One class of an interface as the class dump gives it: its handle and, for a kind
 * that shapes (qkind's class_rate), its rate. */
struct class_rate {
	uint32_t handle;
	uint64_t bps;
	bool has_rate;
};

int host_class_from_msg(const struct nlmsghdr *nlh, uint32_t *handle, uint64_t *bps)
{
	const struct tcmsg *tcm = nl_msg_header(nlh, sizeof(*tcm));
	const struct nlattr *tb[TCA_MAX + 1];
	char kind[QDISC_KIND_MAX];
	const struct qkind *k;
	int r;

	if (!tcm)
		return -EBADMSG;
	r = nl_msg_attrs(nlh, sizeof(*tcm), tb, TCA_MAX);
	if (r < 0)
		return r;
	if (nl_attr_str(tb[TCA_KIND], kind, sizeof(kind)) < 0)
		return -EBADMSG;
	*handle = tcm->tcm_handle;
	k = qkind_find(kind);
	if (!k || !k->class_rate || !tb[TCA_OPTIONS])
		return -ENOENT;
	return k->class_rate(nl_attr_data(tb[TCA_OPTIONS], 0), nl_attr_len(tb[TCA_OPTIONS]), bps);
}

/* A class whose rate cannot be read is listed without one: its leaves stay unknown. */
static int decode_class(const struct nlmsghdr *nlh, void *elem)
{
	struct class_rate *c = elem;
	int r = host_class_from_msg(nlh, &c->handle, &c->bps);

	if (r == -EBADMSG && !c->handle)
		return r;
	c->has_rate = r == 0;
	return 0;
}

static bool has_shaping_classes(const struct qdisc *q)
{
	const struct qkind *k = qkind_find(q->kind);

	if (k && k->class_rate)
		return true;
	for (size_t i = 0; i < q->nchildren; i++)
		if (has_shaping_classes(&q->children[i]))
			return true;
	return false;
}

static void set_class_rates(struct qdisc *q, const struct class_rate *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].has_rate && c[i].handle == q->parent && TC_H_MIN(q->parent))
			q->class_rate_bps = c[i].bps;
	for (size_t i = 0; i < q->nchildren; i++)
		set_class_rates(&q->children[i], c, n);
}

int host_qdisc_class_rates(struct nl *nl, struct qdisc *root)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC, .tcm_ifindex = root->ifindex};
	const struct nl_list spec = {
	    .type = RTM_GETTCLASS,
	    .want = RTM_NEWTCLASS,
	    .hdr = &tcm,
	    .hdrlen = sizeof(tcm),
	    .decode = decode_class,
	    .elem = sizeof(struct class_rate),
	    .first = 16,
	    .max = QDISC_MAX_QDISCS,
	};
	void *v = NULL;
	size_t n = 0;
	int r;

	if (!has_shaping_classes(root))
		return 0;
	r = nl_dump_list(nl, &spec, &v, &n);
	if (r < 0)
		return r;
	set_class_rates(root, v, n);
	free(v);
	return 0;
}
