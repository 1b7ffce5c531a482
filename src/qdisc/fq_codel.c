/* SPDX-License-Identifier: MIT */
/* fq_codel.c - fq_codel's options (TCA_FQ_CODEL_*, nested). */
#include <linux/pkt_sched.h>

#include "qdisc/kinds.h"

static const struct qchoice ecn_choices[] = {{"ecn", 1}, {"noecn", 0}, {NULL, 0}};

#define PLAN (QA_SPEC | QA_SPEC_DEFAULT)

static const struct qattr attrs[] = {
    {.type = TCA_FQ_CODEL_LIMIT, .word = "limit", .key = "limit_packets", .unit = UNIT_PACKETS,
     .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 1,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | PLAN, .def = 10240},
    {.type = TCA_FQ_CODEL_FLOWS, .word = "flows", .key = "flows", .unit = UNIT_NONE,
     .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 2,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | PLAN, .def = 1024},
    /* The default quantum is the device's MTU plus its link-layer header. */
    {.type = TCA_FQ_CODEL_QUANTUM, .word = "quantum", .key = "quantum_bytes", .unit = UNIT_BYTES,
     .enc = QENC_SIZE, .show = QSHOW_NUM, .show_pos = 3,
     .flags = QA_LINK_DEFAULT | QA_OMIT_ZERO | QA_SPEC},
    {.type = TCA_FQ_CODEL_INTERVAL, .word = "interval", .key = "interval_us", .unit = UNIT_US,
     .enc = QENC_TIME_US, .show = QSHOW_NUM, .show_pos = 5,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | PLAN, .def = 100000},
    {.type = TCA_FQ_CODEL_TARGET, .word = "target", .key = "target_us", .unit = UNIT_US,
     .enc = QENC_TIME_US, .show = QSHOW_NUM, .show_pos = 4,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | PLAN, .def = 5000},
    {.type = TCA_FQ_CODEL_ECN, .word = "ecn", .key = "ecn", .unit = UNIT_NONE,
     .enc = QENC_CHOICE, .show = QSHOW_BOOL, .show_pos = 7, .flags = QA_DEFAULT | PLAN,
     .def = 1, .choices = ecn_choices},
    /* The kernel reports a CE threshold only when one is set. */
    {.type = TCA_FQ_CODEL_CE_THRESHOLD, .word = "ce_threshold", .key = "ce_threshold_us",
     .unit = UNIT_US, .enc = QENC_TIME_US, .show = QSHOW_NUM, .show_pos = 8, .flags = QA_SPEC},
    {.type = TCA_FQ_CODEL_MEMORY_LIMIT, .word = "memory_limit", .key = "memory_limit_bytes",
     .unit = UNIT_BYTES, .enc = QENC_SIZE, .show = QSHOW_NUM, .show_pos = 6,
     .flags = QA_DEFAULT | PLAN, .def = 32u << 20},
    {.type = TCA_FQ_CODEL_DROP_BATCH_SIZE, .word = "drop_batch", .key = "drop_batch_packets",
     .unit = UNIT_PACKETS, .enc = QENC_U32, .show = QSHOW_NUM, .show_pos = 9,
     .flags = QA_DEFAULT | QA_OMIT_ZERO | PLAN, .def = 64},
    /* The CE threshold's selector and mask: reported only when set. */
    {.type = TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, .enc = QENC_FOREIGN},
    {.type = TCA_FQ_CODEL_CE_THRESHOLD_MASK, .enc = QENC_FOREIGN},
};

const struct qkind qkind_fq_codel = {
    .name = "fq_codel",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .attrs = attrs,
    .nattrs = QKIND_COUNT(attrs),
};
