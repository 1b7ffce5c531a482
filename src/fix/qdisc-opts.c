/* SPDX-License-Identifier: MIT */
/*
 * qdisc-opts.c - qdisc-opts.h: each leaf kind's options in and out of TCA_OPTIONS by
 * walking its table in src/qkind/ (which word sets which attribute, how its value is
 * spelled and sent, the kernel's default). Attribute orders are tc's (iproute2 6.1),
 * as captured in tests/fixtures/netlink.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "base/nl.h"
#include "debloat/units.h"
#include "fix/qdisc-opts.h"
#include "qkind/qkind.h"

/* ---- the kinds: their tables are src/qkind/'s ---- */

/* What fix may put at a leaf: a known kind marked so. */
static const struct qkind *leaf_of(const char *name)
{
	const struct qkind *k = qkind_find(name);

	return k && k->leaf ? k : NULL;
}

bool qdisc_leaf_kind(const char *kind)
{
	return leaf_of(kind) != NULL;
}

int qdisc_opts_encode(struct nlbuf *b, const char *kind, char *const *words, int nwords, char *err,
		      size_t errlen)
{
	const struct qkind *k = leaf_of(kind);
	struct qkind_wire wire[QKIND_MAX_ATTRS];
	unsigned char bytes[sizeof(uint64_t)];
	unsigned n;
	size_t nest;
	int r;

	if (errlen)
		err[0] = '\0';
	if (!k) {
		snprintf(err, errlen, "unknown qdisc kind \"%s\"", kind);
		return -EINVAL;
	}
	r = qkind_encode(k, words, nwords, wire, &n, err, errlen);
	if (r < 0)
		return r;
	if (k->layout == QLAYOUT_FIFO) {
		/* tc sends no TCA_OPTIONS at all for a FIFO without a limit. */
		if (n) {
			struct tc_fifo_qopt fifo = {.limit = (uint32_t)wire[0].v};

			nlbuf_attr(b, TCA_OPTIONS, &fifo, sizeof(fifo));
		}
		return b->err;
	}
	if (k->layout != QLAYOUT_NEST)
		return b->err; /* takes no options (pfifo_fast): tc sends none */
	nest = nlbuf_nest(b, TCA_OPTIONS);
	for (unsigned i = 0; i < n; i++)
		nlbuf_attr(b, wire[i].attr->type, bytes, qkind_wire_bytes(&wire[i], bytes));
	nlbuf_nest_end(b, nest);
	return b->err;
}

/* ---- decoding ---- */

int qdisc_opts_decode(const char *kind, const void *opts, size_t len, struct qdisc_opts *out)
{
	const struct qkind *k = leaf_of(kind);
	struct qkind_wire wire[QKIND_MAX_ATTRS];
	unsigned n;
	int r;

	out->n = 0;
	if (!k)
		return -EOPNOTSUPP;
	r = qkind_decode(k, opts, len, wire, &n);
	if (r < 0)
		return r;
	if (n > QDISC_OPTS_MAX)
		return -EOPNOTSUPP;
	for (unsigned i = 0; i < n; i++) {
		struct qdisc_opt *o = &out->v[out->n++];

		o->key = wire[i].attr->word;
		o->link_default = wire[i].attr->flags & QA_LINK_DEFAULT;
		if (qkind_spell(wire[i].attr, wire[i].v, o->text, sizeof(o->text)) < 0)
			return -EOPNOTSUPP;
	}
	return 0;
}

int qdisc_opts_format(const struct qdisc_opts *o, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; i < o->n; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", o->v[i].text);

		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return (int)used;
}

static const struct qdisc_opt *find_opt(const struct qdisc_opts *o, const char *key)
{
	for (unsigned i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].key, key))
			return &o->v[i];
	return NULL;
}

static bool covered(const struct qdisc_opts *a, const struct qdisc_opts *b)
{
	for (unsigned i = 0; i < a->n; i++) {
		const struct qdisc_opt *o = find_opt(b, a->v[i].key);

		if (o ? strcmp(o->text, a->v[i].text) != 0 : !a->v[i].link_default)
			return false;
	}
	return true;
}

bool qdisc_opts_equal(const struct qdisc_opts *a, const struct qdisc_opts *b)
{
	return covered(a, b) && covered(b, a);
}
