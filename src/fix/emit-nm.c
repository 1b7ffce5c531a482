/* SPDX-License-Identifier: MIT */
/*
 * emit-nm.c - the plan as NetworkManager connection properties (nm-settings-nmcli(5),
 * NetworkManager 1.42): one shell script per interface that modifies the connection
 * managing it (`nmcli connection modify`) and reapplies it. NetworkManager has
 * ethtool.feature-* and ethtool.ring-* for offloads and rings, and tc.qdiscs with
 * options for fq_codel only (other kinds without options, mq among them); it has no
 * tc classes (htb), no txqueuelen, no BQL, no host-wide sysctls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "fix/emit.h"
#include "fix/root-spec.h"
#include "fix/knob-type.h"
#include "qdisc/qkind.h"
#include "host/iface.h"

#define NM_MAX_PROPS 64
#define NM_PROP_MAX  (KNOB_VALUE_MAX * 2)

struct nm_props {
	char v[NM_MAX_PROPS][NM_PROP_MAX];
	unsigned n;
};

/* The spec as NetworkManager's tc.qdiscs words: the options its kind's table marks
 * QA_NM (fq_codel's; times in microseconds); or -1 with *bad naming the option it has
 * no word for. */
static int leaf_words(const struct root_spec *sp, char *buf, size_t len, const char **bad)
{
	const struct qkind *k = qkind_find(sp->kind);
	size_t n = (size_t)snprintf(buf, len, "%s", sp->kind);

	for (unsigned i = 0; i < sp->nopts && n < len; i++) {
		const struct root_spec_opt *o = &sp->opts[i];
		const struct qchoice *c;
		const struct qattr *a = k ? qkind_word_attr(k, o->name, &c) : NULL;
		bool time = a && (a->enc == QENC_TIME_US || a->enc == QENC_TIME_NS);

		*bad = o->name;
		if (!a || c || !(a->flags & QA_NM) || !o->numeric)
			return -1;
		if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8) {
			if (!o->v) /* no word turns ECN off; leaving it out is the kernel's on */
				return -1;
			n += (size_t)snprintf(buf + n, len - n, " %s", a->word);
		} else {
			n += (size_t)snprintf(buf + n, len - n, " %s %" PRIu64, a->word,
					      time ? o->v / 1000 : o->v);
		}
	}
	return n < len ? 0 : -1;
}

static void root_qdisc(struct emit *e, struct emit_file *f, struct nm_props *pr,
		       const struct plan_target *t, const struct plan_step *s)
{
	char leaf[KNOB_VALUE_MAX], *out = pr->v[pr->n];
	const char *bad = "";
	struct root_spec sp;
	size_t n;

	if (!strcmp(s->after, "default")) {
		emit_line(e, f, "# the root qdisc stays the kernel's own choice: no tc.qdiscs");
		return;
	}
	if (root_spec_read(s->after, &sp) < 0) {
		emit_cannot(e, f, s, "not a root-qdisc spec");
		return;
	}
	if (sp.shape == ROOT_SHAPE_HTB) {
		emit_cannot(e, f, s, "NetworkManager has no traffic-control classes (htb)");
		return;
	}
	if (leaf_words(&sp, leaf, sizeof(leaf), &bad) < 0) {
		emit_cannot(e, f, s, "NetworkManager's tc.qdiscs has no option \"%s\" for %s", bad,
			    sp.kind);
		return;
	}
	if (sp.shape == ROOT_SHAPE_LEAF) {
		snprintf(out, NM_PROP_MAX, "tc.qdiscs 'root handle 1: %s'", leaf);
		pr->n++;
		return;
	}
	if (!t->ifc || !t->ifc->tx_queues) {
		emit_cannot(e, f, s, "the number of TX queues is unknown");
		return;
	}
	n = (size_t)snprintf(out, NM_PROP_MAX, "tc.qdiscs 'root handle 1: mq");
	for (unsigned q = 1; q <= t->ifc->tx_queues && n < NM_PROP_MAX; q++)
		n += (size_t)snprintf(out + n, NM_PROP_MAX - n, ", parent 1:%x handle %x: %s", q,
				      q + 1, leaf);
	if (n + 1 >= NM_PROP_MAX) {
		emit_cannot(e, f, s, "too many TX queues for one line");
		return;
	}
	strcat(out, "'");
	pr->n++;
}

static void one_target(const struct plan *p, size_t ti, struct emit *e, struct nm_props *pr)
{
	const struct plan_target *t = &p->targets[ti];
	struct emit_file *f = emit_file_new(e, "debloat-%s.nmcli", t->name);
	pr->n = 0;
	emit_line(e, f, "#!/bin/sh");
	emit_line(e, f,
		  "# debloat fix --emit nm: %s's settings as NetworkManager connection "
		  "properties.",
		  t->name);
	emit_line(e, f,
		  "# Run on the host: modifies the connection that manages %s, then "
		  "reapplies it.",
		  t->name);
	for (size_t i = 0; i < p->nsteps && !e->err; i++) {
		const struct plan_step *s = &p->steps[i];
		const struct knob_type *tt = knob_type_of(s->knob.kind);
		struct knob_word w;

		if (s->target != (int)ti || !emit_step_wanted(p, s))
			continue;
		if (pr->n == NM_MAX_PROPS) {
			e->err = -E2BIG;
			break;
		}
		memset(&w, 0, sizeof(w));
		if (tt && tt->nm)
			tt->nm(&s->knob, s->after, &w);
		if (w.place == KNOB_QDISC_TREE)
			root_qdisc(e, f, pr, t, s);
		else if (w.place == KNOB_KEY)
			snprintf(pr->v[pr->n++], NM_PROP_MAX, "%s %s", w.key, w.value);
		else
			emit_cannot(e, f, s, "%s",
				    w.why ? w.why : "NetworkManager has no property for it");
	}
	emit_line(e, f, "set -e");
	if (!pr->n) {
		emit_line(e, f, "# nothing NetworkManager can set");
		return;
	}
	emit_line(e, f, "conn=$(nmcli -g GENERAL.CONNECTION device show %s)", t->name);
	emit_line(e, f, "nmcli connection modify \"$conn\" \\");
	for (unsigned i = 0; i < pr->n; i++)
		emit_line(e, f, "\t%s%s", pr->v[i], i + 1 < pr->n ? " \\" : "");
	emit_line(e, f, "nmcli device reapply %s", t->name);
}

int emit_nm(const struct plan *p, struct emit *e)
{
	struct nm_props *props = malloc(sizeof(*props)); /* 64 KB: not on the stack */

	if (!props)
		return -ENOMEM;
	for (size_t ti = 0; ti < p->ntargets && !e->err; ti++)
		if (emit_target_wanted(&p->targets[ti]))
			one_target(p, ti, e, props);
	free(props);
	emit_cannot_host_wide(p, e);
	return e->err;
}
