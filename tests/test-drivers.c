/* SPDX-License-Identifier: MIT */
/* test-drivers.c - src/audit/drivers.c: the board driver table and kernel release checks. */
#include <string.h>

#include "audit/drivers.h"
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
	/* BQL was applied in February 2025: first in 6.15, not in 6.14 nor 6.12 */
	CHECK_STR(macb->since, "6.15");
	CHECK_EQ(driver_has_bql(macb, "6.12.25+rpt-rpi-2712"), 0);
	CHECK_EQ(driver_has_bql(macb, "6.14.2"), 0);
	CHECK_EQ(driver_has_bql(macb, "6.15.0"), 1);
	CHECK_EQ(driver_has_bql(macb, "6.18.4"), 1);
	CHECK_EQ(driver_has_bql(macb, NULL), -1);
	CHECK_EQ(driver_has_bql(virtio, "6.10.0"), 0);
	CHECK_EQ(driver_has_bql(virtio, "6.11.0"), 1);
	CHECK_EQ(driver_has_bql(driver_lookup("smsc95xx"), "6.18.0"), -1); /* runtime only */
	CHECK_EQ(driver_has_bql(driver_lookup("cpsw"), "6.18.0"), 0);
	CHECK_EQ(driver_has_bql(driver_lookup("bcmgenet"), NULL), 1);
}

TEST(ceiling_fec_on_imx6)
{
	const char *wandboard[] = {"wand,imx6q-wandboard", "fsl,imx6q"};
	const char *solo[] = {"wand,imx6dl-wandboard", "fsl,imx6dl"};
	const char *generic[] = {"fsl,imx6"};
	const char *imx8[] = {"fsl,imx8mq-evk", "fsl,imx8mq"};
	const char *prefix[] = {"fsl,imx6q-like"}; /* entries match whole, not as prefixes */
	const struct driver_ceiling *c = driver_ceiling("fec", wandboard, 2, 0);

	REQUIRE(c);
	CHECK_EQ(c->mbps, 470);
	CHECK(c->shared);
	CHECK_STR(c->where, "i.MX6");
	CHECK(driver_ceiling("fec", solo, 2, 0) == c);
	CHECK(driver_ceiling("fec", generic, 1, 0) == c);
	/* the same driver elsewhere: no ceiling */
	CHECK(driver_ceiling("fec", imx8, 2, 0) == NULL);
	CHECK(driver_ceiling("fec", prefix, 1, 0) == NULL);
	/* the machine unknown (an old snapshot, x86): no ceiling */
	CHECK(driver_ceiling("fec", NULL, 0, 0) == NULL);
	/* another driver on the same machine */
	CHECK(driver_ceiling("r8169", wandboard, 2, 0) == NULL);
}

TEST(ceiling_lan78xx_on_usb2)
{
	const char *pi3bplus[] = {"raspberrypi,3-model-b-plus", "brcm,bcm2837"};
	const struct driver_ceiling *c = driver_ceiling("lan78xx", pi3bplus, 2, 480);

	REQUIRE(c);
	CHECK_EQ(c->mbps, 300);
	CHECK(c->shared);
	CHECK_STR(c->where, "USB 2");
	CHECK(driver_ceiling("lan78xx", NULL, 0, 480) == c);	     /* any machine */
	CHECK(driver_ceiling("lan78xx", pi3bplus, 2, 5000) == NULL); /* USB 3: none */
	CHECK(driver_ceiling("lan78xx", pi3bplus, 2, 0) == NULL);    /* bus speed unknown */
	CHECK(driver_ceiling("smsc95xx", pi3bplus, 2, 480) == NULL);
	CHECK(driver_ceiling(NULL, pi3bplus, 2, 480) == NULL);
	CHECK(driver_ceiling("", pi3bplus, 2, 480) == NULL);
}
