/* SPDX-License-Identifier: MIT */
/*
 * report.h - the audit report: the host as read, judged by the policy, written once
 * through a printer (text or JSON). The JSON keys are a contract: docs/json.md.
 */
#ifndef DEBLOAT_REPORT_H
#define DEBLOAT_REPORT_H

#include "base/print.h"
#include "host/host.h"

/* Errors land in the printer and come back from print_finish(). */
void report_audit(struct printer *p, const struct host *h);

/*
 * A planned shaper, as fix and audit's fix section print it: text lines at indent (the
 * rate, why that rate, where it came from), JSON keys shape_rate_bps, rate_source,
 * rate_halved, ceiling_mbps, ceiling_shared (null where there is no shaper, sh NULL
 * or its rate 0, or no ceiling).
 */
struct policy_shaper;
void report_shaper(struct printer *p, const struct policy_shaper *sh, unsigned indent);

#endif
