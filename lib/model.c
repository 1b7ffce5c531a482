/* SPDX-License-Identifier: MIT */
/* qdisc.c - the table of kinds, and making a discipline from a tc-style spec. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/codel.h"
#include "debloat/fifo.h"
#include "debloat/fq.h"
#include "debloat/fq_codel.h"
#include "debloat/model.h"
#include "debloat/pfifo_fast.h"
#include "debloat/shaper.h"
#include "opt.h"

const struct db_qdisc_ops *const db_qdisc_kinds[] = {
    &db_pfifo_fast_ops, &db_pfifo_ops, &db_bfifo_ops,  &db_codel_ops,
    &db_fq_codel_ops,	&db_fq_ops,    &db_shaper_ops, NULL,
};

/* A spec is short: tc's longest option lists are ~20 words. */
#define SPEC_MAX_LEN   1024
#define SPEC_MAX_WORDS 64

const struct db_qdisc_ops *db_qdisc_find(const char *kind)
{
	for (int i = 0; db_qdisc_kinds[i]; i++)
		if (!strcmp(db_qdisc_kinds[i]->kind, kind))
			return db_qdisc_kinds[i];
	return NULL;
}

/* Split copy (a writable copy of the spec) into words in place. */
static int split_words(char *copy, char *words[], int max)
{
	int n = 0;

	for (char *p = copy; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return -E2BIG;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
	}
	return n;
}

static void kind_list(char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; db_qdisc_kinds[i] && pos < len; i++) {
		size_t k = strlen(db_qdisc_kinds[i]->kind);
		if (pos + k + 3 >= len)
			break;
		if (pos) {
			memcpy(buf + pos, ", ", 2);
			pos += 2;
		}
		memcpy(buf + pos, db_qdisc_kinds[i]->kind, k + 1);
		pos += k;
	}
}

int db_qdisc_create(const char *spec, const struct db_qdisc_env *env, struct db_qdisc **out,
		    char *err, size_t errlen)
{
	char copy[SPEC_MAX_LEN + 1];
	char *words[SPEC_MAX_WORDS];
	const struct db_qdisc_ops *ops;
	struct db_qdisc *q = NULL;
	char kinds[160];
	int n, ret;

	if (!spec || strlen(spec) > SPEC_MAX_LEN)
		return db_opt_error(err, errlen, "qdisc spec is longer than %d characters",
				    SPEC_MAX_LEN);
	strcpy(copy, spec);
	n = split_words(copy, words, SPEC_MAX_WORDS);
	if (n == -E2BIG)
		return db_opt_error(err, errlen, "qdisc spec has more than %d words",
				    SPEC_MAX_WORDS);
	if (n == 0)
		return db_opt_error(err, errlen, "empty qdisc spec");

	ops = db_qdisc_find(words[0]);
	if (!ops) {
		kind_list(kinds, sizeof(kinds));
		db_opt_error(err, errlen, "unknown qdisc \"%s\" (known: %s)", words[0], kinds);
		return -ENOENT;
	}

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ops = ops;
	q->params = calloc(1, ops->params_size);
	q->priv = calloc(1, ops->priv_size);
	if (!q->params || !q->priv) {
		ret = -ENOMEM;
		goto fail;
	}
	ops->defaults(q->params);
	ret = ops->parse(q->params, n - 1, words + 1, err, errlen);
	if (ret < 0)
		goto fail;
	ret = ops->init(q->priv, q->params, env);
	if (ret < 0) {
		if (ret == -EINVAL)
			db_opt_error(err, errlen, "%s: inconsistent parameters", ops->kind);
		goto fail;
	}
	*out = q;
	return 0;

fail:
	free(q->params);
	free(q->priv);
	free(q);
	return ret;
}

void db_qdisc_destroy(struct db_qdisc *q)
{
	if (!q)
		return;
	q->ops->destroy(q->priv);
	free(q->params);
	free(q->priv);
	free(q);
}

int db_qdisc_format(const struct db_qdisc *q, char *buf, size_t len)
{
	return q->ops->format(q->params, buf, len);
}
