/* SPDX-License-Identifier: MIT */
/*
 * report.h - the audit report: the host as read, judged by the policy, written once
 * through a printer (text or JSON). The JSON keys are a contract: docs/json.md.
 */
#ifndef DEBLOAT_REPORT_H
#define DEBLOAT_REPORT_H

#include "host/host.h"
#include "print.h"

/* Errors land in the printer and come back from print_finish(). */
void report_audit(struct printer *p, const struct host *h);

#endif
