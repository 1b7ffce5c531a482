/* SPDX-License-Identifier: MIT */
/*
 * qdisc-opts.c - qdisc-opts.h: the message builder, and each leaf kind's options in and
 * out of TCA_OPTIONS by walking its table in src/qdisc/ (which word sets which
 * attribute, how its value is spelled and sent, the kernel's default). Attribute orders
 * are tc's (iproute2 6.1), as captured in tests/fixtures/netlink.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "debloat/units.h"
#include "fix/qdisc-opts.h"
#include "base/nl.h"
#include "qdisc/qkind.h"

/* ---- the builder ---- */

void nlbuf_init(struct nlbuf *b, void *buf, size_t cap)
{
	*b = (struct nlbuf){.buf = buf, .cap = cap};
}

/* Reserve n bytes (plus padding to 4) at the end, zeroed; NULL once out of room. */
static void *nlbuf_room(struct nlbuf *b, size_t n)
{
	size_t padded = NLMSG_ALIGN(n);
	void *p;

	if (b->err || padded < n || padded > b->cap - b->len) {
		b->err = -ENOSPC;
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, padded);
	b->len += padded;
	/* The message grows with each attribute: keep its length current. */
	if (b->len - b->msg >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)(b->buf + b->msg);

		nlh->nlmsg_len = (uint32_t)(b->len - b->msg);
	}
	return p;
}

void nlbuf_msg(struct nlbuf *b, uint16_t type, uint16_t flags, uint32_t seq, const void *hdr,
	       size_t hdrlen)
{
	struct nlmsghdr nlh = {.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq};
	unsigned char *p;

	if (b->err)
		return;
	b->msg = b->len;
	p = nlbuf_room(b, NLMSG_HDRLEN + hdrlen);
	if (!p)
		return;
	nlh.nlmsg_len = (uint32_t)(b->len - b->msg);
	memcpy(p, &nlh, sizeof(nlh));
	memcpy(p + NLMSG_HDRLEN, hdr, hdrlen);
}

void nlbuf_attr(struct nlbuf *b, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type};
	unsigned char *p;

	if (n > UINT16_MAX - NLA_HDRLEN) {
		b->err = b->err ? b->err : -ENOSPC;
		return;
	}
	p = nlbuf_room(b, NLA_HDRLEN + n);
	if (!p)
		return;
	memcpy(p, &a, sizeof(a));
	if (n)
		memcpy(p + NLA_HDRLEN, data, n);
}

void nlbuf_u8(struct nlbuf *b, uint16_t type, uint8_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u32(struct nlbuf *b, uint16_t type, uint32_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u64(struct nlbuf *b, uint16_t type, uint64_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_str(struct nlbuf *b, uint16_t type, const char *s)
{
	nlbuf_attr(b, type, s, strlen(s) + 1);
}

size_t nlbuf_nest(struct nlbuf *b, uint16_t type)
{
	size_t off = b->len;

	nlbuf_attr(b, type, NULL, 0);
	return off;
}

void nlbuf_nest_end(struct nlbuf *b, size_t off)
{
	struct nlattr *a;

	if (b->err || b->len - off > UINT16_MAX) {
		b->err = b->err ? b->err : -ENOSPC;
		return;
	}
	a = (struct nlattr *)(void *)(b->buf + off);
	a->nla_len = (uint16_t)(b->len - off);
}

/* ---- the kinds: their tables are src/qdisc/'s ---- */

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

/* ---- specs ---- */

/* "fq_codel, fq, cake, pfifo, bfifo, pfifo_fast": the leaf kinds, in the registry's order. */
static void leaf_names(char *buf, size_t len)
{
	const struct qkind *k;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; (k = qkind_at(i)) != NULL; i++) {
		int n;

		if (!k->leaf)
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", k->name);
		if (n < 0 || (size_t)n >= len - used)
			return; /* truncated: still a list of kinds */
		used += (size_t)n;
	}
}

int qdisc_spec_parse(const char *text, struct qdisc_spec *out, char *err, size_t errlen)
{
	char *save = NULL, *w;
	int n = 0, first;

	if (errlen)
		err[0] = '\0';
	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(out->store)) {
		snprintf(err, errlen, "qdisc spec longer than %zu characters",
			 sizeof(out->store) - 1);
		return -EINVAL;
	}
	memcpy(out->store, text, strlen(text) + 1);
	for (w = strtok_r(out->store, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (n == QDISC_SPEC_WORDS) {
			snprintf(err, errlen, "qdisc spec has more than %d words",
				 QDISC_SPEC_WORDS);
			return -EINVAL;
		}
		out->words[n++] = w;
	}
	if (n == 0) {
		snprintf(err, errlen, "empty qdisc spec");
		return -EINVAL;
	}
	if (!strcmp(out->words[0], "default")) {
		if (n > 1) {
			snprintf(err, errlen, "\"default\" takes nothing after it");
			return -EINVAL;
		}
		out->shape = QDISC_SHAPE_DEFAULT;
		return 0;
	}
	first = 0;
	out->shape = QDISC_SHAPE_LEAF;
	if (!strcmp(out->words[0], "mq")) {
		out->shape = QDISC_SHAPE_MQ;
		first = 1;
	} else if (!strcmp(out->words[0], "htb")) {
		out->shape = QDISC_SHAPE_HTB;
		first = 2;
		if (n < 2 || db_parse_rate(out->words[1], &out->htb_rate) < 0 ||
		    out->htb_rate == 0) {
			snprintf(err, errlen,
				 "htb needs a rate (\"htb 95mbit fq_codel\"), not \"%s\"",
				 n < 2 ? "" : out->words[1]);
			return -EINVAL;
		}
	}
	if (first >= n) {
		snprintf(err, errlen, "%s needs a leaf qdisc kind after it", out->words[0]);
		return -EINVAL;
	}
	out->kind = out->words[first];
	if (!qdisc_leaf_kind(out->kind)) {
		char leaves[128];

		leaf_names(leaves, sizeof(leaves));
		snprintf(err, errlen, "unknown qdisc kind \"%s\" (%s%s)", out->kind, leaves,
			 first ? "" : ", mq KIND, htb RATE KIND or default");
		return -EINVAL;
	}
	/* The leaf's option words follow its kind; shift them to the front. */
	out->nwords = n - first - 1;
	memmove(out->words, out->words + first + 1, (size_t)out->nwords * sizeof(out->words[0]));
	return 0;
}

int qdisc_spec_opts(const struct qdisc_spec *s, struct qdisc_opts *out, char *err, size_t errlen)
{
	unsigned char scratch[1024];
	struct nlbuf b;
	const struct nlattr *opts;
	int r;

	out->n = 0;
	if (s->shape == QDISC_SHAPE_DEFAULT)
		return 0;
	nlbuf_init(&b, scratch, sizeof(scratch));
	r = qdisc_opts_encode(&b, s->kind, s->words, s->nwords, err, errlen);
	if (r < 0)
		return r;
	if (b.len == 0)
		return 0; /* no TCA_OPTIONS at all */
	opts = (const struct nlattr *)(const void *)scratch;
	return qdisc_opts_decode(s->kind, nl_attr_data(opts, 0), nl_attr_len(opts), out);
}
