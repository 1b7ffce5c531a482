/* SPDX-License-Identifier: MIT */
/* drivers.c - drivers.h: the table, from docs/design/bql-and-drivers.md sections 4 and 5. */
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "drivers.h"

static const struct driver_info drivers[] = {
    /* CPDMA: a pool of 256 descriptors split 50/50 between RX and TX; ethtool -G tx is
     * ignored, but TX gets what RX leaves. The seed's 2014 patch added BQL out of tree. */
    {.names = {"cpsw", "cpsw-switch", "cpsw_new"},
     .bql = DRIVER_BQL_NO,
     .tx_ring = 128,
     .lever = DRIVER_LEVER_RX_RING,
     .lever_rx = 248,
     .lever_tx = 8,
     .board = "BeagleBone Black",
     .note = "or carry the 2014 out-of-tree cpsw BQL patch"},
    {.names = {"am65-cpsw-nuss"},
     .bql = DRIVER_BQL_YES,
     .tx_ring = -1,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "TI AM62/AM65"},
    {.names = {"fec"},
     .bql = DRIVER_BQL_NO,
     .tx_ring = 512,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "Wandboard (i.MX6)"},
    {.names = {"bcmgenet"},
     .bql = DRIVER_BQL_YES,
     .tx_ring = -1,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "Raspberry Pi 4"},
    /* "net: cadence: macb: Implement BQL" was applied in February 2025, after the 6.14
     * merge window: 6.15 is the first release with it. */
    /* macb's default TX ring: 512 descriptors (ethtool -G changes it). */
    {.names = {"macb"},
     .bql = DRIVER_BQL_SINCE,
     .since = "6.15",
     .tx_ring = 512,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "Raspberry Pi 5 (RP1)"},
    /* ~60 URBs of 1518 B at USB2 plus the chip's FIFO; a 2025 usbnet BQL patch exists,
     * so only the BQL files' behaviour tells. */
    {.names = {"smsc95xx"},
     .bql = DRIVER_BQL_RUNTIME,
     .tx_ring = 60,
     .lever = DRIVER_LEVER_NONE,
     .board = "Raspberry Pi 1/2/3B"},
    /* The same usbnet layer under the generic class drivers (gadgets, QEMU's usb-net):
     * the same queue, no board of their own. */
    {.names = {"usbnet", "cdc_ether", "rndis_host"},
     .bql = DRIVER_BQL_RUNTIME,
     .tx_ring = 60,
     .lever = DRIVER_LEVER_NONE},
    /* Not usbnet: a pool of 10 TX URBs of 16 KB into which waiting frames are packed
     * (about 10 full frames each); the queue stops when what waits would not fit. */
    {.names = {"lan78xx"},
     .bql = DRIVER_BQL_NO,
     .tx_ring = 10,
     .tx_urb_bytes = 16384,
     .lever = DRIVER_LEVER_NONE,
     .board = "Raspberry Pi 3B+"},
    {.names = {"r8152"},
     .bql = DRIVER_BQL_NO,
     .tx_ring = -1,
     .lever = DRIVER_LEVER_NONE,
     .board = "USB Ethernet dongles"},
    {.names = {"st_gmac", "stmmac", "dwmac-sun8i"},
     .bql = DRIVER_BQL_YES,
     .tx_ring = -1,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "Allwinner H3/H5 and many SoCs"},
    {.names = {"r8169"}, .bql = DRIVER_BQL_YES, .tx_ring = -1, .lever = DRIVER_LEVER_TX_RING},
    {.names = {"mvneta"},
     .bql = DRIVER_BQL_YES,
     .tx_ring = -1,
     .lever = DRIVER_LEVER_TX_RING,
     .board = "Marvell Armada boards"},
    {.names = {"virtio_net"},
     .bql = DRIVER_BQL_SINCE,
     .since = "6.11",
     .tx_ring = -1,
     .lever = DRIVER_LEVER_TX_RING},
    {.names = {"veth"}, .bql = DRIVER_BQL_NO, .tx_ring = -1, .lever = DRIVER_LEVER_NONE},
};

/* docs/design/bql-and-drivers.md section 6. A handful of rules: a linear scan is plenty. */
static const struct driver_ceiling ceilings[] = {
    /* i.MX6 Quad/DualLite erratum ERR004512: the ENET's bus interface caps the MAC at
     * about 470 Mbit/s in total, transmit and receive together, whatever the PHY says. */
    {.driver = "fec",
     .compatible = {"fsl,imx6q", "fsl,imx6dl", "fsl,imx6"},
     .mbps = 470,
     .shared = true,
     .where = "i.MX6"},
    /* lan78xx is a GigE PHY behind the Pi 3B+'s USB 2 (480 Mbit/s of half-duplex bus
     * signalling): about 300 Mbit/s of frames is what gets through, in both directions
     * together, since the bus carries one transfer at a time. */
    {.driver = "lan78xx", .usb_speed_mbps = 480, .mbps = 300, .shared = true, .where = "USB 2"},
};

static bool has_compatible(const char *want, const char *const compatible[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (compatible[i] && !strcmp(compatible[i], want))
			return true;
	return false;
}

const struct driver_ceiling *driver_ceiling(const char *driver, const char *const compatible[],
					    size_t ncompatible, uint32_t usb_speed_mbps)
{
	if (!driver || !*driver)
		return NULL;
	for (size_t i = 0; i < COUNT(ceilings); i++) {
		const struct driver_ceiling *c = &ceilings[i];
		bool machine = !c->compatible[0];

		if (strcmp(c->driver, driver))
			continue;
		for (size_t j = 0; j < DRIVER_CEILING_MATCH_MAX && c->compatible[j]; j++)
			machine |= has_compatible(c->compatible[j], compatible, ncompatible);
		if (machine && (!c->usb_speed_mbps || c->usb_speed_mbps == usb_speed_mbps))
			return c;
	}
	return NULL;
}

const struct driver_info *driver_lookup(const char *driver)
{
	if (!driver || !*driver)
		return NULL;
	for (size_t i = 0; i < COUNT(drivers); i++)
		for (size_t j = 0; j < 3 && drivers[i].names[j]; j++)
			if (!strcmp(drivers[i].names[j], driver))
				return &drivers[i];
	return NULL;
}

int driver_release_cmp(const char *release, const char *version)
{
	unsigned rmaj, rmin, vmaj, vmin;

	if (!release || sscanf(release, "%u.%u", &rmaj, &rmin) != 2 ||
	    sscanf(version, "%u.%u", &vmaj, &vmin) != 2)
		return -2;
	if (rmaj != vmaj)
		return rmaj < vmaj ? -1 : 1;
	return rmin < vmin ? -1 : rmin > vmin;
}

int driver_has_bql(const struct driver_info *d, const char *kernel_release)
{
	switch (d->bql) {
	case DRIVER_BQL_NO:
		return 0;
	case DRIVER_BQL_YES:
		return 1;
	case DRIVER_BQL_SINCE: {
		int c = driver_release_cmp(kernel_release, d->since);

		return c == -2 ? -1 : c >= 0;
	}
	case DRIVER_BQL_RUNTIME:
		break;
	}
	return -1;
}
