/* SPDX-License-Identifier: MIT */
/* cake.c - cake's options (TCA_CAKE_*, nested), and tc's words that set several. */
#include <linux/pkt_sched.h>

#include "qdisc/kinds.h"

static const struct qchoice diffserv_choices[] = {{"diffserv3", 0},  {"diffserv4", 1},
						  {"diffserv8", 2},  {"besteffort", 3},
						  {"precedence", 4}, {NULL, 0}};
static const struct qchoice atm_choices[] = {{"noatm", 0}, {"atm", 1}, {"ptm", 2}, {NULL, 0}};
static const struct qchoice flow_choices[] = {
    {"flowblind", 0},	 {"srchost", 1},      {"dsthost", 2},	     {"hosts", 3}, {"flows", 4},
    {"dual-srchost", 5}, {"dual-dsthost", 6}, {"triple-isolate", 7}, {NULL, 0}};
static const struct qchoice autorate_choices[] = {{"autorate-ingress", 1}, {NULL, 0}};
static const struct qchoice nat_choices[] = {{"nat", 1}, {"nonat", 0}, {NULL, 0}};
static const struct qchoice wash_choices[] = {{"wash", 1}, {"nowash", 0}, {NULL, 0}};
static const struct qchoice gso_choices[] = {{"split-gso", 1}, {"no-split-gso", 0}, {NULL, 0}};
static const struct qchoice ingress_choices[] = {{"ingress", 1}, {"egress", 0}, {NULL, 0}};
static const struct qchoice ack_choices[] = {
    {"no-ack-filter", 0}, {"ack-filter", 1}, {"ack-filter-aggressive", 2}, {NULL, 0}};

/* The audit reports what says how cake shapes and how big it may grow; its modes as the
 * kernel's numbers. */
static const struct qattr attrs[] = {
    /* 0 is "unlimited", the default; "bandwidth 0" sends nothing, as in tc. */
    {.type = TCA_CAKE_BASE_RATE64,
     .word = "bandwidth",
     .key = "bandwidth_bps",
     .unit = UNIT_BPS,
     .enc = QENC_RATE64,
     .show = QSHOW_RATE,
     .show_pos = 1,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC | QA_SPEC_DEFAULT,
     .def = 0},
    {.type = TCA_CAKE_DIFFSERV_MODE,
     .word = "diffserv",
     .key = "diffserv_mode",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_NUM,
     .show_pos = 6,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = diffserv_choices},
    {.type = TCA_CAKE_ATM,
     .word = "atm",
     .enc = QENC_CHOICE,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = atm_choices},
    {.type = TCA_CAKE_FLOW_MODE,
     .word = "flowmode",
     .key = "flow_mode",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_NUM,
     .show_pos = 7,
     .flags = QA_DEFAULT,
     .def = 7,
     .choices = flow_choices},
    /* Spelled whenever set, 0 too: the kernel then stops counting the MAC header. It
     * reports TCA_CAKE_RAW while no overhead was ever set, and an overhead then too. */
    {.type = TCA_CAKE_OVERHEAD, .word = "overhead", .enc = QENC_S32, .absent_if = TCA_CAKE_RAW},
    {.type = TCA_CAKE_MPU,
     .word = "mpu",
     .enc = QENC_U32,
     .flags = QA_DEFAULT | QA_OMIT_ZERO,
     .def = 0},
    {.type = TCA_CAKE_RTT,
     .word = "rtt",
     .key = "rtt_us",
     .unit = UNIT_US,
     .enc = QENC_TIME_US,
     .show = QSHOW_NUM,
     .show_pos = 3,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC | QA_SPEC_DEFAULT,
     .def = 100000},
    {.type = TCA_CAKE_TARGET,
     .key = "target_us",
     .unit = UNIT_US,
     .enc = QENC_DERIVED,
     .show = QSHOW_NUM,
     .show_pos = 4},
    {.type = TCA_CAKE_AUTORATE,
     .word = "autorate",
     .key = "autorate_ingress",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 2,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = autorate_choices},
    /* 0: cake sizes its memory from the rate. */
    {.type = TCA_CAKE_MEMORY,
     .word = "memlimit",
     .key = "memory_limit_bytes",
     .unit = UNIT_BYTES,
     .enc = QENC_SIZE,
     .show = QSHOW_NUM,
     .show_pos = 5,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC,
     .def = 0},
    {.type = TCA_CAKE_NAT,
     .word = "nat",
     .key = "nat",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 8,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = nat_choices},
    {.type = TCA_CAKE_WASH,
     .word = "wash",
     .key = "wash",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 9,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = wash_choices},
    {.type = TCA_CAKE_SPLIT_GSO,
     .word = "split-gso",
     .key = "split_gso",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 11,
     .flags = QA_DEFAULT,
     .def = 1,
     .choices = gso_choices},
    {.type = TCA_CAKE_INGRESS,
     .word = "ingress",
     .key = "ingress",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 10,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = ingress_choices},
    {.type = TCA_CAKE_ACK_FILTER,
     .word = "ack-filter",
     .enc = QENC_CHOICE,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = ack_choices},
    {.type = TCA_CAKE_FWMARK, .enc = QENC_FOREIGN, .flags = QA_DEFAULT, .def = 0},
};

/* tc's round-trip-time presets set rtt, and target to a twentieth of it. */
#define CAKE_RTT(w, us)                                                                            \
	{                                                                                          \
		.word = w, .type = TCA_CAKE_RTT, .value = us, .div_type = TCA_CAKE_TARGET,         \
		.div = 20                                                                          \
	}

static const struct qword words[] = {
    /* "bandwidth 0" sends no rate, "unlimited" sends a rate of 0: tc's way. */
    {.word = "bandwidth",
     .type = TCA_CAKE_BASE_RATE64,
     .arg = true,
     .type2 = TCA_CAKE_AUTORATE,
     .value2 = 0},
    {.word = "unlimited",
     .type = TCA_CAKE_BASE_RATE64,
     .value = 0,
     .type2 = TCA_CAKE_AUTORATE,
     .value2 = 0,
     .forced = true,
     .spec = true},
    {.word = "rtt", .type = TCA_CAKE_RTT, .arg = true, .div_type = TCA_CAKE_TARGET, .div = 20},
    CAKE_RTT("datacentre", 100),
    CAKE_RTT("lan", 1000),
    CAKE_RTT("metro", 10000),
    CAKE_RTT("regional", 30000),
    CAKE_RTT("internet", 100000),
    CAKE_RTT("oceanic", 300000),
    CAKE_RTT("satellite", 1000000),
    CAKE_RTT("interplanetary", 1000000000),
};

const struct qkind qkind_cake = {
    .name = "cake",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .words = words,
    .nwords = COUNT(words),
};
