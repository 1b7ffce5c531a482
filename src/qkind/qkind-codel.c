/* SPDX-License-Identifier: MIT */
/*
 * qkind-codel.c - codel's options (TCA_CODEL_*, nested): one CoDel queue, fq_codel without
 * the flows. The kernel reports limit, target, interval and ecn always, the CE
 * threshold only when one is set (sch_codel.c). Audited only: fix does not put codel
 * at a leaf, so the plan compares it as written.
 */
#include <linux/pkt_sched.h>

#include "qkind/kinds.h"

/* clang-format off */
static const struct qattr attrs[] = {
    /* type                    word            key                unit     enc      show  pos flags                      def */
    QA(TCA_CODEL_LIMIT,        "limit",        "limit_packets",   PACKETS, U32,     NUM,  1,  QA_DEFAULT | QA_OMIT_ZERO, 1000),
    QA(TCA_CODEL_INTERVAL,     "interval",     "interval_us",     US,      TIME_US, NUM,  3,  QA_DEFAULT | QA_OMIT_ZERO, 100000),
    QA(TCA_CODEL_TARGET,       "target",       "target_us",       US,      TIME_US, NUM,  2,  QA_DEFAULT | QA_OMIT_ZERO, 5000),
    QA(TCA_CODEL_ECN,          "ecn",          "ecn",             NONE,    CHOICE,  BOOL, 4,  QA_DEFAULT,                0, .choices = qchoice_codel_ecn),
    QA(TCA_CODEL_CE_THRESHOLD, "ce_threshold", "ce_threshold_us", US,      TIME_US, NUM,  5,  0,                         0),
};
/* clang-format on */

const struct qkind qkind_codel = {
    .name = "codel",
    .layout = QLAYOUT_NEST,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .known_defaults = true,
};
