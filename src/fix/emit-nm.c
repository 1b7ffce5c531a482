/* SPDX-License-Identifier: MIT */
/*
 * emit-nm.c - the plan as NetworkManager connection properties (nm-settings-nmcli(5),
 * NetworkManager 1.42): one shell script per interface that modifies the connection
 * managing it (`nmcli connection modify`) and reapplies it. NetworkManager has
 * ethtool.feature-* and ethtool.ring-* for offloads and rings, and tc.qdiscs with
 * options for fq_codel only (other kinds without options, mq among them); it has no
 * tc classes (htb), no txqueuelen, no BQL, no host-wide sysctls.
 *
 * What the properties cannot hold but a command sets again each time the link comes up
 * (a root qdisc with options tc.qdiscs lacks: cake's bandwidth, an htb shaper; the
 * txqueuelen; gso_max_size) goes into a second script, 90-debloat-IFACE, for
 * NetworkManager's dispatcher (/etc/NetworkManager/dispatcher.d/, which runs it with
 * the interface and the action): on "up" and "reapply" of IFACE it runs the commands
 * of fix/commands.h, a root qdisc after deleting the one there (htb cannot replace
 * itself), so running it twice is running it once. BQL stays udev's (it belongs to
 * the device, not the connection), the download shaper `debloat fix --persist`'s (its
 * ifb and filter are not commands to repeat), the sysctls sysctl.d's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "fix/commands.h"
#include "fix/emit.h"
#include "fix/knob-type.h"
#include "fix/root-spec.h"
#include "host/iface.h"
#include "qkind/qkind.h"

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

/*
 * The root qdisc as a tc.qdiscs property; -1 with why (for a comment) when the
 * property cannot hold it and the dispatcher script is to set it.
 */
static int root_qdisc(struct emit *e, struct emit_file *f, struct nm_props *pr,
		      const struct plan_target *t, const struct plan_step *s, char *why,
		      size_t whylen)
{
	char leaf[KNOB_VALUE_MAX], *out = pr->v[pr->n];
	const char *bad = "";
	struct root_spec sp;
	size_t n;

	if (!strcmp(s->after, "default")) {
		emit_line(e, f, "# the root qdisc stays the kernel's own choice: no tc.qdiscs");
		return 0;
	}
	if (root_spec_read(s->after, &sp) < 0) {
		emit_cannot(e, f, s, "not a root-qdisc spec");
		return 0;
	}
	if (sp.shape == ROOT_SHAPE_HTB) {
		snprintf(why, whylen, "NetworkManager has no traffic-control classes (htb)");
		return -1;
	}
	if (leaf_words(&sp, leaf, sizeof(leaf), &bad) < 0) {
		snprintf(why, whylen, "NetworkManager's tc.qdiscs has no option \"%s\" for %s", bad,
			 sp.kind);
		return -1;
	}
	if (sp.shape == ROOT_SHAPE_LEAF) {
		snprintf(out, NM_PROP_MAX, "tc.qdiscs 'root handle 1: %s'", leaf);
		pr->n++;
		return 0;
	}
	if (!t->ifc || !t->ifc->tx_queues) {
		emit_cannot(e, f, s, "the number of TX queues is unknown");
		return 0;
	}
	n = (size_t)snprintf(out, NM_PROP_MAX, "tc.qdiscs 'root handle 1: mq");
	for (unsigned q = 1; q <= t->ifc->tx_queues && n < NM_PROP_MAX; q++)
		n += (size_t)snprintf(out + n, NM_PROP_MAX - n, ", parent 1:%x handle %x: %s", q,
				      q + 1, leaf);
	if (n + 1 >= NM_PROP_MAX) {
		snprintf(why, whylen, "too many TX queues for one tc.qdiscs line");
		return -1;
	}
	strcat(out, "'");
	pr->n++;
	return 0;
}

/* The dispatcher script of target t, begun on its first step. */
struct dispatcher {
	struct emit_file *f;
	char name[EMIT_NAME_MAX];
};

/*
 * Step s into t's dispatcher script, as fix/commands.h's commands, each of which the
 * script runs whatever the one before did (a failure is NetworkManager's log's, and
 * the script's exit status). nmcli's file says where it went, with why.
 */
static void dispatch_step(struct emit *e, struct emit_file *nm, struct dispatcher *d,
			  const struct plan_target *t, const struct plan_step *s, const char *why,
			  bool root_tree)
{
	char cmds[4096], what[96];
	int r =
	    knob_commands(&s->knob, s->after, t->ifc ? t->ifc->tx_queues : 0, cmds, sizeof(cmds));

	if (r < 0) {
		emit_cannot(e, nm, s, "%s; and no commands for it (%s)", why, strerror(-r));
		return;
	}
	if (!d->f) {
		snprintf(d->name, sizeof(d->name), "90-debloat-%s", t->name);
		d->f = emit_file_new(e, "%s", d->name);
		if (!d->f)
			return;
		emit_line(e, d->f, "#!/bin/sh");
		emit_line(e, d->f,
			  "# debloat fix --emit nm: what NetworkManager's properties cannot hold "
			  "for %s,",
			  t->name);
		emit_line(e, d->f,
			  "# set each time %s comes up or its connection is reapplied. Install it "
			  "as",
			  t->name);
		emit_line(e, d->f,
			  "# /etc/NetworkManager/dispatcher.d/%s, owned by root, mode 0755",
			  d->name);
		emit_line(e, d->f, "# (NetworkManager runs no other):");
		emit_line(e, d->f,
			  "#   install -o root -m 755 %s /etc/NetworkManager/dispatcher.d/",
			  d->name);
		emit_line(
		    e, d->f,
		    "# The connection must not set tc.qdiscs itself: NetworkManager would put "
		    "its own");
		emit_line(e, d->f, "# back on every reapply.");
		emit_line(e, d->f, "[ \"$1\" = %s ] || exit 0", t->name);
		emit_line(e, d->f, "case \"$2\" in");
		emit_line(e, d->f, "up | reapply) ;;");
		emit_line(e, d->f, "*) exit 0 ;;");
		emit_line(e, d->f, "esac");
		emit_line(e, d->f, "rc=0");
	}
	if (!d->f)
		return;
	knob_describe(&s->knob, what, sizeof(what));
	emit_line(e, d->f, "# %s: \"%s\"", what, s->after);
	/* htb cannot be replaced by itself ("change operation not supported"): start over */
	if (root_tree)
		emit_line(e, d->f, "tc qdisc del dev %s root 2>/dev/null", t->name);
	for (char *line = cmds, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		*end = '\0';
		emit_line(e, d->f, "%s || rc=1", line);
	}
	emit_line(e, nm, "# %s \"%s\": %s; %s (NetworkManager's dispatcher) sets it", what,
		  s->after, why, d->name);
}

/* The two files of a target in name order ("90-debloat-" before "debloat-"), as a
 * directory listing shows them and standard output prints them. */
static void sort_last_two(struct emit *e)
{
	struct emit_file tmp;

	if (e->err || e->nfiles < 2 ||
	    strcmp(e->files[e->nfiles - 2].name, e->files[e->nfiles - 1].name) <= 0)
		return;
	tmp = e->files[e->nfiles - 2];
	e->files[e->nfiles - 2] = e->files[e->nfiles - 1];
	e->files[e->nfiles - 1] = tmp;
}

static void one_target(const struct plan *p, size_t ti, struct emit *e, struct nm_props *pr)
{
	const struct plan_target *t = &p->targets[ti];
	struct emit_file *f = emit_file_new(e, "debloat-%s.nmcli", t->name);
	struct dispatcher d = {0};
	char why[160];

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
		if (w.place == KNOB_QDISC_TREE) {
			if (root_qdisc(e, f, pr, t, s, why, sizeof(why)) < 0)
				dispatch_step(e, f, &d, t, s, why, true);
		} else if (w.place == KNOB_KEY) {
			snprintf(pr->v[pr->n++], NM_PROP_MAX, "%s %s", w.key, w.value);
		} else if (w.place == KNOB_AT_LINK_UP) {
			dispatch_step(e, f, &d, t, s, w.why, false);
		} else {
			emit_cannot(e, f, s, "%s",
				    w.why ? w.why : "NetworkManager has no property for it");
		}
	}
	if (d.f)
		emit_line(e, d.f, "exit $rc");
	emit_line(e, f, "set -e");
	if (!pr->n) {
		emit_line(e, f, "# no property to set%s%s", d.f ? ": all of it is in " : "",
			  d.f ? d.name : "");
	} else {
		emit_line(e, f, "conn=$(nmcli -g GENERAL.CONNECTION device show %s)", t->name);
		emit_line(e, f, "nmcli connection modify \"$conn\" \\");
		for (unsigned i = 0; i < pr->n; i++)
			emit_line(e, f, "\t%s%s", pr->v[i], i + 1 < pr->n ? " \\" : "");
		emit_line(e, f, "nmcli device reapply %s", t->name);
	}
	if (d.f) /* last: f and d.f point into e->files until here */
		sort_last_two(e);
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
