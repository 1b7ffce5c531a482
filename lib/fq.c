/* SPDX-License-Identifier: MIT */
/* fq.c - fair queueing with per-flow pacing, after Linux sch_fq (see fq.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/fq.h"
#include "ops.h"
#include "opt.h"

#define NSEC_PER_SEC 1000000000ULL

_Static_assert(sizeof(struct db_fq_flow) <= 64, "a flow must fit one cache line");

void db_fq_defaults(struct db_fq_params *p)
{
	memset(p, 0, sizeof(*p));
	p->limit = 10000;
	p->flow_limit = 100;
	p->quantum = 2 * DB_FQ_MTU;
	p->initial_quantum = 10 * DB_FQ_MTU;
	p->maxrate = 0;
	p->buckets = 1024;
	p->perturb = 0;
	p->refill_delay_ns = 40000000ULL;
}

/* tc's option order, with refill_delay (a tc fq option too) before our perturb. */
static const struct db_opt fq_opts[] = {
    {"limit", DB_OPT_U32, offsetof(struct db_fq_params, limit), 1, UINT32_MAX, 0},
    {"flow_limit", DB_OPT_U32, offsetof(struct db_fq_params, flow_limit), 1, UINT32_MAX, 0},
    {"quantum", DB_OPT_SIZE, offsetof(struct db_fq_params, quantum), 1, DB_FQ_MAX_QUANTUM, 0},
    {"initial_quantum", DB_OPT_SIZE, offsetof(struct db_fq_params, initial_quantum), 0, UINT32_MAX,
     0},
    {"maxrate", DB_OPT_RATE, offsetof(struct db_fq_params, maxrate), 0, UINT64_MAX / 8, 0},
    {"buckets", DB_OPT_U32, offsetof(struct db_fq_params, buckets), 1, DB_FQ_MAX_BUCKETS, 0},
    {"refill_delay", DB_OPT_TIME, offsetof(struct db_fq_params, refill_delay_ns), 0,
     3600 * NSEC_PER_SEC, 0},
    {"perturb", DB_OPT_U32, offsetof(struct db_fq_params, perturb), 0, UINT32_MAX, 0},
};

static bool is_power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

int db_fq_check(const struct db_fq_params *p)
{
	if (!p->limit || !p->flow_limit || !p->quantum || p->quantum > DB_FQ_MAX_QUANTUM ||
	    p->buckets > DB_FQ_MAX_BUCKETS || !is_power_of_two(p->buckets))
		return -EINVAL;
	return 0;
}

int db_fq_parse(struct db_fq_params *p, int argc, char *const argv[], char *err, size_t errlen)
{
	struct db_fq_params tmp = *p;
	const char *word = NULL;
	int ret;

	ret = db_opt_parse(fq_opts, DB_OPT_COUNT(fq_opts), "fq", &tmp, argc, argv, err, errlen);
	if (ret < 0)
		return ret;
	if (!is_power_of_two(tmp.buckets)) {
		/* The last "buckets" wins, as in the parser; quote what the user wrote. */
		for (int i = 0; i + 1 < argc; i++)
			if (!strcmp(argv[i], "buckets"))
				word = argv[i + 1];
		if (word)
			return db_opt_error(err, errlen,
					    "bad value \"%s\" for fq buckets: expected a power of "
					    "two like 1024",
					    word);
		return db_opt_error(err, errlen, "fq buckets %u is not a power of two",
				    tmp.buckets);
	}
	*p = tmp;
	return 0;
}

int db_fq_format(const struct db_fq_params *p, char *buf, size_t len)
{
	return db_opt_format(fq_opts, DB_OPT_COUNT(fq_opts), "fq", p, buf, len);
}

int db_fq_init(struct db_fq *q, const struct db_fq_params *p, const struct db_qdisc_env *env)
{
	int ret = db_fq_check(p);

	if (ret < 0)
		return ret;
	memset(q, 0, sizeof(*q));
	q->flows = calloc(p->buckets, sizeof(*q->flows));
	q->delayed = calloc(p->buckets, sizeof(*q->delayed));
	if (!q->flows || !q->delayed) {
		free(q->flows);
		free(q->delayed);
		q->flows = NULL;
		q->delayed = NULL;
		return -ENOMEM;
	}
	q->params = *p;
	if (env)
		q->env = *env;
	return 0;
}

static void list_add_tail(struct db_fq_list *l, struct db_fq_flow *f)
{
	f->next = NULL;
	if (l->first)
		l->last->next = f;
	else
		l->first = f;
	l->last = f;
}

static void list_pop(struct db_fq_list *l)
{
	l->first = l->first->next;
}

static void drop(struct db_fq *q, struct db_pkt *pkt, enum db_drop_reason why)
{
	pkt->next = NULL;
	q->stats.drops++;
	if (q->env.drop)
		q->env.drop(pkt, why, q->env.ctx);
}

void db_fq_reset(struct db_fq *q)
{
	struct db_pktq chain = q->prio;
	struct db_pkt *pkt;

	/*
	 * Unlink everything first and report afterwards, so the state is consistent
	 * (empty) whatever the drop callback looks at. Scanning the table is simpler
	 * than walking both lists and the heap, and the memset below is O(buckets)
	 * anyway: reset is rare.
	 */
	for (uint32_t i = 0; i < q->params.buckets; i++)
		db_pktq_splice(&chain, &q->flows[i].queue);
	memset(q->flows, 0, (size_t)q->params.buckets * sizeof(*q->flows));
	q->new_flows.first = q->new_flows.last = NULL;
	q->old_flows.first = q->old_flows.last = NULL;
	db_pktq_init(&q->prio);
	q->qlen = 0;
	q->backlog = 0;
	q->flow_count = 0;
	q->inactive_flows = 0;
	q->ndelayed = 0;

	while ((pkt = db_pktq_pop(&chain)))
		drop(q, pkt, DB_DROP_RESET);
}

void db_fq_destroy(struct db_fq *q)
{
	if (!q->flows)
		return;
	db_fq_reset(q);
	free(q->flows);
	free(q->delayed);
	q->flows = NULL;
	q->delayed = NULL;
}

/*
 * The throttled set is a binary min-heap in an array of `buckets` entries (a flow
 * is in it at most once), keyed by (time, arrival seq). Insert and remove cost
 * log2(throttled flows) steps of 24-byte moves inside one array: ~10 at 1024
 * throttled flows, against a memmove of up to 24 KB for a sorted array, and
 * without the pointer chasing of a tree. Only paced flows ever touch it.
 */
static bool delayed_before(const struct db_fq_delayed *a, const struct db_fq_delayed *b)
{
	return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->seq < b->seq);
}

static void delayed_push(struct db_fq *q, uint32_t flow, uint64_t time_ns)
{
	struct db_fq_delayed e = {time_ns, q->delayed_seq++, flow};
	uint32_t i = q->ndelayed++;

	while (i > 0) {
		uint32_t parent = (i - 1) >> 1;

		if (!delayed_before(&e, &q->delayed[parent]))
			break;
		q->delayed[i] = q->delayed[parent];
		i = parent;
	}
	q->delayed[i] = e;
}

static void delayed_pop(struct db_fq *q)
{
	uint32_t n = --q->ndelayed, i = 0;
	struct db_fq_delayed last = q->delayed[n];

	if (!n)
		return;
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && delayed_before(&q->delayed[c + 1], &q->delayed[c]))
			c++;
		if (!delayed_before(&q->delayed[c], &last))
			break;
		q->delayed[i] = q->delayed[c];
		i = c;
	}
	q->delayed[i] = last;
}

static void throttle(struct db_fq *q, struct db_fq_flow *f)
{
	f->state = DB_FQ_THROTTLED;
	delayed_push(q, (uint32_t)(f - q->flows), f->time_next_packet);
	q->stats.throttled++;
}

/* Release every throttled flow whose time has come, earliest first, to old_flows. */
static void unthrottle(struct db_fq *q, uint64_t now_ns)
{
	uint64_t late;

	if (!q->ndelayed || q->delayed[0].time_ns > now_ns)
		return;
	/* How late the caller came compared to next_ns: a diagnostic of its timers.
	 * Like Linux, a punctual release is no sample. */
	late = now_ns - q->delayed[0].time_ns;
	if (late) {
		q->stats.unthrottle_latency_ns -= q->stats.unthrottle_latency_ns >> 3;
		q->stats.unthrottle_latency_ns += late >> 3;
	}
	while (q->ndelayed && q->delayed[0].time_ns <= now_ns) {
		struct db_fq_flow *f = &q->flows[q->delayed[0].flow];

		delayed_pop(q);
		f->state = DB_FQ_OLD;
		list_add_tail(&q->old_flows, f);
	}
}

/* A flow with no list gets a packet: (re)start it and put it on new_flows. */
static void flow_wake(struct db_fq *q, struct db_fq_flow *f, uint64_t now_ns)
{
	/* No pacing history to forget in either case: an unused bucket has none, and
	 * a flow idle for the gc age is past any gap (at most 1 s). */
	if (f->state == DB_FQ_UNUSED) {
		q->flow_count++;
		q->inactive_flows++;
		f->credit = q->params.initial_quantum;
	} else {
		uint64_t idle = now_ns - f->detached_ns;

		if (idle > DB_FQ_GC_AGE_NS) {
			/* Linux would have freed it by now: a new flow, as far as we know. */
			q->stats.gc_flows++;
			f->credit = q->params.initial_quantum;
		} else if (idle > q->params.refill_delay_ns && f->credit < q->params.quantum) {
			f->credit = q->params.quantum;
		}
	}
	f->state = DB_FQ_NEW;
	list_add_tail(&q->new_flows, f);
}

static int refuse(struct db_fq *q, struct db_pkt *pkt, enum db_drop_reason why)
{
	q->stats.overlimits++;
	drop(q, pkt, why);
	return DB_ENQ_DROPPED;
}

int db_fq_enqueue(struct db_fq *q, struct db_pkt *pkt, uint64_t now_ns)
{
	struct db_fq_flow *f;

	if (q->qlen >= q->params.limit)
		return refuse(q, pkt, DB_DROP_OVERLIMIT);
	pkt->enqueue_ns = now_ns;

	if ((pkt->flags & DB_PKT_HAS_PRIORITY) && (pkt->priority & 15) == DB_FQ_PRIO_CONTROL) {
		db_pktq_push(&q->prio, pkt);
		q->stats.highprio_packets++;
		goto queued;
	}

	f = &q->flows[db_fq_bucket(q, pkt->hash)];
	if (f->qlen >= q->params.flow_limit) {
		q->stats.flows_plimit++;
		return refuse(q, pkt, DB_DROP_FLOW_LIMIT);
	}
	if (f->state <= DB_FQ_DETACHED)
		flow_wake(q, f, now_ns);
	if (f->qlen++ == 0)
		q->inactive_flows--;
	db_pktq_push(&f->queue, pkt);

queued:
	q->qlen++;
	q->backlog += pkt->len;
	return DB_ENQ_QUEUED;
}

/* After f sent len bytes at now_ns: the pacing gap (the one division per packet). */
static void pace(struct db_fq *q, struct db_fq_flow *f, uint32_t len, uint64_t now_ns)
{
	uint64_t gap = (uint64_t)len * NSEC_PER_SEC / q->params.maxrate;

	if (gap > DB_FQ_MAX_PACING_DELAY_NS) {
		gap = DB_FQ_MAX_PACING_DELAY_NS;
		q->stats.pkts_too_long++;
	}
	f->time_next_packet = now_ns + gap;
}

struct db_pkt *db_fq_dequeue(struct db_fq *q, uint64_t now_ns)
{
	struct db_fq_list *head;
	struct db_fq_flow *f;
	struct db_pkt *pkt;

	/* No early return on an empty queue: the walk below is what detaches the flows
	 * that ran dry (and dates their idleness); it is short once they are gone. */
	pkt = db_pktq_pop(&q->prio);
	if (pkt)
		goto out;
	unthrottle(q, now_ns);

	/* Each pass either returns or moves the head flow on: credit grows by quantum
	 * per refill, so the loop ends. */
	for (;;) {
		head = q->new_flows.first ? &q->new_flows : &q->old_flows;
		f = head->first;
		if (!f)
			return NULL; /* everything queued is throttled */
		if (f->credit <= 0) {
			f->credit += q->params.quantum;
			list_pop(head);
			f->state = DB_FQ_OLD;
			list_add_tail(&q->old_flows, f);
			continue;
		}
		if (db_pktq_empty(&f->queue)) {
			list_pop(head);
			if (head == &q->new_flows) {
				f->state = DB_FQ_OLD;
				list_add_tail(&q->old_flows, f);
			} else {
				f->state = DB_FQ_DETACHED;
				f->detached_ns = now_ns;
			}
			continue;
		}
		if (now_ns < f->time_next_packet) {
			list_pop(head);
			throttle(q, f);
			continue;
		}
		break;
	}

	pkt = db_pktq_pop(&f->queue);
	if (--f->qlen == 0)
		q->inactive_flows++;
	f->credit -= pkt->len;
	if (q->params.maxrate)
		pace(q, f, pkt->len, now_ns);
out:
	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

uint64_t db_fq_next_ns(const struct db_fq *q, uint64_t now_ns)
{
	return q->ndelayed ? q->delayed[0].time_ns : 0;
}

void db_fq_stats(const struct db_fq *q, struct db_qdisc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->backlog_bytes = q->backlog;
	st->backlog_pkts = q->qlen;
	st->drops = q->stats.drops;
	st->overlimits = q->stats.overlimits;
}

int db_fq_xstats(const struct db_fq *q, struct db_stat *out, int max)
{
	const struct db_stat all[] = {
	    {"flows", q->flow_count},
	    {"inactive_flows", q->inactive_flows},
	    {"throttled_flows", q->ndelayed},
	    {"gc_flows", q->stats.gc_flows},
	    {"highprio_packets", q->stats.highprio_packets},
	    {"throttled", q->stats.throttled},
	    {"flows_plimit", q->stats.flows_plimit},
	    {"pkts_too_long", q->stats.pkts_too_long},
	    {"unthrottle_latency_ns", q->stats.unthrottle_latency_ns},
	    {"time_next_delayed_flow_ns", db_fq_next_ns(q, 0)},
	};
	int n = (int)(sizeof(all) / sizeof(all[0]));

	if (max < n)
		n = max < 0 ? 0 : max;
	for (int i = 0; i < n; i++)
		out[i] = all[i];
	return n;
}

/* The generic interface of model.h. */

DB_QDISC_OPS_WRAPPERS(db_fq)
DB_QDISC_PARAM_WRAPPERS(db_fq)

static void ops_defaults(void *params)
{
	db_fq_defaults(params);
}

static uint64_t ops_next_ns(const void *priv, uint64_t now_ns)
{
	return db_fq_next_ns(priv, now_ns);
}

const struct db_qdisc_ops db_fq_ops = {
    .kind = "fq",
    .usage = "[limit PACKETS] [flow_limit PACKETS] [quantum BYTES] [initial_quantum BYTES] "
	     "[maxrate RATE] [buckets N] [refill_delay TIME] [perturb N]",
    .params_size = sizeof(struct db_fq_params),
    .priv_size = sizeof(struct db_fq),
    .defaults = ops_defaults,
    DB_QDISC_OPS_METHODS,
    .next_ns = ops_next_ns,
};
