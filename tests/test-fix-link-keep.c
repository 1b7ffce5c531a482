/* SPDX-License-Identifier: MIT */
/*
 * test-fix-link-keep.c - what a driver swap keeps and puts back (fix/link-keep.h) and
 * the peer question (fix/reach.h), on a veth interface in a network namespace of
 * this process's own: the addresses and routes set by hand come back on a new device
 * of the same name, the kernel's own and the autoconfigured ones are left to it, the
 * gateway is found, loopback answers an echo and a silent link does not. Root (a
 * namespace of our own); skipped without it.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fix/link-keep.h"
#include "fix/reach.h"
#include "harness.h"

static bool in_own_netns;

/* A namespace of our own, once: nothing here touches the machine's interfaces. */
static bool own_netns(void)
{
	if (!in_own_netns && geteuid() == 0 && unshare(CLONE_NEWNET) == 0)
		in_own_netns = true;
	return in_own_netns;
}

static int sh(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "(%s) >/dev/null 2>&1", cmd);
	return system(full);
}

/* What `ip` shows of dk0's addresses and routes, one string, for comparing. */
static void shown(char *buf, size_t len)
{
	FILE *f = popen("ip -o addr show dev dk0 scope global | awk '{print $4}';"
			"ip route show dev dk0; ip -6 route show dev dk0 | grep -v '^fe80'",
			"r");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	pclose(f);
}

TEST(keeps_and_puts_back_what_was_set_by_hand)
{
	char before[2048], after[2048], gw[64], msg[256];
	struct link_keep k, again;

	if (!own_netns())
		SKIP("needs root (a network namespace of our own)");
	if (sh("command -v ip") != 0)
		SKIP("needs ip (iproute2)");
	REQUIRE_EQ(sh("ip link set lo up && ip link add dk0 type veth peer name dk0p && ip link "
		      "set dk0 up && "
		      "ip addr add 192.0.2.5/24 dev dk0 && "
		      "ip -6 addr add 2001:db8::5/64 dev dk0 nodad && "
		      "ip route add default via 192.0.2.1 && "
		      "ip route add 198.51.100.0/24 via 192.0.2.1 metric 7 && "
		      "ip -6 route add default via 2001:db8::1"),
		   0);
	shown(before, sizeof(before));
	REQUIRE_EQ(link_keep_read((int)if_nametoindex("dk0"), &k), 0);
	CHECK(k.up);
	CHECK_EQ(k.naddrs, 2u);	 /* 192.0.2.5/24, 2001:db8::5/64; not the link-local one */
	CHECK_EQ(k.nroutes, 3u); /* the two IPv4 ones and the IPv6 default; not proto kernel */
	CHECK(link_keep_has_address(&k, "192.0.2.5"));
	CHECK(link_keep_has_address(&k, "2001:db8::5"));
	CHECK(!link_keep_has_address(&k, "192.0.2.1"));
	CHECK(link_keep_has_default(&k));
	REQUIRE_EQ(link_keep_gateway(&k, gw, sizeof(gw)), 0);
	CHECK_STR(gw, "192.0.2.1"); /* IPv4 first */

	/* The device goes (as at a module unload) and a new one comes, bare. */
	REQUIRE_EQ(sh("ip link del dk0 && ip link add dk0 type veth peer name dk0p"), 0);
	shown(after, sizeof(after));
	CHECK(strcmp(before, after) != 0);
	CHECK_EQ(link_keep_restore((int)if_nametoindex("dk0"), &k, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "");
	shown(after, sizeof(after));
	CHECK_STR(after, before);
	/* Again over what is there already (a network manager was faster): no error. */
	CHECK_EQ(link_keep_restore((int)if_nametoindex("dk0"), &k, msg, sizeof(msg)), 0);
	REQUIRE_EQ(link_keep_read((int)if_nametoindex("dk0"), &again), 0);
	CHECK_EQ(again.naddrs, 2u);
	CHECK_EQ(again.nroutes, 3u);

	/* A route that cannot come back says which. */
	REQUIRE_EQ(sh("ip link del dk0 && ip link add dk0 type veth peer name dk0p"), 0);
	k.naddrs = 0; /* without its address the gateway is unreachable */
	CHECK(link_keep_restore((int)if_nametoindex("dk0"), &k, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "cannot put back route") != NULL);
	sh("ip link del dk0");
}

TEST(a_peer_answers_or_the_wait_ends)
{
	if (!own_netns())
		SKIP("needs root (a network namespace of our own)");
	if (sh("ip link set lo up && ip link add dk1 type veth peer name dk1p && ip link set dk1p "
	       "up && ip link set dk1 up && "
	       "ip addr add 192.0.2.9/24 dev dk1") != 0)
		SKIP("needs ip and the veth driver");
	CHECK_EQ(reach_peer("lo", "127.0.0.1", 2000), 0);
	CHECK_EQ(reach_peer("lo", "::1", 2000), 0);
	/* Nobody holds 192.0.2.1 behind dk1: no answer, within the bound. */
	CHECK_EQ(reach_peer("dk1", "192.0.2.1", 3 * REACH_INTERVAL_MS), -ETIMEDOUT);
	CHECK_EQ(reach_peer("dk1", "not an address", 100), -EINVAL);
	sh("ip link del dk1");
}
