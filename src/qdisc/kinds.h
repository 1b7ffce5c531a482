/* SPDX-License-Identifier: MIT */
/*
 * kinds.h - the kinds' tables, one per file, for qkind.c's registry. Internal to
 * src/qdisc: everything else goes through qkind.h.
 */
#ifndef DEBLOAT_QDISC_KINDS_H
#define DEBLOAT_QDISC_KINDS_H

#include "base/array.h"
#include "qdisc/qkind.h"

extern const struct qkind qkind_fq_codel;
extern const struct qkind qkind_fq;
extern const struct qkind qkind_codel;
extern const struct qkind qkind_cake;
extern const struct qkind qkind_pfifo;
extern const struct qkind qkind_bfifo;
extern const struct qkind qkind_pfifo_head_drop;
extern const struct qkind qkind_pfifo_fast;
extern const struct qkind qkind_prio;
extern const struct qkind qkind_tbf;
extern const struct qkind qkind_htb;
extern const struct qkind qkind_mq;
extern const struct qkind qkind_ingress;
extern const struct qkind qkind_clsact;

/* tc's words for CoDel's ECN flag, the same in codel and fq_codel (fq_codel.c). */
extern const struct qchoice qchoice_codel_ecn[];

/* pfifo_fast and prio: the bare struct tc_prio_qopt both report (prio.c). */
int qkind_show_prio(const void *opts, size_t len, struct qshown *out);

#endif
