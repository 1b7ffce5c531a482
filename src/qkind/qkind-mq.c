/* SPDX-License-Identifier: MIT */
/* qkind-mq.c - mq: one child qdisc per TX queue, no options of its own. */
#include "qkind/kinds.h"

const struct qkind qkind_mq = {
    .name = "mq",
    .layout = QLAYOUT_NONE,
    .builtin = true,
};
