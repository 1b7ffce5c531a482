/* SPDX-License-Identifier: MIT */
/*
 * pfifo_fast.c - pfifo_fast: three bands of txqueuelen packets each. tc sets nothing on
 * it; the kernel reports its fixed bands and priomap as prio's struct (prio.c).
 */
#include "qdisc/kinds.h"

/* clang-format off */
static const struct qattr attrs[] = {
    /* type word  key        unit  enc      show  pos flags def */
    QA(0,   NULL, "bands",   NONE, FOREIGN, NUM,  1,  0,    0),
    QA(0,   NULL, "priomap", NONE, FOREIGN, LIST, 2,  0,    0),
};
/* clang-format on */

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
