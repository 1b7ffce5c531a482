/* SPDX-License-Identifier: MIT */
/*
 * policy.h - what is wrong with an interface's queues, how much delay it can add,
 * and what to do: a pure function from a struct iface to findings and a grade. No
 * I/O, no clock, no allocation, so tests can feed it hand-made interfaces and audit,
 * fix and the lab can share it.
 *
 * The model. A FIFO qdisc (pfifo_fast, pfifo, bfifo) lets one bulk flow fill it and
 * every other packet waits behind the lot. Its worst-case added delay is the time
 * the link needs to drain it full:
 *
 *	delay_us = packets * (MTU + 38) * 8 / speed_mbps
 *
 * where 38 bytes are what a full frame costs on Ethernet beyond the MTU (14 header,
 * 4 FCS, 8 preamble, 12 inter-frame gap): 1538 bytes for MTU 1500, so txqueuelen
 * 1000 at 100 Mbit/s is 123 ms. A bfifo's limit is bytes already. pfifo_fast holds
 * txqueuelen per band; one flow uses one band, so one band is what a flow waits for.
 * Leaves under a shaper drain at the shaper's rate, not the line's: the estimate at
 * line rate is then a lower bound.
 *
 * Below the qdisc sits the device's own queue: the TX ring. With BQL the stack keeps
 * only `limit` bytes in it (plus one overshooting skb: one 64 KB super-packet when
 * TSO/GSO is on, 5.2 ms at 100 Mbit/s); without BQL the whole ring fills, ring_tx
 * frames of MTU + 38 bytes (cpsw's 128 descriptors: 15.7 ms at 100 Mbit/s), or, for a
 * USB driver that packs frames into URBs, its URBs full (lan78xx: 10 x 16 KB). It
 * drains at policy_drain_mbps(): the line rate, or the drivers table's ceiling (per
 * direction when shared) where that is lower. Where ethtool does not report the ring
 * (URBs, a driver without ringparam), src/audit/drivers.c knows the usual one; where
 * neither does, the delay is unknown and the interface is not graded: an unknown
 * queue never counts as empty.
 *
 * The grade applies the DSLReports bufferbloat scale to the estimated worst-case
 * added delay of the whole egress path: < 5 ms A+, < 30 ms A, < 60 ms B, < 200 ms C,
 * < 400 ms D, else F. A packet waits first behind the qdisc's queue and then behind
 * the device's, so the path's delay is the SUM of the two layers; within a layer the
 * findings describe the same queue from different sides (fifo-qdisc and
 * txqueuelen-long; no-bql, big-tx-ring, bql-limit-high, gso-at-low-speed), so each
 * layer counts with its largest finding, not their sum.
 *
 * Recommendations follow docs/design/host-tuning.md (fq_codel, limit 800-1200
 * and quantum 300 at low speeds, txqueuelen 100 at <= 100 Mbit under a FIFO, a
 * shaper at ~95% of line rate where the driver has no BQL) and the board drivers of
 * docs/design/bql-and-drivers.md (src/audit/drivers.h). Host context (which qdisc kinds this kernel
 * has, its release) comes in as a struct host, which may be NULL: then every kind's
 * availability and the release are unknown.
 */
#ifndef DEBLOAT_POLICY_H
#define DEBLOAT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/value.h"
#include "host/iface.h"

#define POLICY_FRAME_OVERHEAD 38 /* bytes per full frame beyond the MTU, on the wire */
#define POLICY_MAX_FINDINGS   12
#define POLICY_MAX_EVIDENCE   12
#define POLICY_SUPER_PACKET   65536 /* bytes: the largest TSO/GSO/GRO skb */
#define POLICY_RING_OK_US     2000  /* a TX ring that drains in less is not "big" */
#define POLICY_BQL_MAX_100M   3000  /* docs/design/host-tuning.md: limit_max at <= 100 Mbit/s */
#define POLICY_BQL_MAX_10M    1514  /* ... and at <= 10 Mbit/s */

enum severity {
	SEVERITY_INFO,
	SEVERITY_WARNING,
	SEVERITY_CRITICAL,
};

enum tristate {
	TRI_UNKNOWN = -1,
	TRI_NO = 0,
	TRI_YES = 1,
};

enum grade {
	GRADE_A_PLUS,
	GRADE_A,
	GRADE_B,
	GRADE_C,
	GRADE_D,
	GRADE_F,
};

/* Which queue of the egress path a finding is about (see the grade above). */
enum finding_layer {
	LAYER_NONE,   /* host-wide or advice only: no queue of its own */
	LAYER_QDISC,  /* the qdisc's queue */
	LAYER_DEVICE, /* the TX ring and what BQL leaves in it */
};

struct finding {
	const char *code; /* stable: "fifo-qdisc", "txqueuelen-long", "no-bql", ... */
	enum severity severity;
	char message[256];
	struct value evidence[POLICY_MAX_EVIDENCE]; /* the numbers behind it */
	unsigned nevidence;
	int64_t delay_us;     /* worst-case added queueing delay; -1 when it cannot be told */
	int64_t delay_min_us; /* fifo-qdisc: the same queue of full-size frames, where GSO
				 packets make the worst case longer; -1 otherwise */
	bool grades;	      /* counts towards the grade (an unknown delay then voids it) */
	const char *delay_unknown_why; /* when delay_us is -1: "link speed unknown" */
	enum finding_layer layer;
	char recommendation[512];
};

struct driver_info;
struct host;

struct verdict {
	enum tristate bql_in_use;
	const char *bql_reason; /* one line: why yes, no or unknown */
	char bql_reason_buf[192];
	const struct driver_info *driver; /* src/audit/drivers.c's entry, or NULL */
	int64_t ring_tx;		  /* TX queue in frames (URBs); -1 unknown */
	bool ring_from_table;		  /* ring_tx is the driver table's, not ethtool's */
	uint64_t ring_bytes;	 /* what the full TX queue holds; 0 when ring_tx is unknown */
	uint32_t ring_urb_bytes; /* the table's URB size where frames are packed, or 0 */
	int64_t qdisc_delay_us, device_delay_us; /* each layer's largest known delay */
	struct finding findings[POLICY_MAX_FINDINGS];
	unsigned nfindings;
	int64_t worst_delay_us; /* qdisc_delay_us + device_delay_us: the whole path */
	bool graded;
	enum grade grade;	  /* when graded */
	const char *ungraded_why; /* when not: "loopback", "link speed unknown" */
};

/* host: qdisc availability and kernel release; NULL when not known. */
void policy_iface(const struct iface *ifc, const struct host *host, struct verdict *out);

/* Host-wide findings from the sysctls (default qdisc, ECN); returns how many. */
struct sysctl_entry;
unsigned policy_sysctls(const struct sysctl_entry *sysctls, size_t n, struct finding *out,
			unsigned max);

/* The pieces, exported for tests and for fix and the lab. */
enum tristate policy_bql_in_use(const struct iface *ifc, const char **reason);
int64_t policy_fifo_delay_us(uint64_t packets, uint32_t mtu, uint32_t speed_mbps);
int64_t policy_bytes_delay_us(uint64_t bytes, uint32_t speed_mbps);
enum grade policy_grade(int64_t delay_us);
/*
 * fq_codel's limit and quantum for a link of this speed (docs/design/host-tuning.md
 * section 1), as tc words with a leading space: " limit 800 quantum 300"; "" where the
 * kernel's defaults fit (above 1 Gbit/s) or the speed is unknown (0).
 */
const char *policy_fq_codel_params(uint32_t speed_mbps);
/* "95mbit", "950mbit", "9500kbit": ~95% of line rate, spelled as tc takes it. */
void policy_shaper_rate(uint32_t speed_mbps, char *buf, size_t len);
/* That rate in bytes/s (0 when the speed is unknown). */
uint64_t policy_shaper_bytes(uint32_t speed_mbps);

/*
 * The shaper of a driver without BQL must sit just below the real bottleneck, or the
 * queue stays in the driver. It runs at POLICY_SHAPER_PERMILLE of the achievable rate:
 * the line rate, or the drivers table's ceiling for this driver on this machine
 * (driver_ceiling(): the machine's compatible list from host, the NIC's USB bus speed)
 * when that is lower. A ceiling shared by transmit and receive is halved first: an
 * egress shaper at 95% of the whole ceiling overflows the driver as soon as the board
 * also receives, while half for each direction holds whatever the traffic mix (a
 * guarantee, at the price of idle capacity when one way is quiet). A rate the user
 * gave (fix --shape) is used as given. 950 per mille: 5% under the bottleneck is
 * what the field settled on; below 930 the link is wasted for no gain in delay.
 */
#define POLICY_SHAPER_PERMILLE 950

enum rate_source {
	RATE_SOURCE_NONE,  /* no shaper rate: the link speed is unknown */
	RATE_SOURCE_LINE,  /* the line rate */
	RATE_SOURCE_TABLE, /* the drivers table's ceiling */
	RATE_SOURCE_GIVEN, /* fix --shape */
};

struct driver_ceiling;

struct policy_shaper {
	uint64_t rate;	  /* bytes/s; 0 with RATE_SOURCE_NONE */
	char spelled[32]; /* the rate as tc takes it: "950mbit", "223250kbit" */
	enum rate_source source;
	uint32_t achievable_mbps;	      /* per direction; 0 with a given rate */
	const struct driver_ceiling *ceiling; /* the table's rule for this NIC, or NULL
						 (even when not below line rate) */
	bool halved;			      /* a shared ceiling: half for each direction */
	/* "line rate", "drivers table: fec on i.MX6, 470 Mbit/s shared by transmit and
	 * receive", "--shape": stable words for JSON's rate_source */
	char source_text[128];
	/* one line for a plan or finding: "95% of half of 470 Mbit/s ..." */
	char why[192];
};

/* given: bytes/s from the user, or 0. host may be NULL (machine unknown). */
void policy_shaper(const struct iface *ifc, const struct host *host, uint64_t given,
		   struct policy_shaper *out);

/*
 * The rate a TX ring without BQL drains at, in Mbit/s: the drivers table's ceiling
 * (per direction when shared) where it is below the link speed, else the link speed.
 * A ring of ~1 ms (big-tx-ring, fix's TX ring step) counts its frames at this rate.
 */
uint32_t policy_drain_mbps(const struct iface *ifc, const struct host *host);

/*
 * The short FIFO of the last resort (no fq_codel, no cake), short in time: about
 * POLICY_FIFO_MS at rate (bytes/s; 0: the link speed) in packets of policy_gso_cap
 * bytes, at least POLICY_FIFO_MIN, at most 100 (50 at <= 10 Mbit/s; 100 when neither
 * rate nor speed is known). TCP hands a qdisc GSO super-packets whether or not the
 * device segments (it segments after the qdisc), so a FIFO counting packets is short
 * in time only with gso_max_size capped: policy_gso_cap is two full frames (MTU + 14
 * each; 3028 bytes at MTU 1500).
 */
/*
 * A FIFO that counts packets holds what TCP hands it: GSO packets of up to the
 * device's gso_max_size (64 KB unless capped), whether or not the device segments
 * (TCP builds them always; a device without GSO has them split after the qdisc). TSQ
 * (net.ipv4.tcp_limit_output_bytes) bounds what one flow keeps below its socket, so
 * fifo-qdisc's worst case is the FIFO full of GSO packets, at most POLICY_TSQ_FLOWS
 * flows' worth (RRUL's uploads), and never less than the FIFO full of frames; the
 * finding gives the range, and grades on its top.
 */
#define POLICY_TSQ_FLOWS	 4
#define POLICY_TSQ_DEFAULT_BYTES 1048576 /* when the sysctl cannot be read */
#define POLICY_FIFO_MS		 10
#define POLICY_FIFO_MIN		 8
#define POLICY_FIFO_MAX		 100
#define POLICY_FIFO_10M		 50
unsigned policy_fifo_len(const struct iface *ifc, uint64_t rate);
/*
 * The FIFO of a download shaper (an ifb after an interface's ingress) by the egress's
 * rule: POLICY_FIFO_MS at rate, never less than POLICY_FIFO_MIN of the egress's capped
 * packets (policy_gso_cap), in bytes, and never less than three of the largest packets
 * that arrive (one refused at every turn stalls a flow). On a physical NIC without LRO
 * those are frames once the plan turns its GRO off with the FIFO; a virtual link
 * (veth, tun) passes its peer's GSO packets of up to POLICY_SUPER_PACKET through
 * whatever its GRO says, so there the floor stays three of them.
 */
uint32_t policy_ingress_fifo_bytes(const struct iface *ifc, uint64_t rate);
/* Do only frames reach the ifb once GRO is off: a physical NIC without LRO. */
bool policy_ingress_frames_only(const struct iface *ifc);
uint32_t policy_gso_cap(const struct iface *ifc);

const char *grade_name(enum grade g);
const char *severity_name(enum severity s);

#endif
