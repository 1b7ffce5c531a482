/* SPDX-License-Identifier: MIT */
/*
 * qkind-htb.c - htb's qdisc-level options: TCA_HTB_INIT (a struct tc_htb_glob: the default
 * class and r2q) and the direct queue's length. Its rates live in its classes, which
 * fix writes itself (fix/knob-req.c); the audit reads a class's rate (class_rate).
 */
#include <errno.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "base/nl.h"
#include "qkind/kinds.h"

static int show(const void *opts, size_t len, struct qshown *out)
{
	const struct nlattr *tb[TCA_HTB_MAX + 1];
	struct tc_htb_glob glob;
	const void *p;
	uint32_t qlen;
	int r;

	r = nl_attrs(opts, len, tb, TCA_HTB_MAX);
	if (r < 0)
		return r;
	p = nl_attr_data(tb[TCA_HTB_INIT], sizeof(glob));
	if (!p)
		return -EBADMSG;
	memcpy(&glob, p, sizeof(glob));
	qshown_add(out, value_uint("default_class", glob.defcls, UNIT_HEX));
	qshown_add(out, value_uint("r2q", glob.rate2quantum, UNIT_NONE));
	if (tb[TCA_HTB_DIRECT_QLEN]) {
		if (nl_attr_u32(tb[TCA_HTB_DIRECT_QLEN], &qlen) < 0)
			return -EBADMSG;
		qshown_add(out, value_uint("direct_qlen_packets", qlen, UNIT_PACKETS));
	}
	return 0;
}

/*
 * A class's rate: TCA_HTB_PARMS' struct tc_htb_opt carries it in bytes/s in 32 bits;
 * above 4 GB/s the kernel adds TCA_HTB_RATE64 (bytes/s in 64 bits) and the 32-bit
 * field saturates. The rate, not the ceil: what the class is sure to get.
 */
static int class_rate(const void *opts, size_t len, uint64_t *bps)
{
	const struct nlattr *tb[TCA_HTB_MAX + 1];
	struct tc_htb_opt parms;
	const void *p;
	uint64_t bytes;
	int r;

	r = nl_attrs(opts, len, tb, TCA_HTB_MAX);
	if (r < 0)
		return r;
	p = nl_attr_data(tb[TCA_HTB_PARMS], sizeof(parms));
	if (!p)
		return -EBADMSG;
	memcpy(&parms, p, sizeof(parms));
	bytes = parms.rate.rate;
	if (tb[TCA_HTB_RATE64] && nl_attr_u64(tb[TCA_HTB_RATE64], &bytes) < 0)
		return -EBADMSG;
	if (bytes > UINT64_MAX / 8)
		return -EBADMSG;
	*bps = bytes * 8;
	return 0;
}

/* clang-format off */
static const struct qattr attrs[] = {
    /* type                 word  key                    unit     enc      show pos flags def */
    QA(TCA_HTB_INIT,        NULL, "default_class",       HEX,     FOREIGN, NUM, 1,  0,    0),
    QA(TCA_HTB_INIT,        NULL, "r2q",                 NONE,    FOREIGN, NUM, 2,  0,    0),
    QA(TCA_HTB_DIRECT_QLEN, NULL, "direct_qlen_packets", PACKETS, FOREIGN, NUM, 3,  0,    0),
};
/* clang-format on */

const struct qkind qkind_htb = {
    .name = "htb",
    .layout = QLAYOUT_OWN,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .show = show,
    .class_rate = class_rate,
};
