/* SPDX-License-Identifier: MIT */
/* qkind-fq_codel.c - fq_codel's options (TCA_FQ_CODEL_*, nested). */
#include <linux/pkt_sched.h>

#include "qkind/kinds.h"

const struct qchoice qchoice_codel_ecn[] = {{"ecn", 1, NULL}, {"noecn", 0, NULL}, {NULL, 0, NULL}};

#define PLAN (QA_SPEC | QA_SPEC_DEFAULT)

/* clang-format off */
static const struct qattr attrs[] = {
    /* type                                word            key                   unit     enc      show  pos flags                                     def */
    QA(TCA_FQ_CODEL_LIMIT,                 "limit",        "limit_packets",      PACKETS, U32,     NUM,  1,  QA_DEFAULT | QA_OMIT_ZERO | PLAN | QA_NM,         10240, .networkd = "PacketLimit"),
    QA(TCA_FQ_CODEL_FLOWS,                 "flows",        "flows",              NONE,    U32,     NUM,  2,  QA_DEFAULT | QA_OMIT_ZERO | PLAN | QA_NM,         1024, .networkd = "Flows"),
    /* The default quantum is the device's MTU plus its link-layer header. */
    QA(TCA_FQ_CODEL_QUANTUM,               "quantum",      "quantum_bytes",      BYTES,   SIZE,    NUM,  3,  QA_LINK_DEFAULT | QA_OMIT_ZERO | QA_SPEC | QA_NM, 0, .mtu_frames = 1, .networkd = "QuantumBytes"),
    QA(TCA_FQ_CODEL_INTERVAL,              "interval",     "interval_us",        US,      TIME_US, NUM,  5,  QA_DEFAULT | QA_OMIT_ZERO | PLAN | QA_NM,         100000, .networkd = "IntervalSec"),
    QA(TCA_FQ_CODEL_TARGET,                "target",       "target_us",          US,      TIME_US, NUM,  4,  QA_DEFAULT | QA_OMIT_ZERO | PLAN | QA_NM,         5000, .networkd = "TargetSec"),
    QA(TCA_FQ_CODEL_ECN,                   "ecn",          "ecn",                NONE,    CHOICE,  BOOL, 7,  QA_DEFAULT | PLAN | QA_NM,                        1, .choices = qchoice_codel_ecn, .networkd = "ECN"),
    /* The kernel reports a CE threshold only when one is set. */
    QA(TCA_FQ_CODEL_CE_THRESHOLD,          "ce_threshold", "ce_threshold_us",    US,      TIME_US, NUM,  8,  QA_SPEC | QA_NM,                                  0, .networkd = "CEThresholdSec"),
    QA(TCA_FQ_CODEL_MEMORY_LIMIT,          "memory_limit", "memory_limit_bytes", BYTES,   SIZE,    NUM,  6,  QA_DEFAULT | PLAN | QA_NM,                        32u << 20, .networkd = "MemoryLimitBytes"),
    QA(TCA_FQ_CODEL_DROP_BATCH_SIZE,       "drop_batch",   "drop_batch_packets", PACKETS, U32,     NUM,  9,  QA_DEFAULT | QA_OMIT_ZERO | PLAN,         64),
    /* The CE threshold's selector and mask: reported only when set. */
    QA(TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, NULL,           NULL,                 NONE,    FOREIGN, NONE, 0,  0,                                        0),
    QA(TCA_FQ_CODEL_CE_THRESHOLD_MASK,     NULL,           NULL,                 NONE,    FOREIGN, NONE, 0,  0,                                        0),
};
/* clang-format on */

const struct qkind qkind_fq_codel = {
    .name = "fq_codel",
    .networkd = "FairQueueingControlledDelay",
    .layout = QLAYOUT_NEST,
    .leaf = true,
    .known_defaults = true,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
};
