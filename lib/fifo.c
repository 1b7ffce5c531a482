/* SPDX-License-Identifier: MIT */
/* fifo.c - pfifo and bfifo: a tail-drop FIFO limited in packets or bytes. */
#include <errno.h>
#include <string.h>

#include "debloat/fifo.h"
#include "ops.h"
#include "opt.h"

static const struct db_opt pfifo_opts[] = {
    {"limit", DB_OPT_U32, offsetof(struct db_fifo_params, limit), 0, UINT32_MAX, 0},
};

static const struct db_opt bfifo_opts[] = {
    {"limit", DB_OPT_SIZE, offsetof(struct db_fifo_params, limit), 0, UINT32_MAX, 0},
};

/* One option each: opts_of() below hands out a table of exactly one entry. */
_Static_assert(DB_OPT_COUNT(pfifo_opts) == 1 && DB_OPT_COUNT(bfifo_opts) == 1, "one option");

static const char *kind_of(const struct db_fifo_params *params)
{
	return params->limit_in_bytes ? "bfifo" : "pfifo";
}

static const struct db_opt *opts_of(const struct db_fifo_params *params)
{
	return params->limit_in_bytes ? bfifo_opts : pfifo_opts;
}

void db_pfifo_defaults(struct db_fifo_params *params)
{
	params->limit = 1000;
	params->limit_in_bytes = false;
}

void db_bfifo_defaults(struct db_fifo_params *params)
{
	params->limit = 1000 * 1514;
	params->limit_in_bytes = true;
}

int db_fifo_parse(struct db_fifo_params *params, int argc, char *const argv[], char *err,
		  size_t errlen)
{
	struct db_fifo_params p = *params;
	int ret;

	ret = db_opt_parse(opts_of(&p), 1, kind_of(&p), &p, argc, argv, err, errlen);
	if (ret < 0)
		return ret;
	*params = p;
	return 0;
}

int db_fifo_format(const struct db_fifo_params *params, char *buf, size_t len)
{
	return db_opt_format(opts_of(params), 1, kind_of(params), params, buf, len);
}

int db_fifo_init(struct db_fifo *q, const struct db_fifo_params *params,
		 const struct db_qdisc_env *env)
{
	memset(q, 0, sizeof(*q));
	q->params = *params;
	if (env)
		q->env = *env;
	return 0;
}

static void drop(struct db_fifo *q, struct db_pkt *pkt, enum db_drop_reason why)
{
	q->stats.drops++;
	if (why == DB_DROP_OVERLIMIT)
		q->stats.overlimits++;
	if (q->env.drop)
		q->env.drop(pkt, why, q->env.ctx);
}

static bool fits(const struct db_fifo *q, const struct db_pkt *pkt)
{
	if (q->params.limit_in_bytes)
		return q->stats.backlog_bytes + pkt->len <= q->params.limit;
	return q->stats.backlog_pkts < q->params.limit;
}

int db_fifo_enqueue(struct db_fifo *q, struct db_pkt *pkt, uint64_t now_ns)
{
	if (!fits(q, pkt)) {
		drop(q, pkt, DB_DROP_OVERLIMIT);
		return DB_ENQ_DROPPED;
	}
	pkt->enqueue_ns = now_ns;
	db_pktq_push(&q->queue, pkt);
	q->stats.backlog_pkts++;
	q->stats.backlog_bytes += pkt->len;
	if (q->stats.backlog_pkts > q->peak_pkts)
		q->peak_pkts = q->stats.backlog_pkts;
	if (q->stats.backlog_bytes > q->peak_bytes)
		q->peak_bytes = q->stats.backlog_bytes;
	return DB_ENQ_QUEUED;
}

struct db_pkt *db_fifo_dequeue(struct db_fifo *q, uint64_t now_ns)
{
	struct db_pkt *pkt = db_pktq_pop(&q->queue);

	if (!pkt)
		return NULL;
	q->stats.backlog_pkts--;
	q->stats.backlog_bytes -= pkt->len;
	return pkt;
}

void db_fifo_reset(struct db_fifo *q)
{
	struct db_pkt *pkt;

	while ((pkt = db_fifo_dequeue(q, 0)))
		drop(q, pkt, DB_DROP_RESET);
}

void db_fifo_destroy(struct db_fifo *q)
{
	db_fifo_reset(q);
}

void db_fifo_stats(const struct db_fifo *q, struct db_qdisc_stats *st)
{
	*st = q->stats;
}

int db_fifo_xstats(const struct db_fifo *q, struct db_stat *out, int max)
{
	const struct db_stat all[] = {
	    {"peak_backlog_pkts", q->peak_pkts},
	    {"peak_backlog_bytes", q->peak_bytes},
	};
	int n = 0;

	for (; n < (int)(sizeof(all) / sizeof(all[0])) && n < max; n++)
		out[n] = all[n];
	return n;
}

/* The ops tables: void * glue over the native API; only defaults differ. */

DB_QDISC_OPS_WRAPPERS(db_fifo)
DB_QDISC_PARAM_WRAPPERS(db_fifo)

static void ops_pfifo_defaults(void *params)
{
	db_pfifo_defaults(params);
}

static void ops_bfifo_defaults(void *params)
{
	db_bfifo_defaults(params);
}

const struct db_qdisc_ops db_pfifo_ops = {
    .kind = "pfifo",
    .usage = "[limit PACKETS]",
    .params_size = sizeof(struct db_fifo_params),
    .priv_size = sizeof(struct db_fifo),
    .defaults = ops_pfifo_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = NULL,
};

const struct db_qdisc_ops db_bfifo_ops = {
    .kind = "bfifo",
    .usage = "[limit BYTES]",
    .params_size = sizeof(struct db_fifo_params),
    .priv_size = sizeof(struct db_fifo),
    .defaults = ops_bfifo_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = NULL,
};
