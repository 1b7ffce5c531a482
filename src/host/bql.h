/* SPDX-License-Identifier: MIT */
/*
 * bql.h - the byte queue limits of each TX queue, from
 * SYSFS/class/net/IF/queues/tx-N/byte_queue_limits/ (limit, limit_min, limit_max,
 * inflight, hold_time, and stall_thrs, stall_cnt, stall_max since Linux 6.9).
 *
 * This only reads. Whether the numbers mean the driver uses BQL is the policy's call
 * (policy_bql_in_use): the directory exists for drivers that never call the BQL API.
 */
#ifndef DEBLOAT_HOST_BQL_H
#define DEBLOAT_HOST_BQL_H

#include <stddef.h>
#include <stdint.h>

#include "iface.h"

#define BQL_MAX_QUEUES 4096

/*
 * One entry per tx-N directory, sorted by N; values are -1 where a file is missing.
 * -errno when the queues directory itself cannot be read.
 */
int bql_read(const char *sysfs_root, const char *ifname, struct bql_queue **out, size_t *n);

/*
 * One interface's BQL read again and again (`debloat bql`). The queue list is found
 * once and each byte_queue_limits directory stays open, so a sample costs an
 * openat+read+close per file and no path walk from the root: about 25 syscalls per
 * queue. One fd per queue plus one for statistics/; queues that appear later (ethtool
 * -L) are not seen, queues that go away read as -1.
 */
struct bql_watch {
	int *dirfds;	  /* per queue: .../queues/tx-N/byte_queue_limits */
	unsigned *queues; /* N of each tx-N, ascending */
	size_t n;	  /* queues with a byte_queue_limits directory, >= 1 */
	int statsfd;	  /* .../statistics, -1 when absent */
};

/*
 * -ENODEV when SYSFS/class/net/IFNAME does not exist, -EOPNOTSUPP when no TX queue of
 * it has a byte_queue_limits directory. *w is untouched on failure.
 */
int bql_watch_open(struct bql_watch *w, const char *sysfs_root, const char *ifname);
/*
 * Fill out[0..w->n) (values -1 where a file is missing or unreadable) and the
 * interface's tx_bytes and tx_packets counters (-1 when unknown). -ENODEV when nothing
 * could be read because the interface went away.
 */
int bql_watch_read(const struct bql_watch *w, struct bql_queue *out, int64_t *tx_bytes,
		   int64_t *tx_packets);
void bql_watch_close(struct bql_watch *w);

#endif
