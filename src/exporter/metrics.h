/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - what `debloat exporter` exports: every metric family in one table, and
 * one function that turns a host as host_read() saw it into samples of them.
 *
 * Naming (docs/design/exporter.md): the prefix debloat_, base units in the name
 * (_bytes, _seconds; a link's speed in bytes per second, as _bytes like
 * node_exporter's node_network_speed_bytes: promtool refuses bits), counters end in
 * _total, ratios are 0 to 1. Labels:
 *   qdisc families   device, kind, handle, parent  ("1:", "root", "1:1" as tc prints)
 *   bql families     device, queue                  ("tx-0")
 *   interface, audit device (and code, severity, grade where the family says)
 * A number the host did not give (a speed the driver does not report, a BQL file an
 * older kernel lacks, a qdisc without that statistic) is left out, never written as 0.
 *
 * The grade is a gauge, A+ 0, A 1, B 2, C 3, D 4, F 5 (policy.h's enum grade: lower is
 * better), with the letter as a label; an interface audit does not grade (loopback,
 * speed unknown) has no grade sample.
 */
#ifndef DEBLOAT_EXPORTER_METRICS_H
#define DEBLOAT_EXPORTER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "exporter/prom.h"
#include "fix/journal.h"
#include "host/host.h"

/* What the exporter knows beyond the host: its own counters, fix's journal, HZ. */
struct metrics_context {
	const struct journal *journal; /* NULL when there is none or it is unreadable */
	int journal_err;	       /* 0, -ENOENT (none: nothing fixed), or why unreadable */
	long hz;		       /* the kernel's CONFIG_HZ; 0 unknown */
	uint64_t scrapes;	       /* including this one */
	uint64_t scrape_errors;	       /* host reads that failed, since start */
	double duration_s;	       /* how long reading the host took */
	const char *version;
};

/* Every family the exporter can write (what --list-metrics prints). A scrape writes
 * them in the order it first meets them, which prom.h keeps together. */
extern const struct prom_family *const metrics_families[];
extern const size_t metrics_nfamilies;

/* Samples for every interface of h (and the exporter itself) into w. */
void metrics_collect(struct prom *w, const struct host *h, const struct metrics_context *ctx);

/* Only the exporter's own families: what a scrape whose host read failed still says. */
void metrics_collect_self(struct prom *w, const struct metrics_context *ctx);

#endif
