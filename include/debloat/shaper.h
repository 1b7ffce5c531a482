/* SPDX-License-Identifier: MIT */
/*
 * shaper.h - a rate shaper with one child discipline: the queue moved from where a
 * device hides it to where a discipline can manage it.
 *
 * Where the bottleneck is below the host (a driver without BQL, a USB link, a
 * modem), a qdisc at the device sees no queue: the device takes everything. Shaping
 * the host's transmit just below the bottleneck's rate makes the queue build here,
 * in the child (fq_codel, say), as `tc qdisc add ... htb` with one class and a leaf,
 * `tbf`, or cake's `bandwidth` do. This one is cake's shaper: no burst.
 *
 * Model:
 *  - enqueue hands the packet to the child (the child's limits and drops apply);
 *    when the shaper was empty, its clock `t_next` is moved up to now if it lies in
 *    the past, so an idle shaper earns no credit;
 *  - dequeue returns nothing while now < t_next (the shaper is "throttled"; counted
 *    in the xstats, where htb and tbf count it in overlimits); otherwise it takes the child's next
 *    packet and moves t_next on by that packet's time at `rate`. While backlogged,
 *    t_next advances by exactly the packets' times, so the long-run rate is exact
 *    and a dequeue that came late catches up;
 *  - a packet's time is its bytes on the wire over the rate: len + segs x overhead
 *    (each GSO segment carries the framing the shaper is told to count), at least
 *    segs x mpu;
 *  - next_ns: t_next while throttled with packets queued, else the child's.
 * The child's AQM sees the sojourn time the shaper causes, as in Linux.
 *
 * Parameters (tc-style spec):
 *   shaper [rate RATE] [overhead BYTES] [mpu BYTES] [child SPEC...]
 *     rate      default 100mbit (1kbit..10000gbit)
 *     overhead  bytes per frame the rate has to carry beyond len (default 0; 24
 *               for Ethernet's preamble, SFD and inter-frame gap, 4 for the FCS a
 *               qdisc does not see)
 *     mpu       least bytes a frame counts for (default 0)
 *     child     the rest of the spec is the child's (default "fq_codel"); any kind
 *               but a shaper (one rate is enough)
 *
 * xstats: throttled (dequeues held back), shaped_bytes (wire bytes charged),
 * t_next_ns.
 *
 * Concurrency: none; one caller at a time (model.h).
 */
#ifndef DEBLOAT_SHAPER_H
#define DEBLOAT_SHAPER_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "packet.h"

#define DB_SHAPER_CHILD_MAX 1024 /* bytes of the child's formatted spec */

struct db_shaper_params {
	uint64_t rate;			     /* bytes per second */
	uint32_t overhead;		     /* bytes per frame */
	uint32_t mpu;			     /* bytes */
	char child[DB_SHAPER_CHILD_MAX + 1]; /* the child's full spec */
};

struct db_shaper {
	struct db_shaper_params params;
	struct db_qdisc *child;
	uint64_t t_next; /* the next packet may leave at this time */
	uint64_t throttled, shaped_bytes;
};

extern const struct db_qdisc_ops db_shaper_ops;

void db_shaper_defaults(struct db_shaper_params *params);
/* Options over *params; -EINVAL with a message quoting the bad word (a bad child spec
 * gives the child's message), -ENOENT for an unknown child kind; params untouched. */
int db_shaper_parse(struct db_shaper_params *params, int argc, char *const argv[], char *err,
		    size_t errlen);
int db_shaper_format(const struct db_shaper_params *params, char *buf, size_t len);

/* Makes the child (which reports its drops and marks through env). -ENOMEM, -EINVAL. */
int db_shaper_init(struct db_shaper *q, const struct db_shaper_params *params,
		   const struct db_qdisc_env *env);
void db_shaper_destroy(struct db_shaper *q);
int db_shaper_enqueue(struct db_shaper *q, struct db_pkt *pkt, uint64_t now_ns);
struct db_pkt *db_shaper_dequeue(struct db_shaper *q, uint64_t now_ns);
void db_shaper_reset(struct db_shaper *q);
/* The child's counters. */
void db_shaper_stats(const struct db_shaper *q, struct db_qdisc_stats *st);
int db_shaper_xstats(const struct db_shaper *q, struct db_stat *out, int max);
uint64_t db_shaper_next_ns(const struct db_shaper *q, uint64_t now_ns);

/* A packet's time at the shaper's rate, in ns (rounded up). */
uint64_t db_shaper_packet_ns(const struct db_shaper_params *params, const struct db_pkt *pkt);

#endif
