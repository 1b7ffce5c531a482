/* SPDX-License-Identifier: MIT */
/* pfifo_fast.c - three strict-priority FIFO bands, Linux's default qdisc. */
#include <errno.h>
#include <string.h>

#include "debloat/pfifo_fast.h"
#include "ops.h"
#include "opt.h"

static const struct db_opt pfifo_fast_opts[] = {
    {"txqueuelen", DB_OPT_U32, offsetof(struct db_pfifo_fast_params, txqueuelen), 1,
     DB_PFIFO_FAST_TXQUEUELEN_MAX, 0},
    {"priomap", DB_OPT_U8_LIST, offsetof(struct db_pfifo_fast_params, priomap), 0,
     DB_PFIFO_FAST_BANDS - 1, DB_TC_PRIO_MAX + 1},
    {"ring_batch", DB_OPT_U32, offsetof(struct db_pfifo_fast_params, ring_batch), 1, 65536, 0},
};

static const uint8_t default_priomap[DB_TC_PRIO_MAX + 1] = {1, 2, 2, 2, 1, 2, 0, 0,
							    1, 1, 1, 1, 1, 1, 1, 1};

void db_pfifo_fast_defaults(struct db_pfifo_fast_params *params)
{
	params->txqueuelen = 1000;
	params->ring_batch = 16;
	memcpy(params->priomap, default_priomap, sizeof(params->priomap));
}

int db_pfifo_fast_parse(struct db_pfifo_fast_params *params, int argc, char *const argv[],
			char *err, size_t errlen)
{
	struct db_pfifo_fast_params p = *params;
	int ret;

	ret = db_opt_parse(pfifo_fast_opts, DB_OPT_COUNT(pfifo_fast_opts), "pfifo_fast", &p, argc,
			   argv, err, errlen);
	if (ret < 0)
		return ret;
	*params = p;
	return 0;
}

int db_pfifo_fast_format(const struct db_pfifo_fast_params *params, char *buf, size_t len)
{
	return db_opt_format(pfifo_fast_opts, DB_OPT_COUNT(pfifo_fast_opts), "pfifo_fast", params,
			     buf, len);
}

static bool params_valid(const struct db_pfifo_fast_params *p)
{
	if (p->txqueuelen < 1 || p->txqueuelen > DB_PFIFO_FAST_TXQUEUELEN_MAX)
		return false;
	if (p->ring_batch < 1 || p->ring_batch > 65536)
		return false;
	for (int i = 0; i <= DB_TC_PRIO_MAX; i++)
		if (p->priomap[i] >= DB_PFIFO_FAST_BANDS)
			return false;
	return true;
}

int db_pfifo_fast_init(struct db_pfifo_fast *q, const struct db_pfifo_fast_params *params,
		       const struct db_qdisc_env *env)
{
	if (!params_valid(params))
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->params = *params;
	if (env)
		q->env = *env;
	return 0;
}

static void drop(struct db_pfifo_fast *q, struct db_pfifo_fast_band *b, struct db_pkt *pkt,
		 enum db_drop_reason why)
{
	b->drops++;
	q->stats.drops++;
	if (why == DB_DROP_OVERLIMIT)
		q->stats.overlimits++;
	if (q->env.drop)
		q->env.drop(pkt, why, q->env.ctx);
}

int db_pfifo_fast_enqueue(struct db_pfifo_fast *q, struct db_pkt *pkt, uint64_t now_ns)
{
	struct db_pfifo_fast_band *b = &q->band[db_pfifo_fast_band(q, pkt)];

	/* the producer's slot is free only if neither queued nor read-but-unfreed */
	if (b->pkts + b->unfreed >= q->params.txqueuelen) {
		drop(q, b, pkt, DB_DROP_OVERLIMIT);
		return DB_ENQ_DROPPED;
	}
	pkt->enqueue_ns = now_ns;
	db_pktq_push(&b->queue, pkt);
	b->pkts++;
	b->bytes += pkt->len;
	q->stats.backlog_pkts++;
	q->stats.backlog_bytes += pkt->len;
	return DB_ENQ_QUEUED;
}

/* ptr_ring's batch: 1 when the ring is shorter than two batches. */
static uint32_t ring_batch(const struct db_pfifo_fast_params *p)
{
	return p->ring_batch > p->txqueuelen / 2 ? 1 : p->ring_batch;
}

/*
 * The consumer has read one slot: it frees the read slots once a batch of them has
 * gathered, or when it reaches the ring's end (and then starts again at slot 0).
 */
static void ring_consumed(const struct db_pfifo_fast_params *p, struct db_pfifo_fast_band *b)
{
	b->head++;
	b->unfreed++;
	if (b->unfreed >= ring_batch(p) || b->head >= p->txqueuelen)
		b->unfreed = 0;
	if (b->head >= p->txqueuelen)
		b->head = 0;
}

/* The head packet of band b, off the band's and the discipline's counts; NULL if empty. */
static struct db_pkt *band_pop(struct db_pfifo_fast *q, struct db_pfifo_fast_band *b)
{
	struct db_pkt *pkt = db_pktq_pop(&b->queue);

	if (!pkt)
		return NULL;
	ring_consumed(&q->params, b);
	b->pkts--;
	b->bytes -= pkt->len;
	q->stats.backlog_pkts--;
	q->stats.backlog_bytes -= pkt->len;
	return pkt;
}

/* Three bands: a scan is cheaper than keeping a bitmap of non-empty ones in step. */
struct db_pkt *db_pfifo_fast_dequeue(struct db_pfifo_fast *q, uint64_t now_ns)
{
	for (int i = 0; i < DB_PFIFO_FAST_BANDS; i++) {
		struct db_pkt *pkt = band_pop(q, &q->band[i]);

		if (pkt)
			return pkt;
	}
	return NULL;
}

void db_pfifo_fast_reset(struct db_pfifo_fast *q)
{
	for (int i = 0; i < DB_PFIFO_FAST_BANDS; i++) {
		struct db_pfifo_fast_band *b = &q->band[i];
		struct db_pkt *pkt;

		while ((pkt = band_pop(q, b)))
			drop(q, b, pkt, DB_DROP_RESET);
	}
}

void db_pfifo_fast_destroy(struct db_pfifo_fast *q)
{
	db_pfifo_fast_reset(q);
}

void db_pfifo_fast_stats(const struct db_pfifo_fast *q, struct db_qdisc_stats *st)
{
	*st = q->stats;
}

int db_pfifo_fast_xstats(const struct db_pfifo_fast *q, struct db_stat *out, int max)
{
	static const char *const names[DB_PFIFO_FAST_BANDS][3] = {
	    {"band0_pkts", "band0_bytes", "band0_drops"},
	    {"band1_pkts", "band1_bytes", "band1_drops"},
	    {"band2_pkts", "band2_bytes", "band2_drops"},
	};
	int n = 0;

	for (int i = 0; i < DB_PFIFO_FAST_BANDS; i++) {
		const uint64_t values[3] = {q->band[i].pkts, q->band[i].bytes, q->band[i].drops};

		for (int k = 0; k < 3 && n < max; k++, n++) {
			out[n].name = names[i][k];
			out[n].value = values[k];
		}
	}
	return n;
}

/* The ops table: void * glue over the native API. */

DB_QDISC_OPS_WRAPPERS(db_pfifo_fast)
DB_QDISC_PARAM_WRAPPERS(db_pfifo_fast)

static void ops_defaults(void *params)
{
	db_pfifo_fast_defaults(params);
}

const struct db_qdisc_ops db_pfifo_fast_ops = {
    .kind = "pfifo_fast",
    .usage = "[txqueuelen PACKETS] [priomap P0 .. P15] [ring_batch N]",
    .params_size = sizeof(struct db_pfifo_fast_params),
    .priv_size = sizeof(struct db_pfifo_fast),
    .defaults = ops_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = NULL,
};
