/* SPDX-License-Identifier: MIT */
/* test-drivers.c - src/drivers.c: the board driver table and kernel release checks. */
#include <string.h>

#include "drivers.h"
#include "harness.h"

TEST(lookup_by_ethtool_names)
{
	const struct driver_info *d = driver_lookup("cpsw");

	REQUIRE(d);
	CHECK_EQ(d->bql, DRIVER_BQL_NO);
	CHECK_EQ(d->tx_ring, 128);
	CHECK_EQ(d->lever, DRIVER_LEVER_RX_RING);
	CHECK_EQ(d->lever_rx, 248);
	CHECK_EQ(d->lever_tx, 8);
	CHECK_STR(d->board, "BeagleBone Black");
	CHECK(driver_lookup("cpsw-switch") == d); /* cpsw_new */
	CHECK_STR(driver_lookup("smsc95xx")->board, "Raspberry Pi 1/2/3B");
	/* usbnet's generic class drivers are on no board of their own */
	CHECK(driver_lookup("cdc_ether") == driver_lookup("usbnet"));
	CHECK(driver_lookup("cdc_ether")->board == NULL);
	CHECK_EQ(driver_lookup("cdc_ether")->tx_ring, driver_lookup("smsc95xx")->tx_ring);
	CHECK(driver_lookup("st_gmac") == driver_lookup("stmmac"));
	REQUIRE(driver_lookup("fec"));
	CHECK_EQ(driver_lookup("fec")->tx_ring, 512);
	CHECK_EQ(driver_lookup("bcmgenet")->bql, DRIVER_BQL_YES);
	CHECK_EQ(driver_lookup("am65-cpsw-nuss")->bql, DRIVER_BQL_YES);
	CHECK_EQ(driver_lookup("lan78xx")->bql, DRIVER_BQL_NO);
	CHECK_EQ(driver_lookup("r8152")->bql, DRIVER_BQL_NO);
	CHECK_EQ(driver_lookup("r8169")->bql, DRIVER_BQL_YES);
	CHECK_EQ(driver_lookup("mvneta")->bql, DRIVER_BQL_YES);
	CHECK_EQ(driver_lookup("veth")->bql, DRIVER_BQL_NO);
	CHECK(driver_lookup("e1000e") == NULL);
	CHECK(driver_lookup("") == NULL);
	CHECK(driver_lookup(NULL) == NULL);
}

TEST(release_comparison)
{
	CHECK_EQ(driver_release_cmp("6.14.0", "6.14"), 0);
	CHECK_EQ(driver_release_cmp("6.6.51+rpt-rpi-2712", "6.14"), -1);
	CHECK_EQ(driver_release_cmp("6.18.44-fc-v1045", "6.14"), 1);
	CHECK_EQ(driver_release_cmp("7.0", "6.14"), 1);
	CHECK_EQ(driver_release_cmp("5.99", "6.14"), -1);
	CHECK_EQ(driver_release_cmp("", "6.14"), -2);
	CHECK_EQ(driver_release_cmp(NULL, "6.14"), -2);
	CHECK_EQ(driver_release_cmp("linux", "6.14"), -2);
}

TEST(bql_by_release)
{
	const struct driver_info *macb = driver_lookup("macb");
	const struct driver_info *virtio = driver_lookup("virtio_net");

	REQUIRE(macb);
	REQUIRE(virtio);
	CHECK_EQ(driver_has_bql(macb, "6.6.51+rpt"), 0);
	CHECK_EQ(driver_has_bql(macb, "6.14.2"), 1);
	CHECK_EQ(driver_has_bql(macb, NULL), -1);
	CHECK_EQ(driver_has_bql(virtio, "6.10.0"), 0);
	CHECK_EQ(driver_has_bql(virtio, "6.11.0"), 1);
	CHECK_EQ(driver_has_bql(driver_lookup("smsc95xx"), "6.18.0"), -1); /* runtime only */
	CHECK_EQ(driver_has_bql(driver_lookup("cpsw"), "6.18.0"), 0);
	CHECK_EQ(driver_has_bql(driver_lookup("bcmgenet"), NULL), 1);
}
