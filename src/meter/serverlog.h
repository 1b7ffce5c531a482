/* SPDX-License-Identifier: MIT */
/*
 * serverlog.h - the log lines of `debloat server`, through print.h: text for a person,
 * or one JSON object per line (keys: docs/json.md). Each call writes one whole line
 * and never breaks it, for grep and log collectors.
 *
 *  - server_log_test: a finished test (server_test_summary), a line with "client".
 *  - server_log_stats: the hold and processing time of the probes answered over a
 *    window or the whole run (server_probe_stats), a line with "stats" ("window" or
 *    "run"), the time it covers in window_ms; quantiles and maxima in nanoseconds.
 *  - server_log_rpm: a finished download or upload of the responsiveness test's HTTP
 *    server (hserver_transfer), a line with "rpm" ("download" or "upload").
 *
 * 0, or -errno from print_finish (out of memory, a failed write).
 */
#ifndef DEBLOAT_METER_SERVERLOG_H
#define DEBLOAT_METER_SERVERLOG_H

#include <stdbool.h>
#include <stdio.h>

#include "meter/server.h"

int server_log_test(FILE *out, bool json, const struct server_test_summary *t);
int server_log_stats(FILE *out, bool json, const struct server_probe_stats *st);
int server_log_rpm(FILE *out, bool json, const struct hserver_transfer *t);

#endif
