/* SPDX-License-Identifier: MIT */
/*
 * test-host-ethtool.c - src/host/ethtool.c against the loopback device, which every
 * network namespace has and whose answers are fixed by the kernel: offloads listed by
 * name (lo does TSO, GSO and GRO; it cannot do LRO) and no ring parameters.
 */
#include <errno.h>

#include "harness.h"
#include "host/ethtool.h"

TEST(loopback_offloads_by_name)
{
	enum feature_state tso = FEATURE_UNKNOWN, gso = FEATURE_UNKNOWN, gro = FEATURE_UNKNOWN,
			   lro = FEATURE_UNKNOWN;
	int r = ethtool_offloads("lo", &tso, &gso, &gro, &lro);

	if (r == -EPERM || r == -EACCES)
		SKIP("ethtool ioctl not permitted here");
	REQUIRE_EQ(r, 0);
	CHECK_EQ(tso, FEATURE_ON);
	CHECK_EQ(gso, FEATURE_ON);
	CHECK_EQ(lro, FEATURE_OFF);
	CHECK(gro != FEATURE_UNKNOWN);
}

TEST(loopback_has_no_rings_and_outputs_stay_untouched)
{
	int64_t tx = -1, tx_max = -1, rx = -1, rx_max = -1;

	CHECK_EQ(ethtool_rings("lo", &tx, &tx_max, &rx, &rx_max), -EOPNOTSUPP);
	CHECK_EQ(tx, -1);
	CHECK_EQ(rx_max, -1);
}

TEST(unknown_device_is_enodev)
{
	enum feature_state f[4] = {FEATURE_UNKNOWN};
	int64_t tx = -1, tx_max = -1, rx = -1, rx_max = -1;

	CHECK_EQ(ethtool_rings("debloat-nonex", &tx, &tx_max, &rx, &rx_max), -ENODEV);
	CHECK_EQ(ethtool_offloads("debloat-nonex", &f[0], &f[1], &f[2], &f[3]), -ENODEV);
	CHECK_EQ(f[0], FEATURE_UNKNOWN);
	CHECK_EQ(ethtool_rings("a-name-far-too-long-for-ifnamsiz", &tx, &tx_max, &rx, &rx_max),
		 -ENODEV);
}
