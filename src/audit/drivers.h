/* SPDX-License-Identifier: MIT */
/*
 * drivers.h - what debloat knows about the Ethernet drivers of small boards and common
 * machines, from docs/design/bql-and-drivers.md sections 4-5: whether the driver
 * calls BQL, how big its TX queue is by default, what lever shrinks it, and which
 * board it is on. The policy uses it where sysfs cannot tell (no traffic yet, a ring
 * ethtool does not report) and to make its recommendations name the right command.
 *
 * Plain data; the lookup is by the driver name ETHTOOL_GDRVINFO reports.
 *
 * Ceilings. Some drivers never reach their PHY's line rate on some machines: the
 * Ethernet block of an i.MX6Q/DL moves about 470 Mbit/s, transmit and receive
 * together, and a USB 2 Ethernet chip shares 480 Mbit/s of bus signalling (about 300
 * Mbit/s of frames) between both directions. A shaper at 95% of line rate then never
 * engages and the queue stays in the driver. driver_ceiling() finds the rule for a
 * driver on a machine (its device-tree compatible list) or a USB bus speed; the same
 * driver elsewhere has no ceiling. Sources: docs/design/bql-and-drivers.md section 6.
 */
#ifndef DEBLOAT_DRIVERS_H
#define DEBLOAT_DRIVERS_H

#include <stdbool.h>
#include <stdint.h>

enum driver_bql {
	DRIVER_BQL_NO,
	DRIVER_BQL_YES,
	DRIVER_BQL_SINCE,   /* in mainline since kernel `since` */
	DRIVER_BQL_RUNTIME, /* depends on the build (a patch may be in): only sysfs tells */
};

/* How the TX queue below the qdisc can be shrunk. */
enum driver_lever {
	DRIVER_LEVER_NONE,    /* nothing: shape instead (usbnet's URB queue) */
	DRIVER_LEVER_TX_RING, /* ethtool -G IF tx N */
	DRIVER_LEVER_RX_RING, /* cpsw: TX gets what RX leaves of a shared pool */
};

struct driver_info {
	const char *names[3]; /* up to three, as ETHTOOL_GDRVINFO reports them */
	enum driver_bql bql;
	const char *since; /* DRIVER_BQL_SINCE: "6.15" */
	int32_t tx_ring;   /* default TX queue in frames (descriptors, URBs); -1 unknown */
	/* A USB driver that packs the waiting frames into URBs of this many bytes
	 * (lan78xx): tx_ring then counts URBs, and the queue holds tx_ring x tx_urb_bytes
	 * bytes. 0: one frame per entry. */
	uint32_t tx_urb_bytes;
	enum driver_lever lever;
	int32_t lever_rx; /* DRIVER_LEVER_RX_RING: the RX size that leaves lever_tx TX */
	int32_t lever_tx;
	const char *board; /* "BeagleBone Black", or NULL */
	const char *note;  /* one line for a recommendation, or NULL */
};

/* The entry for a driver name, or NULL. */
const struct driver_info *driver_lookup(const char *driver);

/*
 * Whether the driver has BQL on a kernel release ("6.12.0-rpi"): 1 yes, 0 no, -1 when
 * only the running system can tell (DRIVER_BQL_RUNTIME, or a release that does not
 * parse for DRIVER_BQL_SINCE).
 */
int driver_has_bql(const struct driver_info *d, const char *kernel_release);

/* Compare "X.Y[.Z][-suffix]" with "X.Y": <0, 0, >0; -2 when release does not parse. */
int driver_release_cmp(const char *release, const char *version);

#define DRIVER_CEILING_MATCH_MAX 4

/*
 * A throughput ceiling below line rate: the driver on machines whose compatible list
 * has one of `compatible` (exact entries), or on a USB bus of usb_speed_mbps. Shared:
 * the ceiling is transmit and receive together, not each.
 */
struct driver_ceiling {
	const char *driver;
	const char *compatible[DRIVER_CEILING_MATCH_MAX]; /* NULL-terminated; none: any */
	uint32_t usb_speed_mbps;			  /* 0: any bus */
	uint32_t mbps;
	bool shared;
	const char *where; /* "i.MX6", "USB 2": for "fec on i.MX6" */
};

/*
 * The ceiling of driver on this machine: compatible is the device-tree machine's
 * list (ncompatible entries, none when unknown or not a device-tree machine),
 * usb_speed_mbps the bus speed of a USB NIC (0: unknown or not USB). NULL when no
 * rule matches, including when what a rule needs is unknown.
 */
const struct driver_ceiling *driver_ceiling(const char *driver, const char *const compatible[],
					    size_t ncompatible, uint32_t usb_speed_mbps);

#endif
