/* SPDX-License-Identifier: MIT */
/*
 * emit-networkd.c - the plan as systemd-networkd (systemd 252) files: a .link file per
 * interface (udev applies it when the device appears), a .network drop-in with the root
 * qdisc, and a sysctl.d file for the host-wide steps. Keys: systemd.link(5),
 * systemd.network(5), sysctl.d(5).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "fix/emit.h"
#include "fix/knob-type.h"
#include "fix/root-spec.h"
#include "qkind/qkind.h"

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % 1000000000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "s", (uint64_t)(ns / 1000000000ULL));
	else if (ns % 1000000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "ms", (uint64_t)(ns / 1000000ULL));
	else if (ns % 1000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "us", (uint64_t)(ns / 1000ULL));
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
}

/* bytes/s as bits/s, with the largest of G, M, K (base 1000) that divides it. */
static void fmt_rate(uint64_t bytes_per_sec, char *buf, size_t len)
{
	uint64_t bits = bytes_per_sec * 8;

	if (bits && bits % 1000000000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "G", (uint64_t)(bits / 1000000000ULL));
	else if (bits && bits % 1000000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "M", (uint64_t)(bits / 1000000ULL));
	else if (bits && bits % 1000ULL == 0)
		snprintf(buf, len, "%" PRIu64 "K", (uint64_t)(bits / 1000ULL));
	else
		snprintf(buf, len, "%" PRIu64, bits);
}

/*
 * A spec option's networkd key and value (plan.h's base units), from its kind's table
 * (qkind/qkind.h): a time as a timespan, a rate in bits/s, an on/off attribute as
 * yes/no, a choice word as networkd spells it. NULL when networkd has no key for it;
 * "" as the value when the key is best left out (cake "unlimited", its default).
 */
static const char *nd_option(const struct qkind *k, const struct root_spec_opt *o, char *v,
			     size_t len)
{
	const struct qchoice *c;
	const struct qattr *a = k ? qkind_word_attr(k, o->name, &c) : NULL;

	if (!a || !a->networkd || !o->numeric)
		return NULL;
	if (c)
		snprintf(v, len, "%s",
			 c->networkd		 ? c->networkd
			 : a->show == QSHOW_BOOL ? (c->value ? "yes" : "no")
						 : c->word);
	else if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8)
		snprintf(v, len, "%s", o->v ? "yes" : "no");
	else if (a->enc == QENC_TIME_US || a->enc == QENC_TIME_NS)
		fmt_time(o->v, v, len);
	else if ((a->enc == QENC_RATE32 || a->enc == QENC_RATE64) && o->v)
		fmt_rate(o->v, v, len);
	else if (a->enc == QENC_RATE32 || a->enc == QENC_RATE64)
		v[0] = '\0';
	else
		snprintf(v, len, "%" PRIu64, o->v);
	return a->networkd;
}

/* One qdisc section: the leaf kind with its options, at parent with handle (hex). */
static void qdisc_section(struct emit *e, struct emit_file *f, const struct plan_step *s,
			  const struct root_spec *sp, const char *parent, const char *handle)
{
	const struct qkind *k = qkind_find(sp->kind);

	emit_line(e, f, "[%s]", k->networkd);
	emit_line(e, f, "Parent=%s", parent);
	emit_line(e, f, "Handle=%s", handle);
	for (unsigned i = 0; i < sp->nopts; i++) {
		const struct root_spec_opt *o = &sp->opts[i];
		char v[48];
		const char *key = nd_option(k, o, v, sizeof(v));

		if (!key) {
			emit_cannot(e, f, s, "systemd.network(5) has no key for %s's \"%s\"",
				    sp->kind, o->name);
			continue;
		}
		if (*v) /* else left out: the kernel's default */
			emit_line(e, f, "%s=%s", key, v);
	}
}

static void root_qdisc(struct emit *e, struct emit_file *f, const struct plan_step *s)
{
	const struct qkind *k;
	struct root_spec sp;
	char rate[32];

	if (!strcmp(s->after, "default")) {
		emit_line(e, f, "# the root qdisc stays the kernel's own choice: no section");
		return;
	}
	if (root_spec_read(s->after, &sp) < 0 || !(k = qkind_find(sp.kind)) || !k->networkd) {
		emit_cannot(e, f, s, "not a root-qdisc spec networkd has a section for");
		return;
	}
	switch (sp.shape) {
	case ROOT_SHAPE_DEFAULT: /* said above: root_spec_read takes no "default" */
		break;
	case ROOT_SHAPE_LEAF:
		qdisc_section(e, f, s, &sp, "root", "1");
		break;
	case ROOT_SHAPE_MQ:
		emit_cannot(
		    e, f, s,
		    "systemd.network(5) has no mq section, so no qdisc per TX queue; "
		    "net.core.default_qdisc gives each queue its kind, without the options");
		break;
	case ROOT_SHAPE_HTB:
		fmt_rate(sp.htb_rate, rate, sizeof(rate));
		emit_line(e, f, "[HierarchyTokenBucket]");
		emit_line(e, f, "Parent=root");
		emit_line(e, f, "Handle=1");
		emit_line(e, f, "DefaultClass=1");
		emit_line(e, f, "%s", "");
		emit_line(e, f, "[HierarchyTokenBucketClass]");
		emit_line(e, f, "Parent=1:0");
		emit_line(e, f, "ClassId=1:1");
		emit_line(e, f, "Rate=%s", rate);
		emit_line(e, f, "CeilRate=%s", rate);
		emit_line(e, f, "%s", "");
		qdisc_section(e, f, s, &sp, "1:1", "10");
		break;
	}
}

/* The row's networkd words for a step (knob-type.h). */
static void nd_word(const struct plan_step *s, struct knob_word *w)
{
	const struct knob_type *t = knob_type_of(s->knob.kind);

	memset(w, 0, sizeof(*w));
	if (t && t->networkd)
		t->networkd(&s->knob, s->after, w);
}

/*
 * Names udev's predictable naming gives (en*, wl*, ww*, ib*, sl*: systemd.net-naming-
 * scheme(7)) are never the kernel's (eth%d, wlan%d, ...), so OriginalName= would
 * not match them.
 */
static bool udev_given_name(const char *name)
{
	static const char *const prefixes[] = {"en", "wl", "ww", "ib", "sl"};

	for (size_t i = 0; i < COUNT(prefixes); i++)
		if (!strncmp(name, prefixes[i], 2))
			return true;
	return false;
}

/* Does the step belong in the .link file (else the .network drop-in)? */
static bool is_link_step(enum knob_kind k)
{
	const struct knob_type *t = knob_type_of(k);

	return t && t->nd_link;
}

static void one_target(const struct plan *p, size_t ti, struct emit *e)
{
	const char *name = p->targets[ti].name;
	struct emit_file *link = NULL, *net = NULL;
	bool any_link = false, any_net = false;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];

		if (s->target != (int)ti || !emit_step_wanted(p, s))
			continue;
		any_link |= is_link_step(s->knob.kind);
		any_net |= !is_link_step(s->knob.kind);
	}
	if (any_link) {
		link = emit_file_new(e, "10-debloat-%s.link", name);
		emit_line(e, link, "# debloat fix --emit networkd: %s's link settings.", name);
		emit_line(e, link,
			  "# Install in /etc/systemd/network/; udev applies it when the "
			  "device appears.");
		emit_line(e, link,
			  "# Only the first .link file matching a device applies, so this "
			  "one repeats");
		emit_line(e, link, "# 99-default.link's naming policy: names stay as they were.");
		emit_line(e, link, "[Match]");
		emit_line(e, link, "OriginalName=%s", name);
		if (udev_given_name(name)) {
			emit_line(e, link,
				  "# debloat: %s looks like a name udev gave (predictable naming): "
				  "the kernel's name",
				  name);
			emit_line(e, link,
				  "# is another, which OriginalName= must match; or match "
				  "PermanentMACAddress= instead.");
			emit_warn(
			    e,
			    "matches %s by OriginalName=, which is the kernel's name: %s looks "
			    "like one udev gave (match PermanentMACAddress= instead)",
			    name, name);
		}
		emit_line(e, link, "%s", "");
		emit_line(e, link, "[Link]");
		emit_line(e, link, "NamePolicy=keep kernel database onboard slot path");
		emit_line(e, link, "AlternativeNamesPolicy=database onboard slot path");
		emit_line(e, link, "MACAddressPolicy=persistent");
	}
	if (any_net) {
		net = emit_file_new(e, "90-debloat-%s.network.conf", name);
		emit_line(e, net,
			  "# debloat fix --emit networkd: %s's queueing, a .network drop-in.",
			  name);
		emit_line(e, net,
			  "# Install as /etc/systemd/network/NAME.network.d/90-debloat.conf, "
			  "NAME.network");
		emit_line(e, net,
			  "# being the file that configures %s (`networkctl status %s`: "
			  "Network File).",
			  name, name);
	}
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		struct knob_word w;

		if (s->target != (int)ti || !emit_step_wanted(p, s))
			continue;
		nd_word(s, &w);
		if (is_link_step(s->knob.kind)) {
			if (w.place != KNOB_KEY) {
				emit_cannot(e, link, s, "%s",
					    w.why ? w.why : "systemd.link(5) has no key for it");
				continue;
			}
			emit_line(e, link, "%s=%s", w.key, w.value);
			continue;
		}
		if (w.place == KNOB_QDISC_TREE) {
			emit_line(e, net, "%s", "");
			root_qdisc(e, net, s);
		} else {
			emit_cannot(e, net, s, "%s", w.why ? w.why : "not a networkd setting");
		}
	}
}

int emit_networkd(const struct plan *p, struct emit *e)
{
	struct emit_file *sysctl = NULL;

	for (size_t ti = 0; ti < p->ntargets && !e->err; ti++)
		if (emit_target_wanted(&p->targets[ti]))
			one_target(p, ti, e);
	for (size_t i = 0; i < p->nsteps && !e->err; i++) {
		const struct plan_step *s = &p->steps[i];
		struct knob_word w;

		if (s->target >= 0 || !emit_step_wanted(p, s))
			continue;
		nd_word(s, &w);
		if (w.place != KNOB_SYSCTL_LINE) {
			emit_cannot(e, NULL, s, "not a host-wide setting networkd knows");
			continue;
		}
		if (!sysctl) {
			sysctl = emit_file_new(e, "90-debloat.sysctl.conf");
			emit_line(e, sysctl,
				  "# debloat fix --emit networkd: the host-wide settings.");
			emit_line(e, sysctl,
				  "# Install as /etc/sysctl.d/90-debloat.conf "
				  "(systemd-sysctl applies it at boot).");
		}
		emit_line(e, sysctl, "%s = %s", s->knob.name, s->after);
	}
	return e->err;
}
