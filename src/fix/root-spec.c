/* SPDX-License-Identifier: MIT */
/*
 * root-spec.c - root-spec.h: the one parser of the root-qdisc grammar, the typed view
 * of a spec's options, the spec of a live tree, and the comparisons.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "debloat/units.h"
#include "fix/root-spec.h"
#include "host/qdisc.h"
#include "qkind/qkind.h"

/* ---- the grammar ---- */

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

int root_spec_parse(const char *text, struct root_spec *out, char *err, size_t errlen)
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
		if (n == ROOT_SPEC_WORDS) {
			snprintf(err, errlen, "qdisc spec has more than %d words", ROOT_SPEC_WORDS);
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
		out->shape = ROOT_SHAPE_DEFAULT;
		return 0;
	}
	first = 0;
	out->shape = ROOT_SHAPE_LEAF;
	if (!strcmp(out->words[0], "mq")) {
		out->shape = ROOT_SHAPE_MQ;
		first = 1;
	} else if (!strcmp(out->words[0], "htb")) {
		out->shape = ROOT_SHAPE_HTB;
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
	if (!qdisc_leaf_kind(out->words[first])) {
		char leaves[128];

		leaf_names(leaves, sizeof(leaves));
		snprintf(err, errlen, "unknown qdisc kind \"%s\" (%s%s)", out->words[first], leaves,
			 first ? "" : ", mq KIND, htb RATE KIND or default");
		return -EINVAL;
	}
	snprintf(out->kind, sizeof(out->kind), "%s", out->words[first]);
	/* The leaf's option words follow its kind; shift them to the front. */
	out->nwords = n - first - 1;
	memmove(out->words, out->words + first + 1, (size_t)out->nwords * sizeof(out->words[0]));
	return 0;
}

int root_spec_opts(const struct root_spec *s, struct qdisc_opts *out, char *err, size_t errlen)
{
	unsigned char scratch[1024];
	struct nlbuf b;
	const struct nlattr *opts;
	int r;

	out->n = 0;
	if (s->shape == ROOT_SHAPE_DEFAULT)
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

/* ---- the typed view ---- */

enum opt_type { OPT_COUNT, OPT_SIZE, OPT_TIME, OPT_RATE, OPT_FLAG };

/* A word of a spec that sets an option the plan compares by value (src/qkind/'s QA_SPEC
 * attributes): where it is stored ("noecn" -> "ecn") and how its value reads. */
struct opt_word {
	const char *name;
	enum opt_type type;
	uint64_t flag_value; /* OPT_FLAG */
};

static enum opt_type opt_type_of(const struct qattr *a)
{
	switch (a->enc) {
	case QENC_SIZE:
		return OPT_SIZE;
	case QENC_TIME_US:
	case QENC_TIME_NS:
		return OPT_TIME;
	case QENC_RATE32:
	case QENC_RATE64:
		return OPT_RATE;
	default:
		return OPT_COUNT;
	}
}

static bool find_word(const char *kind, const char *word, struct opt_word *out)
{
	const struct qkind *k = qkind_find(kind);
	const struct qattr *a;
	bool flag = false;

	a = k ? qkind_spec_word(k, word, &flag, &out->flag_value) : NULL;
	if (!a)
		return false;
	out->name = a->word;
	out->type = flag ? OPT_FLAG : opt_type_of(a);
	return true;
}

static int parse_count(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_typed(enum opt_type type, const char *s, uint64_t *out)
{
	uint32_t u32;
	int r;

	switch (type) {
	case OPT_COUNT:
		return parse_count(s, out);
	case OPT_SIZE:
		r = db_parse_size(s, &u32);
		if (!r)
			*out = u32;
		return r;
	case OPT_TIME:
		return db_parse_time_ns(s, out);
	case OPT_RATE:
		return db_parse_rate(s, out);
	default:
		return -EINVAL;
	}
}

static struct root_spec_opt *spec_slot(struct root_spec *sp, const char *name)
{
	struct root_spec_opt *o;

	for (unsigned i = 0; i < sp->nopts; i++)
		if (!strcmp(sp->opts[i].name, name))
			return &sp->opts[i];
	if (sp->nopts == ROOT_SPEC_MAX_OPTS || strlen(name) >= sizeof(o->name))
		return NULL;
	o = &sp->opts[sp->nopts++];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	return o;
}

int root_spec_typed(struct root_spec *sp)
{
	char **words = sp->words;
	int nw = sp->nwords, i = 0;

	sp->nopts = 0;
	while (i < nw) {
		struct opt_word ow;
		struct root_spec_opt *o;

		if (find_word(sp->kind, words[i], &ow)) {
			o = spec_slot(sp, ow.name);
			if (!o)
				return -EINVAL;
			o->numeric = true;
			if (ow.type == OPT_FLAG) {
				o->v = ow.flag_value;
				i++;
				continue;
			}
			if (i + 1 >= nw || parse_typed(ow.type, words[i + 1], &o->v) < 0)
				return -EINVAL;
			i += 2;
			continue;
		}
		/* An option this table does not know: a pair when a number follows, else a
		 * flag. Compared as written. */
		o = spec_slot(sp, words[i]);
		if (!o)
			return -EINVAL;
		if (i + 1 < nw && isdigit((unsigned char)words[i + 1][0])) {
			if (strlen(words[i + 1]) >= sizeof(o->word))
				return -EINVAL;
			snprintf(o->word, sizeof(o->word), "%s", words[i + 1]);
			i += 2;
		} else {
			o->numeric = true;
			o->v = 1;
			i++;
		}
	}
	return 0;
}

int root_spec_read(const char *text, struct root_spec *out)
{
	char err[8];

	if (root_spec_parse(text, out, err, sizeof(err)) < 0 || out->shape == ROOT_SHAPE_DEFAULT)
		return -EINVAL;
	return root_spec_typed(out);
}

static int spec_of_qdisc(const struct qdisc *q, struct root_spec *out)
{
	const struct qkind *k = qkind_find(q->kind);

	memset(out, 0, sizeof(*out));
	out->shape = ROOT_SHAPE_LEAF;
	snprintf(out->kind, sizeof(out->kind), "%s", q->kind);
	/* Decoded option keys (host/qdisc.h) back to spec words, by the kind's table. */
	for (unsigned i = 0; k && i < q->noptions; i++) {
		const struct value *v = &q->options[i];
		const struct qattr *a = qkind_spec_key(k, v->key);
		struct root_spec_opt *o;

		if (!a)
			continue;
		o = spec_slot(out, a->word);
		if (!o)
			return -E2BIG;
		o->numeric = true;
		o->v = qkind_spec_value(a, v->u);
	}
	return 0;
}

static bool opts_equal(const struct root_spec *a, const struct root_spec *b)
{
	return root_spec_covers(a, b) && root_spec_covers(b, a);
}

int root_spec_of_tree(const struct qdisc *root, struct root_spec *out)
{
	struct root_spec child, first;
	int r;

	if (!root)
		return -ENOENT;
	if (!strcmp(root->kind, "htb"))
		return -ENOENT; /* the rate lives in class 1:1, which the tree does not carry */
	if (strcmp(root->kind, "mq"))
		return spec_of_qdisc(root, out);
	/* mq: a spec only when every TX queue has the same child. */
	if (!root->nchildren)
		return -ENOENT;
	r = spec_of_qdisc(&root->children[0], &first);
	if (r < 0)
		return r;
	for (size_t i = 1; i < root->nchildren; i++) {
		r = spec_of_qdisc(&root->children[i], &child);
		if (r < 0)
			return r;
		if (strcmp(child.kind, first.kind) || !opts_equal(&child, &first))
			return -ENOENT;
	}
	first.shape = ROOT_SHAPE_MQ;
	*out = first;
	return 0;
}

/*
 * The kernel's fixed defaults (the kinds' tables): knob_read leaves an option out when it
 * holds one, so "fq_codel limit 800" read back carries the "ecn" a plan asked for.
 * Link-dependent defaults (quantum from the MTU, pfifo's limit from txqueuelen) are not
 * there: a missing one never matches.
 */
static bool is_fixed_default(const char *kind, const struct root_spec_opt *o)
{
	const struct qkind *k = qkind_find(kind);
	const struct qattr *a = k ? qkind_spec_name(k, o->name) : NULL;
	uint64_t def;

	if (!a || !qkind_spec_default(a, &def))
		return false;
	return o->numeric && o->v == def;
}

bool root_spec_covers(const struct root_spec *have, const struct root_spec *want)
{
	if (have->shape != want->shape || strcmp(have->kind, want->kind))
		return false;
	if (want->shape == ROOT_SHAPE_HTB && have->htb_rate != want->htb_rate)
		return false;
	for (unsigned i = 0; i < want->nopts; i++) {
		const struct root_spec_opt *w = &want->opts[i], *h = NULL;

		for (unsigned j = 0; j < have->nopts && !h; j++)
			if (!strcmp(have->opts[j].name, w->name))
				h = &have->opts[j];
		if (!h) {
			if (is_fixed_default(want->kind, w))
				continue;
			return false;
		}
		if (h->numeric != w->numeric)
			return false;
		if (w->numeric ? h->v != w->v : strcasecmp(h->word, w->word) != 0)
			return false;
	}
	return true;
}

/* ---- comparing values ---- */

bool root_spec_same(const char *a, const char *b)
{
	struct root_spec sa, sb;
	struct qdisc_opts oa, ob;
	char err[8];

	if (!strncmp(a, "other:", 6) || !strncmp(b, "other:", 6))
		return !strcmp(a, b);
	if (root_spec_parse(a, &sa, err, sizeof(err)) < 0 ||
	    root_spec_parse(b, &sb, err, sizeof(err)) < 0 ||
	    root_spec_opts(&sa, &oa, err, sizeof(err)) < 0 ||
	    root_spec_opts(&sb, &ob, err, sizeof(err)) < 0)
		return false;
	if (sa.shape != sb.shape)
		return false;
	if (sa.shape == ROOT_SHAPE_DEFAULT)
		return true;
	return !strcmp(sa.kind, sb.kind) && sa.htb_rate == sb.htb_rate &&
	       qdisc_opts_equal(&oa, &ob);
}

bool root_spec_covers_text(const char *have, const char *want, const struct qdisc *root)
{
	struct root_spec h, w;

	if (!strcmp(have, want))
		return true;
	if (!strncmp(have, "other:", 6) || !strcmp(want, "default"))
		return false;
	if (root_spec_read(want, &w) < 0)
		return false;
	if (!strcmp(have, "default")) {
		if (!root || root_spec_of_tree(root, &h) < 0)
			return false;
	} else if (root_spec_read(have, &h) < 0) {
		return false;
	}
	return root_spec_covers(&h, &w);
}
