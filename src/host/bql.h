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

#include "iface.h"

#define BQL_MAX_QUEUES 4096

/*
 * One entry per tx-N directory, sorted by N; values are -1 where a file is missing.
 * -errno when the queues directory itself cannot be read.
 */
int bql_read(const char *sysfs_root, const char *ifname, struct bql_queue **out, size_t *n);

#endif
