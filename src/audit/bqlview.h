/* SPDX-License-Identifier: MIT */
/*
 * bqlview.h - the live BQL view below `debloat bql`: which interfaces to watch, one
 * sample of all their TX queues, and that sample as a refreshing table, as one line per
 * queue, or as one JSON line.
 *
 * Time is passed in (a monotonic clock for the spacing of samples, the wall clock for
 * the timestamp), so a test can drive samples over a fake sysfs tree without sleeping.
 * The tx byte and packet changes are the interface's (sysfs has no per-queue
 * counters); the first sample has none.
 */
#ifndef DEBLOAT_BQLVIEW_H
#define DEBLOAT_BQLVIEW_H

#include <net/if.h>
#include <stdint.h>

#include "base/print.h"
#include "host/bql.h"

#define BQLVIEW_MAX_IFACES 256 /* each watched TX queue holds one fd (RLIMIT_NOFILE) */

struct bqlview_iface {
	char name[IF_NAMESIZE];
	int ifindex; /* for the order; 0 when sysfs does not say */
	struct bql_watch watch;
	struct bql_queue *queues;		  /* watch.n, this sample */
	int64_t tx_bytes, tx_packets;		  /* counters at this sample; -1 unknown */
	int64_t tx_bytes_delta, tx_packets_delta; /* since the previous sample; -1 unknown */
};

struct bqlview {
	struct bqlview_iface *ifaces;
	size_t n;
	unsigned interval_ms; /* shown in the table and the JSON; the caller keeps the time */
	uint64_t samples;     /* taken so far; 1 after the first */
	uint64_t time_ms;     /* wall clock of this sample, ms since the Unix epoch */
	uint64_t mono_ns;     /* monotonic clock of this sample */
	uint64_t elapsed_us;  /* since the previous sample; 0 for the first */
};

enum bqlview_style {
	BQLVIEW_TABLE, /* a terminal: the whole table redrawn in place (ANSI cursor codes) */
	BQLVIEW_LINES, /* a pipe or file: one line per queue, timestamp first, raw numbers */
	BQLVIEW_JSON,  /* one JSON object per sample (a compact printer: one line) */
};

/*
 * Watch ifname, or with ifname NULL every interface that has byte_queue_limits
 * directories (in ifindex order). -ENODEV: no such interface; -EOPNOTSUPP: it (or, for
 * all, every interface) has no BQL files. *v is untouched on failure.
 */
int bqlview_open(struct bqlview *v, const char *sysfs_root, const char *ifname);
void bqlview_close(struct bqlview *v);

/* Read every queue now. -ENODEV (with *gone set) when an interface went away. */
int bqlview_sample(struct bqlview *v, uint64_t mono_ns, uint64_t wall_ms, const char **gone);

/* The last sample. BQLVIEW_TABLE redraws over the previous table from the top left. */
void bqlview_print(const struct bqlview *v, struct printer *p, enum bqlview_style style);
/* Table only: give the cursor back (it is hidden while the table refreshes). */
void bqlview_print_end(struct printer *p, enum bqlview_style style);

#endif
