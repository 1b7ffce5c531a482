/* SPDX-License-Identifier: MIT */
/* qkind-cake.c - cake's options (TCA_CAKE_*, nested), and tc's words that set several. */
#include <linux/pkt_sched.h>

#include "qkind/kinds.h"

static const struct qchoice diffserv_choices[] = {{"diffserv3", 0, NULL},  {"diffserv4", 1, NULL},
						  {"diffserv8", 2, NULL},  {"besteffort", 3, NULL},
						  {"precedence", 4, NULL}, {NULL, 0, NULL}};
static const struct qchoice atm_choices[] = {
    {"noatm", 0, NULL}, {"atm", 1, NULL}, {"ptm", 2, NULL}, {NULL, 0, NULL}};
/* systemd.network(5) spells the isolation modes its own way. */
static const struct qchoice flow_choices[] = {{"flowblind", 0, "none"},
					      {"srchost", 1, "src-host"},
					      {"dsthost", 2, "dst-host"},
					      {"hosts", 3, NULL},
					      {"flows", 4, NULL},
					      {"dual-srchost", 5, "dual-src-host"},
					      {"dual-dsthost", 6, "dual-dst-host"},
					      {"triple-isolate", 7, "triple"},
					      {NULL, 0, NULL}};
static const struct qchoice autorate_choices[] = {{"autorate-ingress", 1, NULL}, {NULL, 0, NULL}};
static const struct qchoice nat_choices[] = {{"nat", 1, NULL}, {"nonat", 0, NULL}, {NULL, 0, NULL}};
static const struct qchoice wash_choices[] = {
    {"wash", 1, NULL}, {"nowash", 0, NULL}, {NULL, 0, NULL}};
static const struct qchoice gso_choices[] = {
    {"split-gso", 1, NULL}, {"no-split-gso", 0, NULL}, {NULL, 0, NULL}};
static const struct qchoice ingress_choices[] = {
    {"ingress", 1, NULL}, {"egress", 0, NULL}, {NULL, 0, NULL}};
static const struct qchoice ack_choices[] = {{"no-ack-filter", 0, NULL},
					     {"ack-filter", 1, NULL},
					     {"ack-filter-aggressive", 2, NULL},
					     {NULL, 0, NULL}};

/* The audit reports what says how cake shapes and how big it may grow; its modes as the
 * kernel's numbers. */
/* clang-format off */
static const struct qattr attrs[] = {
    /* type                    word          key                   unit   enc      show  pos flags                                                  def */
    /* 0 is "unlimited", the default; "bandwidth 0" sends nothing, as in tc. */
    QA(TCA_CAKE_BASE_RATE64,   "bandwidth",  "bandwidth_bps",      BPS,   RATE64,  RATE, 1,  QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC | QA_SPEC_DEFAULT, 0, .networkd = "Bandwidth"),
    QA(TCA_CAKE_DIFFSERV_MODE, "diffserv",   "diffserv_mode",      NONE,  CHOICE,  NUM,  6,  QA_DEFAULT,                                            0, .choices = diffserv_choices, .networkd = "PriorityQueueingPreset"),
    QA(TCA_CAKE_ATM,           "atm",        NULL,                 NONE,  CHOICE,  NONE, 0,  QA_DEFAULT,                                            0, .choices = atm_choices),
    QA(TCA_CAKE_FLOW_MODE,     "flowmode",   "flow_mode",          NONE,  CHOICE,  NUM,  7,  QA_DEFAULT,                                            7, .choices = flow_choices, .networkd = "FlowIsolationMode"),
    /* Spelled whenever set, 0 too: the kernel then stops counting the MAC header. It
     * reports TCA_CAKE_RAW while no overhead was ever set, and an overhead then too. */
    QA(TCA_CAKE_OVERHEAD,      "overhead",   NULL,                 NONE,  S32,     NONE, 0,  0,                                                     0, .absent_if = TCA_CAKE_RAW),
    QA(TCA_CAKE_MPU,           "mpu",        NULL,                 NONE,  U32,     NONE, 0,  QA_DEFAULT | QA_OMIT_ZERO,                             0),
    QA(TCA_CAKE_RTT,           "rtt",        "rtt_us",             US,    TIME_US, NUM,  3,  QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC | QA_SPEC_DEFAULT, 100000),
    QA(TCA_CAKE_TARGET,        NULL,         "target_us",          US,    DERIVED, NUM,  4,  0,                                                     0),
    QA(TCA_CAKE_AUTORATE,      "autorate",   "autorate_ingress",   NONE,  CHOICE,  BOOL, 2,  QA_DEFAULT,                                            0, .choices = autorate_choices),
    /* 0: cake sizes its memory from the rate. */
    QA(TCA_CAKE_MEMORY,        "memlimit",   "memory_limit_bytes", BYTES, SIZE,    NUM,  5,  QA_DEFAULT | QA_OMIT_ZERO | QA_SPEC,                   0),
    QA(TCA_CAKE_NAT,           "nat",        "nat",                NONE,  CHOICE,  BOOL, 8,  QA_DEFAULT,                                            0, .choices = nat_choices, .networkd = "NAT"),
    QA(TCA_CAKE_WASH,          "wash",       "wash",               NONE,  CHOICE,  BOOL, 9,  QA_DEFAULT,                                            0, .choices = wash_choices, .networkd = "Wash"),
    QA(TCA_CAKE_SPLIT_GSO,     "split-gso",  "split_gso",          NONE,  CHOICE,  BOOL, 11, QA_DEFAULT,                                            1, .choices = gso_choices, .networkd = "SplitGSO"),
    QA(TCA_CAKE_INGRESS,       "ingress",    "ingress",            NONE,  CHOICE,  BOOL, 10, QA_DEFAULT,                                            0, .choices = ingress_choices),
    QA(TCA_CAKE_ACK_FILTER,    "ack-filter", NULL,                 NONE,  CHOICE,  NONE, 0,  QA_DEFAULT,                                            0, .choices = ack_choices),
    QA(TCA_CAKE_FWMARK,        NULL,         NULL,                 NONE,  FOREIGN, NONE, 0,  QA_DEFAULT,                                            0),
};
/* clang-format on */

/* "bandwidth 0" sends no rate, "unlimited" sends a rate of 0: tc's way. Each of tc's
 * round-trip-time presets sets rtt, and target to a twentieth of it. */
/* clang-format off */
static const struct qword words[] = {
    /* word              type                  arg    value       type2              value2 div_type         div forced spec */
    QW("bandwidth",      TCA_CAKE_BASE_RATE64, true,  0,          TCA_CAKE_AUTORATE, 0,     0,               0,  false, false),
    QW("unlimited",      TCA_CAKE_BASE_RATE64, false, 0,          TCA_CAKE_AUTORATE, 0,     0,               0,  true,  true),
    QW("rtt",            TCA_CAKE_RTT,         true,  0,          0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("datacentre",     TCA_CAKE_RTT,         false, 100,        0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("lan",            TCA_CAKE_RTT,         false, 1000,       0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("metro",          TCA_CAKE_RTT,         false, 10000,      0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("regional",       TCA_CAKE_RTT,         false, 30000,      0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("internet",       TCA_CAKE_RTT,         false, 100000,     0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("oceanic",        TCA_CAKE_RTT,         false, 300000,     0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("satellite",      TCA_CAKE_RTT,         false, 1000000,    0,                 0,     TCA_CAKE_TARGET, 20, false, false),
    QW("interplanetary", TCA_CAKE_RTT,         false, 1000000000, 0,                 0,     TCA_CAKE_TARGET, 20, false, false),
};
/* clang-format on */

const struct qkind qkind_cake = {
    .name = "cake",
    .networkd = "CAKE",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .words = words,
    .nwords = COUNT(words),
};
