/* SPDX-License-Identifier: MIT */
/*
 * qkind-pfifo_fast.c - pfifo_fast: three bands of txqueuelen packets each. tc sets nothing on
 * it; the kernel reports its fixed bands and priomap as prio's struct (prio.c).
 */
#include "qkind/kinds.h"

const struct qkind qkind_pfifo_fast = {
    .name = "pfifo_fast",
    .networkd = "PFIFOFast",
    .layout = QLAYOUT_OWN,
    .leaf = true,
    .fifo = true,
    .builtin = true,
    .attrs = qattr_prio,
    .nattrs = COUNT(qattr_prio),
    .show = qkind_show_prio,
};
