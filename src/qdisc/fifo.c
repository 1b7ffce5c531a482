/* SPDX-License-Identifier: MIT */
/*
 * fifo.c - pfifo, bfifo and pfifo_head_drop: TCA_OPTIONS is a bare struct tc_fifo_qopt
 * whose one field is the limit (packets, or bytes for bfifo). Without one the kernel
 * takes the device's txqueuelen (times its MTU for bfifo).
 */
#include "qdisc/kinds.h"

static const struct qattr packets[] = {
    {.word = "limit",
     .key = "limit_packets",
     .unit = UNIT_PACKETS,
     .enc = QENC_U32,
     .show = QSHOW_NUM,
     .show_pos = 1,
     .flags = QA_LINK_DEFAULT | QA_NONZERO | QA_SPEC},
};

static const struct qattr bytes[] = {
    {.word = "limit",
     .key = "limit_bytes",
     .unit = UNIT_BYTES,
     .enc = QENC_SIZE,
     .show = QSHOW_NUM,
     .show_pos = 1,
     .flags = QA_LINK_DEFAULT | QA_NONZERO | QA_SPEC},
};

/* Audited only: fix does not put it at a leaf, so the plan compares it as written. */
static const struct qattr head_drop[] = {
    {.word = "limit",
     .key = "limit_packets",
     .unit = UNIT_PACKETS,
     .enc = QENC_U32,
     .show = QSHOW_NUM,
     .show_pos = 1,
     .flags = QA_LINK_DEFAULT | QA_NONZERO},
};

const struct qkind qkind_pfifo = {
    .name = "pfifo",
    .layout = QLAYOUT_FIFO,
    .fifo = true,
    .builtin = true,
    .leaf = true,
    .attrs = packets,
    .nattrs = COUNT(packets),
};

const struct qkind qkind_bfifo = {
    .name = "bfifo",
    .layout = QLAYOUT_FIFO,
    .fifo = true,
    .builtin = true,
    .leaf = true,
    .attrs = bytes,
    .nattrs = COUNT(bytes),
};

const struct qkind qkind_pfifo_head_drop = {
    .name = "pfifo_head_drop",
    .layout = QLAYOUT_FIFO,
    .fifo = true,
    .builtin = true,
    .attrs = head_drop,
    .nattrs = COUNT(head_drop),
};
