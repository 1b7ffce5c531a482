/* SPDX-License-Identifier: MIT */
/* qkind-ingress.c - ingress and clsact: hooks for filters (fix/ingress-shape.c redirects through
 * them), no options of their own. */
#include "qkind/kinds.h"

const struct qkind qkind_ingress = {
    .name = "ingress",
    .layout = QLAYOUT_NONE,
};

const struct qkind qkind_clsact = {
    .name = "clsact",
    .layout = QLAYOUT_NONE,
};
