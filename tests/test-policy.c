/* SPDX-License-Identifier: MIT */
/*
 * test-policy.c - src/policy.c on hand-made interfaces: no host, no netlink. Each test
 * builds the description a board or a server would produce and checks the findings,
 * delays and grade a person would expect.
 */
#include <string.h>

#include "harness.h"
#include "host/host.h"
#include "policy.h"

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

TEST(pfifo_fast_1000_at_100mbit_is_123ms_and_grade_c)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	policy_iface(&ifc, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 123040);
	CHECK_EQ(f->severity, SEVERITY_CRITICAL);
	CHECK(strstr(f->message, "pfifo_fast at the root") != NULL);
	CHECK(strstr(f->recommendation, "tc qdisc replace dev eth0 root fq_codel limit 800") !=
	      NULL);
	CHECK(find(&v, "txqueuelen-long") != NULL);
	CHECK_EQ(find(&v, "txqueuelen-long")->delay_us, 123040);
	CHECK(find(&v, "no-bql") == NULL); /* the limit moved: BQL is in use */
	CHECK(v.graded);
	CHECK_EQ(v.grade, GRADE_C);
	CHECK_STR(grade_name(v.grade), "C");
	CHECK_EQ(v.worst_delay_us, 123040);
}

TEST(fq_codel_at_1gbit_has_no_fifo_finding)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 12000, 1514);
	struct iface ifc = board(&root, &q0, 1);
	struct verdict v;

	ifc.speed_mbps = 1000;
	policy_iface(&ifc, &v);
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
	policy_iface(&ifc, &v);
	CHECK_EQ(v.nfindings, 0);
	CHECK(!v.graded);
	CHECK_STR(v.ungraded_why, "loopback");
}

TEST(unknown_speed_leaves_the_delay_and_the_grade_unknown)
{
	struct qdisc root = q_root("pfifo_fast");
	struct bql_queue q0 = bql_q(0, 833, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	ifc.speed_mbps = 0; /* virtio_net says nothing */
	policy_iface(&ifc, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, -1);
	CHECK(find(&v, "txqueuelen-long") == NULL); /* cannot say "at <= 100 Mbit" */
	CHECK(!v.graded);
	CHECK_STR(v.ungraded_why, "link speed unknown");
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
	policy_iface(&ifc, &v);
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
	policy_iface(&ifc, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	CHECK_EQ(f->delay_us, 12304);
	CHECK(strstr(f->message, "under mq (the worst of 2 FIFOs)") != NULL);
	CHECK(strstr(f->recommendation, "default_qdisc=fq_codel") != NULL);
	CHECK_EQ(v.grade, GRADE_A);
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
	policy_iface(&ifc, &v);
	f = find(&v, "fifo-qdisc");
	REQUIRE(f);
	/* At line rate it would be 123 ms; under a 10 Mbit class 1.2 s: do not guess. */
	CHECK_EQ(f->delay_us, -1);
	CHECK(!v.graded);
	CHECK(strstr(f->recommendation, "parent 1:10 fq_codel") != NULL);
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
	policy_iface(&ifc, &v);
	REQUIRE(find(&v, "fifo-qdisc"));
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_us, 246080);
	CHECK_EQ(v.grade, GRADE_D);
}

TEST(bql_files_at_zero_are_unknown_until_traffic_then_no)
{
	struct qdisc root = q_root("fq_codel");
	struct bql_queue q0 = bql_q(0, 0, 0);
	struct iface ifc = board(&root, &q0, 1);
	const struct finding *f;
	struct verdict v;

	ifc.have_stats = true;
	ifc.tx_packets = 0;
	policy_iface(&ifc, &v);
	CHECK_EQ(v.bql_in_use, TRI_UNKNOWN);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->severity, SEVERITY_INFO);
	CHECK(strstr(f->message, "unknown until traffic has flowed") != NULL);
	CHECK(v.graded); /* no-bql carries no delay estimate yet: it does not void the grade */

	ifc.tx_packets = 5000;
	policy_iface(&ifc, &v);
	CHECK_EQ(v.bql_in_use, TRI_NO);
	f = find(&v, "no-bql");
	REQUIRE(f);
	CHECK_EQ(f->severity, SEVERITY_WARNING);
	CHECK(strstr(f->message, "cpsw does not use BQL") != NULL);
	CHECK(strstr(f->recommendation, "cake bandwidth 95Mbit") != NULL);
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
	policy_iface(&ifc, &v);
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
	policy_iface(&ifc, &v);
	CHECK(find(&v, "txqueuelen-long") == NULL);
	REQUIRE(find(&v, "fifo-qdisc"));
	CHECK_EQ(find(&v, "fifo-qdisc")->delay_us, 12304);
	CHECK_EQ(v.grade, GRADE_A);
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
