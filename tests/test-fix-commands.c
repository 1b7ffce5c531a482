/* SPDX-License-Identifier: MIT */
/*
 * test-fix-commands.c - src/fix/commands.c: every knob kind as the commands a person
 * would type; the handles are those knob_write uses; nothing outside the grammar (a
 * name a shell would read as code, a value with a blank) gets through.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fix/commands.h"
#include "harness.h"

static const char *cmds(enum knob_kind kind, const char *ifname, int queue, const char *name,
			const char *value, unsigned ntxq)
{
	static char buf[4096];
	struct knob k = {.kind = kind, .queue = queue};

	snprintf(k.ifname, sizeof(k.ifname), "%s", ifname);
	snprintf(k.name, sizeof(k.name), "%s", name);
	if (knob_commands(&k, value, ntxq, buf, sizeof(buf)) < 0)
		return "(refused)";
	return buf;
}

TEST(root_qdisc_shapes_as_tc_would_build_them)
{
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "fq_codel limit 800 ecn", 0),
		  "tc qdisc replace dev eth0 root handle 1: fq_codel limit 800 ecn\n");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "default", 0),
		  "tc qdisc del dev eth0 root\n");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "mq fq_codel", 2),
		  "tc qdisc replace dev eth0 root handle 1: mq\n"
		  "tc qdisc replace dev eth0 parent 1:1 handle 2: fq_codel\n"
		  "tc qdisc replace dev eth0 parent 1:2 handle 3: fq_codel\n");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "htb 95mbit pfifo limit 39", 0),
		  "tc qdisc replace dev eth0 root handle 1: htb default 1\n"
		  "tc class replace dev eth0 parent 1: classid 1:1 htb rate 95mbit ceil 95mbit\n"
		  "tc qdisc replace dev eth0 parent 1:1 handle 10: pfifo limit 39\n");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "mq fq_codel", 0), "(refused)");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "other: htb 1:", 0), "(refused)");
}

TEST(every_other_kind)
{
	CHECK_STR(cmds(KNOB_TXQUEUELEN, "eth0", 0, "", "100", 0),
		  "ip link set dev eth0 txqueuelen 100\n");
	CHECK_STR(cmds(KNOB_GSO_MAX_SIZE, "eth0", 0, "", "3028", 0),
		  "ip link set dev eth0 gso_max_size 3028\n");
	CHECK_STR(cmds(KNOB_BQL_LIMIT_MAX, "eth0", 3, "", "3000", 0),
		  "echo 3000 > /sys/class/net/eth0/queues/tx-3/byte_queue_limits/limit_max\n");
	CHECK_STR(cmds(KNOB_RING_RX, "eth0", 0, "", "248", 0), "ethtool -G eth0 rx 248\n");
	CHECK_STR(cmds(KNOB_RING_TX, "eth0", 0, "", "16", 0), "ethtool -G eth0 tx 16\n");
	CHECK_STR(cmds(KNOB_TX_USECS, "eth0", 0, "", "64", 0), "ethtool -C eth0 tx-usecs 64\n");
	CHECK_STR(cmds(KNOB_TX_USECS, "eth0", 0, "", "64 rx-usecs 1", 0), "(refused)");
	CHECK_STR(cmds(KNOB_OFFLOAD, "eth0", 0, "tx-generic-segmentation", "off", 0),
		  "ethtool -K eth0 gso off\n");
	CHECK_STR(cmds(KNOB_SYSCTL, "", 0, "net.ipv4.tcp_ecn", "1", 0),
		  "sysctl -w net.ipv4.tcp_ecn=1\n");
	CHECK_STR(
	    cmds(KNOB_INGRESS, "eth0", 0, "", "cake bandwidth 90mbit", 0),
	    "ip link add name ifb4eth0 type ifb\n"
	    "ip link set dev ifb4eth0 up\n"
	    "tc qdisc replace dev ifb4eth0 root handle 1: cake bandwidth 90mbit\n"
	    "tc qdisc add dev eth0 handle ffff: ingress\n"
	    "tc filter add dev eth0 parent ffff: protocol all u32 match u32 0 0 action mirred "
	    "egress redirect dev ifb4eth0\n");
	CHECK_STR(cmds(KNOB_INGRESS, "eth0", 0, "", "default", 0),
		  "tc qdisc del dev eth0 ingress\nip link del dev ifb4eth0\n");
}

TEST(nothing_a_shell_would_read_as_code)
{
	CHECK_STR(cmds(KNOB_TXQUEUELEN, "$(id)", 0, "", "100", 0), "(refused)");
	CHECK_STR(cmds(KNOB_TXQUEUELEN, "eth0", 0, "", "100; reboot", 0), "(refused)");
	CHECK_STR(cmds(KNOB_SYSCTL, "", 0, "net.x;id", "1", 0), "(refused)");
	CHECK_STR(cmds(KNOB_ROOT_QDISC, "eth0", 0, "", "fq_codel limit $(id)", 0), "(refused)");
}

TEST(a_small_buffer_is_enospc)
{
	struct knob k = {.kind = KNOB_TXQUEUELEN, .ifname = "eth0"};
	char buf[8];

	CHECK_EQ(knob_commands(&k, "100", 0, buf, sizeof(buf)), -ENOSPC);
	CHECK_EQ(knob_commands(&k, "100", 0, buf, 0), -ENOSPC);
}
