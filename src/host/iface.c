/* SPDX-License-Identifier: MIT */
/* iface.c - the few helpers of the interface description in iface.h. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "iface.h"

const struct bql_field bql_fields[BQL_NFIELDS] = {
    {"limit", "limit", UNIT_BYTES, false, offsetof(struct bql_queue, limit)},
    {"limit_min", "limit_min", UNIT_BYTES, false, offsetof(struct bql_queue, limit_min)},
    {"limit_max", "limit_max", UNIT_BYTES, false, offsetof(struct bql_queue, limit_max)},
    {"inflight", "inflight", UNIT_BYTES, false, offsetof(struct bql_queue, inflight)},
    {"hold_time", "hold_time_ms", UNIT_MS, false, offsetof(struct bql_queue, hold_time_ms)},
    {"stall_thrs", "stall_thrs_ms", UNIT_MS, true, offsetof(struct bql_queue, stall_thrs_ms)},
    {"stall_cnt", "stall_cnt", UNIT_NONE, true, offsetof(struct bql_queue, stall_cnt)},
    {"stall_max", "stall_max_jiffies", UNIT_NONE, true,
     offsetof(struct bql_queue, stall_max_jiffies)},
};

void iface_note_unreadable(struct iface *ifc, const char *what, int err)
{
	/* Keep the first few: a host that hides one thing usually hides it everywhere. */
	if (ifc->nunreadable == IFACE_MAX_UNREADABLE)
		return;
	ifc->unreadable[ifc->nunreadable].what = what;
	ifc->unreadable[ifc->nunreadable].err = err;
	ifc->nunreadable++;
}

void host_qdisc_free_children(struct qdisc *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nchildren; i++)
		host_qdisc_free_children(&q->children[i]);
	free(q->children);
	q->children = NULL;
	q->nchildren = 0;
}

void iface_free(struct iface *ifc)
{
	if (ifc->qdisc) {
		host_qdisc_free_children(ifc->qdisc);
		free(ifc->qdisc);
		ifc->qdisc = NULL;
	}
	free(ifc->bql);
	ifc->bql = NULL;
	ifc->nbql = 0;
}

const char *iface_name_invalid(const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return "empty";
	if (len >= IFNAMSIZ)
		return "longer than the kernel's 15 characters";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "\".\" and \"..\" are not interface names";
	for (const char *c = name; *c; c++) {
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return "contains '/', ':' or white space, which the kernel refuses";
		if (!isalnum((unsigned char)*c) && !strchr("._-+@", *c))
			return "contains characters a shell would interpret (only letters, digits "
			       "and ._-+@ are printed in commands)";
	}
	return NULL;
}
