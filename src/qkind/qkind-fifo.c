/* SPDX-License-Identifier: MIT */
/*
 * qkind-fifo.c - pfifo, bfifo and pfifo_head_drop: TCA_OPTIONS is a bare struct tc_fifo_qopt
 * whose one field is the limit (packets, or bytes for bfifo). Without one the kernel
 * takes the device's txqueuelen (times its MTU for bfifo).
 */
#include "qkind/kinds.h"

/* One row each: the struct's limit. pfifo_head_drop's is audited only: fix does not put
 * it at a leaf, so the plan compares it as written (no QA_SPEC). */
/* clang-format off */
/*                                          type word     key              unit     enc   show pos flags                                   def */
static const struct qattr packets[]   = {QA(0,   "limit", "limit_packets", PACKETS, U32,  NUM, 1,  QA_LINK_DEFAULT | QA_NONZERO | QA_SPEC, 0, .networkd = "PacketLimit")};
static const struct qattr bytes[]     = {QA(0,   "limit", "limit_bytes",   BYTES,   SIZE, NUM, 1,  QA_LINK_DEFAULT | QA_NONZERO | QA_SPEC, 0, .networkd = "LimitBytes")};
static const struct qattr head_drop[] = {QA(0,   "limit", "limit_packets", PACKETS, U32,  NUM, 1,  QA_LINK_DEFAULT | QA_NONZERO,           0)};
/* clang-format on */

const struct qkind qkind_pfifo = {
    .name = "pfifo",
    .networkd = "PFIFO",
    .layout = QLAYOUT_FIFO,
    .fifo = true,
    .builtin = true,
    .leaf = true,
    .attrs = packets,
    .nattrs = COUNT(packets),
};

const struct qkind qkind_bfifo = {
    .name = "bfifo",
    .networkd = "BFIFO",
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
