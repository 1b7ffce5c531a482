/* SPDX-License-Identifier: MIT */
/*
 * dql.c - the slow path of dynamic queue limits: setup and completion processing.
 * Sums that Linux does in 32 bits are done in 64 here, so a producer that ignores
 * XOFF cannot wrap the limit.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "debloat/dql.h"

_Static_assert(sizeof(struct db_dql) == 96, "struct db_dql has padding or grew");

/* a - b when a is after b on the wrapping byte count, else 0. */
static inline uint32_t posdiff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0 ? a - b : 0;
}

/* a is at or after b on the wrapping byte count. */
static inline bool after_eq(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

static uint32_t clamp_limit(uint32_t limit, const struct db_dql_params *p)
{
	if (limit < p->limit_min)
		return p->limit_min;
	if (limit > p->limit_max)
		return p->limit_max;
	return limit;
}

void db_dql_init(struct db_dql *dql, uint64_t hold_time_ns)
{
	memset(dql, 0, sizeof(*dql));
	dql->params.limit_min = 0;
	dql->params.limit_max = DB_DQL_MAX_LIMIT;
	dql->params.hold_time_ns = hold_time_ns;
	dql->params.stall_thrs_ns = 0;
	db_dql_reset(dql);
}

void db_dql_reset(struct db_dql *dql)
{
	dql->num_queued = 0;
	dql->num_completed = 0;
	dql->last_obj_cnt = 0;
	dql->busy_since_ns = 0;
	dql->limit = dql->params.limit_min;
	/* adj_limit stays, as Linux's dql_reset() leaves it (db_dql_init() zeroes it). */
	dql->prev_ovlimit = 0;
	dql->prev_num_queued = 0;
	dql->prev_last_obj_cnt = 0;
	dql->lowest_slack = UINT32_MAX;
	dql->slack_start_ns = 0;
	dql->slack_dated = 0;
}

int db_dql_set_params(struct db_dql *dql, const struct db_dql_params *params)
{
	struct db_dql_params p = *params;

	if (p.limit_min > DB_DQL_MAX_LIMIT)
		p.limit_min = DB_DQL_MAX_LIMIT;
	if (p.limit_max > DB_DQL_MAX_LIMIT)
		p.limit_max = DB_DQL_MAX_LIMIT;
	if (p.limit_min > p.limit_max)
		return -EINVAL;
	dql->params = p;
	dql->limit = clamp_limit(dql->limit, &p);
	dql->adj_limit = dql->limit + dql->num_completed;
	return 0;
}

int db_dql_set_limits(struct db_dql *dql, uint32_t limit_min, uint32_t limit_max)
{
	struct db_dql_params p = dql->params;

	p.limit_min = limit_min;
	p.limit_max = limit_max;
	return db_dql_set_params(dql, &p);
}

/*
 * Bytes completed, so bytes were in flight: a stall ends here if nothing completed
 * for at least the threshold. Whatever stays in flight has been waiting since now.
 */
static void check_stall(struct db_dql *dql, uint64_t now_ns)
{
	uint64_t waited = now_ns - dql->busy_since_ns;

	if (dql->params.stall_thrs_ns && waited >= dql->params.stall_thrs_ns) {
		dql->stall_cnt++;
		if (waited > dql->stall_max_ns)
			dql->stall_max_ns = waited;
	}
	dql->busy_since_ns = now_ns;
}

int db_dql_completed(struct db_dql *dql, uint32_t bytes, uint64_t now_ns)
{
	uint32_t num_queued = dql->num_queued;
	uint32_t inflight_before = num_queued - dql->num_completed;
	uint32_t completed, limit, ovlimit, inprogress, prev_inprogress;
	bool all_prev_completed;

	if (bytes > inflight_before)
		return -EINVAL;
	/* An empty report would read as an interval with nothing drained, a slack
	 * of the whole limit; the driver API (netdev_tx_completed_queue) skips it. */
	if (!bytes)
		return 0;

	if (!dql->slack_dated) {
		dql->slack_start_ns = now_ns;
		dql->slack_dated = 1;
	}

	completed = dql->num_completed + bytes;
	limit = dql->limit;
	ovlimit = posdiff(inflight_before, limit);
	inprogress = num_queued - completed;
	prev_inprogress = dql->prev_num_queued - dql->num_completed;
	all_prev_completed = after_eq(completed, dql->prev_num_queued);

	if ((ovlimit && !inprogress) || (dql->prev_ovlimit && all_prev_completed)) {
		/*
		 * Starved: the ring was over the limit and ran empty, or was over the
		 * limit last time and everything queued then is done, so it may have
		 * run dry before the producer was woken. Grow by what went through in
		 * the interval plus the previous overshoot; restart slack tracking.
		 */
		uint64_t grown =
		    (uint64_t)limit + posdiff(completed, dql->prev_num_queued) + dql->prev_ovlimit;

		limit = grown > UINT32_MAX ? UINT32_MAX : (uint32_t)grown;
		dql->slack_start_ns = now_ns;
		dql->lowest_slack = UINT32_MAX;
	} else if (inprogress && prev_inprogress && !all_prev_completed) {
		/*
		 * Busy the whole interval. Twice the bytes completed in it bounds what
		 * the ring needs, so anything the limit (plus overshoot) holds beyond
		 * that is slack; so is the part of the last object that was not needed
		 * to go over. The lowest slack over the window is what can safely go:
		 * one quiet interval must not cut the limit.
		 */
		uint64_t room = (uint64_t)limit + dql->prev_ovlimit, need = 2 * (uint64_t)bytes;
		uint32_t slack = room > need ? (uint32_t)(room - need) : 0;
		uint32_t slack_last_obj =
		    dql->prev_ovlimit ? posdiff(dql->prev_last_obj_cnt, dql->prev_ovlimit) : 0;

		if (slack_last_obj > slack)
			slack = slack_last_obj;
		if (slack < dql->lowest_slack)
			dql->lowest_slack = slack;
		if (now_ns - dql->slack_start_ns > dql->params.hold_time_ns) {
			/* Not posdiff: these are sizes, not points on the wrapping count. */
			limit = limit > dql->lowest_slack ? limit - dql->lowest_slack : 0;
			dql->slack_start_ns = now_ns;
			dql->lowest_slack = UINT32_MAX;
		}
	}

	limit = clamp_limit(limit, &dql->params);
	if (limit != dql->limit) {
		dql->limit = limit;
		/* The overshoot was against the old limit; it says nothing about the new one. */
		ovlimit = 0;
	}

	dql->adj_limit = limit + completed;
	dql->prev_ovlimit = ovlimit;
	dql->prev_last_obj_cnt = dql->last_obj_cnt;
	dql->num_completed = completed;
	dql->prev_num_queued = num_queued;

	check_stall(dql, now_ns);
	return 0;
}
