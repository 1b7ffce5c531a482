/* SPDX-License-Identifier: MIT */
/*
 * iface.h - what debloat knows about one network interface: the description the
 * host readers fill in and the policy judges. Plain data, so a test (or, later, a
 * snapshot file) can build one by hand without a host.
 *
 * "Unknown" is explicit: speed_mbps 0, an empty driver string, qdisc NULL, a BQL
 * value of -1. What could not be read, and why, is listed in `unreadable`.
 */
#ifndef DEBLOAT_IFACE_H
#define DEBLOAT_IFACE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/value.h"

#define QDISC_KIND_MAX	     16 /* IFNAMSIZ in the kernel: TCA_KIND is at most 15 chars */
#define QDISC_MAX_OPTIONS    16
#define IFACE_MAX_UNREADABLE 8

/*
 * A qdisc's counters as the dump carries them (TCA_STATS2, host/qstats.h). Counters
 * only grow; backlog is the queue now. have is false when the dump had no statistics
 * (a built-in root made from the link message) or they were malformed.
 */
struct qdisc_stats {
	bool have;
	uint64_t bytes, packets; /* packets: TCA_STATS_PKT64 when the kernel sends it */
	uint32_t drops, overlimits, requeues;
	uint32_t backlog_bytes, backlog_packets;
};

/* The kind's own statistics (TCA_STATS_APP); -1 where the kind has no such number. */
struct qdisc_xstats {
	int64_t ecn_marks;	   /* fq_codel ecn_mark; cake: ECN-marked packets, all tins */
	int64_t ce_marks;	   /* fq_codel, fq: marked above ce_threshold */
	int64_t drop_overlimit;	   /* fq_codel: drops because the qdisc was full */
	int64_t drop_overmemory;   /* fq_codel: drops because memory_limit was hit */
	int64_t new_flow_count;	   /* fq_codel: flows that became new */
	int64_t flows;		   /* active flows now (fq_codel new + old, fq, cake tins) */
	int64_t memory_used_bytes; /* fq_codel memory_usage, cake memory used */
	int64_t throttled;	   /* fq: times a flow was throttled (a counter) */
	int64_t throttled_flows;   /* fq: flows throttled now */
};

struct qdisc {
	char kind[QDISC_KIND_MAX];
	uint32_t handle; /* major:minor, as the kernel keeps it */
	uint32_t parent; /* TC_H_ROOT for the root */
	int ifindex;
	struct value options[QDISC_MAX_OPTIONS]; /* decoded TCA_OPTIONS, in kernel order */
	unsigned noptions;
	int options_err; /* -EBADMSG when TCA_OPTIONS was malformed; options then partial */
	struct qdisc_stats stats;
	struct qdisc_xstats xstats;
	int stats_err; /* -EBADMSG when TCA_STATS2 was malformed; stats.have false */
	/* Under a class of a shaping qdisc (htb): that class's rate in bits/s, what this
	 * qdisc drains at. 0 at the root, under a qdisc's own queues, or not read. */
	uint64_t class_rate_bps;
	struct qdisc *children; /* qdiscs whose parent is this one or one of its classes */
	size_t nchildren;
};

/* One TX queue's byte_queue_limits; -1 where a file is missing or unreadable. */
struct bql_queue {
	unsigned queue; /* N of tx-N */
	bool present;	/* the byte_queue_limits directory exists */
	int64_t limit, limit_min, limit_max, inflight, hold_time_ms;
	int64_t stall_thrs_ms, stall_cnt, stall_max_jiffies; /* Linux 6.9+ */
};

/*
 * The values of struct bql_queue, in the order every reader and writer lists them (the
 * sysfs reader, the snapshot, the report, `debloat bql --json`): one home for the list.
 */
struct bql_field {
	const char *file; /* in tx-N/byte_queue_limits/ */
	const char *key;  /* in JSON; the report's text label is the key without its unit */
	enum unit unit;
	bool stall;    /* the stall detector's, since Linux 6.9: absent on older kernels */
	size_t offset; /* of the int64_t in struct bql_queue */
};

#define BQL_NFIELDS 8
extern const struct bql_field bql_fields[BQL_NFIELDS];

static inline int64_t bql_field_get(const struct bql_queue *q, const struct bql_field *f)
{
	return *(const int64_t *)(const void *)((const char *)q + f->offset);
}

static inline void bql_field_set(struct bql_queue *q, const struct bql_field *f, int64_t v)
{
	*(int64_t *)(void *)((char *)q + f->offset) = v;
}

enum duplex {
	IFACE_DUPLEX_UNKNOWN,
	IFACE_DUPLEX_HALF,
	IFACE_DUPLEX_FULL,
};

/* An offload as ethtool reports it (features by name, ETH_SS_FEATURES). */
enum feature_state {
	FEATURE_UNKNOWN,
	FEATURE_OFF,
	FEATURE_ON,
};

/* What could not be read ("driver", "qdiscs", "bql") and the -errno why. */
struct unreadable {
	const char *what;
	int err;
};

struct iface {
	char name[IF_NAMESIZE];
	int ifindex;
	char kind[24]; /* IFLA_INFO_KIND, or "physical", "loopback", "unknown" */
	bool physical; /* backed by a device (/sys/class/net/IF/device) */
	bool loopback;
	char operstate[16];
	char root_qdisc[QDISC_KIND_MAX]; /* IFLA_QDISC: the root's kind, even a hidden noop */
	uint32_t mtu, txqueuelen, tx_queues;
	uint32_t gso_max_size; /* IFLA_GSO_MAX_SIZE; 0 when the kernel does not say */

	bool have_stats;
	uint64_t tx_packets, tx_bytes;

	char driver[32]; /* "" when unknown */
	/* A driver module with BQL installed for this kernel (host/kmod.h): the module's
	 * name and file, "" when none. */
	char bql_module[56];
	char bql_module_path[192];
	bool bql_module_loaded; /* and the driver loaded now is out of tree (that one) */
	char bus[32];
	uint32_t speed_mbps;	 /* 0 when unknown */
	uint32_t usb_speed_mbps; /* a USB NIC's bus speed (480: USB 2); 0 unknown or not USB */
	enum duplex duplex;

	/* ethtool rings (ETHTOOL_GRINGPARAM): descriptors, -1 when unknown */
	int64_t ring_tx, ring_tx_max, ring_rx, ring_rx_max;
	/* offloads: tx-tcp-segmentation, tx-generic-segmentation, rx-gro, rx-lro */
	enum feature_state tso, gso, gro, lro;

	struct qdisc *qdisc; /* the root of the egress tree; NULL when unknown */

	struct bql_queue *bql; /* one per TX queue found in sysfs */
	size_t nbql;
	bool bql_read; /* the queues directory could be read at all */

	struct unreadable unreadable[IFACE_MAX_UNREADABLE];
	size_t nunreadable;
};

void iface_note_unreadable(struct iface *ifc, const char *what, int err);
void iface_free(struct iface *ifc); /* frees what it points to, not ifc itself */
/*
 * NULL when name is one the kernel accepts (dev_valid_name: 1 to IFNAMSIZ - 1 bytes, not
 * "." or "..", no '/', ':' or white space) and that a shell reads as one plain word
 * (letters, digits, and "._-+@"), else why not. Names from a file are printed in
 * commands to run as root: a name like "$(id>x)" is refused rather than printed.
 */
const char *iface_name_invalid(const char *name);
void host_qdisc_free_children(struct qdisc *q);

#endif
