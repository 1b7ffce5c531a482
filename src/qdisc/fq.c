/* SPDX-License-Identifier: MIT */
/* fq.c - fq's options (TCA_FQ_*, nested). */
#include <linux/pkt_sched.h>

#include "qdisc/kinds.h"

static const struct qchoice pacing_choices[] = {{"pacing", 1}, {"nopacing", 0}, {NULL, 0}};
static const struct qchoice horizon_choices[] = {
    {"horizon_drop", 1}, {"horizon_cap", 0}, {NULL, 0}};

#define PLAN (QA_SPEC | QA_SPEC_DEFAULT)

static const struct qattr attrs[] = {
    {.type = TCA_FQ_BUCKETS_LOG, .word = "buckets", .key = "buckets", .unit = UNIT_NONE,
     .enc = QENC_LOG2, .show = QSHOW_LOG2, .show_pos = 7,
     .flags = QA_DEFAULT | QA_NONZERO | PLAN, .def = 10},
    {.type = TCA_FQ_PLIMIT, .word = "limit", .key = "limit_packets", .unit = UNIT_PACKETS,
     .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 1, .flags = QA_DEFAULT | PLAN,
     .def = 10000},
    {.type = TCA_FQ_FLOW_PLIMIT, .word = "flow_limit", .key = "flow_limit_packets",
     .unit = UNIT_PACKETS, .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 2,
     .flags = QA_DEFAULT | PLAN, .def = 100},
    /* Both quanta default to multiples of the device's MTU. */
    {.type = TCA_FQ_QUANTUM, .word = "quantum", .key = "quantum_bytes", .unit = UNIT_BYTES,
     .enc = QENC_SIZE, .show = QSHOW_NUM, .show_pos = 3, .flags = QA_LINK_DEFAULT | QA_SPEC},
    {.type = TCA_FQ_INITIAL_QUANTUM, .word = "initial_quantum", .key = "initial_quantum_bytes",
     .unit = UNIT_BYTES, .enc = QENC_SIZE, .show = QSHOW_NUM, .show_pos = 4,
     .flags = QA_LINK_DEFAULT | QA_SPEC},
    {.type = TCA_FQ_RATE_ENABLE, .word = "pacing", .key = "rate_enable", .unit = UNIT_NONE,
     .enc = QENC_CHOICE, .show = QSHOW_BOOL, .show_pos = 5, .flags = QA_DEFAULT | PLAN,
     .def = 1, .choices = pacing_choices},
    /* ~0U: no maximum (the kernel reports larger rates as ~0U too). */
    {.type = TCA_FQ_FLOW_MAX_RATE, .word = "maxrate", .key = "maxrate_bps", .unit = UNIT_BPS,
     .enc = QENC_RATE32, .show = QSHOW_RATE, .show_pos = 6, .flags = QA_DEFAULT | QA_SPEC,
     .def = UINT32_MAX},
    {.type = TCA_FQ_LOW_RATE_THRESHOLD, .word = "low_rate_threshold",
     .key = "low_rate_threshold_bps", .unit = UNIT_BPS, .enc = QENC_RATE32, .show = QSHOW_RATE,
     .show_pos = 10, .flags = QA_DEFAULT | PLAN, .def = 550000 / 8},
    {.type = TCA_FQ_FLOW_REFILL_DELAY, .word = "refill_delay", .key = "refill_delay_us",
     .unit = UNIT_US, .enc = QENC_TIME_US, .show = QSHOW_NUM, .show_pos = 8,
     .flags = QA_DEFAULT | PLAN, .def = 40000},
    {.type = TCA_FQ_ORPHAN_MASK, .word = "orphan_mask", .key = "orphan_mask", .unit = UNIT_NONE,
     .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 9, .flags = QA_DEFAULT | PLAN,
     .def = 1023},
    /* ~0U: no CE threshold. */
    {.type = TCA_FQ_CE_THRESHOLD, .word = "ce_threshold", .key = "ce_threshold_us",
     .unit = UNIT_US, .enc = QENC_TIME_US, .show = QSHOW_UNLESS_MAX, .show_pos = 11,
     .flags = QA_DEFAULT | QA_SPEC, .def = UINT32_MAX},
    {.type = TCA_FQ_TIMER_SLACK, .word = "timer_slack", .key = "timer_slack_ns", .unit = UNIT_NS,
     .enc = QENC_TIME_NS, .show = QSHOW_NUM, .show_pos = 12, .flags = QA_DEFAULT | PLAN,
     .def = 10000},
    {.type = TCA_FQ_HORIZON, .word = "horizon", .key = "horizon_us", .unit = UNIT_US,
     .enc = QENC_TIME_US, .show = QSHOW_NUM, .show_pos = 13, .flags = QA_DEFAULT | PLAN,
     .def = 10000000},
    {.type = TCA_FQ_HORIZON_DROP, .word = "horizon_drop", .key = "horizon_drop",
     .unit = UNIT_NONE, .enc = QENC_CHOICE_U8, .show = QSHOW_BOOL, .show_pos = 14,
     .flags = QA_DEFAULT | PLAN, .def = 1, .choices = horizon_choices},
};

const struct qkind qkind_fq = {
    .name = "fq",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .attrs = attrs,
    .nattrs = QKIND_COUNT(attrs),
};
