/* SPDX-License-Identifier: MIT */
/*
 * qkind-tbf.c - tbf: TCA_TBF_PARMS (a struct tc_tbf_qopt with the rates' ratespecs and the
 * limit), and the 64-bit rates the kernel adds for rates above 4 GB/s.
 */
#include <errno.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "base/nl.h"
#include "qkind/kinds.h"

static int show(const void *opts, size_t len, struct qshown *out)
{
	const struct nlattr *tb[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt parms;
	const void *p;
	uint64_t rate64;
	int r;

	r = nl_attrs(opts, len, tb, TCA_TBF_MAX);
	if (r < 0)
		return r;
	p = nl_attr_data(tb[TCA_TBF_PARMS], sizeof(parms));
	if (!p)
		return -EBADMSG;
	memcpy(&parms, p, sizeof(parms));
	/* Rates above 4 GB/s do not fit the ratespec; the kernel then adds RATE64. */
	rate64 = parms.rate.rate;
	if (tb[TCA_TBF_RATE64] && nl_attr_u64(tb[TCA_TBF_RATE64], &rate64) < 0)
		return -EBADMSG;
	qshown_add(out, value_uint("rate_bps", rate64 * 8, UNIT_BPS));
	rate64 = parms.peakrate.rate;
	if (tb[TCA_TBF_PRATE64] && nl_attr_u64(tb[TCA_TBF_PRATE64], &rate64) < 0)
		return -EBADMSG;
	if (rate64)
		qshown_add(out, value_uint("peakrate_bps", rate64 * 8, UNIT_BPS));
	qshown_add(out, value_uint("limit_bytes", parms.limit, UNIT_BYTES));
	return 0;
}

/* clang-format off */
static const struct qattr attrs[] = {
    /* type             word  key             unit   enc      show pos flags def */
    QA(TCA_TBF_RATE64,  NULL, "rate_bps",     BPS,   FOREIGN, NUM, 1,  0,    0),
    QA(TCA_TBF_PRATE64, NULL, "peakrate_bps", BPS,   FOREIGN, NUM, 2,  0,    0),
    QA(TCA_TBF_PARMS,   NULL, "limit_bytes",  BYTES, FOREIGN, NUM, 3,  0,    0),
};
/* clang-format on */

const struct qkind qkind_tbf = {
    .name = "tbf",
    .layout = QLAYOUT_OWN,
    .attrs = attrs,
    .nattrs = COUNT(attrs),
    .show = show,
};
