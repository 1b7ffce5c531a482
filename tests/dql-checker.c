/* SPDX-License-Identifier: MIT */
/* dql-checker.c - DQL under a modelled driver ring: the dql_checker of checker.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checker.h"

#define RING 64

static int fail(struct dql_checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct dql_checker *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failure[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->failure, sizeof(c->failure), fmt, ap);
	va_end(ap);
	return -1;
}

/* setup: limit_min and limit_max from 16-bit values (both 0: the defaults), hold time. */
void dql_checker_init(struct dql_checker *c, const uint8_t setup[4])
{
	uint32_t a = (uint32_t)setup[0] << 8 | setup[1], b = (uint32_t)setup[2] << 8 | setup[3];

	memset(c, 0, sizeof(*c));
	db_dql_init(&c->dql, (uint64_t)(setup[3] % 8 + 1) * 10000000ULL);
	if (a || b)
		db_dql_set_limits(&c->dql, a < b ? a * 4 : b * 4, a < b ? b * 64 : a * 64);
	/* Start the running totals near the wrap so every run crosses it. */
	c->dql.num_queued = c->dql.num_completed = UINT32_MAX - 100000;
	c->dql.prev_num_queued = c->dql.num_queued;
	c->dql.adj_limit = c->dql.limit + c->dql.num_completed;
}

static int check(struct dql_checker *c, const char *after)
{
	const struct db_dql *d = &c->dql;

	if (db_dql_inflight(d) != c->inflight)
		return fail(c, "after %s: inflight %u, expected %llu", after, db_dql_inflight(d),
			    (unsigned long long)c->inflight);
	if (d->limit < d->params.limit_min || d->limit > d->params.limit_max)
		return fail(c, "after %s: limit %u outside [%u, %u]", after, d->limit,
			    d->params.limit_min, d->params.limit_max);
	if (c->stale_adj) {
		if (db_dql_avail(d) != (int32_t)(c->adj_at_reset - (uint32_t)c->inflight))
			return fail(
			    c,
			    "after %s: avail %d != adj_limit before the reset %u - inflight %llu",
			    after, db_dql_avail(d), c->adj_at_reset,
			    (unsigned long long)c->inflight);
		return 0;
	}
	if ((int64_t)db_dql_avail(d) != (int64_t)d->limit - (int64_t)c->inflight)
		return fail(c, "after %s: avail %d != limit %u - inflight %llu", after,
			    db_dql_avail(d), d->limit, (unsigned long long)c->inflight);
	return 0;
}

int dql_checker_step(struct dql_checker *c, const uint8_t op[4])
{
	uint32_t bytes;
	int ret;

	if (c->failure[0])
		return -1;
	switch (op[0] & 3) {
	case 0: /* the driver posts objects while the ring has room and DQL allows */
		for (unsigned k = 0; k <= (op[3] & 7u) && c->count < RING; k++) {
			/* as the stack does: the queue stops once avail went negative, and an
			 * object is posted first whatever avail said before it */
			if (k && db_dql_avail(&c->dql) < 0)
				break;
			bytes = ((uint32_t)op[1] << 8 | op[2]) % 65536 + 60;
			db_dql_queued_at(&c->dql, bytes, c->now_ns);
			c->ring[(c->head + c->count++) % RING] = bytes;
			c->inflight += bytes;
		}
		return check(c, "queued");
	case 1: /* a completion batch of the oldest n objects */
		bytes = 0;
		for (unsigned n = op[1] % 9u; n && c->count; n--, c->count--) {
			bytes += c->ring[c->head];
			c->head = (c->head + 1) % RING;
		}
		ret = db_dql_completed(&c->dql, bytes, c->now_ns);
		if (ret)
			return fail(c, "completing %u of %llu in flight failed: %d", bytes,
				    (unsigned long long)c->inflight + bytes, ret);
		c->inflight -= bytes;
		if (bytes) /* an empty report changes nothing (netdev_tx_completed_queue) */
			c->stale_adj = false;
		return check(c, "completed");
	case 2: {
		/* over-completion must be refused and change nothing */
		struct db_dql before = c->dql;
		ret = db_dql_completed(&c->dql, (uint32_t)c->inflight + 1 + op[1], c->now_ns);
		if (ret != -EINVAL || memcmp(&before, &c->dql, sizeof(before)))
			return fail(c, "over-completion returned %d and %s state", ret,
				    memcmp(&before, &c->dql, sizeof(before)) ? "changed" : "kept");
		c->now_ns += ((uint64_t)op[2] << 8 | op[3]) * 1000ULL;
		return check(c, "over-completion");
	}
	default:
		if (op[1] == 0xff) { /* ring flushed */
			c->adj_at_reset = c->dql.adj_limit;
			c->stale_adj = true;
			db_dql_reset(&c->dql);
			c->count = 0;
			c->inflight = 0;
			/* reset zeroes the totals' difference, not the totals */
			return check(c, "reset");
		}
		c->now_ns += ((uint64_t)op[2] << 8 | op[3]) * 10000ULL;
		return 0;
	}
}
