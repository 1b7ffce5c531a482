/* SPDX-License-Identifier: MIT */
/* codel.c - CoDel's parameters, and the single-FIFO `codel` discipline of codel.h. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "debloat/codel.h"
#include "ops.h"
#include "opt.h"

_Static_assert(sizeof(struct db_codel_vars) <= 28, "fq_codel keeps one per bucket in 64 bytes");

void db_codel_defaults(struct db_codel_params *p)
{
	*p = (struct db_codel_params){
	    .target_ns = 5000000,
	    .interval_ns = 100000000,
	    .ce_threshold_ns = 0,
	    .mtu = 1514,
	    .ecn = false,
	};
}

int db_codel_params_check(const struct db_codel_params *p)
{
	if (p->interval_ns == 0 || p->interval_ns > DB_CODEL_TIME_MAX_NS ||
	    p->target_ns > DB_CODEL_TIME_MAX_NS || p->ce_threshold_ns > DB_CODEL_TIME_MAX_NS)
		return -EINVAL;
	return 0;
}

void db_codel_vars_init(struct db_codel_vars *v)
{
	memset(v, 0, sizeof(*v));
}

/* ---- the FIFO CoDel guards --------------------------------------------------------------- */

static struct db_pkt *fifo_dequeue(void *ctx)
{
	struct db_codel_qdisc *q = ctx;
	struct db_pkt *pkt = db_pktq_pop(&q->queue);

	if (!pkt)
		return NULL;
	q->backlog_bytes -= pkt->len;
	q->backlog_pkts--;
	return pkt;
}

static void report_drop(struct db_codel_qdisc *q, struct db_pkt *pkt, enum db_drop_reason why)
{
	q->drops++;
	if (q->env.drop)
		q->env.drop(pkt, why, q->env.ctx);
}

static void aqm_drop(struct db_pkt *pkt, void *ctx)
{
	report_drop(ctx, pkt, DB_DROP_AQM);
}

static void mark_ce(struct db_pkt *pkt, void *ctx)
{
	struct db_codel_qdisc *q = ctx;

	if (q->env.mark_ce)
		q->env.mark_ce(pkt, q->env.ctx);
}

/* ---- native API ---------------------------------------------------------------------------- */

void db_codel_qdisc_defaults(struct db_codel_qdisc_params *p)
{
	p->limit = 1000;
	db_codel_defaults(&p->codel);
}

int db_codel_qdisc_init(struct db_codel_qdisc *q, const struct db_codel_qdisc_params *p,
			const struct db_qdisc_env *env)
{
	if (p->limit == 0 || db_codel_params_check(&p->codel) < 0)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->params = *p;
	if (env)
		q->env = *env;
	return 0;
}

int db_codel_qdisc_enqueue(struct db_codel_qdisc *q, struct db_pkt *pkt, uint64_t now_ns)
{
	if (q->backlog_pkts >= q->params.limit) {
		q->drop_overlimit++;
		report_drop(q, pkt, DB_DROP_OVERLIMIT);
		return DB_ENQ_DROPPED;
	}
	pkt->enqueue_ns = now_ns;
	db_pktq_push(&q->queue, pkt);
	q->backlog_bytes += pkt->len;
	q->backlog_pkts++;
	return DB_ENQ_QUEUED;
}

struct db_pkt *db_codel_qdisc_dequeue(struct db_codel_qdisc *q, uint64_t now_ns)
{
	const struct db_codel_queue queue = {fifo_dequeue, aqm_drop, mark_ce, q};

	return db_codel_dequeue(&q->params.codel, &q->vars, &q->cstats, &q->backlog_bytes, now_ns,
				&queue);
}

void db_codel_qdisc_reset(struct db_codel_qdisc *q)
{
	struct db_pkt *pkt;

	while ((pkt = fifo_dequeue(q)))
		report_drop(q, pkt, DB_DROP_RESET);
	db_codel_vars_init(&q->vars);
}

void db_codel_qdisc_destroy(struct db_codel_qdisc *q)
{
	db_codel_qdisc_reset(q);
}

void db_codel_qdisc_stats(const struct db_codel_qdisc *q, struct db_qdisc_stats *st)
{
	*st = (struct db_qdisc_stats){
	    .backlog_bytes = q->backlog_bytes,
	    .backlog_pkts = q->backlog_pkts,
	    .drops = q->drops,
	    .overlimits = q->drop_overlimit,
	    .ecn_marks = q->cstats.ecn_mark,
	};
}

/* ---- db_qdisc_ops ------------------------------------------------------------------------ */

#define P(field) offsetof(struct db_codel_qdisc_params, field)

static const struct db_opt codel_opts[] = {
    {"limit", DB_OPT_U32, P(limit), 1, UINT32_MAX, 0},
    {"target", DB_OPT_TIME, P(codel.target_ns), 0, DB_CODEL_TIME_MAX_NS, 0},
    {"interval", DB_OPT_TIME, P(codel.interval_ns), 1, DB_CODEL_TIME_MAX_NS, 0},
    {"ecn", DB_OPT_FLAG, P(codel.ecn), 0, 0, 0},
    {"noecn", DB_OPT_NOFLAG, P(codel.ecn), 0, 0, 0},
    {"keep_first_above", DB_OPT_FLAG, P(codel.keep_first_above), 0, 0, 0},
    {"wide_inv_sqrt", DB_OPT_FLAG, P(codel.wide_inv_sqrt), 0, 0, 0},
    {"ce_threshold", DB_OPT_TIME, P(codel.ce_threshold_ns), 0, DB_CODEL_TIME_MAX_NS, 0},
    {"mtu", DB_OPT_SIZE, P(codel.mtu), 0, UINT32_MAX, 0},
};

DB_QDISC_OPS_WRAPPERS(db_codel_qdisc)

static void ops_defaults(void *params)
{
	db_codel_qdisc_defaults(params);
}

static int ops_parse(void *params, int argc, char *const argv[], char *err, size_t errlen)
{
	struct db_codel_qdisc_params p = *(struct db_codel_qdisc_params *)params;
	int ret = db_opt_parse(codel_opts, DB_OPT_COUNT(codel_opts), "codel", &p, argc, argv, err,
			       errlen);

	if (ret < 0)
		return ret;
	*(struct db_codel_qdisc_params *)params = p;
	return 0;
}

static int ops_format(const void *params, char *buf, size_t len)
{
	return db_opt_format(codel_opts, DB_OPT_COUNT(codel_opts), "codel", params, buf, len);
}

static int ops_xstats(const void *priv, struct db_stat *out, int max)
{
	const struct db_codel_qdisc *q = priv;
	const struct db_stat all[] = {
	    {"maxpacket_bytes", q->cstats.maxpacket},
	    {"count", q->vars.count},
	    {"lastcount", q->vars.lastcount},
	    {"ldelay_ns", db_codel_time_to_ns(q->vars.ldelay)},
	    {"dropping", q->vars.dropping},
	    {"drop_overlimit", q->drop_overlimit},
	    {"ecn_mark", q->cstats.ecn_mark},
	    {"ce_mark", q->cstats.ce_mark},
	    {"drop_aqm", q->cstats.drop_count},
	};
	int n = 0;

	for (; n < max && n < (int)DB_OPT_COUNT(all); n++)
		out[n] = all[n];
	return n;
}

const struct db_qdisc_ops db_codel_ops = {
    .kind = "codel",
    .usage = "[limit PACKETS] [target TIME] [interval TIME] [ecn|noecn] [ce_threshold TIME] "
	     "[mtu BYTES] [keep_first_above] [wide_inv_sqrt]",
    .params_size = sizeof(struct db_codel_qdisc_params),
    .priv_size = sizeof(struct db_codel_qdisc),
    .defaults = ops_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = NULL,
};
