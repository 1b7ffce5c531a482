/* SPDX-License-Identifier: MIT */
/* shaper.c - a rate shaper over one child discipline (debloat/shaper.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "debloat/fq_codel.h"
#include "debloat/shaper.h"
#include "ops.h"
#include "opt.h"

#define P(f) offsetof(struct db_shaper_params, f)

static const struct db_opt shaper_opts[] = {
    {"rate", DB_OPT_RATE, P(rate), 125, 1250000000000ull, 0}, /* 1kbit .. 10000gbit */
    {"overhead", DB_OPT_SIZE, P(overhead), 0, 256, 0},
    {"mpu", DB_OPT_SIZE, P(mpu), 0, 256, 0},
};

void db_shaper_defaults(struct db_shaper_params *params)
{
	struct db_fq_codel_params child;

	memset(params, 0, sizeof(*params));
	params->rate = 100000000 / 8;
	db_fq_codel_ops.defaults(&child);
	db_fq_codel_ops.format(&child, params->child, sizeof(params->child));
}

/* The child's spec as its kind formats it: checked, and the same however written. */
static int canonical_child(char *const words[], int n, char *out, size_t outlen, char *err,
			   size_t errlen)
{
	char spec[DB_SHAPER_CHILD_MAX + 1] = "";
	size_t pos = 0;
	struct db_qdisc *q = NULL;
	int ret;

	if (n == 0)
		return db_opt_error(err, errlen, "shaper: \"child\" needs a qdisc spec after it");
	if (!strcmp(words[0], "shaper")) /* and so a spec stays short enough to read back */
		return db_opt_error(err, errlen, "shaper: a shaper's child cannot be a shaper");
	for (int i = 0; i < n; i++) {
		size_t k = strlen(words[i]);

		if (pos + k + 1 >= sizeof(spec))
			return db_opt_error(err, errlen, "shaper: the child's spec is too long");
		if (i)
			spec[pos++] = ' ';
		memcpy(spec + pos, words[i], k + 1);
		pos += k;
	}
	ret = db_qdisc_create(spec, NULL, &q, err, errlen);
	if (ret < 0)
		return ret;
	ret = db_qdisc_format(q, out, outlen);
	db_qdisc_destroy(q);
	if (ret < 0)
		return db_opt_error(err, errlen, "shaper: the child's spec is too long");
	return 0;
}

int db_shaper_parse(struct db_shaper_params *params, int argc, char *const argv[], char *err,
		    size_t errlen)
{
	struct db_shaper_params p = *params;
	int own = 0, ret;

	while (own < argc && strcmp(argv[own], "child") != 0)
		own++;
	ret = db_opt_parse(shaper_opts, DB_OPT_COUNT(shaper_opts), "shaper", &p, own, argv, err,
			   errlen);
	if (ret < 0)
		return ret;
	if (own < argc) {
		ret = canonical_child(argv + own + 1, argc - own - 1, p.child, sizeof(p.child), err,
				      errlen);
		if (ret < 0)
			return ret;
	}
	*params = p;
	return 0;
}

int db_shaper_format(const struct db_shaper_params *params, char *buf, size_t len)
{
	int n = db_opt_format(shaper_opts, DB_OPT_COUNT(shaper_opts), "shaper", params, buf, len);
	int m;

	if (n < 0)
		return n;
	m = snprintf(buf + n, len - (size_t)n, " child %s", params->child);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -ENOSPC;
	return n + m;
}

int db_shaper_init(struct db_shaper *q, const struct db_shaper_params *params,
		   const struct db_qdisc_env *env)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->params = *params;
	ret = db_qdisc_create(params->child, env, &q->child, NULL, 0);
	return ret < 0 ? ret : 0;
}

void db_shaper_destroy(struct db_shaper *q)
{
	if (q->child)
		db_qdisc_destroy(q->child);
	q->child = NULL;
}

/* The bytes a packet counts for at the shaper's rate. */
static uint64_t wire_bytes(const struct db_shaper_params *params, const struct db_pkt *pkt)
{
	uint64_t segs = pkt->segs ? pkt->segs : 1;
	uint64_t wire = (uint64_t)pkt->len + segs * params->overhead;

	return wire < segs * params->mpu ? segs * params->mpu : wire;
}

uint64_t db_shaper_packet_ns(const struct db_shaper_params *params, const struct db_pkt *pkt)
{
	return (wire_bytes(params, pkt) * 1000000000ull + params->rate - 1) / params->rate;
}

static uint32_t backlog(const struct db_shaper *q)
{
	struct db_qdisc_stats st;

	db_qdisc_stats(q->child, &st);
	return st.backlog_pkts;
}

int db_shaper_enqueue(struct db_shaper *q, struct db_pkt *pkt, uint64_t now_ns)
{
	/* An idle shaper earns no credit: its clock starts again from now. */
	if (!backlog(q) && q->t_next < now_ns)
		q->t_next = now_ns;
	return db_qdisc_enqueue(q->child, pkt, now_ns);
}

struct db_pkt *db_shaper_dequeue(struct db_shaper *q, uint64_t now_ns)
{
	struct db_pkt *pkt;

	if (now_ns < q->t_next) {
		if (backlog(q))
			q->throttled++;
		return NULL;
	}
	pkt = db_qdisc_dequeue(q->child, now_ns);
	if (!pkt)
		return NULL;
	q->t_next += db_shaper_packet_ns(&q->params, pkt);
	q->shaped_bytes += wire_bytes(&q->params, pkt);
	return pkt;
}

void db_shaper_reset(struct db_shaper *q)
{
	db_qdisc_reset(q->child);
	q->t_next = 0;
}

void db_shaper_stats(const struct db_shaper *q, struct db_qdisc_stats *st)
{
	db_qdisc_stats(q->child, st);
}

int db_shaper_xstats(const struct db_shaper *q, struct db_stat *out, int max)
{
	const struct db_stat all[] = {
	    {"throttled", q->throttled},
	    {"shaped_bytes", q->shaped_bytes},
	    {"t_next_ns", q->t_next},
	};
	int n = 0;

	for (; n < max && n < (int)DB_OPT_COUNT(all); n++)
		out[n] = all[n];
	return n;
}

uint64_t db_shaper_next_ns(const struct db_shaper *q, uint64_t now_ns)
{
	if (!backlog(q))
		return 0;
	if (now_ns < q->t_next)
		return q->t_next;
	return db_qdisc_next_ns(q->child, now_ns);
}

DB_QDISC_OPS_WRAPPERS(db_shaper)
DB_QDISC_PARAM_WRAPPERS(db_shaper)

static void ops_defaults(void *params)
{
	db_shaper_defaults(params);
}

static uint64_t ops_next_ns(const void *priv, uint64_t now_ns)
{
	return db_shaper_next_ns(priv, now_ns);
}

const struct db_qdisc_ops db_shaper_ops = {
    .kind = "shaper",
    .usage = "[rate RATE] [overhead BYTES] [mpu BYTES] [child SPEC...]",
    .params_size = sizeof(struct db_shaper_params),
    .priv_size = sizeof(struct db_shaper),
    .defaults = ops_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = ops_next_ns,
};
