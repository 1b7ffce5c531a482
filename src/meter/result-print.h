/* SPDX-License-Identifier: MIT */
/*
 * meter/result-print.h - one latency-under-load test for people (a text summary) and for
 * scripts (our JSON document, `-o FILE.json`), through print.h.
 *
 * The JSON document (keys stable; units in the key names; null where nothing could
 * be measured):
 *
 *	{"test": "rrul", "host": "192.0.2.1", "local_host", "label", "cc", "ip_version",
 *	 "length_s", "delay_s", "step_s", "t0" (unix time of x = 0), "time" (T0, UTC),
 *	 "server_overloaded", "client_cpu_saturated", "unavailable" (string or null),
 *	 "granted": {"interval_us", "probe_len_bytes", "duration_ms"},
 *	 "summary": {"download_mbps", "upload_mbps",
 *	             "latency_idle_ms": {"p50", "p90", "p99", "samples"},
 *	             "latency_loaded_ms": {"p50", "p90", "p99", "samples"},
 *	             "induced_latency_ms", "loss_pct", "rpm" (from the loaded probe p50),
 *	             "rpm_ietf" (test rpm results only: the draft's), "grade",
 *	             "download_fairness", "upload_fairness", "download_flows", "upload_flows",
 *	             "flows": [{"name", "direction", "tos", "mean_mbps", "tcp_rtt_p50_ms"}],
 *	             "probes": [{"name", "tos", "latency_idle_ms": {...},
 *	                         "latency_loaded_ms": {...}, "induced_latency_ms",
 *	                         "sent", "lost", "loss_pct"}]},
 *	 "rpm": {...} (test rpm only: the draft's figures, docs/json.md),
 *	 "series": {"TCP download BE": {"kind", "unit", "tos", "values": [per step]}, ...}}
 *
 * Values of "series" are on the grid x = i * step_s from t0 (flent's x_values), in
 * the series' unit ("Mbits/s" or "ms"). The windows, percentile method, fairness and
 * grade are summary.h's.
 */
#ifndef DEBLOAT_METER_REPORT_H
#define DEBLOAT_METER_REPORT_H

#include <stdbool.h>

#include "base/print.h"
#include "meter/result.h"
#include "meter/summary.h"

void result_print(struct printer *p, const struct test_result *r, const struct summary *s);
/* The same; a `test rpm` result's text is its own, with the draft's verbose report when
 * verbose (JSON is the same document either way). */
void result_print_rpm(struct printer *p, const struct test_result *r, const struct summary *s,
		      bool verbose);

/*
 * Write the JSON document to path without ever leaving a half-written file: it is
 * written to path.XXXXXX beside it, synced, and renamed over path. -errno.
 */
int result_write_json(const char *path, const struct test_result *r, const struct summary *s);

#endif
