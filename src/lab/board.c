/* SPDX-License-Identifier: MIT */
/* lab/board.c - lab/board.h: a lab profile from a snapshot, and fix's plan applied to it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit/drivers.h"
#include "audit/policy.h"
#include "base/array.h"
#include "base/say.h"
#include "fix/knob-type.h"
#include "host/snapshot.h"
#include "lab/board.h"
#include "qkind/qkind.h"

/* Drivers whose behaviour below the qdisc a built-in profile describes (its header
 * gives the evidence). */
static const struct {
	const char *driver, *profile;
} bases[] = {
    {"cpsw", "bbb-stock"}, {"cpsw-switch", "bbb-stock"}, {"cpsw_new", "bbb-stock"},
    {"smsc95xx", "rpi3b"}, {"lan78xx", "rpi3bplus"},	 {"bcmgenet", "rpi4"},
    {"macb", "rpi5"},	   {"fec", "wandboard"},
};

const char *lab_board_base(const char *driver)
{
	for (size_t i = 0; i < COUNT(bases); i++)
		if (driver && !strcmp(bases[i].driver, driver))
			return bases[i].profile;
	return NULL;
}

static void note(struct lab_board *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct lab_board *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_vnote(b->notes[0], sizeof(b->notes[0]), &b->nnotes, LAB_BOARD_NOTES, fmt, ap);
	va_end(ap);
}

static bool candidate(const struct iface *ifc)
{
	return ifc->physical && !ifc->loopback && ifc->driver[0];
}

int lab_board_pick(const struct host *h, const char *name, char *err, size_t errlen)
{
	char list[256] = "";
	int found = -1, n = 0;

	for (size_t i = 0; i < h->n; i++) {
		if (name) {
			if (!strcmp(h->ifaces[i].name, name))
				return (int)i;
			continue;
		}
		if (!candidate(&h->ifaces[i]))
			continue;
		if (n++)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, h->ifaces[i].name, sizeof(list) - strlen(list) - 1);
		found = (int)i;
	}
	if (name) {
		snprintf(err, errlen, "the snapshot has no interface %s", name);
		return -ENODEV;
	}
	if (n == 0) {
		snprintf(err, errlen,
			 "the snapshot has no physical interface with a driver "
			 "(name one with --iface)");
		return -ENODEV;
	}
	if (n > 1) {
		snprintf(err, errlen,
			 "the snapshot has %d physical interfaces (%s): name one "
			 "with --iface",
			 n, list);
		return -EEXIST;
	}
	return found;
}

static const struct value *opt(const struct qdisc *q, const char *key)
{
	for (unsigned i = 0; i < q->noptions; i++)
		if (!strcmp(q->options[i].key, key))
			return &q->options[i];
	return NULL;
}

/*
 * " WORD V" for an option the snapshot has: the word from the kind's table, the value as
 * a number in the key's own unit (microseconds spelled "us"), which the lab reads as tc
 * does; a flag as its word ("ecn", "noecn").
 */
static void add_opt(char *buf, size_t len, const struct qdisc *q, const char *key)
{
	const struct qattr *a = qkind_key_attr(qkind_find(q->kind), key);
	const struct value *v = opt(q, key);
	size_t n = strlen(buf);
	char word[32];

	if (!a || !v || n >= len)
		return;
	if (a->choices && qkind_spell(a, v->u, word, sizeof(word)) == 0)
		snprintf(buf + n, len - n, " %s", word);
	else if (!a->choices && v->type == VALUE_UINT)
		snprintf(buf + n, len - n, " %s %llu%s", a->word, (unsigned long long)v->u,
			 v->unit == UNIT_US ? "us" : "");
}

/*
 * What the lab's emulator models of each kind it models, by the audit's keys (a fact of
 * the emulator, not of the kinds), in the order the spec lists them.
 */
static const struct {
	const char *kind;
	const char *keys[9];
} modelled[] = {
    {"pfifo", {"limit_packets"}},
    {"bfifo", {"limit_bytes"}},
    {"fq_codel",
     {"limit_packets", "flows", "quantum_bytes", "target_us", "interval_us", "memory_limit_bytes",
      "drop_batch_packets", "ecn"}},
    {"codel", {"limit_packets", "target_us", "interval_us", "ecn"}},
    {"fq", {"limit_packets", "flow_limit_packets", "quantum_bytes"}},
};

/* The lab spec of one qdisc of the snapshot (no children but mq's). */
static int qdisc_spec(const struct qdisc *q, const char *base_qdisc, char *buf, size_t len,
		      char *err, size_t errlen)
{
	if (!strcmp(q->kind, "pfifo_fast")) {
		/* The base's pfifo_fast keeps its ring_batch (32-bit ARM). */
		snprintf(buf, len, "%s",
			 strncmp(base_qdisc, "pfifo_fast", 10) ? "pfifo_fast" : base_qdisc);
		return 0;
	}
	for (size_t i = 0; i < COUNT(modelled); i++) {
		if (strcmp(q->kind, modelled[i].kind))
			continue;
		snprintf(buf, len, "%s", q->kind);
		for (size_t j = 0; j < COUNT(modelled[i].keys) && modelled[i].keys[j]; j++)
			add_opt(buf, len, q, modelled[i].keys[j]);
		return 0;
	}
	snprintf(err, errlen,
		 "the lab cannot model root qdisc %s (it models pfifo_fast, "
		 "pfifo, bfifo, fq_codel, codel, fq, and mq over one kind)",
		 q->kind);
	return -EOPNOTSUPP;
}

static int root_spec(const struct iface *ifc, const char *base_qdisc, struct lab_board *b,
		     char *buf, size_t len, char *err, size_t errlen)
{
	const struct qdisc *q = ifc->qdisc;

	if (!q) {
		snprintf(err, errlen, "the snapshot does not say %s's root qdisc", ifc->name);
		return -EOPNOTSUPP;
	}
	if (!strcmp(q->kind, "mq")) {
		if (!q->nchildren) {
			snprintf(err, errlen, "%s's mq root has no children in the snapshot",
				 ifc->name);
			return -EOPNOTSUPP;
		}
		for (size_t i = 1; i < q->nchildren; i++)
			if (strcmp(q->children[i].kind, q->children[0].kind)) {
				snprintf(err, errlen,
					 "the lab cannot model %s's mq root over "
					 "children of different kinds (%s, %s)",
					 ifc->name, q->children[0].kind, q->children[i].kind);
				return -EOPNOTSUPP;
			}
		note(b,
		     "qdisc: mq with %zu %s children; the lab models one TX queue, so one %s "
		     "stands for them",
		     q->nchildren, q->children[0].kind, q->children[0].kind);
		q = &q->children[0];
	}
	return qdisc_spec(q, base_qdisc, buf, len, err, errlen);
}

static int set(struct lab_profile *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set(struct lab_profile *p, const char *key, const char *fmt, ...)
{
	char value[LAB_SPEC_MAX], err[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	return lab_profile_set(p, key, value, err, sizeof(err));
}

int lab_board_profile(const struct host *h, size_t idx, struct lab_profile *out,
		      struct lab_board *b, char *err, size_t errlen)
{
	const struct iface *ifc = &h->ifaces[idx];
	const char *compat[HOST_MAX_COMPATIBLE];
	const struct driver_ceiling *ceil;
	const char *base = lab_board_base(ifc->driver);
	char spec[LAB_SPEC_MAX];
	struct lab_profile p;
	struct verdict v;
	int r;

	memset(b, 0, sizeof(*b));
	snprintf(b->ifname, sizeof(b->ifname), "%s", ifc->name);
	snprintf(b->driver, sizeof(b->driver), "%s", ifc->driver);
	if (base) {
		r = lab_profile_load(&p, base, err, errlen);
		if (r < 0)
			return r;
		snprintf(b->base, sizeof(b->base), "%s", base);
		note(b, "driver %s: completions, URBs, rx_ring and TSO as the built-in profile %s",
		     ifc->driver, base);
	} else {
		lab_profile_defaults(&p);
		note(b,
		     "driver %s: no built-in profile models it; completions, ring behaviour and "
		     "TSO are the lab's defaults",
		     ifc->driver[0] ? ifc->driver : "(unknown)");
	}
	snprintf(p.name, sizeof(p.name), "%s-snapshot", base ? base : "board");
	snprintf(p.description, sizeof(p.description), "%s (%s) from a snapshot%s%.180s", ifc->name,
		 ifc->driver[0] ? ifc->driver : "no driver", h->hostname[0] ? " of " : "",
		 h->hostname);

	r = root_spec(ifc, p.qdisc, b, spec, sizeof(spec), err, errlen);
	if (r < 0)
		return r;
	if (set(&p, "qdisc", "%s", spec) < 0) {
		snprintf(err, errlen, "%s's root qdisc \"%s\" is not one the lab accepts",
			 ifc->name, spec);
		return -EOPNOTSUPP;
	}
	if (ifc->speed_mbps)
		p.rate_bps = (uint64_t)ifc->speed_mbps * 1000000 / 8;
	else
		note(b, "rate: the snapshot has no link speed; the base's is kept");
	if (ifc->mtu >= 68 && ifc->mtu <= 9000)
		p.mtu = ifc->mtu;
	if (ifc->txqueuelen >= 1 && ifc->txqueuelen <= 100000)
		p.txqueuelen = ifc->txqueuelen;
	if (ifc->gso != FEATURE_UNKNOWN)
		p.gso = ifc->gso == FEATURE_ON;
	/* TSO in the model is what the driver does with a super-packet; only "off" in
	 * the snapshot overrides the base. */
	if (ifc->tso == FEATURE_OFF)
		p.tso = false;

	policy_iface(ifc, h, &v);
	if (v.bql_in_use != TRI_UNKNOWN)
		p.bql = v.bql_in_use == TRI_YES;
	else
		note(b, "bql: the snapshot cannot tell (%s); the base's is kept",
		     v.bql_reason ? v.bql_reason : "unknown");
	if (v.ring_tx > 0 && v.ring_tx <= 4096) {
		/* A USB NIC's "ring" is its URB queue, which ethtool does not see. */
		if (!(p.urb_bytes && !v.ring_from_table))
			p.ring = (uint32_t)v.ring_tx;
		if (v.ring_from_table)
			note(b, "ring: %lld, from the drivers table (ethtool did not say)",
			     (long long)v.ring_tx);
	} else {
		note(b, "ring: unknown to the snapshot and the drivers table; the base's %u",
		     p.ring);
	}

	for (size_t i = 0; i < h->ncompatible && i < HOST_MAX_COMPATIBLE; i++)
		compat[i] = h->compatible[i];
	ceil = driver_ceiling(ifc->driver, compat, h->ncompatible, ifc->usb_speed_mbps);
	if (ceil) {
		p.ceiling_bps = (uint64_t)ceil->mbps * 1000000 / 8;
		p.ceiling_shared = ceil->shared;
		note(b, "ceiling: %u Mbit/s%s, %s on %s (the drivers table)", ceil->mbps,
		     ceil->shared ? " shared by transmit and receive" : "", ceil->driver,
		     ceil->where);
	} else {
		p.ceiling_bps = 0;
		p.ceiling_shared = false;
	}
	r = lab_profile_check(&p, err, errlen);
	if (r < 0)
		return r;
	*out = p;
	return 0;
}

/* ---- The plan ---- */

/* The knob as the lab's step names it: its label without the interface. */
static const char *knob_label(const struct knob *k, char *buf, size_t len)
{
	const struct knob_type *t = knob_type_of(k->kind);

	if (!t)
		return "?";
	t->label(k, buf, len);
	return buf;
}

/* The plan's root-qdisc spec as the lab's; 0, or -EOPNOTSUPP with why in why. */
static int plan_qdisc(const char *after, char *buf, size_t len, char *why, size_t whylen)
{
	char rate[32], rest[KNOB_VALUE_MAX];
	int n = 0;

	if (sscanf(after, "cake bandwidth %31s%n", rate, &n) == 1 && !after[n]) {
		snprintf(buf, len, "shaper rate %s child fq_codel", rate);
		return 0;
	}
	if (sscanf(after, "htb %31s %n", rate, &n) == 1 && n > 0 && after[n]) {
		snprintf(rest, sizeof(rest), "%s", after + n);
		snprintf(buf, len, "shaper rate %s child %s", rate, rest);
		return 0;
	}
	if (!strncmp(after, "mq ", 3)) {
		snprintf(buf, len, "%s", after + 3);
		return 0;
	}
	if (!strcmp(after, "default")) {
		snprintf(why, whylen, "the kernel's default root: the lab needs a kind");
		return -EOPNOTSUPP;
	}
	snprintf(buf, len, "%s", after);
	return 0;
}

/*
 * How the lab models one kind of knob: the profile key a step sets, with spec the
 * value (left empty: the plan's value), or 0 with not set (out->lab then says why).
 * One function per kind the lab knows, in one table; a kind without a row is listed
 * as not modelled.
 */
struct lab_model {
	int (*model)(const struct plan_step *s, const struct lab_profile *p,
		     const struct lab_board *b, char *spec, size_t speclen, char *why,
		     size_t whylen, const char **key);
};

static int model_root(const struct plan_step *s, const struct lab_profile *p,
		      const struct lab_board *b, char *spec, size_t speclen, char *why,
		      size_t whylen, const char **key)
{
	char w[LAB_BOARD_NOTE_MAX];

	if (plan_qdisc(s->after, spec, speclen, w, sizeof(w)) < 0) {
		snprintf(why, whylen, "not modelled: %s", w);
		return 0;
	}
	*key = "qdisc";
	return 0;
}

static int model_txqueuelen(const struct plan_step *s, const struct lab_profile *p,
			    const struct lab_board *b, char *spec, size_t speclen, char *why,
			    size_t whylen, const char **key)
{
	*key = "txqueuelen";
	return 0;
}

static int model_bql(const struct plan_step *s, const struct lab_profile *p,
		     const struct lab_board *b, char *spec, size_t speclen, char *why,
		     size_t whylen, const char **key)
{
	if (s->knob.queue != 0)
		snprintf(why, whylen,
			 "not modelled: the lab has one TX queue; tx-0's limit stands for all");
	else if (!p->bql)
		snprintf(why, whylen, "not modelled: this board has no BQL");
	else
		*key = "bql_limit_max";
	return 0;
}

static int model_ring_tx(const struct plan_step *s, const struct lab_profile *p,
			 const struct lab_board *b, char *spec, size_t speclen, char *why,
			 size_t whylen, const char **key)
{
	*key = "ring";
	return 0;
}

static int model_ring_rx(const struct plan_step *s, const struct lab_profile *p,
			 const struct lab_board *b, char *spec, size_t speclen, char *why,
			 size_t whylen, const char **key)
{
	const struct driver_info *d = driver_lookup(b->driver);
	unsigned long v;

	if (d && d->lever == DRIVER_LEVER_RX_RING && sscanf(s->after, "%lu", &v) == 1 &&
	    (long)v == d->lever_rx) {
		snprintf(spec, speclen, "%d", d->lever_tx);
		*key = "ring";
		return 0;
	}
	snprintf(why, whylen, "not modelled: the lab's receive side has no ring to size");
	return 0;
}

static int model_offload(const struct plan_step *s, const struct lab_profile *p,
			 const struct lab_board *b, char *spec, size_t speclen, char *why,
			 size_t whylen, const char **key)
{
	if (!strcmp(s->knob.name, "tx-generic-segmentation"))
		*key = "gso";
	else if (!strcmp(s->knob.name, "tx-tcp-segmentation"))
		*key = "tso";
	else
		snprintf(why, whylen, "not modelled: the lab's board has no %s", s->knob.name);
	return 0;
}

static int model_gso_max_size(const struct plan_step *s, const struct lab_profile *p,
			      const struct lab_board *b, char *spec, size_t speclen, char *why,
			      size_t whylen, const char **key)
{
	snprintf(why, whylen,
		 "not modelled: the lab's GSO packets are as the board's TCP sends them");
	return 0;
}

static int model_sysctl(const struct plan_step *s, const struct lab_profile *p,
			const struct lab_board *b, char *spec, size_t speclen, char *why,
			size_t whylen, const char **key)
{
	snprintf(why, whylen, "%s",
		 !strcmp(s->knob.name, "net.core.default_qdisc")
		     ? "nothing to model: the root qdisc is set"
		     : "not modelled: the lab's endpoints keep their own sysctls");
	return 0;
}

/* The ifb's root, as the lab's download shaper: the same spellings as a root shaper
 * (cake bandwidth R, htb R LEAF). */
static int model_ingress(const struct plan_step *s, const struct lab_profile *p,
			 const struct lab_board *b, char *spec, size_t speclen, char *why,
			 size_t whylen, const char **key)
{
	int r = model_root(s, p, b, spec, speclen, why, whylen, key);

	if (*key)
		*key = "ingress";
	return r;
}

static const struct lab_model models[KNOB_KINDS] = {
    [KNOB_ROOT_QDISC] = {model_root},	[KNOB_TXQUEUELEN] = {model_txqueuelen},
    [KNOB_BQL_LIMIT_MAX] = {model_bql}, [KNOB_RING_TX] = {model_ring_tx},
    [KNOB_RING_RX] = {model_ring_rx},	[KNOB_OFFLOAD] = {model_offload},
    [KNOB_SYSCTL] = {model_sysctl},	[KNOB_GSO_MAX_SIZE] = {model_gso_max_size},
    [KNOB_INGRESS] = {model_ingress},
};

static int apply_step(const struct plan_step *s, struct lab_profile *p, const struct lab_board *b,
		      struct lab_board_step *out, char *err, size_t errlen)
{
	const struct lab_model *m =
	    (unsigned)s->knob.kind < KNOB_KINDS ? &models[s->knob.kind] : NULL;
	char spec[LAB_SPEC_MAX], label[80];
	const char *key = NULL;
	int r;

	spec[0] = '\0';
	if (!m || !m->model) {
		snprintf(out->lab, sizeof(out->lab), "not modelled: the lab has no %s",
			 knob_label(&s->knob, label, sizeof(label)));
		return 0;
	}
	r = m->model(s, p, b, spec, sizeof(spec), out->lab, sizeof(out->lab), &key);
	if (r < 0 || !key)
		return r;
	if (!spec[0])
		snprintf(spec, sizeof(spec), "%s", s->after);
	r = lab_profile_set(p, key, spec, err, errlen);
	if (r < 0)
		return r;
	out->applied = true;
	snprintf(out->lab, sizeof(out->lab), "%s = %s", key, spec);
	return 0;
}

int lab_board_apply_plan(const struct plan *pl, struct lab_profile *out, struct lab_board *b,
			 char *err, size_t errlen)
{
	struct lab_profile p = *out;
	int target = -1, r;
	char label[80];

	for (size_t i = 0; i < pl->ntargets; i++)
		if (!strcmp(pl->targets[i].name, b->ifname))
			target = (int)i;
	if (target < 0) {
		snprintf(err, errlen, "the plan has no steps for %s", b->ifname);
		return -EINVAL;
	}
	b->nsteps = 0;
	for (size_t i = 0; i < pl->nsteps; i++) {
		const struct plan_step *s = &pl->steps[i];
		struct lab_board_step *st;

		if (s->target != target && s->target != -1)
			continue;
		if (b->nsteps == LAB_BOARD_STEPS) {
			snprintf(err, errlen, "the plan has more than %d steps for %s",
				 LAB_BOARD_STEPS, b->ifname);
			return -E2BIG;
		}
		st = &b->steps[b->nsteps++];
		memset(st, 0, sizeof(*st));
		snprintf(st->knob, sizeof(st->knob), "%s",
			 knob_label(&s->knob, label, sizeof(label)));
		snprintf(st->value, sizeof(st->value), "%s", s->after);
		r = apply_step(s, &p, b, st, err, errlen);
		if (r < 0)
			return r;
	}
	snprintf(p.name, sizeof(p.name), "%s-fixed", b->base[0] ? b->base : "board");
	r = lab_profile_check(&p, err, errlen);
	if (r < 0)
		return r;
	*out = p;
	return 0;
}

/* ---- Loading ---- */

const char *lab_board_builtin_text(const char *name)
{
	for (const struct lab_builtin_profile *b = lab_builtin_boards; b->name; b++)
		if (!strcmp(b->name, name))
			return b->text;
	return NULL;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".json"));
}

int lab_board_load(const char *snapshot, const char *ifname, bool fixed,
		   const struct plan_options *opts, struct lab_profile *out, struct lab_board *b,
		   char *err, size_t errlen)
{
	struct host h = {0};
	struct plan pl;
	struct lab_profile p;
	const char *text = is_path(snapshot) ? NULL : lab_board_builtin_text(snapshot);
	char *names[1] = {(char *)ifname};
	char why[256];
	size_t bad;
	int idx, r;

	why[0] = '\0';
	if (text)
		r = snapshot_parse(text, strlen(text), &h, why, sizeof(why));
	else
		r = snapshot_read_file(snapshot, &h, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "cannot read snapshot %s: %s", snapshot,
			 why[0] ? why : strerror(-r));
		return r;
	}
	/* As fix --from FILE [NAME]: a named interface is the only one planned. */
	if (ifname && (r = snapshot_select(&h, names, 1, &bad)) < 0) {
		snprintf(err, errlen, "snapshot %s has no interface %s", snapshot, ifname);
		goto out;
	}
	idx = r = lab_board_pick(&h, ifname, err, errlen);
	if (r < 0)
		goto out;
	r = lab_board_profile(&h, (size_t)idx, &p, b, err, errlen);
	if (r < 0 || !fixed)
		goto done;
	plan_init(&pl, opts);
	r = plan_build(&pl, &h, ifname != NULL);
	if (r < 0)
		snprintf(err, errlen, "cannot plan for snapshot %s: %s", snapshot, strerror(-r));
	else
		r = lab_board_apply_plan(&pl, &p, b, err, errlen);
	plan_free(&pl);
done:
	if (r >= 0) {
		*out = p;
		r = 0;
	}
out:
	host_free(&h);
	return r;
}

/* ---- The boards ---- */

const struct lab_board_entry lab_boards[] = {
    {"beaglebone-black", "BeagleBone Black", "its 2014 image (Debian 7, Linux 3.8)", "bbb-stock",
     "bbb-bql-fq_codel", NULL, "the 2014 cpsw BQL patch"},
    {"raspberry-pi-3b", "Raspberry Pi 3B", "Raspberry Pi OS, Linux 6.12", "rpi3b", NULL, "bql=on",
     "usbnet's BQL of Linux 6.19"},
    {"raspberry-pi-3bplus", "Raspberry Pi 3B+", "Raspberry Pi OS, Linux 6.12", "rpi3bplus",
     "rpi3bplus-bql", NULL, "a lan78xx patched for BQL"},
    {"raspberry-pi-4", "Raspberry Pi 4", "Raspberry Pi OS, Linux 6.12", "rpi4", NULL, NULL, NULL},
    {"raspberry-pi-5", "Raspberry Pi 5", "Raspberry Pi OS, Linux 6.12", "rpi5", NULL, "bql=on",
     "macb's BQL of Linux 6.15"},
    {"wandboard", "Wandboard", "Debian 12, Linux 6.1", "wandboard", "wandboard-bql", NULL,
     "a fec patched for BQL"},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

const struct lab_board_entry *lab_board_find(const char *name)
{
	for (const struct lab_board_entry *e = lab_boards; e->snapshot; e++)
		if (!strcmp(e->snapshot, name) || !strcmp(e->profile, name))
			return e;
	return NULL;
}
