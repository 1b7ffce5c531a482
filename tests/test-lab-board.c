/* SPDX-License-Identifier: MIT */
/* test-lab-board.c - lab/board.h: lab profiles from snapshots, and fix's plan applied. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "host/snapshot.h"
#include "lab/board.h"

static char err[512];

/* The built-in board snapshot name as a host. */
static int board_host(const char *name, struct host *h)
{
	const char *text = lab_board_builtin_text(name);

	memset(h, 0, sizeof(*h));
	if (!text)
		return -ENOENT;
	return snapshot_parse(text, strlen(text), h, err, sizeof(err));
}

TEST(driver_bases)
{
	CHECK_STR(lab_board_base("cpsw"), "bbb-stock");
	CHECK_STR(lab_board_base("smsc95xx"), "rpi3b");
	CHECK_STR(lab_board_base("lan78xx"), "rpi3bplus");
	CHECK_STR(lab_board_base("bcmgenet"), "rpi4");
	CHECK_STR(lab_board_base("macb"), "rpi5");
	CHECK_STR(lab_board_base("fec"), "wandboard");
	CHECK(lab_board_base("r8169") == NULL);
	CHECK(lab_board_base(NULL) == NULL);
}

TEST(every_board_is_built_in_and_loads)
{
	static const struct plan_options opts = {0};

	for (const struct lab_board_entry *e = lab_boards; e->snapshot; e++) {
		struct lab_profile p, stock;
		struct lab_board b;

		CHECK(lab_board_builtin_text(e->snapshot) != NULL);
		CHECK(lab_board_find(e->snapshot) == e);
		CHECK(lab_board_find(e->profile) == e);
		if (!CHECK_EQ(
			lab_board_load(e->snapshot, NULL, false, &opts, &p, &b, err, sizeof(err)),
			0)) {
			fprintf(stderr, "  %s: %s\n", e->snapshot, err);
			continue;
		}
		REQUIRE_EQ(lab_profile_load(&stock, e->profile, err, sizeof(err)), 0);
		CHECK_STR(b.base, e->profile);
		CHECK_EQ(p.rate_bps, stock.rate_bps);
		CHECK_EQ(p.ceiling_bps, stock.ceiling_bps);
		CHECK_EQ(p.ceiling_shared, stock.ceiling_shared);
		CHECK_EQ(p.bql, stock.bql);
		CHECK_EQ(p.ring, stock.ring);
		CHECK_EQ(p.txqueuelen, stock.txqueuelen);
		CHECK(!strncmp(p.qdisc, stock.qdisc, strcspn(stock.qdisc, " ")));
		CHECK_EQ(lab_board_load(e->snapshot, NULL, true, &opts, &p, &b, err, sizeof(err)),
			 0);
		CHECK(b.nsteps > 0);
	}
	CHECK(lab_board_find("nosuch") == NULL);
}

TEST(pick_one_candidate)
{
	struct host h;

	REQUIRE_EQ(board_host("wandboard", &h), 0);
	CHECK_EQ(lab_board_pick(&h, NULL, err, sizeof(err)), 0);
	CHECK_EQ(lab_board_pick(&h, "wlan0", err, sizeof(err)), -ENODEV);
	CHECK_STR(err, "the snapshot has no interface wlan0");
	h.ifaces[0].physical = false;
	CHECK_EQ(lab_board_pick(&h, NULL, err, sizeof(err)), -ENODEV);
	CHECK(strstr(err, "no physical interface with a driver") != NULL);
	host_free(&h);
}

TEST(unmodelled_root_is_an_error_and_leaves_the_profile)
{
	struct host h;
	struct lab_profile p, before;
	struct lab_board b;

	REQUIRE_EQ(board_host("wandboard", &h), 0);
	snprintf(h.ifaces[0].qdisc->kind, sizeof(h.ifaces[0].qdisc->kind), "tbf");
	memset(&p, 0x3c, sizeof(p));
	before = p;
	CHECK_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), -EOPNOTSUPP);
	CHECK(strstr(err, "cannot model root qdisc tbf") != NULL);
	CHECK(!memcmp(&p, &before, sizeof(p)));
	host_free(&h);
}

TEST(mq_of_one_kind_is_that_kind)
{
	struct host h;
	struct lab_profile p;
	struct lab_board b;

	REQUIRE_EQ(board_host("raspberry-pi-4", &h), 0);
	REQUIRE_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), 0);
	CHECK(!strncmp(p.qdisc, "fq_codel limit 10240 ", 21));
	CHECK(strstr(p.qdisc, " target 5000us interval 100000us") != NULL);
	/* children of two kinds: no single queue stands for them */
	snprintf(h.ifaces[0].qdisc->children[1].kind, QDISC_KIND_MAX, "pfifo");
	CHECK_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), -EOPNOTSUPP);
	CHECK(strstr(err, "different kinds") != NULL);
	host_free(&h);
}

TEST(root_options_are_spelled_by_the_kinds_tables)
{
	struct host h;
	struct lab_profile p;
	struct lab_board b;
	struct qdisc *q;

	REQUIRE_EQ(board_host("wandboard", &h), 0);
	q = h.ifaces[0].qdisc;
	snprintf(q->kind, sizeof(q->kind), "codel");
	q->noptions = 0;
	q->options[q->noptions++] = value_uint("limit_packets", 600, UNIT_PACKETS);
	q->options[q->noptions++] = value_uint("target_us", 3000, UNIT_US);
	q->options[q->noptions++] = value_uint("interval_us", 60000, UNIT_US);
	q->options[q->noptions++] = value_bool("ecn", true);
	q->options[q->noptions++] = value_uint("ce_threshold_us", 1000, UNIT_US); /* not modelled */
	REQUIRE_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), 0);
	CHECK_STR(p.qdisc, "codel limit 600 target 3000us interval 60000us ecn");
	snprintf(q->kind, sizeof(q->kind), "fq");
	q->noptions = 0;
	q->options[q->noptions++] = value_uint("quantum_bytes", 3028, UNIT_BYTES);
	q->options[q->noptions++] = value_uint("limit_packets", 10000, UNIT_PACKETS);
	REQUIRE_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), 0);
	CHECK_STR(p.qdisc, "fq limit 10000 quantum 3028");
	host_free(&h);
}

/* A plan of one target "eth0" with the given root qdisc and extra steps. */
static void plan_with(struct plan *pl, const char *root)
{
	struct knob k = {.kind = KNOB_ROOT_QDISC};
	int t;

	plan_init(pl, &(struct plan_options){0});
	t = plan_add_target(pl, "eth0");
	snprintf(k.ifname, sizeof(k.ifname), "eth0");
	plan_add_step(pl, t, &k, root, false, "test");
}

static void add_step(struct plan *pl, enum knob_kind kind, const char *name, int queue,
		     const char *after)
{
	struct knob k = {.kind = kind, .queue = queue};

	snprintf(k.ifname, sizeof(k.ifname), "eth0");
	snprintf(k.name, sizeof(k.name), "%s", name);
	plan_add_step(pl, kind == KNOB_SYSCTL ? -1 : 0, &k, after, false, "test");
}

TEST(plan_steps_map_onto_profile_keys)
{
	struct host h;
	struct lab_profile p;
	struct lab_board b;
	struct plan pl;

	REQUIRE_EQ(board_host("beaglebone-black", &h), 0);
	REQUIRE_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), 0);
	plan_with(&pl, "htb 50mbit pfifo limit 10");
	add_step(&pl, KNOB_TXQUEUELEN, "", 0, "10");
	add_step(&pl, KNOB_RING_RX, "", 0, "248");
	add_step(&pl, KNOB_OFFLOAD, "tx-generic-segmentation", 0, "off");
	add_step(&pl, KNOB_OFFLOAD, "rx-gro", 0, "off");
	add_step(&pl, KNOB_SYSCTL, "net.ipv4.tcp_ecn", 0, "1");
	REQUIRE_EQ(lab_board_apply_plan(&pl, &p, &b, err, sizeof(err)), 0);
	CHECK_STR(p.qdisc, "shaper rate 50mbit child pfifo limit 10");
	CHECK_EQ(p.txqueuelen, 10);
	CHECK_EQ(p.ring, 8); /* cpsw: RX 248 leaves 8 TX descriptors */
	CHECK(!p.gso);
	CHECK_STR(p.name, "bbb-stock-fixed");
	REQUIRE_EQ(b.nsteps, 6);
	CHECK(b.steps[0].applied && b.steps[1].applied && b.steps[2].applied);
	CHECK(b.steps[3].applied);
	CHECK(!b.steps[4].applied); /* GRO: not modelled, but listed */
	CHECK(!b.steps[5].applied);
	CHECK_STR(b.steps[4].knob, "offload rx-gro");
	plan_free(&pl);

	plan_with(&pl, "cake bandwidth 142500kbit");
	add_step(&pl, KNOB_INGRESS, "", 0, "cake bandwidth 142500kbit");
	REQUIRE_EQ(lab_board_apply_plan(&pl, &p, &b, err, sizeof(err)), 0);
	CHECK_STR(p.qdisc, "shaper rate 142500kbit child fq_codel");
	/* the download shaper (ifb) becomes the lab's ingress, no longer "not modelled" */
	CHECK_STR(p.ingress, "shaper rate 142500kbit child fq_codel");
	REQUIRE_EQ(b.nsteps, 2);
	CHECK(b.steps[1].applied);
	CHECK_STR(b.steps[1].lab, "ingress = shaper rate 142500kbit child fq_codel");
	plan_free(&pl);
	plan_with(&pl, "htb 50mbit fq_codel");
	add_step(&pl, KNOB_INGRESS, "", 0, "htb 50mbit fq_codel ecn");
	REQUIRE_EQ(lab_board_apply_plan(&pl, &p, &b, err, sizeof(err)), 0);
	CHECK_STR(p.ingress, "shaper rate 50mbit child fq_codel ecn");
	plan_free(&pl);
	host_free(&h);
}

TEST(bad_plan_value_leaves_the_profile)
{
	struct host h;
	struct lab_profile p, before;
	struct lab_board b;
	struct plan pl;

	REQUIRE_EQ(board_host("raspberry-pi-4", &h), 0);
	REQUIRE_EQ(lab_board_profile(&h, 0, &p, &b, err, sizeof(err)), 0);
	before = p;
	plan_with(&pl, "fq_codel limit nonsense");
	CHECK_EQ(lab_board_apply_plan(&pl, &p, &b, err, sizeof(err)), -EINVAL);
	CHECK(!memcmp(&p, &before, sizeof(p)));
	plan_free(&pl);
	/* a plan without this interface */
	plan_init(&pl, &(struct plan_options){0});
	plan_add_target(&pl, "eth9");
	CHECK_EQ(lab_board_apply_plan(&pl, &p, &b, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "the plan has no steps for eth0");
	plan_free(&pl);
	host_free(&h);
}
