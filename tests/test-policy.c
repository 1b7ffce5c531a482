/* SPDX-License-Identifier: MIT */
/*
 * test-policy.c - src/audit/policy.c on hand-made interfaces: no host, no netlink. Each test
 * builds the description a board or a server would produce and checks the findings,
 * delays and grade a person would expect.
 */
#include <stdio.h>
#include <string.h>

#include "audit/policy.h"
#include "harness.h"
#include "host/host.h"

static struct qdisc q_root(const char *kind)
{
	struct qdisc q = {.parent = 0xFFFFFFFFU};

	strcpy(q.kind, kind);
	return q;
}

static struct bql_queue bql_q(unsigned n, int64_t limit, int64_t inflight)
{
	return (struct bql_queue){.queue = n,
				  .present = true,
				  .limit = limit,
				  .limit_min = 0,
				  .limit_max = 1879048192,
				  .inflight = inflight,
				  .hold_time_ms = 1000,
				  .stall_cnt = -1};
}

/* A 100 Mbit board on pfifo_fast: the BeagleBone Black as shipped. */
static struct iface board(struct qdisc *root, struct bql_queue *bql, size_t nbql)
{
	struct iface ifc = {.ifindex = 2,
			    .physical = true,
			    .mtu = 1500,
			    .txqueuelen = 1000,
			    .tx_queues = 1,
			    .speed_mbps = 100,
			    .qdisc = root,
			    .bql = bql,
			    .nbql = nbql,
			    .bql_read = true};

	strcpy(ifc.name, "eth0");
	strcpy(ifc.kind, "physical");
	strcpy(ifc.driver, "cpsw");
	return ifc;
}

static const struct finding *find(const struct verdict *v, const char *code)
{
	for (unsigned i = 0; i < v->nfindings; i++)
		if (!strcmp(v->findings[i].code, code))
			return &v->findings[i];
	return NULL;
}

/*
 * A FIFO counting packets holds GSO packets as TCP hands them (64 KB here: the board
 * reports no gso_max_size), up to POLICY_TSQ_FLOWS flows' TSQ allowance (1 MiB each
 * without the sysctl): 4 MiB at 100 Mbit/s is 335.5 ms; full-size frames, 123 ms.
 */
TEST(pfifo_fast_1000_at_100mbit_is_123_to_336ms_and_grade_d)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 335544);
	CHECK_EQ(f->delay_min_us, 123040);
	CHECK_EQ(f->severity, SEVERITY_CRITICAL);
	CHECK(strstr(f->message, "pfifo_fast at the root") != NULL);
	CHECK(strstr(f->recommendation, "tc qdisc replace dev eth0 root fq_codel limit 800") !=
	      NULL);
	CHECK(find(&v, "txqueuelen-long") != NULL);
	CHECK_EQ(find(&v, "txqueuelen-long")->delay_us, 123040);
	CHECK(find(&v, "no-bql") == NULL); /* the limit moved: BQL is in use */
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_D);
	CHECK_STR(grade_name(v.grade), "D");
	/* BQL holds the ring to 3028 bytes (242 us) below the FIFO: the path adds both. */
	CHECK(find(&v, "bql-limit-high") != NULL);
	CHECK_EQ(v.qdisc_delay_us, 335544);
	CHECK_EQ(v.device_delay_us, 242);
	CHECK_EQ(v.worst_delay_us, 335544 + 242);
}

/* gso_max_size capped at two frames (fix's FIFO fallback) and the host's own TSQ. */
TEST(a_capped_gso_size_and_the_hosts_tsq_bound_the_fifo)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	ifc.gso_max_size = 3028;
	ifc.txqueuelen = 30;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	/* 30 x 3028 B = 90840 B = 7267 us; frames: 30 x 1538 B = 3691 us */
	CHECK_EQ(f->delay_us, 7267);
	CHECK_EQ(f->delay_min_us, 3691);
	/* full-size frames only (a cap below a frame): one number, no range */
	ifc.gso_max_size = 1000;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 3691);
	CHECK_EQ(f->delay_min_us, -1);
}

TEST(fq_codel_at_1gbit_has_no_fifo_finding)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 12000, 1514);
	struct iface ifc = board(&root, &q0, 1);
	struct verdict v;

	ifc.speed_mbps = 1000;
	policy_iface(&ifc, NULL, &v);
	CHECK(find(&v, "fifo-qdisc") == NULL);
	CHECK(find(&v, "txqueuelen-long") == NULL); /* txqueuelen does not matter here */
	CHECK_EQ(v.nfindings, 0);
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_A_PLUS);
	CHECK_EQ(v.bql_in_use, TRI_YES);
}

TEST(loopback_is_listed_but_never_graded)
{
	struct qdisc root = q_root("pfifo_fast");
	struct iface ifc = board(&root, NULL, 0);
	struct verdict v;

	ifc.loopback = true;
	ifc.physical = false;
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.nfindings, 0);
	CHECK(!v.graded);
	CHECK_STR(v.ungraded_why, "loopback");
}

TEST(noop_qdisc_is_not_judged)
{
	/* A down ifb: noop drops everything, so nothing queues; A+ would be praise for nothing. */
	struct qdisc root = q_root("noop");
	struct iface ifc = board(&root, NULL, 0);
	struct verdict v;

	snprintf(ifc.operstate, sizeof(ifc.operstate), "down");
	policy_iface(&ifc, NULL, &v);
	CHECK(!v.graded);
	CHECK_EQ(v.nfindings, 0);
	REQUIRE(v.ungraded_why);
	CHECK(strstr(v.ungraded_why, "not judged") != NULL);
}

TEST(unknown_speed_leaves_the_delay_and_the_grade_unknown)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 833, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	ifc.speed_mbps = 0; /* virtio_net says nothing */
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, -1);
	CHECK(find(&v, "txqueuelen-long") == NULL); /* cannot say "at <= 100 Mbit" */
	CHECK(!v.graded);
	CHECK_STR(v.ungraded_why, "link speed unknown");
}

TEST(the_download_fifo_is_time_at_rate_as_the_egress_unless_super_packets_arrive)
{
	struct iface ifc = board(NULL, NULL, 0);

	/* A NIC (GRO turned off with it): 10 ms at the rate, at least eight capped packets. */
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 50000000 / 8), 62500);
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 1000000000 / 8), 1250000);
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 1000000 / 8), 8 * 3028);
	CHECK(policy_ingress_frames_only(&ifc));
	/* LRO builds super packets in hardware: three of them at least. */
	ifc.lro = FEATURE_ON;
	CHECK(!policy_ingress_frames_only(&ifc));
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 50000000 / 8), 3 * 65536);
	/* A veth passes its peer's GSO packets through: the same. */
	ifc.lro = FEATURE_OFF;
	ifc.physical = false;
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 50000000 / 8), 3 * 65536);
	CHECK_EQ(policy_ingress_fifo_bytes(&ifc, 1000000000 / 8), 1250000);
}

TEST(bfifo_limit_is_bytes)
{
	struct qdisc root = q_root("bfifo");
	struct iface ifc = board(&root, NULL, 0);
	const struct finding *f;
	struct verdict v;

	root.options[root.noptions++] = value_uint("limit_bytes", 30000, UNIT_BYTES);
	ifc.speed_mbps = 10;
	ifc.physical = false;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 24000); /* 30000 B * 8 / 10 Mbit/s */
	CHECK_EQ(v.grade, GRADE_A);
	CHECK(strstr(f->recommendation, "limit 600 quantum 300") != NULL);
}

TEST(mq_with_fifo_leaves_at_1gbit)
{
	struct qdisc root = q_root("mq");
	struct qdisc leaves[2] = {q_root("pfifo_fast"), q_root("pfifo_fast")};
	struct iface ifc = board(&root, NULL, 0);
	const struct finding *f;
	struct verdict v;

	leaves[0].parent = 1;
	leaves[1].parent = 2;
	root.children = leaves;
	root.nchildren = 2;
	ifc.speed_mbps = 1000;
	ifc.physical = false;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 33554); /* 4 MiB of GSO packets at 1 Gbit/s */
	CHECK_EQ(f->delay_min_us, 12304);
	CHECK(strstr(f->message, "under mq (the worst of 2 FIFOs)") != NULL);
	CHECK(strstr(f->recommendation, "default_qdisc=fq_codel") != NULL);
	CHECK_EQ(v.grade, GRADE_B);
}

TEST(fifo_under_htb_has_an_unknown_delay)
{
	struct qdisc root = q_root("htb");
	struct qdisc leaf = q_root("pfifo");
	struct iface ifc = board(&root, NULL, 0);
	const struct finding *f;
	struct verdict v;

	root.handle = 0x00010000;
	leaf.parent = 0x00010010;
	leaf.options[leaf.noptions++] = value_uint("limit_packets", 1000, UNIT_PACKETS);
	root.children = &leaf;
	root.nchildren = 1;
	ifc.physical = false;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	/* At line rate it would be 123 ms; under a 10 Mbit class 1.2 s: do not guess. */
	CHECK_EQ(f->delay_us, -1);
	CHECK(!v.graded);
	CHECK(strstr(f->recommendation, "parent 1:10 fq_codel") != NULL);

	/* With the class's rate read (the classic bloated modem): graded at that rate. */
	leaf.class_rate_bps = 10000000;
	ifc.gso_max_size = 1538; /* full frames only: 1000 x 1538 B at 10 Mbit/s */
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 1230400);
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_F);
}

TEST(fifo_under_tbf_drains_at_tbf_rate)
{
	struct qdisc root = q_root("tbf");
	struct qdisc leaf = q_root("pfifo");
	struct iface ifc = board(&root, NULL, 0);
	struct verdict v;

	root.options[root.noptions++] = value_uint("rate_bps", 5000000, UNIT_BPS);
	leaf.parent = 0x80040000;
	leaf.options[leaf.noptions++] = value_uint("limit_packets", 100, UNIT_PACKETS);
	root.children = &leaf;
	root.nchildren = 1;
	ifc.speed_mbps = 10000;
	ifc.physical = false;
	policy_iface(&ifc, NULL, &v);
	REQUIRE(find(&v, "fifo-qdisc"));
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_us, 6710886); /* 4 MiB at 5 Mbit/s */
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_min_us, 246080);
	CHECK_EQ(v.grade, GRADE_F);
}

TEST(bql_files_at_zero_are_unknown_until_traffic_then_no)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	strcpy(ifc.driver, "e1000e"); /* not in the driver table: only sysfs can tell */
	ifc.have_stats = true;
	ifc.tx_packets = 0;
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.bql_in_use, TRI_UNKNOWN);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->severity, SEVERITY_INFO);
	CHECK(strstr(f->message, "unknown until traffic has flowed") != NULL);
	CHECK(v.graded); /* no-bql carries no delay estimate yet: it does not void the grade */

	ifc.tx_packets = 5000;
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->severity, SEVERITY_WARNING);
	CHECK(strstr(f->message, "e1000e does not use BQL") != NULL);
	CHECK(strstr(f->recommendation, "cake bandwidth 95mbit") != NULL);
	CHECK_EQ(f->delay_us, -1); /* its ring is unknown */
	CHECK(f->grades);	   /* ... which voids the grade rather than counting as empty */
	CHECK(!v.graded);
	CHECK_STR(v.ungraded_why, "TX ring size unknown");
}

/* A USB driver's URBs are not an ethtool ring: the drivers table's count and size stand. */
TEST(urb_queue_counts_at_what_the_drivers_table_knows)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	strcpy(ifc.driver, "lan78xx");
	ifc.speed_mbps = 1000;
	ifc.have_stats = true;
	ifc.tx_packets = 5000;
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.ring_tx, 10);
	CHECK(v.ring_from_table);
	CHECK_EQ(v.ring_bytes, 10 * 16384);
	f = find(&v, "no-bql");
	REQUIRE(f);
	/* 163840 bytes at 1000 Mbit/s (no USB speed known, so no ceiling): 1.31 ms */
	CHECK_EQ(f->delay_us, 1311);
	CHECK(f->grades);
	CHECK(v.graded);
	CHECK_EQ(v.worst_delay_us, 1311);

	ifc.usb_speed_mbps = 480; /* USB 2: 150 Mbit/s each way drains it in 8.7 ms */
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 8738);
	CHECK(strstr(f->message, "10 TX URBs of 16 KB") != NULL);
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_A);

	strcpy(ifc.driver, "macb"); /* no kernel release: BQL unknown by version, sysfs says no */
	ifc.usb_speed_mbps = 0;
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.ring_tx, 512);
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_A);
}

TEST(bql_verdicts)
{
	struct bql_queue qs[2] = {bql_q(0, 0, 0), bql_q(1, 0, 0)};
	struct iface ifc = board(NULL, qs, 2);
	const char *why;

	CHECK_EQ(policy_bql_in_use(&ifc, &why), TRI_UNKNOWN);
	qs[1].inflight = 1514; /* the second queue is busy */
	CHECK_EQ(policy_bql_in_use(&ifc, &why), TRI_YES);
	qs[1].inflight = 0;
	qs[0].limit_min = qs[0].limit = 3000; /* pinned: at its floor, tells nothing */
	CHECK_EQ(policy_bql_in_use(&ifc, &why), TRI_UNKNOWN);
	qs[0].present = qs[1].present = false;
	CHECK_EQ(policy_bql_in_use(&ifc, &why), TRI_NO);
	ifc.bql_read = false;
	CHECK_EQ(policy_bql_in_use(&ifc, &why), TRI_UNKNOWN);
}

TEST(virtual_interfaces_get_no_bql_finding)
{
	struct qdisc root = q_root("noqueue");
	struct iface ifc = board(&root, NULL, 0);
	struct verdict v;

	ifc.physical = false;
	strcpy(ifc.kind, "veth");
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.nfindings, 0);
	CHECK_EQ(v.grade, GRADE_A_PLUS);
}

TEST(txqueuelen_short_enough_is_no_finding)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct verdict v;

	ifc.txqueuelen = 100;
	policy_iface(&ifc, NULL, &v);
	CHECK(find(&v, "txqueuelen-long") == NULL);
	REQUIRE(find(&v, "fifo-qdisc"));
	/* Short in packets, not in time: 100 GSO packets can be 4 MiB (TSQ's bound). */
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_us, 335544);
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_min_us, 12304);
	CHECK_EQ(v.grade, GRADE_D);
}

TEST(delay_arithmetic_and_grade_scale)
{
	CHECK_EQ(policy_fifo_delay_us(1000, 1500, 100), 123040);
	CHECK_EQ(policy_fifo_delay_us(1000, 1500, 0), -1);
	CHECK_EQ(policy_bytes_delay_us(1514, 1000), 12);
	CHECK_EQ(policy_grade(4999), GRADE_A_PLUS);
	CHECK_EQ(policy_grade(5000), GRADE_A);
	CHECK_EQ(policy_grade(29999), GRADE_A);
	CHECK_EQ(policy_grade(30000), GRADE_B);
	CHECK_EQ(policy_grade(60000), GRADE_C);
	CHECK_EQ(policy_grade(199999), GRADE_C);
	CHECK_EQ(policy_grade(200000), GRADE_D);
	CHECK_EQ(policy_grade(400000), GRADE_F);
}

TEST(sysctl_findings)
{
	struct sysctl_entry s[4] = {
	    {.name = "net.core.default_qdisc", .value = "pfifo_fast"},
	    {.name = "net.ipv4.tcp_congestion_control", .value = "cubic"},
	    {.name = "net.ipv4.tcp_ecn", .value = "2"},
	    {.name = "net.ipv4.tcp_limit_output_bytes", .value = "", .err = -2},
	};
	struct finding out[4];

	CHECK_EQ(policy_sysctls(s, 4, out, 4), 2);
	CHECK_STR(out[0].code, "default-qdisc-fifo");
	CHECK_STR(out[1].code, "tcp-ecn-off");
	strcpy(s[0].value, "fq_codel");
	strcpy(s[2].value, "1");
	CHECK_EQ(policy_sysctls(s, 4, out, 4), 0);
}

/* Host context: which qdisc kinds the kernel has, and its release. */
static struct host kernel(enum qdisc_avail fq_codel, enum qdisc_avail cake, enum qdisc_avail htb,
			  const char *release)
{
	struct host h = {0};

	h.qdisc_kinds[0] = (struct qdisc_kind_avail){"fq_codel", fq_codel};
	h.qdisc_kinds[1] = (struct qdisc_kind_avail){"cake", cake};
	h.qdisc_kinds[2] = (struct qdisc_kind_avail){"htb", htb};
	h.qdisc_kinds[3] = (struct qdisc_kind_avail){"pfifo", QDISC_AVAIL_YES};
	snprintf(h.kernel_release, sizeof(h.kernel_release), "%s", release);
	return h;
}

static void unknown_rings(struct iface *ifc)
{
	ifc->ring_tx = ifc->ring_tx_max = ifc->ring_rx = ifc->ring_rx_max = -1;
}

/* BeagleBone Black: cpsw at 100 Mbit, pfifo_fast, txqueuelen 1000, BQL files unused. */
TEST(beaglebone_black)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.6.32-ti");
	const struct finding *f;
	struct verdict v;

	unknown_rings(&ifc); /* cpsw's TX ring: the table's 128 */
	ifc.have_stats = true;
	ifc.tx_packets = 250000;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	REQUIRE(find(&v, "txqueuelen-long"));
	CHECK_EQ(find(&v, "txqueuelen-long")->delay_us, 123040);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 15749); /* 128 x 1538 B x 8 / 100 Mbit/s */
	CHECK(strstr(f->recommendation, "cake bandwidth 95mbit") != NULL);
	f = find(&v, "big-tx-ring");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 15749);
	CHECK(v.ring_from_table);
	CHECK(strstr(f->recommendation, "ethtool -G eth0 rx 248") != NULL);
	CHECK(strstr(f->recommendation, "8 TX descriptors, ~0.9 ms") != NULL);
	CHECK(strstr(f->recommendation, "2014 out-of-tree") != NULL);
	CHECK(find(&v, "qdisc-unavailable") == NULL);
	CHECK(find(&v, "gso-at-low-speed") == NULL); /* offloads unknown: no claim */
	/* The path: the qdisc's 336 ms of GSO packets, then the ring's 15.7 ms. */
	CHECK_EQ(v.worst_delay_us, 335544 + 15749);
	CHECK(v.graded);
	CHECK(v.grade >= GRADE_C);

	/* Nothing sent yet: the table still knows cpsw has no BQL. */
	ifc.tx_packets = 0;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	CHECK(strstr(v.bql_reason, "cpsw has no BQL") != NULL);
	/* ethtool's own number beats the table. */
	ifc.ring_tx = 64;
	policy_iface(&ifc, &h, &v);
	REQUIRE(find(&v, "big-tx-ring"));
	CHECK_EQ(find(&v, "big-tx-ring")->delay_us, 7875);
	CHECK(!v.ring_from_table);
}

/* Raspberry Pi 4: bcmgenet at GigE, BQL in use, mq with one fq_codel per TX queue. */
TEST(raspberry_pi_4)
{
	struct qdisc root = q_root("mq");
	struct qdisc leaves[5];
	struct bql_queue qs[5];
	struct iface ifc = board(&root, qs, 5);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_UNKNOWN, QDISC_AVAIL_YES, "6.6.31");
	struct verdict v;

	for (unsigned i = 0; i < 5; i++) {
		leaves[i] = q_root("fq_codel");
		leaves[i].parent = 0x80010000 | (i + 1);
		qs[i] = bql_q(i, i ? 0 : 6056, 0);
	}
	root.children = leaves;
	root.nchildren = 5;
	strcpy(ifc.driver, "bcmgenet");
	unknown_rings(&ifc);
	ifc.speed_mbps = 1000;
	ifc.tx_queues = 5;
	ifc.tso = ifc.gso = ifc.gro = FEATURE_ON; /* fine at GigE */
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_YES);
	CHECK(find(&v, "fifo-qdisc") == NULL);
	CHECK(find(&v, "txqueuelen-long") == NULL);
	CHECK(find(&v, "no-bql") == NULL);
	CHECK(find(&v, "gso-at-low-speed") == NULL);
	CHECK(v.graded);
	CHECK(v.grade <= GRADE_A);
}

/* Wandboard: fec at GigE has no BQL: shape at 950mbit; its 512-frame ring is 6.3 ms. */
TEST(wandboard)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.1.0");
	const struct finding *f;
	struct verdict v;

	strcpy(ifc.driver, "fec");
	unknown_rings(&ifc);
	ifc.speed_mbps = 1000;
	ifc.have_stats = true;
	ifc.tx_packets = 1000000;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK(strstr(f->recommendation, "tc qdisc replace dev eth0 root cake bandwidth 950mbit") !=
	      NULL);
	CHECK(strstr(f->recommendation, "htb rate 950mbit") != NULL);
	CHECK_EQ(f->delay_us, 6300); /* 512 x 1538 B x 8 / 1 Gbit/s */
	f = find(&v, "big-tx-ring");
	REQUIRE(f);
	CHECK(strstr(f->recommendation, "ethtool -G eth0 tx 81") != NULL);
	CHECK(find(&v, "fifo-qdisc") != NULL);
	CHECK(find(&v, "txqueuelen-long") == NULL); /* GigE: 100 is the rule at <= 100 Mbit */

	/* Without cake the shaper is htb with an fq_codel child, at the same rate. */
	h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_NO, QDISC_AVAIL_YES, "6.1.0");
	policy_iface(&ifc, &h, &v);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK(strstr(f->recommendation, "htb rate 950mbit") != NULL);
	CHECK(strstr(f->recommendation, "parent 1:1 fq_codel") != NULL);
	CHECK(strstr(f->recommendation, "root cake") == NULL);
}

static bool evidence_true(const struct finding *f, const char *key)
{
	for (unsigned i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].key, key))
			return f->evidence[i].u != 0;
	return false;
}

/*
 * A Wandboard with our fec (kmod/) installed for its kernel: while the kernel's own
 * module still drives the NIC, no-bql's advice is to load ours (and says it cuts the
 * link); once ours is loaded, the table's "fec has no BQL" no longer speaks for it, and
 * until traffic shows BQL at work the verdict is unknown, not "no".
 */
TEST(wandboard_with_our_fec_installed)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.1.0-50-armmp");
	const struct finding *f;
	struct verdict v;

	strcpy(ifc.driver, "fec");
	unknown_rings(&ifc);
	ifc.speed_mbps = 1000;
	ifc.have_stats = true;
	ifc.tx_packets = 1000000;
	strcpy(ifc.bql_module, "fec");
	strcpy(ifc.bql_module_path, "/lib/debloat/6.1.0-50-armmp/fec.ko");
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK(strstr(f->recommendation, "/lib/debloat/6.1.0-50-armmp/fec.ko") != NULL);
	CHECK(strstr(f->recommendation, "debloat fix --driver eth0 (--persist") != NULL);
	CHECK(strstr(f->recommendation, "takes eth0 down for a moment") != NULL);
	CHECK(strstr(f->recommendation, "cake bandwidth") != NULL); /* the shaper meanwhile */
	CHECK(evidence_true(f, "bql_module_installed"));

	/* Ours loaded, but no traffic yet: unknown, and only an info finding. */
	ifc.bql_module_loaded = true;
	ifc.tx_packets = 0;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_UNKNOWN);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->severity, SEVERITY_INFO);
	CHECK(strstr(f->message, "out-of-tree module") != NULL);

	/* Ours loaded and its limit moved: BQL in use, no finding. */
	q0.limit = 4542;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_YES);
	CHECK(find(&v, "no-bql") == NULL);

	/* Nothing installed: the shaper advice alone, as before. */
	ifc.bql_module[0] = ifc.bql_module_path[0] = '\0';
	ifc.bql_module_loaded = false;
	q0.limit = 0;
	ifc.tx_packets = 1000000;
	policy_iface(&ifc, &h, &v);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK(strstr(f->recommendation, "modprobe") == NULL);
	CHECK(!evidence_true(f, "bql_module_installed"));
}

TEST(fq_codel_missing_falls_back_to_cake_then_a_short_pfifo)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_NO, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.18.0");
	const struct finding *f;
	struct verdict v;

	policy_iface(&ifc, &h, &v);
	f = find(&v, "qdisc-unavailable");
	REQUIRE(f);
	CHECK(strstr(f->message, "no fq_codel") != NULL);
	CHECK_STR(f->recommendation, "tc qdisc replace dev eth0 root cake");
	CHECK_EQ(f->delay_us, -1);
	CHECK(v.graded); /* advice, not a queue: it does not void the grade */

	h = kernel(QDISC_AVAIL_NO, QDISC_AVAIL_NO, QDISC_AVAIL_YES, "6.18.0");
	policy_iface(&ifc, &h, &v);
	f = find(&v, "qdisc-unavailable");
	REQUIRE(f);
	{
		/* The short FIFO is short in time: policy_fifo_len at the link speed. */
		char want[64];

		snprintf(want, sizeof(want), "root pfifo limit %u;", policy_fifo_len(&ifc, 0));
		CHECK(strstr(f->recommendation, want) != NULL);
		snprintf(want, sizeof(want), "txqueuelen %u", policy_fifo_len(&ifc, 0));
		CHECK(strstr(f->recommendation, want) != NULL);
	}

	/* Unknown availability is no finding: the fix will find out. */
	h = kernel(QDISC_AVAIL_UNKNOWN, QDISC_AVAIL_UNKNOWN, QDISC_AVAIL_UNKNOWN, "");
	policy_iface(&ifc, &h, &v);
	CHECK(find(&v, "qdisc-unavailable") == NULL);
	policy_iface(&ifc, NULL, &v);
	CHECK(find(&v, "qdisc-unavailable") == NULL);
}

TEST(gso_at_100mbit_is_one_super_packet)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	q0.limit_max = 3000;
	ifc.tso = FEATURE_OFF;
	ifc.gso = FEATURE_ON;
	ifc.gro = FEATURE_ON;
	policy_iface(&ifc, NULL, &v);
	f = find(&v, "gso-at-low-speed");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 5243); /* 65536 B x 8 / 100 Mbit/s */
	CHECK_STR(f->recommendation, "ethtool -K eth0 gso off gro off");
	CHECK(find(&v, "bql-limit-high") == NULL); /* limit_max already 3000 */
	CHECK_EQ(v.grade, GRADE_A);

	ifc.speed_mbps = 1000;
	policy_iface(&ifc, NULL, &v);
	CHECK(find(&v, "gso-at-low-speed") == NULL);
	ifc.speed_mbps = 100;
	ifc.gso = ifc.gro = FEATURE_UNKNOWN;
	policy_iface(&ifc, NULL, &v);
	CHECK(find(&v, "gso-at-low-speed") == NULL);
}

TEST(bql_limit_high_at_100mbit)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 30280, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	policy_iface(&ifc, NULL, &v);
	f = find(&v, "bql-limit-high");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 2422);
	CHECK(strstr(f->recommendation, "echo 3000 >") != NULL);
	ifc.speed_mbps = 10;
	q0.limit_max = 3000;
	q0.limit = 3028;
	policy_iface(&ifc, NULL, &v);
	REQUIRE(find(&v, "bql-limit-high"));
	CHECK(strstr(find(&v, "bql-limit-high")->recommendation, "echo 1514 >") != NULL);
}

/* macb has BQL since 6.15: the kernel's release decides when sysfs cannot. */
TEST(macb_uses_the_kernel_release)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.6.51+rpt");
	struct verdict v;

	strcpy(ifc.driver, "macb");
	ifc.speed_mbps = 1000;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	CHECK(strstr(v.bql_reason, "since Linux 6.15") != NULL);
	REQUIRE(find(&v, "no-bql"));
	CHECK(strstr(find(&v, "no-bql")->recommendation, "bandwidth 950mbit") != NULL);
	/* the Pi 5's Raspberry Pi OS kernel: 6.12 has no macb BQL yet, nor has 6.14 */
	h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.12.25+rpt-rpi-2712");
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.14.11");
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.15.0");
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_YES);
	CHECK(find(&v, "no-bql") == NULL);
	policy_iface(&ifc, NULL, &v);
	CHECK_EQ(v.bql_in_use, TRI_UNKNOWN);
}

/* usbnet (Pi 3B): only the BQL files' behaviour can tell; no ring to shrink. */
TEST(usbnet_is_told_at_runtime)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.6.31");
	const struct finding *f;
	struct verdict v;

	strcpy(ifc.driver, "smsc95xx");
	unknown_rings(&ifc);
	ifc.have_stats = true;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_UNKNOWN);
	CHECK(strstr(v.bql_reason, "only be told at runtime") != NULL);
	ifc.tx_packets = 4000;
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	f = find(&v, "big-tx-ring");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 7382); /* ~60 URBs of 1538 B */
	CHECK(strstr(f->recommendation, "no ring size to shrink") != NULL);
	REQUIRE(find(&v, "no-bql"));
	CHECK(strstr(find(&v, "no-bql")->recommendation, "bandwidth 95mbit") != NULL);
	q0.limit = 4542; /* a kernel with the 2025 usbnet BQL patch */
	policy_iface(&ifc, &h, &v);
	CHECK_EQ(v.bql_in_use, TRI_YES);
	CHECK(find(&v, "no-bql") == NULL);
}

TEST(shaper_rate_spelling)
{
	char buf[32];

	policy_shaper_rate(1000, buf, sizeof(buf));
	CHECK_STR(buf, "950mbit");
	policy_shaper_rate(100, buf, sizeof(buf));
	CHECK_STR(buf, "95mbit");
	policy_shaper_rate(10, buf, sizeof(buf));
	CHECK_STR(buf, "9500kbit");
}

_Static_assert(POLICY_SHAPER_PERMILLE >= 930 && POLICY_SHAPER_PERMILLE < 1000,
	       "the shaper runs at 93% to <100% of the achievable rate");

/* The shaper's rate: 95% of the line rate, or of the drivers table's lower ceiling on
 * this machine, halved where transmit and receive share it; --shape as given. */
TEST(shaper_rate_from_the_achievable_rate)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	struct host h = kernel(QDISC_AVAIL_YES, QDISC_AVAIL_YES, QDISC_AVAIL_YES, "6.12.0");
	struct policy_shaper sh;

	strcpy(ifc.driver, "fec");
	ifc.speed_mbps = 1000;
	strcpy(h.compatible[0], "wand,imx6q-wandboard");
	strcpy(h.compatible[1], "fsl,imx6q");
	h.ncompatible = 2;
	h.compatible_known = true;
	policy_shaper(&ifc, &h, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_TABLE);
	CHECK_EQ(sh.rate, 223250000 / 8); /* 0.95 x 470 / 2 Mbit/s */
	CHECK_STR(sh.spelled, "223250kbit");
	CHECK(sh.halved);
	CHECK_EQ(sh.achievable_mbps, 235);
	CHECK_STR(sh.source_text,
		  "drivers table: fec on i.MX6, 470 Mbit/s shared by transmit and receive");
	CHECK(strstr(sh.why, "half for each direction") != NULL);

	/* The advice of the no-bql finding uses the same rate. */
	{
		struct verdict v;

		policy_iface(&ifc, &h, &v);
		REQUIRE(find(&v, "no-bql"));
		CHECK(strstr(find(&v, "no-bql")->recommendation, "bandwidth 223250kbit") != NULL);
	}

	/* Linked at 100 Mbit/s, the link is the bottleneck: 235 per direction is above it. */
	ifc.speed_mbps = 100;
	policy_shaper(&ifc, &h, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_LINE);
	CHECK_STR(sh.spelled, "95mbit");
	CHECK(sh.ceiling != NULL); /* known, just not below the line */
	CHECK_STR(sh.source_text, "line rate");

	/* The machine unknown (no host, or an old snapshot): the line rate. */
	ifc.speed_mbps = 1000;
	policy_shaper(&ifc, NULL, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_LINE);
	CHECK_EQ(sh.rate, policy_shaper_bytes(1000));
	CHECK(sh.ceiling == NULL);

	/* lan78xx on USB 2 (any machine): 0.95 x 300 / 2 Mbit/s */
	strcpy(ifc.driver, "lan78xx");
	ifc.usb_speed_mbps = 480;
	policy_shaper(&ifc, &h, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_TABLE);
	CHECK_STR(sh.spelled, "142500kbit");
	CHECK_EQ(sh.rate, 142500000 / 8);
	ifc.usb_speed_mbps = 5000;
	policy_shaper(&ifc, &h, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_LINE);

	/* Given: used as given, whatever the table says. */
	ifc.usb_speed_mbps = 480;
	policy_shaper(&ifc, &h, 50000000 / 8, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_GIVEN);
	CHECK_EQ(sh.rate, 50000000 / 8);
	CHECK_STR(sh.source_text, "--shape");
	CHECK(!sh.halved);

	/* No speed, no rate. */
	ifc.speed_mbps = 0;
	policy_shaper(&ifc, &h, 0, &sh);
	CHECK_EQ(sh.source, RATE_SOURCE_NONE);
	CHECK_EQ(sh.rate, 0);
}
