/* SPDX-License-Identifier: MIT */
/*
 * drivers.h - what debloat knows about the Ethernet drivers of small boards and common
 * machines, from docs/design/bql-and-drivers.md sections 4-5: whether the driver
 * calls BQL, how big its TX queue is by default, what lever shrinks it, and which
 * board it is on. The policy uses it where sysfs cannot tell (no traffic yet, a ring
 * ethtool does not report) and to make its recommendations name the right command.
 *
 * Plain data; the lookup is by the driver name ETHTOOL_GDRVINFO reports.
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
	const char *since; /* DRIVER_BQL_SINCE: "6.14" */
	int32_t tx_ring;   /* default TX queue in frames (descriptors, URBs); -1 unknown */
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

#endif
