/* SPDX-License-Identifier: MIT */
/*
 * knob-root.c - the root-qdisc knob (knob.h): the interface's root qdisc tree read as
 * a spec (a kernel default, a tree debloat can rebuild, or something else) and written
 * as one, all or nothing; its commands, and where networkd and NetworkManager put it.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "base/array.h"
#include "base/nl.h"
#include "debloat/units.h"
#include "fix/knob-root.h"
#include "fix/qdisc-opts.h"
#include "fix/root-spec.h"
#include "host/qdisc.h"
#include "host/sysctl.h"
#include "qkind/qkind.h"

/* A root qdisc's tree holds at most one qdisc per TX queue and a few more. */
#define TREE_MAX_QDISCS 4100
#define HTB_MAX_CLASSES 64

/* ---- the root qdisc: reading the tree ---- */

/* One qdisc of the interface with its TCA_OPTIONS as the kernel sent them. */
struct raw_qdisc {
	uint32_t handle, parent;
	unsigned char *opts;
	size_t len;
};

struct tree_dump {
	int ifindex;
	struct qdisc *all; /* this interface's qdiscs, decoded by host/qdisc.c */
	struct raw_qdisc *raw;
	size_t n, cap;
};

static void tree_dump_free(struct tree_dump *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->raw[i].opts);
	free(d->all);
	free(d->raw);
	memset(d, 0, sizeof(*d));
}

static int add_tree_qdisc(const struct nlmsghdr *nlh, void *data)
{
	struct tree_dump *d = data;
	const struct nlattr *tb[TCA_MAX + 1];
	struct raw_qdisc *raw;
	struct qdisc q;
	int r;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return 0;
	r = host_qdisc_from_msg(nlh, &q);
	if (r < 0)
		return r;
	if (q.ifindex != d->ifindex)
		return 0;
	r = nl_msg_attrs(nlh, sizeof(struct tcmsg), tb, TCA_MAX);
	if (r < 0)
		return r;
	if (d->n == d->cap) {
		/* Two arrays of one length: host_qdisc_tree wants the qdiscs contiguous. */
		size_t cap = d->cap, cap2 = d->cap;
		struct qdisc *all = array_grow(d->all, &cap, sizeof(*all), 8, TREE_MAX_QDISCS, &r);
		struct raw_qdisc *raws;

		if (!all)
			return r;
		d->all = all;
		raws = array_grow(d->raw, &cap2, sizeof(*raws), 8, TREE_MAX_QDISCS, &r);
		if (!raws)
			return r;
		d->raw = raws;
		d->cap = cap;
	}
	raw = &d->raw[d->n];
	*raw = (struct raw_qdisc){.handle = q.handle, .parent = q.parent};
	if (tb[TCA_OPTIONS] && nl_attr_len(tb[TCA_OPTIONS])) {
		raw->len = nl_attr_len(tb[TCA_OPTIONS]);
		raw->opts = malloc(raw->len);
		if (!raw->opts)
			return -ENOMEM;
		memcpy(raw->opts, nl_attr_data(tb[TCA_OPTIONS], 0), raw->len);
	}
	d->all[d->n++] = q;
	return 0;
}

static const struct raw_qdisc *raw_of(const struct tree_dump *d, const struct qdisc *q)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->raw[i].handle == q->handle && d->raw[i].parent == q->parent)
			return &d->raw[i];
	return NULL;
}

/* An htb class as the kernel dumps it. */
struct htb_class {
	uint32_t handle, parent;
	uint64_t rate, ceil; /* bytes/s */
	uint32_t buffer, cbuffer, prio;
};

struct class_dump {
	int ifindex;
	struct htb_class v[HTB_MAX_CLASSES];
	size_t n;     /* kept (at most HTB_MAX_CLASSES) */
	size_t total; /* seen */
	bool foreign; /* a class that is not htb's */
};

static int add_class(const struct nlmsghdr *nlh, void *data)
{
	struct class_dump *d = data;
	const struct tcmsg *tcm = nl_msg_header(nlh, sizeof(*tcm));
	const struct nlattr *tb[TCA_MAX + 1], *opt[TCA_HTB_MAX + 1];
	struct tc_htb_opt parms;
	struct htb_class c;
	char kind[QDISC_KIND_MAX];
	const void *p;

	if (nlh->nlmsg_type != RTM_NEWTCLASS)
		return 0;
	if (!tcm || nl_msg_attrs(nlh, sizeof(*tcm), tb, TCA_MAX) < 0 ||
	    nl_attr_str(tb[TCA_KIND], kind, sizeof(kind)) < 0)
		return -EBADMSG;
	if (tcm->tcm_ifindex != d->ifindex)
		return 0;
	d->total++;
	if (strcmp(kind, "htb")) {
		d->foreign = true;
		return 0;
	}
	if (!tb[TCA_OPTIONS] || nl_nested(tb[TCA_OPTIONS], opt, TCA_HTB_MAX) < 0)
		return -EBADMSG;
	p = nl_attr_data(opt[TCA_HTB_PARMS], sizeof(parms));
	if (!p)
		return -EBADMSG;
	memcpy(&parms, p, sizeof(parms));
	c = (struct htb_class){
	    .handle = tcm->tcm_handle,
	    .parent = tcm->tcm_parent,
	    .rate = parms.rate.rate,
	    .ceil = parms.ceil.rate,
	    .buffer = parms.buffer,
	    .cbuffer = parms.cbuffer,
	    .prio = parms.prio,
	};
	if ((opt[TCA_HTB_RATE64] && nl_attr_u64(opt[TCA_HTB_RATE64], &c.rate) < 0) ||
	    (opt[TCA_HTB_CEIL64] && nl_attr_u64(opt[TCA_HTB_CEIL64], &c.ceil) < 0))
		return -EBADMSG;
	if (d->n < COUNT(d->v))
		d->v[d->n++] = c;
	return 0;
}

/* What is at an interface's root, and what it says about itself. */
struct root_state {
	int ifindex;
	struct tree_dump dump;
	struct qdisc *root;	   /* NULL: nothing at the root at all */
	char spec[KNOB_VALUE_MAX]; /* knob_read's answer */
};

static void root_state_free(struct root_state *st)
{
	if (st->root) {
		host_qdisc_free_children(st->root);
		free(st->root);
		st->root = NULL;
	}
	tree_dump_free(&st->dump);
}

static void default_kind(const struct knob_env *env, char *kind, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys", knob_proc_root(env));
	if (sysctl_read(path, "net.core.default_qdisc", kind, len) < 0 || !kind[0])
		snprintf(kind, len, "pfifo_fast");
}

/* The leaf's words ("fq_codel limit 800"); -EOPNOTSUPP when not rebuildable. */
static int leaf_words(const struct tree_dump *d, const struct qdisc *q, char *buf, size_t len)
{
	const struct raw_qdisc *raw = raw_of(d, q);
	struct qdisc_opts opts;
	char words[KNOB_VALUE_MAX];
	int n, r;

	if (!qdisc_leaf_kind(q->kind) || q->nchildren)
		return -EOPNOTSUPP;
	r = qdisc_opts_decode(q->kind, raw ? raw->opts : NULL, raw ? raw->len : 0, &opts);
	if (r < 0)
		return -EOPNOTSUPP;
	if (qdisc_opts_format(&opts, words, sizeof(words)) < 0)
		return -EOPNOTSUPP;
	n = snprintf(buf, len, "%s%s%s", q->kind, words[0] ? " " : "", words);
	return n < 0 || (size_t)n >= len ? -EOPNOTSUPP : 0;
}

static int describe_mq(const struct root_state *st, unsigned ntxq, char *buf, size_t len)
{
	const struct qdisc *root = st->root;
	char first[KNOB_VALUE_MAX], other[KNOB_VALUE_MAX];

	if (root->nchildren != ntxq || ntxq == 0)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < root->nchildren; i++) {
		const struct qdisc *c = &root->children[i];

		/* A kernel-made child (handle 0) among ours: not a tree we built. */
		if (c->parent != TC_H_MAKE(root->handle, i + 1) || TC_H_MAJ(c->handle) == 0 ||
		    leaf_words(&st->dump, c, i ? other : first, sizeof(first)) < 0)
			return -EOPNOTSUPP;
		if (i && strcmp(first, other))
			return -EOPNOTSUPP;
	}
	if ((size_t)snprintf(buf, len, "mq %s", first) >= len)
		return -EOPNOTSUPP;
	return 0;
}

static int describe_htb(const struct root_state *st, const struct knob_psched *clock, char *buf,
			size_t len)
{
	const struct qdisc *root = st->root;
	const struct raw_qdisc *raw = raw_of(&st->dump, root);
	const struct nlattr *tb[TCA_HTB_MAX + 1];
	struct class_dump classes = {.ifindex = st->ifindex};
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC, .tcm_ifindex = st->ifindex};
	struct tc_htb_glob glob;
	const void *p;
	char leaf[KNOB_VALUE_MAX], rate[32];
	struct nl *nl;
	int r;

	if (!raw || nl_attrs(raw->opts, raw->len, tb, TCA_HTB_MAX) < 0)
		return -EOPNOTSUPP;
	p = nl_attr_data(tb[TCA_HTB_INIT], sizeof(glob));
	if (!p)
		return -EOPNOTSUPP;
	memcpy(&glob, p, sizeof(glob));
	if (glob.defcls != 1 || glob.rate2quantum != 10 || root->nchildren != 1 ||
	    root->children[0].parent != TC_H_MAKE(root->handle, 1) ||
	    leaf_words(&st->dump, &root->children[0], leaf, sizeof(leaf)) < 0)
		return -EOPNOTSUPP;
	r = nl_open(&nl);
	if (r < 0)
		return r;
	tcm.tcm_parent = TC_H_UNSPEC;
	r = nl_dump(nl, RTM_GETTCLASS, &tcm, sizeof(tcm), add_class, &classes);
	nl_close(nl);
	if (r < 0)
		return r;
	/* One class R:1 at the top, rate = ceil, the burst tc computes for that rate. */
	const struct htb_class *c = &classes.v[0];
	if (classes.total != 1 || classes.n != 1 || classes.foreign ||
	    c->handle != TC_H_MAKE(root->handle, 1) ||
	    (c->parent != TC_H_ROOT && c->parent != root->handle) || c->rate != c->ceil ||
	    c->rate < 1000 || c->prio != 0)
		return -EOPNOTSUPP;
	if (c->buffer != qdisc_htb_burst_ticks(c->rate, clock) || c->cbuffer != c->buffer)
		return -EOPNOTSUPP;
	if (db_format_rate(c->rate, rate, sizeof(rate)) < 0)
		return -EOPNOTSUPP;
	if ((size_t)snprintf(buf, len, "htb %s %s", rate, leaf) >= len)
		return -EOPNOTSUPP;
	return 0;
}

/* TX queues as sysfs counts them (the real ones), or as rtnetlink does. */
static unsigned tx_queue_count(const struct knob_env *env, const char *ifname, unsigned fallback)
{
	char pattern[PATH_MAX];
	glob_t g;
	unsigned n = fallback;

	if (knob_sysfs_iface_check(env, ifname) < 0)
		return fallback;
	snprintf(pattern, sizeof(pattern), "%s/class/net/%s/queues/tx-*", knob_sysfs_root(env),
		 ifname);
	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0) {
		n = (unsigned)g.gl_pathc;
		globfree(&g);
	}
	return n;
}

static void read_clock(const struct knob_env *env, struct knob_psched *clock)
{
	static const struct knob_psched standard = KNOB_PSCHED_STANDARD;

	if (knob_psched_read(knob_proc_root(env), clock) < 0)
		*clock = standard;
}

/* The spec that rebuilds st's tree, or -EOPNOTSUPP. */
static int describe_tree(const struct knob *k, const struct knob_env *env, struct root_state *st)
{
	struct knob_link_facts facts;
	struct knob_psched clock;
	unsigned ntxq;
	int r;

	if (!strcmp(st->root->kind, "mq")) {
		r = knob_link_facts(st->ifindex, &facts);
		ntxq = tx_queue_count(env, k->ifname, r == 0 ? facts.tx_queues : 0);
		return describe_mq(st, ntxq, st->spec, sizeof(st->spec));
	}
	if (!strcmp(st->root->kind, "htb")) {
		read_clock(env, &clock);
		return describe_htb(st, &clock, st->spec, sizeof(st->spec));
	}
	if (qdisc_leaf_kind(st->root->kind))
		return leaf_words(&st->dump, st->root, st->spec, sizeof(st->spec));
	return -EOPNOTSUPP;
}

static int root_state_read(const struct knob *k, const struct knob_env *env, struct root_state *st)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC};
	char kind[QDISC_KIND_MAX * 2], handle[16];
	unsigned major;
	bool ours;
	struct nl *nl;
	int r;

	memset(st, 0, sizeof(*st));
	st->ifindex = knob_ifindex(k->ifname);
	if (st->ifindex < 0)
		return st->ifindex;
	st->dump.ifindex = st->ifindex;
	tcm.tcm_ifindex = st->ifindex;
	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = nl_dump(nl, RTM_GETQDISC, &tcm, sizeof(tcm), add_tree_qdisc, &st->dump);
	nl_close(nl);
	if (r < 0)
		goto fail;
	r = host_qdisc_tree(st->dump.all, st->dump.n, st->ifindex, &st->root);
	if (r == -ENOENT) {
		st->root = NULL; /* nothing listed at the root: the kernel's own noop */
		snprintf(st->spec, sizeof(st->spec), "default");
		return 0;
	}
	if (r < 0)
		goto fail;
	/*
	 * A tree in debloat's own numbering reads as the spec that built it, even one that
	 * is also a distribution default (plain "fq_codel" where default_qdisc says
	 * fq_codel): so reading back what was written gives what was written.
	 */
	major = TC_H_MAJ(st->root->handle) >> 16;
	ours = major == KNOB_ROOT_MAJOR || major == KNOB_ROOT_MAJOR_ALT;
	default_kind(env, kind, sizeof(kind));
	if (!ours && knob_root_is_default(st->root, kind)) {
		snprintf(st->spec, sizeof(st->spec), "default");
		return 0;
	}
	r = describe_tree(k, env, st);
	if (r == -EOPNOTSUPP && ours && knob_root_is_default(st->root, kind)) {
		snprintf(st->spec, sizeof(st->spec), "default");
		return 0;
	}
	if (r == -EOPNOTSUPP) {
		host_qdisc_format_handle(st->root->handle, handle, sizeof(handle));
		if (st->root->nchildren)
			snprintf(st->spec, sizeof(st->spec), "other: %s %s with %zu child qdisc%s",
				 st->root->kind, handle, st->root->nchildren,
				 st->root->nchildren == 1 ? "" : "s");
		else
			snprintf(st->spec, sizeof(st->spec), "other: %s %s", st->root->kind,
				 handle);
		r = 0;
	}
	if (r < 0)
		goto fail;
	return 0;
fail:
	root_state_free(st);
	return r;
}

/* ---- the root qdisc: knob_root_is_default ---- */

/*
 * The frame the kernel's link-dependent defaults (fq_codel's and fq's quanta) are
 * multiples of: a 1500-byte MTU plus Ethernet's header. knob_root_is_default is not
 * told the link, so a default tree on a link of another MTU reads as a spec.
 */
#define KNOB_DEFAULT_FRAME 1514

static bool leaf_is_default(const struct qdisc *q, const char *default_kind)
{
	if (TC_H_MAJ(q->handle) == 0)
		return true; /* made by the kernel */
	/*
	 * A pfifo_fast someone added (it has a handle) is theirs, not the kernel's: deleting
	 * it would not bring it back where the device's own default is noqueue (a veth, a
	 * bridge), so it reads as the spec "pfifo_fast", which undo rebuilds.
	 */
	if (!strcmp(q->kind, "pfifo_fast"))
		return false;
	if (strcmp(q->kind, default_kind) || q->options_err)
		return false;
	/* false for a default kind whose table does not know its defaults */
	return qkind_shown_defaults(qkind_find(q->kind), q->options, q->noptions,
				    KNOB_DEFAULT_FRAME);
}

int knob_root_is_default(const struct qdisc *root, const char *default_kind)
{
	if (!root)
		return 1;
	if (!default_kind || !*default_kind)
		default_kind = "pfifo_fast";
	if (!strcmp(root->kind, "noqueue") || !strcmp(root->kind, "noop"))
		return 1;
	if (!strcmp(root->kind, "mq")) {
		for (size_t i = 0; i < root->nchildren; i++) {
			const struct qdisc *c = &root->children[i];

			if (c->nchildren || !leaf_is_default(c, default_kind))
				return 0;
		}
		return 1;
	}
	return !root->nchildren && leaf_is_default(root, default_kind);
}

/* ---- the root qdisc: writing ---- */

static int write_root(const struct knob *k, const struct knob_env *env, const char *val,
		      bool may_roll_back, char *msg, size_t msglen);

/* Would a tree of this shape numbered from major take no handle the interface uses? */
static bool handles_free(const struct tree_dump *d, const struct root_spec *s, unsigned major,
			 unsigned ntxq)
{
	for (size_t i = 0; i < d->n; i++) {
		unsigned used = TC_H_MAJ(d->all[i].handle) >> 16;

		if (!used)
			continue;
		if (used == major)
			return false;
		if (s->shape == ROOT_SHAPE_MQ && used > major && used <= major + ntxq)
			return false;
		if (s->shape == ROOT_SHAPE_HTB && used == major + 0xf)
			return false;
	}
	return true;
}

/* A kernel-made root (handle 0) cannot be deleted: put one of ours there first. */
static int reset_kernel_root(const struct root_state *st, char *msg, size_t msglen)
{
	unsigned char buf[256];
	struct knob_psched clock = KNOB_PSCHED_STANDARD;
	struct root_spec spec;
	unsigned major = KNOB_ROOT_MAJOR;
	int n, r;

	r = root_spec_parse("pfifo_fast", &spec, msg, msglen);
	if (r < 0)
		return r;
	if (!handles_free(&st->dump, &spec, major, 0))
		major = KNOB_ROOT_MAJOR_ALT;
	n = knob_qdisc_requests_at("pfifo_fast", st->ifindex, 0, 1, major, &clock, 0, buf,
				   sizeof(buf), msg, msglen);
	if (n < 0)
		return n;
	r = knob_send(buf, (size_t)n, NULL, msg, msglen);
	if (r < 0)
		return r;
	n = knob_qdisc_requests_at("default", st->ifindex, 0, 1, major, &clock, 0, buf, sizeof(buf),
				   msg, msglen);
	if (n < 0)
		return n;
	return knob_send(buf, (size_t)n, NULL, msg, msglen);
}

static int write_root(const struct knob *k, const struct knob_env *env, const char *val,
		      bool may_roll_back, char *msg, size_t msglen)
{
	struct root_spec spec;
	struct qdisc_opts opts;
	struct root_state st;
	struct knob_link_facts facts = {0};
	struct knob_psched clock;
	unsigned ntxq = 0, major;
	unsigned char *buf = NULL;
	size_t cap, done = 0;
	int n, r;

	if (!strncmp(val, "other:", 6)) {
		knob_msg(msg, msglen, "%s", "a tree debloat did not build cannot be rebuilt");
		return -EINVAL;
	}
	r = root_spec_parse(val, &spec, msg, msglen);
	if (r == 0)
		r = root_spec_opts(&spec, &opts, msg, msglen);
	if (r < 0)
		return r;
	r = root_state_read(k, env, &st);
	if (r < 0)
		return r;
	if (spec.shape == ROOT_SHAPE_DEFAULT && (!st.root || TC_H_MAJ(st.root->handle) == 0)) {
		r = strcmp(st.spec, "default") ? reset_kernel_root(&st, msg, msglen) : 0;
		goto out;
	}
	if (spec.shape == ROOT_SHAPE_MQ) {
		r = knob_link_facts(st.ifindex, &facts);
		if (r < 0)
			goto out;
		ntxq = tx_queue_count(env, k->ifname, facts.tx_queues);
	}
	read_clock(env, &clock);
	/* Never reuse a handle of the old tree: see knob.h. ("default" names none.) */
	major = KNOB_ROOT_MAJOR;
	if (spec.shape != ROOT_SHAPE_DEFAULT && !handles_free(&st.dump, &spec, major, ntxq))
		major = KNOB_ROOT_MAJOR_ALT;
	if (spec.shape != ROOT_SHAPE_DEFAULT && !handles_free(&st.dump, &spec, major, ntxq)) {
		knob_msg(msg, msglen, "qdisc handles 1: and 4001: are both taken on %s", k->ifname);
		r = -EBUSY;
		goto out;
	}
	cap = 4096 + (size_t)ntxq * 256;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	n = knob_qdisc_requests_at(val, st.ifindex, ntxq, 1, major, &clock, 0, buf, cap, msg,
				   msglen);
	if (n < 0) {
		r = n;
		goto out;
	}
	r = knob_send(buf, (size_t)n, &done, msg, msglen);
	if (r < 0 && done > 0 && may_roll_back && strncmp(st.spec, "other:", 6)) {
		/* Half a tree is worse than the old one: rebuild what was there. */
		char again[160];
		int r2 = write_root(k, env, st.spec, false, again, sizeof(again));

		if (r2 < 0 && msg && msglen) {
			size_t used = strlen(msg);

			snprintf(msg + used, msglen - used, "%s(restoring \"%s\" failed too: %s)",
				 used ? " " : "", st.spec, again[0] ? again : strerror(-r2));
		}
	}
out:
	free(buf);
	root_state_free(&st);
	return r;
}

/* ---- comparing values ---- */

int knob_qdisc_canonical(const char *spec, char *out, size_t len, char *err, size_t errlen)
{
	struct root_spec s;
	struct qdisc_opts opts;
	char words[KNOB_VALUE_MAX], rate[32];
	int n, r;

	r = root_spec_parse(spec, &s, err, errlen);
	if (r == 0)
		r = root_spec_opts(&s, &opts, err, errlen);
	if (r < 0)
		return r;
	if (s.shape == ROOT_SHAPE_DEFAULT)
		return knob_put(out, len, "default");
	if (qdisc_opts_format(&opts, words, sizeof(words)) < 0)
		return -ENOSPC;
	rate[0] = '\0';
	if (s.shape == ROOT_SHAPE_HTB && db_format_rate(s.htb_rate, rate, sizeof(rate)) < 0)
		return -EINVAL;
	n = snprintf(out, len, "%s%s%s%s%s%s", s.shape == ROOT_SHAPE_MQ ? "mq " : "",
		     s.shape == ROOT_SHAPE_HTB ? "htb " : "", rate, rate[0] ? " " : "", s.kind,
		     words[0] ? " " : "");
	if (n < 0 || (size_t)n + strlen(words) >= len)
		return -ENOSPC;
	memcpy(out + n, words, strlen(words) + 1);
	return 0;
}

/* ---- commands ---- */

/* The leaf's kind and option words, as the spec wrote them. */
static void leaf_text(const struct root_spec *s, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", s->kind);

	for (int i = 0; i < s->nwords && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", s->words[i]);
}

int knob_root_lines(struct knob_lines *o, const char *ifname, const char *value, unsigned ntxq)
{
	struct root_spec s;
	char err[160], leaf[KNOB_VALUE_MAX], rate[32];

	struct qdisc_opts opts;

	/* The grammar, words and values too (as knob_write would send them): nothing
	 * else reaches a command line. */
	if (root_spec_parse(value, &s, err, sizeof(err)) < 0 ||
	    (s.shape != ROOT_SHAPE_DEFAULT && root_spec_opts(&s, &opts, err, sizeof(err)) < 0))
		return -EINVAL;
	leaf_text(&s, leaf, sizeof(leaf));
	switch (s.shape) {
	case ROOT_SHAPE_DEFAULT:
		knob_line(o, "tc qdisc del dev %s root", ifname);
		break;
	case ROOT_SHAPE_LEAF:
		knob_line(o, "tc qdisc replace dev %s root handle 1: %s", ifname, leaf);
		break;
	case ROOT_SHAPE_MQ:
		if (!ntxq)
			return -EINVAL;
		knob_line(o, "tc qdisc replace dev %s root handle 1: mq", ifname);
		for (unsigned q = 1; q <= ntxq; q++)
			knob_line(o, "tc qdisc replace dev %s parent 1:%x handle %x: %s", ifname, q,
				  q + 1, leaf);
		break;
	case ROOT_SHAPE_HTB:
		if (db_format_rate(s.htb_rate, rate, sizeof(rate)) < 0)
			return -EINVAL;
		knob_line(o, "tc qdisc replace dev %s root handle 1: htb default 1", ifname);
		knob_line(o, "tc class replace dev %s parent 1: classid 1:1 htb rate %s ceil %s",
			  ifname, rate, rate);
		knob_line(o, "tc qdisc replace dev %s parent 1:1 handle 10: %s", ifname, leaf);
		break;
	}
	return o->err;
}

/* ---- the row ---- */

static void root_label(const struct knob *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "root qdisc");
}

static int root_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	struct root_state st;
	int r;

	r = root_state_read(k, env, &st);
	if (r < 0)
		return r;
	r = knob_put(val, len, st.spec);
	root_state_free(&st);
	return r;
}

static int root_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		      size_t msglen)
{
	return write_root(k, env, val, true, msg, msglen);
}

static int root_commands(struct knob_lines *o, const struct knob *k, const char *value,
			 unsigned ntxq)
{
	return knob_root_lines(o, k->ifname, value, ntxq);
}

/* networkd's qdisc sections and NetworkManager's tc.qdiscs: the emitters' own words. */
static void root_tree_word(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->place = KNOB_QDISC_TREE;
}

const struct knob_type knob_root_qdisc = {
    .name = "root-qdisc",
    .phase = 0,
    .flags = KNOB_LIVE_TREE,
    .label = root_label,
    .read = root_read,
    .write = root_write,
    .equal = root_spec_same,
    .commands = root_commands,
    .spec_value = true,
    .networkd = root_tree_word,
    .nm = root_tree_word,
};
