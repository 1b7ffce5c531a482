/* SPDX-License-Identifier: MIT */
/* test-host-hz.c - src/host/hz.c: CONFIG_HZ out of a kernel configuration's text. */
#include <errno.h>

#include "harness.h"
#include "host/hz.h"

TEST(config_hz_is_read_from_its_own_line)
{
	long hz = -1;

	CHECK_EQ(host_hz_from_config("CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_X=y\n", &hz), 0);
	CHECK_EQ(hz, 250);
	CHECK_EQ(host_hz_from_config("CONFIG_HZ=1000", &hz), 0);
	CHECK_EQ(hz, 1000);
}

TEST(lookalikes_and_nonsense_are_not_a_tick_rate)
{
	long hz = 7;

	/* CONFIG_HZ_PERIODIC, a symbol that merely ends in it, a comment, garbage, 0 */
	CHECK_EQ(host_hz_from_config("CONFIG_HZ_PERIODIC=y\n", &hz), -ENOENT);
	CHECK_EQ(host_hz_from_config("CONFIG_NO_HZ=250\n", &hz), -ENOENT);
	CHECK_EQ(host_hz_from_config("# CONFIG_HZ=100 is not set\n", &hz), -ENOENT);
	CHECK_EQ(host_hz_from_config("CONFIG_HZ=25x\n", &hz), -ENOENT);
	CHECK_EQ(host_hz_from_config("CONFIG_HZ=0\n", &hz), -ENOENT);
	CHECK_EQ(host_hz_from_config("", &hz), -ENOENT);
	CHECK_EQ(hz, 7);
}

TEST(the_running_kernels_hz_when_its_configuration_is_there)
{
	struct host_paths p = host_default_paths;
	long hz = 0;
	int r = host_kernel_hz(&p, NULL, &hz);

	if (r == -ENOENT)
		SKIP("no /proc/config.gz here");
	CHECK_EQ(r, 0);
	CHECK(hz == 100 || hz == 250 || hz == 300 || hz == 1000);
}
