/* SPDX-License-Identifier: MIT */
/* qkind-fq.c - fq's options (TCA_FQ_*, nested). */
#include <linux/pkt_sched.h>

#include "qkind/kinds.h"

static const struct qchoice pacing_choices[] = {
    {"pacing", 1, NULL}, {"nopacing", 0, NULL}, {NULL, 0, NULL}};
static const struct qchoice horizon_choices[] = {
    {"horizon_drop", 1, NULL}, {"horizon_cap", 0, NULL}, {NULL, 0, NULL}};

#define PLAN (QA_SPEC | QA_SPEC_DEFAULT)

/* clang-format off */
static const struct qattr attrs[] = {
    /* type                       word                  key                       unit     enc        show        pos flags                           def */
    QA(TCA_FQ_BUCKETS_LOG,        "buckets",            "buckets",                NONE,    LOG2,      LOG2,       7,  QA_DEFAULT | QA_NONZERO | PLAN, 10, .networkd = "Buckets"),
    QA(TCA_FQ_PLIMIT,             "limit",              "limit_packets",          PACKETS, U32,       NUM,        1,  QA_DEFAULT | PLAN,              10000, .networkd = "PacketLimit"),
    QA(TCA_FQ_FLOW_PLIMIT,        "flow_limit",         "flow_limit_packets",     PACKETS, U32,       NUM,        2,  QA_DEFAULT | PLAN,              100, .networkd = "FlowLimit"),
    /* Both quanta default to multiples of the device's frame (2 and 10, sch_fq.c). */
    QA(TCA_FQ_QUANTUM,            "quantum",            "quantum_bytes",          BYTES,   SIZE,      NUM,        3,  QA_LINK_DEFAULT | QA_SPEC,      0, .mtu_frames = 2, .networkd = "QuantumBytes"),
    QA(TCA_FQ_INITIAL_QUANTUM,    "initial_quantum",    "initial_quantum_bytes",  BYTES,   SIZE,      NUM,        4,  QA_LINK_DEFAULT | QA_SPEC,      0, .mtu_frames = 10, .networkd = "InitialQuantumBytes"),
    QA(TCA_FQ_RATE_ENABLE,        "pacing",             "rate_enable",            NONE,    CHOICE,    BOOL,       5,  QA_DEFAULT | PLAN,              1, .choices = pacing_choices, .networkd = "Pacing"),
    /* ~0U: no maximum (the kernel reports larger rates as ~0U too). */
    QA(TCA_FQ_FLOW_MAX_RATE,      "maxrate",            "maxrate_bps",            BPS,     RATE32,    RATE,       6,  QA_DEFAULT | QA_SPEC,           UINT32_MAX, .networkd = "MaximumRate"),
    QA(TCA_FQ_LOW_RATE_THRESHOLD, "low_rate_threshold", "low_rate_threshold_bps", BPS,     RATE32,    RATE,       10, QA_DEFAULT | PLAN,              550000 / 8),
    QA(TCA_FQ_FLOW_REFILL_DELAY,  "refill_delay",       "refill_delay_us",        US,      TIME_US,   NUM,        8,  QA_DEFAULT | PLAN,              40000),
    QA(TCA_FQ_ORPHAN_MASK,        "orphan_mask",        "orphan_mask",            NONE,    U32,       NUM,        9,  QA_DEFAULT | PLAN,              1023, .networkd = "OrphanMask"),
    /* ~0U: no CE threshold. */
    QA(TCA_FQ_CE_THRESHOLD,       "ce_threshold",       "ce_threshold_us",        US,      TIME_US,   UNLESS_MAX, 11, QA_DEFAULT | QA_SPEC,           UINT32_MAX, .networkd = "CEThresholdSec"),
    QA(TCA_FQ_TIMER_SLACK,        "timer_slack",        "timer_slack_ns",         NS,      TIME_NS,   NUM,        12, QA_DEFAULT | PLAN,              10000),
    QA(TCA_FQ_HORIZON,            "horizon",            "horizon_us",             US,      TIME_US,   NUM,        13, QA_DEFAULT | PLAN,              10000000),
    QA(TCA_FQ_HORIZON_DROP,       "horizon_drop",       "horizon_drop",           NONE,    CHOICE_U8, BOOL,       14, QA_DEFAULT | PLAN,              1, .choices = horizon_choices),
};
/* clang-format on */

const struct qkind qkind_fq = {
    .name = "fq",
    .networkd = "FairQueueing",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .known_defaults = true,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
};
