/* SPDX-License-Identifier: MIT */
/*
 * qkind-prio.c - prio: TCA_OPTIONS is a bare struct tc_prio_qopt (bands and the priomap), which
 * prio may follow with attributes; pfifo_fast reports the same struct.
 */
#include <errno.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "qkind/kinds.h"

int qkind_show_prio(const void *opts, size_t len, struct qshown *out)
{
	struct tc_prio_qopt prio;
	struct value map = {.key = "priomap", .type = VALUE_LIST};

	if (len < sizeof(prio))
		return -EBADMSG;
	memcpy(&prio, opts, sizeof(prio));
	qshown_add(out, value_uint("bands", (uint32_t)prio.bands, UNIT_NONE));
	for (unsigned i = 0; i <= TC_PRIO_MAX && i < VALUE_LIST_MAX; i++)
		map.list[map.nlist++] = prio.priomap[i];
	qshown_add(out, map);
	return 0;
}

/* The struct's fields, for the registry's checks and the reader: no netlink types. */
/* clang-format off */
const struct qattr qattr_prio[2] = {
    /* type word  key        unit  enc      show  pos flags def */
    QA(0,   NULL, "bands",   NONE, FOREIGN, NUM,  1,  0,    0),
    QA(0,   NULL, "priomap", NONE, FOREIGN, LIST, 2,  0,    0),
};
/* clang-format on */

const struct qkind qkind_prio = {
    .name = "prio",
    .layout = QLAYOUT_OWN,
    .attrs = qattr_prio,
    .nattrs = COUNT(qattr_prio),
    .show = qkind_show_prio,
};
