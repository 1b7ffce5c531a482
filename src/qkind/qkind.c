/* SPDX-License-Identifier: MIT */
/*
 * qkind.c - qkind.h: the registry of kinds and the walkers over their tables. Adding a
 * kind is adding its file and one line to kinds[].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "base/nl.h"
#include "debloat/units.h"
#include "qkind/kinds.h"

static const struct qkind *const kinds[] = {
    &qkind_fq_codel,   &qkind_fq,    &qkind_cake,
    &qkind_pfifo,      &qkind_bfifo, &qkind_pfifo_head_drop,
    &qkind_pfifo_fast, &qkind_prio,  &qkind_tbf,
    &qkind_htb,	       &qkind_mq,    &qkind_ingress,
    &qkind_clsact,     &qkind_codel,
};

const struct qkind *qkind_find(const char *kind)
{
	for (size_t i = 0; i < COUNT(kinds); i++)
		if (!strcmp(kinds[i]->name, kind))
			return kinds[i];
	return NULL;
}

const struct qkind *qkind_at(size_t i)
{
	return i < COUNT(kinds) ? kinds[i] : NULL;
}

bool qkind_key_value(const char *key, struct value *out)
{
	for (size_t i = 0; i < COUNT(kinds); i++) {
		for (size_t j = 0; j < kinds[i]->nattrs; j++) {
			const struct qattr *a = &kinds[i]->attrs[j];

			if (a->show == QSHOW_NONE || strcmp(a->key, key))
				continue;
			*out = (struct value){.key = a->key, .unit = a->unit};
			out->type = a->show == QSHOW_BOOL   ? VALUE_BOOL
				    : a->show == QSHOW_LIST ? VALUE_LIST
							    : VALUE_UINT;
			return true;
		}
	}
	return false;
}

const struct qattr *qkind_attr(const struct qkind *k, uint16_t type)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if (k->attrs[i].type == type)
			return &k->attrs[i];
	return NULL;
}

static int attr_index(const struct qkind *k, uint16_t type)
{
	const struct qattr *a = qkind_attr(k, type);

	return a ? (int)(a - k->attrs) : -1;
}

/* A kind tc sets nothing on (pfifo_fast, and those fix does not write). */
static bool takes_words(const struct qkind *k)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if (k->attrs[i].word)
			return true;
	return false;
}

void qshown_add(struct qshown *s, struct value v)
{
	/* Callers size out for every option of every kind; extras are dropped. */
	if (s->n < s->max)
		s->v[s->n++] = v;
}

/* An attribute's value as its width says: u64 rates, u8 choices, else u32. */
static int read_attr(const struct qattr *a, const struct nlattr *nla, uint64_t *v)
{
	uint32_t u32;
	uint8_t u8;

	if (a->enc == QENC_RATE64)
		return nl_attr_u64(nla, v) < 0 ? -EBADMSG : 0;
	if (a->enc == QENC_CHOICE_U8) {
		if (nl_attr_u8(nla, &u8) < 0)
			return -EBADMSG;
		*v = u8;
		return 0;
	}
	if (nl_attr_u32(nla, &u32) < 0)
		return -EBADMSG;
	*v = u32;
	return 0;
}

/* ---- the audit's values ---- */

static void show_one(const struct qattr *a, uint64_t v, struct qshown *out)
{
	switch (a->show) {
	case QSHOW_NUM:
		qshown_add(out, value_uint(a->key, v, a->unit));
		break;
	case QSHOW_BOOL:
		qshown_add(out, value_bool(a->key, v != 0));
		break;
	case QSHOW_LOG2:
		if (v < 32)
			qshown_add(out, value_uint(a->key, 1ULL << v, a->unit));
		break;
	case QSHOW_UNLESS_MAX:
		if (v != UINT32_MAX)
			qshown_add(out, value_uint(a->key, v, a->unit));
		break;
	case QSHOW_RATE:
		if (a->enc == QENC_RATE64 ? v && v <= UINT64_MAX / 8 : v != UINT32_MAX)
			qshown_add(out, value_uint(a->key, v * 8, a->unit));
		break;
	default:
		break;
	}
}

static const struct value *shown_value(const struct value *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return &v[i];
	return NULL;
}

bool qkind_shown_defaults(const struct qkind *k, const struct value *v, size_t n, uint64_t frame)
{
	if (!k || !k->known_defaults)
		return false;
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct qattr *a = &k->attrs[i];
		const struct value *have;
		struct value def;
		struct qshown want = {.v = &def, .max = 1};

		if (!a->key || a->show == QSHOW_NONE)
			continue;
		have = shown_value(v, n, a->key);
		if (!have)
			continue;
		if (a->flags & QA_DEFAULT)
			show_one(a, a->def, &want); /* nothing: the kernel does not report it */
		else if (a->mtu_frames)
			qshown_add(&want, value_uint(a->key, a->mtu_frames * frame, a->unit));
		if (!want.n || have->u != def.u)
			return false;
	}
	return true;
}

const struct qattr *qkind_key_attr(const struct qkind *k, const char *key)
{
	for (size_t i = 0; k && i < k->nattrs; i++)
		if (k->attrs[i].key && !strcmp(k->attrs[i].key, key))
			return &k->attrs[i];
	return NULL;
}

bool qkind_is_fifo(const char *kind)
{
	const struct qkind *k = qkind_find(kind);

	return k && k->fifo;
}

bool qkind_is_builtin(const char *kind)
{
	const struct qkind *k = qkind_find(kind);

	return k && k->builtin;
}

static int show_nest(const struct qkind *k, const void *opts, size_t len, struct qshown *out)
{
	const struct nlattr *tb[QKIND_MAX_TYPE + 1];
	int r;

	r = nl_attrs(opts, len, tb, QKIND_MAX_TYPE);
	if (r < 0)
		return r;
	/* In the audit's order; a dozen attributes, so the nested scan costs nothing. */
	for (unsigned pos = 1; pos <= k->nattrs; pos++) {
		for (size_t i = 0; i < k->nattrs; i++) {
			const struct qattr *a = &k->attrs[i];
			uint64_t v;

			if (a->show_pos != pos || a->show == QSHOW_NONE || !tb[a->type])
				continue;
			if (read_attr(a, tb[a->type], &v) < 0)
				return -EBADMSG;
			show_one(a, v, out);
		}
	}
	return 0;
}

int qkind_show(const struct qkind *k, const void *opts, size_t len, struct qshown *out)
{
	struct qshown tmp = *out;
	struct tc_fifo_qopt fifo;
	int r = 0;

	switch (k->layout) {
	case QLAYOUT_NEST:
		r = show_nest(k, opts, len, &tmp);
		break;
	case QLAYOUT_FIFO:
		if (len < sizeof(fifo))
			return -EBADMSG;
		memcpy(&fifo, opts, sizeof(fifo));
		show_one(&k->attrs[0], fifo.limit, &tmp);
		break;
	case QLAYOUT_OWN:
		r = k->show(opts, len, &tmp);
		break;
	default:
		break;
	}
	if (r < 0)
		return r;
	out->n = tmp.n;
	return 0;
}

/* ---- tc's words to attributes ---- */

struct setting {
	bool set;
	bool forced; /* sent even where QA_OMIT_ZERO would leave a 0 out */
	uint64_t v;
};

static int parse_value(const struct qattr *a, const char *text, uint64_t *out)
{
	uint64_t v = 0;
	uint32_t u;
	int r;

	switch (a->enc) {
	case QENC_U32:
		r = db_parse_u32(text, &u);
		v = u;
		break;
	case QENC_SIZE:
		r = db_parse_size(text, &u);
		v = u;
		break;
	case QENC_TIME_US:
	case QENC_TIME_NS:
		r = db_parse_time_ns(text, &v);
		if (r == 0 && a->enc == QENC_TIME_US)
			v /= 1000;
		if (r == 0 && v > UINT32_MAX)
			r = -EINVAL;
		break;
	case QENC_RATE32:
	case QENC_RATE64:
		r = db_parse_rate(text, &v);
		if (r == 0 && a->enc == QENC_RATE32 && v > UINT32_MAX)
			r = -EINVAL;
		break;
	case QENC_LOG2:
		r = db_parse_u32(text, &u);
		if (r == 0 && u == 0)
			r = -EINVAL;
		/* tc's rounding: the smallest power of two at least as large */
		for (v = 0; r == 0 && (1ULL << v) < u; v++)
			;
		break;
	case QENC_S32: {
		const char *p = text[0] == '-' ? text + 1 : text;

		r = db_parse_u32(p, &u);
		if (r == 0 && u > (p == text ? (uint32_t)INT32_MAX : (uint32_t)INT32_MAX + 1))
			r = -EINVAL;
		v = p == text ? u : (uint32_t)(0u - u);
		break;
	}
	default:
		r = -EINVAL;
		break;
	}
	if (r == 0 && (a->flags & QA_NONZERO) && v == 0 && a->enc != QENC_LOG2)
		r = -EINVAL;
	if (r == 0)
		*out = v;
	return r;
}

/* Set an attribute by number (for extra words); types the table lacks are a bug. */
static void set_type(const struct qkind *k, struct setting *set, uint16_t type, uint64_t v)
{
	int i = attr_index(k, type);

	if (i >= 0)
		set[i] = (struct setting){.set = true, .v = v};
}

/* One word (and its value, if it takes one) into the settings; returns words used. */
static int apply_word(const struct qkind *k, struct setting *set, char *const *words, int left,
		      char *err, size_t errlen)
{
	const char *w = words[0];
	uint64_t v;

	for (size_t i = 0; i < k->nwords; i++) {
		const struct qword *x = &k->words[i];
		int s = attr_index(k, x->type);

		if (strcmp(w, x->word) || s < 0)
			continue;
		v = x->value;
		if (x->arg) {
			if (left < 2 || parse_value(&k->attrs[s], words[1], &v) < 0)
				goto bad_value;
		}
		set_type(k, set, x->type, v);
		set[s].forced = x->forced;
		if (x->type2)
			set_type(k, set, x->type2, x->value2);
		if (x->div_type)
			set_type(k, set, x->div_type, v / x->div ? v / x->div : 1);
		return x->arg ? 2 : 1;
	}
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct qattr *a = &k->attrs[i];

		if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8) {
			for (const struct qchoice *c = a->choices; c->word; c++)
				if (!strcmp(w, c->word)) {
					set[i] = (struct setting){.set = true, .v = c->value};
					return 1;
				}
			continue;
		}
		if (!a->word || strcmp(w, a->word) || a->enc == QENC_DERIVED ||
		    a->enc == QENC_FOREIGN)
			continue;
		if (left < 2 || parse_value(a, words[1], &v) < 0)
			goto bad_value;
		set[i] = (struct setting){.set = true, .v = v};
		return 2;
	}
	snprintf(err, errlen, "unknown option \"%s\" for %s", w, k->name);
	return -EINVAL;
bad_value:
	if (left < 2)
		snprintf(err, errlen, "option \"%s\" of %s needs a value", w, k->name);
	else
		snprintf(err, errlen, "bad value \"%s\" for %s %s", words[1], k->name, w);
	return -EINVAL;
}

int qkind_encode(const struct qkind *k, char *const *words, int nwords, struct qkind_wire *out,
		 unsigned *n, char *err, size_t errlen)
{
	struct setting set[QKIND_MAX_ATTRS] = {{0}};

	*n = 0;
	if (errlen)
		err[0] = '\0';
	if (!takes_words(k)) {
		if (nwords > 0) {
			snprintf(err, errlen, "%s takes no options (\"%s\")", k->name, words[0]);
			return -EINVAL;
		}
		return 0;
	}
	if (k->nattrs > QKIND_MAX_ATTRS)
		return -E2BIG;
	for (int i = 0; i < nwords;) {
		int used = apply_word(k, set, words + i, nwords - i, err, errlen);

		if (used < 0)
			return used;
		i += used;
	}
	for (size_t i = 0; i < k->nattrs; i++) {
		if (!set[i].set ||
		    ((k->attrs[i].flags & QA_OMIT_ZERO) && set[i].v == 0 && !set[i].forced))
			continue;
		out[(*n)++] = (struct qkind_wire){.attr = &k->attrs[i], .v = set[i].v};
	}
	return 0;
}

size_t qkind_wire_bytes(const struct qkind_wire *w, void *buf)
{
	uint32_t u32 = (uint32_t)w->v;
	uint8_t u8 = (uint8_t)w->v;

	switch (w->attr->enc) {
	case QENC_RATE64:
		memcpy(buf, &w->v, sizeof(w->v));
		return sizeof(w->v);
	case QENC_CHOICE_U8:
		memcpy(buf, &u8, sizeof(u8));
		return sizeof(u8);
	default:
		memcpy(buf, &u32, sizeof(u32));
		return sizeof(u32);
	}
}

/* ---- attributes back to words ---- */

int qkind_decode(const struct qkind *k, const void *opts, size_t len, struct qkind_wire *out,
		 unsigned *n)
{
	const struct nlattr *tb[QKIND_MAX_TYPE + 1];
	char word[64];
	int r;

	*n = 0;
	if (!takes_words(k) || !opts || !len)
		return 0;
	if (k->layout == QLAYOUT_FIFO) {
		struct tc_fifo_qopt fifo;

		if (len < sizeof(fifo))
			return -EBADMSG;
		memcpy(&fifo, opts, sizeof(fifo));
		if (qkind_spell(&k->attrs[0], fifo.limit, word, sizeof(word)) < 0)
			return -EOPNOTSUPP;
		out[(*n)++] = (struct qkind_wire){.attr = &k->attrs[0], .v = fifo.limit};
		return 0;
	}
	if (k->layout != QLAYOUT_NEST)
		return -EOPNOTSUPP;
	r = nl_attrs(opts, len, tb, QKIND_MAX_TYPE);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct qattr *a = &k->attrs[i];
		uint64_t v;

		if (!tb[a->type] || a->enc == QENC_DERIVED)
			continue;
		/* Present at all, where the kernel reports it only when set: not ours. */
		if (a->enc == QENC_FOREIGN && !(a->flags & QA_DEFAULT))
			return -EOPNOTSUPP;
		if (read_attr(a, tb[a->type], &v) < 0)
			return -EBADMSG;
		if ((a->flags & QA_DEFAULT) && v == a->def)
			continue;
		if (a->enc == QENC_FOREIGN)
			return -EOPNOTSUPP;
		if (a->absent_if && tb[a->absent_if])
			continue;
		if (*n == QKIND_MAX_ATTRS || qkind_spell(a, v, word, sizeof(word)) < 0)
			return -EOPNOTSUPP;
		out[(*n)++] = (struct qkind_wire){.attr = a, .v = v};
	}
	return 0;
}

static int format_size(uint64_t v, char *buf, size_t len)
{
	if (v && v % (1u << 20) == 0)
		return snprintf(buf, len, "%llumb", (unsigned long long)(v >> 20));
	if (v && v % 1024 == 0)
		return snprintf(buf, len, "%llukb", (unsigned long long)(v >> 10));
	return snprintf(buf, len, "%llu", (unsigned long long)v);
}

int qkind_spell(const struct qattr *a, uint64_t v, char *buf, size_t len)
{
	char val[32];
	int n;

	switch (a->enc) {
	case QENC_CHOICE:
	case QENC_CHOICE_U8:
		for (const struct qchoice *c = a->choices; c->word; c++)
			if (c->value == v) {
				snprintf(buf, len, "%s", c->word);
				return 0;
			}
		return -EOPNOTSUPP;
	case QENC_SIZE:
		n = format_size(v, val, sizeof(val));
		break;
	case QENC_TIME_US:
		n = db_format_time(v * 1000, val, sizeof(val));
		break;
	case QENC_TIME_NS:
		n = db_format_time(v, val, sizeof(val));
		break;
	case QENC_RATE32:
	case QENC_RATE64:
		n = db_format_rate(v, val, sizeof(val));
		break;
	case QENC_LOG2:
		if (v > 31)
			return -EOPNOTSUPP;
		n = snprintf(val, sizeof(val), "%u", 1u << v);
		break;
	case QENC_S32:
		n = snprintf(val, sizeof(val), "%d", (int32_t)(uint32_t)v);
		break;
	case QENC_DERIVED:
	case QENC_FOREIGN:
		return -EOPNOTSUPP;
	default:
		n = snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(val))
		return -EOPNOTSUPP;
	/* Truncated to len: the caller's buffer holds every word and value tc spells. */
	snprintf(buf, len, "%s %s", a->word, val);
	return 0;
}

/* ---- the plan's view ---- */

const struct qattr *qkind_spec_word(const struct qkind *k, const char *word, bool *flag,
				    uint64_t *value)
{
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct qattr *a = &k->attrs[i];

		if (!(a->flags & QA_SPEC))
			continue;
		if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8) {
			for (const struct qchoice *c = a->choices; c->word; c++)
				if (!strcmp(word, c->word)) {
					*flag = true;
					*value = c->value;
					return a;
				}
			continue;
		}
		if (a->word && !strcmp(word, a->word)) {
			*flag = false;
			return a;
		}
	}
	for (size_t i = 0; i < k->nwords; i++) {
		const struct qword *x = &k->words[i];
		const struct qattr *a = qkind_attr(k, x->type);

		if (x->spec && !x->arg && a && (a->flags & QA_SPEC) && !strcmp(word, x->word)) {
			*flag = true;
			*value = x->value;
			return a;
		}
	}
	return NULL;
}

const struct qattr *qkind_spec_name(const struct qkind *k, const char *name)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if ((k->attrs[i].flags & QA_SPEC) && k->attrs[i].word &&
		    !strcmp(k->attrs[i].word, name))
			return &k->attrs[i];
	return NULL;
}

const struct qattr *qkind_word_attr(const struct qkind *k, const char *word,
				    const struct qchoice **choice)
{
	*choice = NULL;
	for (size_t i = 0; i < k->nattrs; i++)
		if (k->attrs[i].word && !strcmp(k->attrs[i].word, word))
			return &k->attrs[i];
	for (size_t i = 0; i < k->nattrs; i++)
		for (const struct qchoice *c = k->attrs[i].choices; c && c->word; c++)
			if (!strcmp(c->word, word)) {
				*choice = c;
				return &k->attrs[i];
			}
	return NULL;
}

const struct qattr *qkind_spec_key(const struct qkind *k, const char *key)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if ((k->attrs[i].flags & QA_SPEC) && k->attrs[i].key &&
		    !strcmp(k->attrs[i].key, key))
			return &k->attrs[i];
	return NULL;
}

uint64_t qkind_spec_value(const struct qattr *a, uint64_t shown)
{
	if (a->enc == QENC_CHOICE || a->enc == QENC_CHOICE_U8)
		return shown != 0;
	switch (a->unit) {
	case UNIT_US:
		return shown * 1000;
	case UNIT_BPS:
		return shown / 8;
	default:
		return shown;
	}
}

bool qkind_spec_default(const struct qattr *a, uint64_t *value)
{
	if (!(a->flags & QA_SPEC_DEFAULT))
		return false;
	switch (a->enc) {
	case QENC_TIME_US:
		*value = a->def * 1000;
		break;
	case QENC_LOG2:
		*value = a->def < 64 ? 1ULL << a->def : 0;
		break;
	default:
		*value = a->def;
		break;
	}
	return true;
}
