/* SPDX-License-Identifier: MIT */
/*
 * test-fix-plan.c - src/fix/plan.c on hand-made interfaces, as test-policy.c does for
 * audit: the BeagleBone Black (cpsw, 100 Mbit/s, no BQL) under every combination of
 * qdisc kinds a kernel may lack, a Raspberry Pi 4 (genet, BQL, multi-queue), a server,
 * an interface already fixed, a user's htb tree, loopback and virtual links. No host,
 * no netlink: "before" values are what knob_read would say, written by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/policy.h"
#include "fix/plan.h"
#include "fix/root-spec.h"
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

/* A host whose kernel has the kinds named in `have` (space-separated) and lacks the
 * other kinds the plan cares about; sysctls as a first network namespace has them. */
static struct host make_host(const char *have)
{
	static const char *const kinds[] = {"fq_codel", "fq",  "cake",	     "codel",
					    "htb",	"tbf", "pfifo_fast", "pfifo"};
	struct host h;
	char padded[128];

	memset(&h, 0, sizeof(h));
	snprintf(padded, sizeof(padded), " %s ", have);
	for (size_t i = 0; i < HOST_NQDISC_KINDS; i++) {
		char word[24];

		snprintf(word, sizeof(word), " %s ", kinds[i]);
		h.qdisc_kinds[i].kind = kinds[i];
		h.qdisc_kinds[i].avail = strstr(padded, word) || !strcmp(kinds[i], "pfifo") ||
						 !strcmp(kinds[i], "pfifo_fast")
					     ? QDISC_AVAIL_YES
					     : QDISC_AVAIL_NO;
	}
	h.sysctls[0] = (struct sysctl_entry){.name = "net.core.default_qdisc"};
	strcpy(h.sysctls[0].value, "pfifo_fast");
	h.sysctls[1] = (struct sysctl_entry){.name = "net.ipv4.tcp_congestion_control"};
	strcpy(h.sysctls[1].value, "cubic");
	h.sysctls[2] = (struct sysctl_entry){.name = "net.ipv4.tcp_ecn"};
	strcpy(h.sysctls[2].value, "2");
	h.sysctls[3] = (struct sysctl_entry){.name = "net.ipv4.tcp_limit_output_bytes"};
	strcpy(h.sysctls[3].value, "1048576");
	strcpy(h.kernel_release, "6.12.0");
	return h;
}

/* The BeagleBone Black as shipped: cpsw at 100 Mbit/s, pfifo_fast, txqueuelen 1000,
 * a BQL directory whose limit never moved although packets were sent. */
static struct iface bbb(struct qdisc *root, struct bql_queue *q0)
{
	struct iface ifc = {.ifindex = 2,
			    .physical = true,
			    .mtu = 1500,
			    .gso_max_size = 65536,
			    .txqueuelen = 1000,
			    .tx_queues = 1,
			    .have_stats = true,
			    .tx_packets = 123456,
			    .speed_mbps = 100,
			    .ring_tx = -1,
			    .ring_tx_max = -1,
			    .ring_rx = 128,
			    .ring_rx_max = 256,
			    .tso = FEATURE_OFF,
			    .gso = FEATURE_ON,
			    .gro = FEATURE_ON,
			    .lro = FEATURE_OFF,
			    .qdisc = root,
			    .bql = q0,
			    .nbql = 1,
			    .bql_read = true};

	*root = q_root("pfifo_fast");
	*q0 = bql_q(0, 0, 0);
	strcpy(ifc.name, "eth0");
	strcpy(ifc.kind, "physical");
	strcpy(ifc.driver, "cpsw");
	return ifc;
}

/* The Raspberry Pi 4: genet with BQL moving, 5 TX queues under mq, GigE. */
static struct iface pi4(struct qdisc *root, struct qdisc *children, struct bql_queue *q)
{
	struct iface ifc = {.ifindex = 2,
			    .physical = true,
			    .mtu = 1500,
			    .txqueuelen = 1000,
			    .tx_queues = 5,
			    .have_stats = true,
			    .tx_packets = 99999,
			    .speed_mbps = 1000,
			    .ring_tx = -1,
			    .ring_tx_max = -1,
			    .ring_rx = -1,
			    .ring_rx_max = -1,
			    .tso = FEATURE_ON,
			    .gso = FEATURE_ON,
			    .gro = FEATURE_ON,
			    .qdisc = root,
			    .bql = q,
			    .nbql = 5,
			    .bql_read = true};

	*root = q_root("mq");
	root->handle = 0x10000;
	for (unsigned i = 0; i < 5; i++) {
		children[i] = q_root("pfifo_fast");
		children[i].parent = 0x10000 + i + 1;
		q[i] = bql_q(i, 9084, 0);
	}
	root->children = children;
	root->nchildren = 5;
	strcpy(ifc.name, "eth0");
	strcpy(ifc.kind, "physical");
	strcpy(ifc.driver, "bcmgenet");
	return ifc;
}

static const struct plan_step *step_of(const struct plan *p, enum knob_kind kind, const char *name)
{
	for (size_t i = 0; i < p->nsteps; i++)
		if (p->steps[i].knob.kind == kind &&
		    (!name || !strcmp(p->steps[i].knob.name, name)))
			return &p->steps[i];
	return NULL;
}

static size_t count_of(const struct plan *p, enum knob_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsteps; i++)
		n += p->steps[i].knob.kind == kind;
	return n;
}

static bool has_note(const struct plan_target *t, const char *text)
{
	for (unsigned i = 0; i < t->nnotes; i++)
		if (strstr(t->notes[i], text))
			return true;
	return false;
}

static void plan_one(struct plan *p, const struct iface *ifc, const struct host *h,
		     enum plan_role role)
{
	struct plan_options o = {.role = role};

	plan_init(p, &o);
	CHECK_EQ(plan_iface(p, ifc, h, true), 0);
	CHECK_EQ(plan_host(p, h), 0);
}

TEST(beaglebone_with_every_kind_gets_cake_shaper_rx_lever_and_offloads_off)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel fq cake htb");
	const struct plan_step *s;
	struct plan p;

	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	REQUIRE_EQ(p.ntargets, 1);
	CHECK_EQ(p.targets[0].bql_in_use, TRI_NO);
	s = step_of(&p, KNOB_ROOT_QDISC, NULL);
	REQUIRE(s);
	CHECK_STR(s->after, "cake bandwidth 95mbit");
	CHECK(strstr(s->why, "no BQL") != NULL);
	CHECK(!s->optional);
	/* cpsw's lever: RX 248 leaves 8 TX descriptors; its tx size is ignored. */
	s = step_of(&p, KNOB_RING_RX, NULL);
	REQUIRE(s);
	CHECK_STR(s->after, "248");
	CHECK(s->optional);
	CHECK(step_of(&p, KNOB_RING_TX, NULL) == NULL);
	/* No FIFO remains under cake: txqueuelen does not matter. */
	CHECK(step_of(&p, KNOB_TXQUEUELEN, NULL) == NULL);
	/* No BQL, so no limit_max. */
	CHECK(step_of(&p, KNOB_BQL_LIMIT_MAX, NULL) == NULL);
	/* GSO and GRO are on at 100 Mbit/s; TSO is already off. */
	CHECK(step_of(&p, KNOB_OFFLOAD, "tx-generic-segmentation") != NULL);
	CHECK(step_of(&p, KNOB_OFFLOAD, "rx-gro") != NULL);
	CHECK(step_of(&p, KNOB_OFFLOAD, "tx-tcp-segmentation") == NULL);
	s = step_of(&p, KNOB_SYSCTL, "net.core.default_qdisc");
	REQUIRE(s);
	CHECK_STR(s->after, "fq_codel");
	CHECK_EQ(s->target, -1);
	s = step_of(&p, KNOB_SYSCTL, "net.ipv4.tcp_ecn");
	REQUIRE(s);
	CHECK_STR(s->after, "1");
	CHECK_EQ(p.targets[0].nnotes, 0);
	plan_free(&p);
}

/*
 * The fallback chain on the BeagleBone, for each of the 8 combinations of fq_codel,
 * cake and htb being there: the shaper is cake, else htb over the best leaf (fq_codel,
 * else a short pfifo), else no shaper at all; a FIFO that remains gets txqueuelen.
 */
TEST(beaglebone_fallback_chain_for_every_combination_of_kinds)
{
	for (unsigned mask = 0; mask < 8; mask++) {
		bool fq_codel = mask & 1, cake = mask & 2, htb = mask & 4;
		struct qdisc root;
		struct bql_queue q0;
		struct iface ifc = bbb(&root, &q0);
		char have[64], want[64];
		/* The FIFO: 10 ms in packets of two frames at the shaper's 95 Mbit/s, or at
		 * 100 Mbit/s without a shaper (policy_fifo_len). */
		const char *leaf = fq_codel ? "fq_codel limit 800 ecn"
				   : cake   ? "cake"
				   : htb    ? "pfifo limit 39"
					    : "pfifo limit 41";
		bool fifo;
		const struct plan_step *s;
		struct host h;
		struct plan p;

		snprintf(have, sizeof(have), "%s%s%s", fq_codel ? "fq_codel " : "",
			 cake ? "cake " : "", htb ? "htb" : "");
		h = make_host(have);
		if (cake)
			snprintf(want, sizeof(want), "cake bandwidth 95mbit");
		else if (htb)
			snprintf(want, sizeof(want), "htb 95mbit %s", leaf);
		else
			snprintf(want, sizeof(want), "%s", leaf);
		fifo = !cake && !fq_codel;
		plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
		s = step_of(&p, KNOB_ROOT_QDISC, NULL);
		if (!CHECK(s)) {
			plan_free(&p);
			continue;
		}
		if (!CHECK_STR(s->after, want))
			printf("  with kinds: %s\n", have);
		s = step_of(&p, KNOB_TXQUEUELEN, NULL);
		CHECK_EQ(s != NULL, fifo);
		if (s)
			CHECK_STR(s->after, htb ? "39" : "41");
		/* A FIFO leaf comes with GSO packets capped at two frames. */
		s = step_of(&p, KNOB_GSO_MAX_SIZE, NULL);
		CHECK_EQ(s != NULL, fifo);
		if (s)
			CHECK_STR(s->after, "3028");
		/* Each kind that was wanted and missing is said, with what is done instead. */
		if (!cake)
			CHECK(has_note(&p.targets[0], "no cake") ||
			      has_note(&p.targets[0], "nor cake") ||
			      has_note(&p.targets[0], "neither cake"));
		if (!fq_codel && !cake)
			CHECK(has_note(&p.targets[0], "short FIFO"));
		if (!cake && !htb)
			CHECK(has_note(&p.targets[0], "no shaper"));
		/* default_qdisc: fq_codel, else cake, else it stays (and says so). */
		s = step_of(&p, KNOB_SYSCTL, "net.core.default_qdisc");
		if (fq_codel || cake) {
			if (CHECK(s))
				CHECK_STR(s->after, fq_codel ? "fq_codel" : "cake");
		} else {
			CHECK(s == NULL);
			CHECK_EQ(p.nnotes, 1);
		}
		plan_free(&p);
	}
}

/* This machine's kernel (no fq_codel, fq, cake; htb yes), as CI sees it. */
TEST(beaglebone_on_a_kernel_without_fq_codel_fq_cake_shapes_with_htb_and_pfifo)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("htb tbf");
	struct plan p;

	plan_one(&p, &ifc, &h, PLAN_ROLE_SERVER);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "htb 95mbit pfifo limit 39");
	CHECK(has_note(&p.targets[0], "no fq, fq_codel nor cake"));
	CHECK(has_note(&p.targets[0], "htb shapes at 95mbit"));
	plan_free(&p);
}

/* The numbers must be the audit's: what audit recommends is what fix applies. */
TEST(fallback_and_fq_codel_numbers_are_the_policys)
{
	static const uint32_t speeds[] = {10, 50, 100, 1000};

	for (size_t i = 0; i < sizeof(speeds) / sizeof(*speeds); i++) {
		struct qdisc root;
		struct bql_queue q0 = bql_q(0, 3028, 0); /* BQL in use: no shaper */
		struct iface ifc = bbb(&root, &q0);
		struct host none = make_host(""), all = make_host("fq_codel cake htb");
		const struct finding *f = NULL;
		char spec[96], rec[128];
		struct verdict v;
		struct plan p;

		q0 = bql_q(0, 3028, 0);
		ifc.speed_mbps = speeds[i];
		strcpy(ifc.driver, "r8169");
		/* Without fq_codel and cake: pfifo limit N and txqueuelen N, as audit says. */
		policy_iface(&ifc, &none, &v);
		for (unsigned j = 0; j < v.nfindings; j++)
			if (!strcmp(v.findings[j].code, "qdisc-unavailable"))
				f = &v.findings[j];
		REQUIRE(f);
		plan_one(&p, &ifc, &none, PLAN_ROLE_HOST);
		REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
		REQUIRE(step_of(&p, KNOB_TXQUEUELEN, NULL));
		snprintf(rec, sizeof(rec), "root %s;", step_of(&p, KNOB_ROOT_QDISC, NULL)->after);
		CHECK(strstr(f->recommendation, rec) != NULL);
		snprintf(rec, sizeof(rec), "txqueuelen %s",
			 step_of(&p, KNOB_TXQUEUELEN, NULL)->after);
		CHECK(strstr(f->recommendation, rec) != NULL);
		plan_free(&p);
		/* With fq_codel: audit's "root fq_codel limit ..." is the plan's, plus ecn. */
		policy_iface(&ifc, &all, &v);
		plan_one(&p, &ifc, &all, PLAN_ROLE_HOST);
		REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
		snprintf(spec, sizeof(spec), "%s", step_of(&p, KNOB_ROOT_QDISC, NULL)->after);
		REQUIRE(strlen(spec) > 4 && !strcmp(spec + strlen(spec) - 4, " ecn"));
		spec[strlen(spec) - 4] = '\0';
		snprintf(rec, sizeof(rec), "root %s", spec);
		REQUIRE(v.nfindings > 0);
		CHECK(strstr(v.findings[0].recommendation, rec) != NULL);
		plan_free(&p);
	}
}

TEST(pi4_with_bql_at_gigabit_gets_mq_fq_codel_per_queue_and_nothing_else)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel fq cake htb");
	struct plan p;

	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_EQ(p.targets[0].bql_in_use, TRI_YES);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "mq fq_codel limit 1200 ecn");
	CHECK_EQ(count_of(&p, KNOB_BQL_LIMIT_MAX), 0); /* above 100 Mbit/s: autotuning is fine */
	CHECK_EQ(count_of(&p, KNOB_OFFLOAD), 0);
	CHECK_EQ(count_of(&p, KNOB_RING_TX) + count_of(&p, KNOB_RING_RX), 0);
	CHECK_EQ(count_of(&p, KNOB_TXQUEUELEN), 0);
	plan_free(&p);
}

TEST(pi4_at_100mbit_caps_bql_limit_max_on_every_queue_and_turns_offloads_off)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel fq cake htb");
	struct plan p;
	int seen = 0;

	ifc.speed_mbps = 100;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "mq fq_codel limit 800 ecn");
	CHECK_EQ(count_of(&p, KNOB_BQL_LIMIT_MAX), 5);
	for (size_t i = 0; i < p.nsteps; i++) {
		if (p.steps[i].knob.kind != KNOB_BQL_LIMIT_MAX)
			continue;
		CHECK_STR(p.steps[i].after, "3000");
		CHECK_EQ(p.steps[i].knob.queue, seen);
		seen++;
	}
	CHECK_EQ(count_of(&p, KNOB_OFFLOAD), 3);
	plan_free(&p);

	ifc.speed_mbps = 10;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_STR(step_of(&p, KNOB_BQL_LIMIT_MAX, NULL)->after, "1514");
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after,
		  "mq fq_codel limit 600 quantum 300 ecn");
	plan_free(&p);
}

TEST(server_role_prefers_fq_and_falls_back_to_fq_codel)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel fq cake htb");
	struct plan p;

	plan_one(&p, &ifc, &h, PLAN_ROLE_SERVER);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "mq fq");
	CHECK_STR(step_of(&p, KNOB_SYSCTL, "net.core.default_qdisc")->after, "fq");
	plan_free(&p);

	h = make_host("fq_codel htb");
	plan_one(&p, &ifc, &h, PLAN_ROLE_SERVER);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "mq fq_codel limit 1200 ecn");
	CHECK(has_note(&p.targets[0], "no fq"));
	CHECK_STR(step_of(&p, KNOB_SYSCTL, "net.core.default_qdisc")->after, "fq_codel");
	plan_free(&p);

	/* One queue: fq at the root, not under mq. */
	root = q_root("pfifo_fast");
	ifc.nbql = 1;
	h = make_host("fq fq_codel");
	plan_one(&p, &ifc, &h, PLAN_ROLE_SERVER);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "fq");
	plan_free(&p);
}

/* Fill every planned step's before as knob_read would spell the fixed state. */
static void set_befores(struct plan *p, const char *root_before)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];

		snprintf(s->before, sizeof(s->before), "%s",
			 s->knob.kind == KNOB_ROOT_QDISC ? root_before : s->after);
	}
}

TEST(already_fixed_plans_nothing_whatever_the_spelling)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel fq cake htb");
	static const char *const same[] = {
	    "mq fq_codel limit 1200 ecn",
	    "mq fq_codel limit 1200",		    /* ecn is the kernel's default: not spelled */
	    "mq fq_codel limit 1200 target 5000us", /* another spelling of the default */
	    "mq fq_codel flows 1024 limit 1200 interval 100ms quantum 1514",
	};
	static const char *const differ[] = {
	    "mq fq_codel limit 1000",
	    "mq fq_codel limit 1200 noecn",
	    "fq_codel limit 1200",
	    "mq pfifo limit 1200",
	    "default", /* the tree is pfifo_fast: not the plan */
	};
	struct plan p;

	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
		set_befores(&p, same[i]);
		plan_settle(&p);
		if (!CHECK_EQ(plan_count(&p, STEP_PLANNED), 0))
			printf("  root before: %s\n", same[i]);
		CHECK_EQ(plan_count(&p, STEP_SAME), p.nsteps);
		plan_free(&p);
	}
	for (size_t i = 0; i < sizeof(differ) / sizeof(*differ); i++) {
		plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
		set_befores(&p, differ[i]);
		plan_settle(&p);
		if (!CHECK_EQ(plan_count(&p, STEP_PLANNED), 1))
			printf("  root before: %s\n", differ[i]);
		plan_free(&p);
	}
}

/* "default" is compared with the live tree: the kernel's own mq + fq_codel children. */
TEST(default_root_that_already_is_the_plan_is_left_alone)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel fq cake htb");
	struct plan p;

	ifc.speed_mbps = 10000; /* no fq_codel parameters above 1 Gbit/s */
	for (unsigned i = 0; i < 5; i++) {
		strcpy(children[i].kind, "fq_codel");
		children[i].options[0] = value_uint("limit_packets", 10240, UNIT_PACKETS);
		children[i].options[1] = value_bool("ecn", true);
		children[i].noptions = 2;
	}
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "mq fq_codel ecn");
	set_befores(&p, "default");
	plan_settle(&p);
	CHECK_EQ(plan_count(&p, STEP_PLANNED), 0);
	plan_free(&p);

	children[3].options[1] = value_bool("ecn", false); /* one queue differs */
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	set_befores(&p, "default");
	plan_settle(&p);
	CHECK_EQ(plan_count(&p, STEP_PLANNED), 1);
	plan_free(&p);
}

TEST(htb_tree_of_the_user_is_refused_unless_forced)
{
	struct qdisc root;
	struct bql_queue q0 = bql_q(0, 3028, 0);
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel");
	struct plan_options force = {.force = true};
	struct plan p;

	q0 = bql_q(0, 3028, 0);
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	set_befores(&p, "other: htb 1: with 3 classes");
	p.steps[p.nsteps - 1].before[0] = '2'; /* tcp_ecn is 2 */
	plan_settle(&p);
	CHECK(plan_refused(&p));
	CHECK(p.targets[0].refused);
	CHECK(strstr(p.targets[0].refused_why, "htb 1: with 3 classes") != NULL);
	CHECK(strstr(p.targets[0].refused_why, "--force") != NULL);
	plan_free(&p);

	plan_init(&p, &force);
	REQUIRE_EQ(plan_iface(&p, &ifc, &h, true), 0);
	set_befores(&p, "other: htb 1: with 3 classes");
	plan_settle(&p);
	CHECK(!plan_refused(&p));
	CHECK(p.targets[0].forced);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_EQ(step_of(&p, KNOB_ROOT_QDISC, NULL)->status, STEP_PLANNED);
	/* Undo can only restore the kernel's default, and the plan says so. */
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->before, "default");
	CHECK(strstr(step_of(&p, KNOB_ROOT_QDISC, NULL)->msg, "htb 1: with 3 classes") != NULL);
	plan_free(&p);
}

TEST(loopback_is_refused_and_virtual_links_only_when_named)
{
	struct qdisc root = q_root("noqueue"), fifo = q_root("pfifo");
	struct iface lo = {.ifindex = 1, .loopback = true, .mtu = 65536, .qdisc = &root};
	struct iface veth = {.ifindex = 5, .mtu = 1500, .txqueuelen = 1000, .speed_mbps = 10000};
	struct host h = make_host("htb");
	struct plan p;

	strcpy(lo.name, "lo");
	strcpy(lo.kind, "loopback");
	strcpy(veth.name, "veth0");
	strcpy(veth.kind, "veth");
	fifo.options[0] = value_uint("limit_packets", 10000, UNIT_PACKETS);
	fifo.noptions = 1;
	veth.qdisc = &fifo;

	plan_init(&p, NULL);
	CHECK_EQ(plan_iface(&p, &lo, &h, true), 0);
	CHECK(p.targets[0].refused);
	CHECK(strstr(p.targets[0].refused_why, "loopback") != NULL);
	CHECK_EQ(plan_iface(&p, &lo, &h, false), 1);
	CHECK(p.targets[1].skipped);
	CHECK(!p.targets[1].refused);
	CHECK_EQ(plan_iface(&p, &veth, &h, false), 2);
	CHECK(p.targets[2].skipped);
	CHECK(strstr(p.targets[2].refused_why, "virtual") != NULL);
	CHECK_EQ(p.nsteps, 0);
	/* Named, a veth is fixed: its long pfifo becomes the short one this kernel allows. */
	CHECK_EQ(plan_iface(&p, &veth, &h, true), 3);
	CHECK(!p.targets[3].skipped && !p.targets[3].refused);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "pfifo limit 100");
	CHECK_STR(step_of(&p, KNOB_TXQUEUELEN, NULL)->after, "100");
	/* No shaper on a virtual link, no offloads above 100 Mbit/s. */
	CHECK_EQ(p.nsteps, 2);
	plan_free(&p);

	/* A veth at noqueue has no qdisc queue to fix. */
	veth.qdisc = &root;
	plan_init(&p, NULL);
	CHECK_EQ(plan_iface(&p, &veth, &h, true), 0);
	CHECK(step_of(&p, KNOB_ROOT_QDISC, NULL) == NULL);
	CHECK(has_note(&p.targets[0], "noqueue"));
	plan_free(&p);
}

TEST(driver_without_bql_and_a_tx_ring_gets_a_small_tx_ring)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel cake htb");
	struct plan p;

	strcpy(ifc.driver, "fec"); /* Wandboard: no BQL, 512 TX descriptors */
	ifc.ring_tx = 512;
	ifc.ring_tx_max = 512;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	REQUIRE(step_of(&p, KNOB_RING_TX, NULL));
	/* ~1 ms of 1538-byte frames at 100 Mbit/s: 8 descriptors. */
	CHECK_STR(step_of(&p, KNOB_RING_TX, NULL)->after, "8");
	CHECK(step_of(&p, KNOB_RING_RX, NULL) == NULL);
	plan_free(&p);

	/* usbnet: no ring to shrink, said as a note; BQL unknown before traffic: no shaper. */
	strcpy(ifc.driver, "smsc95xx");
	ifc.tx_packets = 0;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK(step_of(&p, KNOB_RING_TX, NULL) == NULL);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "fq_codel limit 800 ecn");
	CHECK(has_note(&p.targets[0], "unknown until traffic"));
	plan_free(&p);
}

TEST(steps_are_in_apply_order_and_optional_ones_marked)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel");
	struct plan p;
	int last = -1;

	ifc.speed_mbps = 100;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	for (size_t i = 0; i < p.nsteps; i++) {
		int phase = plan_phase(p.steps[i].knob.kind);

		CHECK(phase >= last);
		last = phase;
		CHECK_EQ(p.steps[i].optional, plan_knob_optional(p.steps[i].knob.kind));
	}
	/* Sysctls last: undo puts default_qdisc back before deleting any root. */
	CHECK_EQ(p.steps[p.nsteps - 1].knob.kind, KNOB_SYSCTL);
	CHECK(plan_phase(KNOB_SYSCTL) > plan_phase(KNOB_ROOT_QDISC));
	plan_free(&p);
}

TEST(specs_compare_by_meaning)
{
	struct knob k = {.kind = KNOB_ROOT_QDISC};
	struct knob n = {.kind = KNOB_TXQUEUELEN};
	struct knob sc = {.kind = KNOB_SYSCTL};
	struct root_spec sp;

	CHECK(plan_value_equal(&k, "fq_codel target 5000us interval 0.1s", "fq_codel target 5ms",
			       NULL));
	CHECK(plan_value_equal(&k, "cake bandwidth 95Mbit", "cake bandwidth 95000kbit", NULL));
	CHECK(
	    plan_value_equal(&k, "htb 95mbit pfifo limit 100", "htb 95Mbit pfifo limit 100", NULL));
	CHECK(!plan_value_equal(&k, "htb 96mbit pfifo limit 100", "htb 95mbit pfifo limit 100",
				NULL));
	CHECK(!plan_value_equal(&k, "pfifo limit 1000", "pfifo limit 100", NULL));
	CHECK(!plan_value_equal(&k, "other: htb 1: with 3 classes", "htb 95mbit pfifo", NULL));
	CHECK(!plan_value_equal(&k, "fq_codel limit 800", "mq fq_codel limit 800", NULL));
	CHECK(plan_value_equal(&k, "fq", "fq pacing", NULL));
	CHECK(plan_value_equal(&n, "0100", "100", NULL));
	CHECK(plan_value_equal(&sc, "4096\t16384 ", "4096 16384", NULL));
	CHECK(!plan_value_equal(&sc, "2", "1", NULL));

	CHECK_EQ(root_spec_read("htb 95mbit fq_codel limit 800 quantum 300 ecn", &sp), 0);
	CHECK_EQ(sp.shape, ROOT_SHAPE_HTB);
	CHECK_EQ(sp.htb_rate, 95000000 / 8);
	CHECK_STR(sp.kind, "fq_codel");
	CHECK_EQ(sp.nopts, 3);
	CHECK_EQ(root_spec_read("fq_codel limit", &sp), -EINVAL);
	CHECK_EQ(root_spec_read("fq_codel target soon", &sp), -EINVAL);
	CHECK_EQ(root_spec_read("htb fq_codel", &sp), -EINVAL);
	CHECK_EQ(root_spec_read("", &sp), -EINVAL);
	/* one grammar: a kind the knob cannot build is no spec for the planner either */
	CHECK_EQ(root_spec_read("tbf rate 1mbit", &sp), -EINVAL);
	CHECK_EQ(root_spec_read("mq", &sp), -EINVAL);
}

TEST(plan_build_skips_what_all_should_not_touch)
{
	struct qdisc r1, r2 = q_root("noqueue");
	struct bql_queue q0;
	struct iface ifaces[2];
	struct host h = make_host("fq_codel htb");
	struct plan p;

	ifaces[0] = bbb(&r1, &q0);
	memset(&ifaces[1], 0, sizeof(ifaces[1]));
	strcpy(ifaces[1].name, "lo");
	ifaces[1].loopback = true;
	ifaces[1].qdisc = &r2;
	h.ifaces = ifaces;
	h.n = 2;
	plan_init(&p, NULL);
	CHECK_EQ(plan_build(&p, &h, false), 0);
	CHECK_EQ(p.ntargets, 2);
	CHECK(!p.targets[0].skipped);
	CHECK(p.targets[1].skipped);
	CHECK(!plan_refused(&p));
	for (size_t i = 0; i < p.nsteps; i++)
		CHECK(p.steps[i].target != 1);
	plan_free(&p);
}

/* A rate given (prove's measured bottleneck) shapes a virtual link, even at noqueue. */
TEST(a_given_rate_shapes_a_named_virtual_link)
{
	struct qdisc root = {.kind = "noqueue"};
	struct iface ifc = {.ifindex = 5,
			    .kind = "veth",
			    .mtu = 1500,
			    .gso_max_size = 65536,
			    .txqueuelen = 1000,
			    .tx_queues = 1,
			    .speed_mbps = 10000,
			    .ring_tx = -1,
			    .ring_tx_max = -1,
			    .ring_rx = -1,
			    .ring_rx_max = -1,
			    .qdisc = &root};
	struct host fifo_only = make_host("htb"), with_cake = make_host("cake htb");
	struct plan_options o = {.role = PLAN_ROLE_HOST};
	const struct plan_step *root_step;
	struct plan p;

	snprintf(ifc.name, sizeof(ifc.name), "veth0");
	/* Without a rate: noqueue stays, nothing to do. */
	plan_init(&p, &o);
	CHECK_EQ(plan_iface(&p, &ifc, &fifo_only, true), 0);
	CHECK(step_of(&p, KNOB_ROOT_QDISC, NULL) == NULL);
	plan_free(&p);
	/* 80 Mbit/s on a kernel with htb only: htb over a FIFO of 10 ms in two-frame
	 * packets (10^7 B/s * 10 ms / 3028 = 33), txqueuelen the same, GSO capped. */
	o.shape_rate = 10000000;
	plan_init(&p, &o);
	CHECK_EQ(plan_iface(&p, &ifc, &fifo_only, true), 0);
	root_step = step_of(&p, KNOB_ROOT_QDISC, NULL);
	REQUIRE(root_step);
	CHECK_STR(root_step->after, "htb 80mbit pfifo limit 33");
	CHECK(strstr(root_step->why, "below the bottleneck") != NULL);
	REQUIRE(step_of(&p, KNOB_TXQUEUELEN, NULL));
	CHECK_STR(step_of(&p, KNOB_TXQUEUELEN, NULL)->after, "33");
	REQUIRE(step_of(&p, KNOB_GSO_MAX_SIZE, NULL));
	CHECK_STR(step_of(&p, KNOB_GSO_MAX_SIZE, NULL)->after, "3028");
	CHECK(step_of(&p, KNOB_GSO_MAX_SIZE, NULL)->optional);
	plan_free(&p);
	/* A slow rate keeps at least PLAN_FIFO_MIN packets; cake needs no FIFO nor cap. */
	o.shape_rate = 125000; /* 1 Mbit/s */
	plan_init(&p, &o);
	CHECK_EQ(plan_iface(&p, &ifc, &fifo_only, true), 0);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "htb 1mbit pfifo limit 8");
	plan_free(&p);
	plan_init(&p, &o);
	CHECK_EQ(plan_iface(&p, &ifc, &with_cake, true), 0);
	REQUIRE(step_of(&p, KNOB_ROOT_QDISC, NULL));
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "cake bandwidth 1mbit");
	CHECK(step_of(&p, KNOB_GSO_MAX_SIZE, NULL) == NULL);
	CHECK(step_of(&p, KNOB_TXQUEUELEN, NULL) == NULL);
	plan_free(&p);
	/* A gso_max_size already at or below the cap is left alone. */
	ifc.gso_max_size = 3000;
	o.shape_rate = 10000000;
	plan_init(&p, &o);
	CHECK_EQ(plan_iface(&p, &ifc, &fifo_only, true), 0);
	CHECK(step_of(&p, KNOB_GSO_MAX_SIZE, NULL) == NULL);
	plan_free(&p);
}

/* Wandboard: fec on an i.MX6Q never reaches its GigE line rate: the plan shapes at 95%
 * of half the shared ceiling, records why, and htb gets the same rate without cake. */
TEST(fec_on_imx6_shapes_below_its_shared_ceiling)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel cake htb");
	const struct plan_target *t;
	const struct plan_step *s;
	struct plan p;

	strcpy(ifc.driver, "fec");
	ifc.speed_mbps = 1000;
	strcpy(h.compatible[0], "wand,imx6q-wandboard");
	strcpy(h.compatible[1], "fsl,imx6q");
	h.ncompatible = 2;
	h.compatible_known = true;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	t = &p.targets[0];
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "cake bandwidth 223250kbit");
	CHECK(strstr(step_of(&p, KNOB_ROOT_QDISC, NULL)->why, "per direction") != NULL);
	CHECK(t->shaped);
	CHECK_EQ(t->shaper.source, RATE_SOURCE_TABLE);
	CHECK(t->shaper.halved);
	CHECK_EQ(t->shaper.rate * 8, 223250000);
	/* the receive direction shares the ceiling: shaped at the same rate, saying why */
	s = step_of(&p, KNOB_INGRESS, NULL);
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->after, "cake bandwidth 223250kbit");
		CHECK(strstr(s->why, "a transmit-only shaper cannot hold while the board also "
				     "receives") != NULL);
		CHECK(strstr(s->why, "both directions at half") != NULL);
	}
	plan_free(&p);

	h = make_host("fq_codel htb");
	memcpy(h.compatible[0], "fsl,imx6q", 10);
	h.ncompatible = 1;
	h.compatible_known = true;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_STR(step_of(&p, KNOB_ROOT_QDISC, NULL)->after,
		  "htb 223250kbit fq_codel limit 1200 ecn");
	plan_free(&p);

	/* --shape: as given, its source said */
	{
		struct plan_options o = {.role = PLAN_ROLE_HOST, .shape_rate = 50000000 / 8};

		plan_init(&p, &o);
		CHECK_EQ(plan_iface(&p, &ifc, &h, true), 0);
		CHECK_STR(p.targets[0].shaper.source_text, "--shape");
		CHECK_EQ(p.targets[0].shaper.rate, 50000000 / 8);
		/* a NIC whose ceiling is shared: the download at the rate given too */
		CHECK_STR(step_of(&p, KNOB_INGRESS, NULL)->after, "htb 50mbit fq_codel ecn");
		plan_free(&p);
	}
}

/* The automatic download shaper of a shared ceiling: --ingress's rate wins, --no-ingress
 * turns it off, and a NIC whose ceiling is not shared gets none. */
TEST(a_shared_ceiling_shapes_the_download_unless_told_otherwise)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel cake htb");
	struct plan p;

	strcpy(ifc.driver, "fec");
	ifc.speed_mbps = 1000;
	strcpy(h.compatible[0], "fsl,imx6q");
	h.ncompatible = 1;
	h.compatible_known = true;
	{
		struct plan_options o = {.role = PLAN_ROLE_HOST, .ingress_rate = 100000000 / 8};

		plan_init(&p, &o);
		CHECK_EQ(plan_iface(&p, &ifc, &h, true), 0);
		CHECK_STR(step_of(&p, KNOB_INGRESS, NULL)->after, "cake bandwidth 100mbit");
		/* the reason is the shared ceiling the two shapers split, not a queue upstream */
		CHECK(strstr(step_of(&p, KNOB_INGRESS, NULL)->why, "(--ingress)") != NULL);
		plan_free(&p);
	}
	{
		struct plan_options o = {.role = PLAN_ROLE_HOST,
					 .shape_rate = 400000000 / 8,
					 .ingress_rate = 50000000 / 8};
		const struct plan_step *rs;

		plan_init(&p, &o);
		CHECK_EQ(plan_iface(&p, &ifc, &h, true), 0);
		rs = step_of(&p, KNOB_ROOT_QDISC, NULL);
		REQUIRE(rs != NULL);
		CHECK_STR(rs->after, "cake bandwidth 400mbit");
		/* --shape on a board whose bus is the bottleneck: the why is that bus */
		CHECK(strstr(rs->why, "(--shape), under the 470 Mbit/s fec on i.MX6 moves for "
				      "transmit and receive together") != NULL);
		CHECK(strstr(rs->why, "beyond") == NULL);
		CHECK(strstr(step_of(&p, KNOB_INGRESS, NULL)->why, "split it as given") != NULL);
		plan_free(&p);
	}
	{
		struct plan_options o = {.role = PLAN_ROLE_HOST, .no_ingress = true};

		plan_init(&p, &o);
		CHECK_EQ(plan_iface(&p, &ifc, &h, true), 0);
		CHECK(p.targets[0].shaped);
		CHECK(step_of(&p, KNOB_INGRESS, NULL) == NULL);
		plan_free(&p);
	}
	/* the same i.MX6 linked at 100 Mbit/s: its link holds it, not the bus */
	ifc.speed_mbps = 100;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK_EQ(p.targets[0].shaper.source, RATE_SOURCE_LINE);
	CHECK(step_of(&p, KNOB_INGRESS, NULL) == NULL);
	plan_free(&p);
	/* a board whose ceiling is per direction, or none (cpsw): no download shaper */
	ifc = bbb(&root, &q0);
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK(p.targets[0].shaped);
	CHECK(step_of(&p, KNOB_INGRESS, NULL) == NULL);
	plan_free(&p);
}

/* Without BQL the TX ring is cut to ~1 ms of frames at the rate it drains: the drivers
 * table's ceiling per direction (235 Mbit/s on an i.MX6: 19 frames), not 1 Gbit/s. */
TEST(the_tx_ring_is_counted_at_the_ceiling)
{
	struct qdisc root;
	struct bql_queue q0;
	struct iface ifc = bbb(&root, &q0);
	struct host h = make_host("fq_codel cake htb");
	const struct plan_step *s;
	struct plan p;

	strcpy(ifc.driver, "fec");
	ifc.speed_mbps = 1000;
	ifc.ring_tx = 512;
	strcpy(h.compatible[0], "fsl,imx6q");
	h.ncompatible = 1;
	h.compatible_known = true;
	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	s = step_of(&p, KNOB_RING_TX, NULL);
	CHECK(s != NULL);
	CHECK_STR(s->after, "19");
	CHECK(strstr(s->why, "235 Mbit/s, the drivers table's ceiling per direction") != NULL);
	plan_free(&p);
}

/* Pi 4: bcmgenet has BQL: no shaper, no rate, no source. */
TEST(a_driver_with_bql_records_no_shaper)
{
	struct qdisc root, children[5];
	struct bql_queue q[5];
	struct iface ifc = pi4(&root, children, q);
	struct host h = make_host("fq_codel cake htb");
	struct plan p;

	plan_one(&p, &ifc, &h, PLAN_ROLE_HOST);
	CHECK(!p.targets[0].shaped);
	CHECK_EQ(p.targets[0].shaper.rate, 0);
	CHECK(strstr(step_of(&p, KNOB_ROOT_QDISC, NULL)->after, "bandwidth") == NULL);
	plan_free(&p);
}
