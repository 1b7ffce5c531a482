/* SPDX-License-Identifier: MIT */
/*
 * codel.c - codel's options (TCA_CODEL_*, nested): one CoDel queue, fq_codel without
 * the flows. The kernel reports limit, target, interval and ecn always, the CE
 * threshold only when one is set (sch_codel.c). Audited only: fix does not put codel
 * at a leaf, so the plan compares it as written.
 */
#include <linux/pkt_sched.h>

#include "qdisc/kinds.h"

static const struct qattr attrs[] = {
    {.type = TCA_CODEL_LIMIT,
     .word = "limit",
     .key = "limit_packets",
     .unit = UNIT_PACKETS,
     .enc = QENC_U32,
     .show = QSHOW_NUM,
     .show_pos = 1,
     .flags = QA_DEFAULT | QA_OMIT_ZERO,
     .def = 1000},
    {.type = TCA_CODEL_INTERVAL,
     .word = "interval",
     .key = "interval_us",
     .unit = UNIT_US,
     .enc = QENC_TIME_US,
     .show = QSHOW_NUM,
     .show_pos = 3,
     .flags = QA_DEFAULT | QA_OMIT_ZERO,
     .def = 100000},
    {.type = TCA_CODEL_TARGET,
     .word = "target",
     .key = "target_us",
     .unit = UNIT_US,
     .enc = QENC_TIME_US,
     .show = QSHOW_NUM,
     .show_pos = 2,
     .flags = QA_DEFAULT | QA_OMIT_ZERO,
     .def = 5000},
    {.type = TCA_CODEL_ECN,
     .word = "ecn",
     .key = "ecn",
     .unit = UNIT_NONE,
     .enc = QENC_CHOICE,
     .show = QSHOW_BOOL,
     .show_pos = 4,
     .flags = QA_DEFAULT,
     .def = 0,
     .choices = qchoice_codel_ecn},
    {.type = TCA_CODEL_CE_THRESHOLD,
     .word = "ce_threshold",
     .key = "ce_threshold_us",
     .unit = UNIT_US,
     .enc = QENC_TIME_US,
     .show = QSHOW_NUM,
     .show_pos = 5},
};

const struct qkind qkind_codel = {
    .name = "codel",
    .layout = QLAYOUT_NEST,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .known_defaults = true,
};
