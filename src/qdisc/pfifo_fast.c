/* SPDX-License-Identifier: MIT */
/*
 * pfifo_fast.c - pfifo_fast: three bands of txqueuelen packets each. tc sets nothing on
 * it; the kernel reports its fixed bands and priomap as prio's struct (prio.c).
 */
#include "qdisc/kinds.h"

static const struct qattr attrs[] = {
    {.key = "bands", .unit = UNIT_NONE, .enc = QENC_FOREIGN, .show = QSHOW_NUM, .show_pos = 1},
    {.key = "priomap", .unit = UNIT_NONE, .enc = QENC_FOREIGN, .show = QSHOW_LIST, .show_pos = 2},
};

const struct qkind qkind_pfifo_fast = {
    .name = "pfifo_fast",
    .layout = QLAYOUT_OWN,
    .leaf = true,
    .fifo = true,
    .builtin = true,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .show = qkind_show_prio,
};
