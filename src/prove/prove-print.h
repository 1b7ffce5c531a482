/* SPDX-License-Identifier: MIT */
/*
 * prove/prove-print.h - what `debloat prove` prints and writes to prove.json, from one print path
 * for text and JSON (print.h): the board and kernel, each interface (driver, speed,
 * BQL, root qdisc), both runs' numbers and where their queue was, the capacity and
 * the shaper chosen, what fix changed (from its own JSON report) and the verdict.
 * Keys: docs/json.md.
 */
#ifndef DEBLOAT_PROVE_REPORT_H
#define DEBLOAT_PROVE_REPORT_H

#include <stdint.h>

#include "base/print.h"
#include "host/host.h"
#include "prove/verdict.h"
#include "prove/watch.h"

struct jval;

struct prove_report {
	const char *server, *test, *dir;
	const struct host *host;		    /* the interfaces proved */
	uint32_t mtu;				    /* the first one's */
	const struct prove_numbers *before, *after; /* NULL: that run did not happen */
	const struct prove_watch *watch_before, *watch_after;
	const struct prove_capacity *cap;
	const struct jval *fix; /* fix's JSON report, or NULL */
	const char *outcome, *why;
	const char *undo_cmd; /* what puts a kept change back, with the state directory */
	const struct prove_verdict *verdict;
	double min_gain, max_loss;
};

void prove_report_print(struct printer *p, const struct prove_report *r);

#endif
