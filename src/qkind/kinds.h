/* SPDX-License-Identifier: MIT */
/*
 * kinds.h - the kinds' tables, one per file, for qkind.c's registry. Internal to
 * src/qkind: everything else goes through qkind.h.
 */
#ifndef DEBLOAT_QKIND_KINDS_H
#define DEBLOAT_QKIND_KINDS_H

#include "base/array.h"
#include "qkind/qkind.h"

/*
 * One attribute's row of a kind's table (struct qattr), its columns in the struct's
 * order: the netlink type, tc's word, the audit's key (NULL: none), then the unit, the
 * encoding and the show rule by their names without the UNIT_/QENC_/QSHOW_ prefix, the
 * audit's place, the QA_* flags and the kernel's default. Whatever follows the default
 * is a designated initializer of the rare fields (.choices, .mtu_frames, .absent_if,
 * .networkd: the key systemd.network(5) gives it in the kind's section):
 *   QA(TCA_CODEL_ECN, "ecn", "ecn", NONE, CHOICE, BOOL, 4, QA_DEFAULT, 0,
 *      .choices = qchoice_codel_ecn)
 */
#define QA(type_, word_, key_, unit_, enc_, show_, pos_, flags_, ...)                              \
	{                                                                                          \
		.type = (type_), .word = (word_), .key = (key_), .unit = UNIT_##unit_,             \
		.enc = QENC_##enc_, .show = QSHOW_##show_, .show_pos = (pos_), .flags = (flags_),  \
		.def = __VA_ARGS__                                                                 \
	}

/* One extra word's row (struct qword), every column in the struct's order. */
#define QW(word_, type_, arg_, value_, type2_, value2_, div_type_, div_, forced_, spec_)           \
	{                                                                                          \
		.word = (word_), .type = (type_), .arg = (arg_), .value = (value_),                \
		.type2 = (type2_), .value2 = (value2_), .div_type = (div_type_), .div = (div_),    \
		.forced = (forced_), .spec = (spec_)                                               \
	}

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

/* pfifo_fast and prio: the bare struct tc_prio_qopt both report, its two fields (bands,
 * priomap) and how the audit reads them (prio.c). */
extern const struct qattr qattr_prio[2];
int qkind_show_prio(const void *opts, size_t len, struct qshown *out);

#endif
