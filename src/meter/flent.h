/* SPDX-License-Identifier: MIT */
/*
 * flent.h - a test result as flent's data file (`.flent.gz`, format version 4), so
 * that flent's plots and statistics work on our measurements:
 *
 *	flent -i FILE.flent.gz -p all_scaled -o plot.png
 *	flent -i FILE.flent.gz -f stats
 *
 * The format (docs/design/measurement.md section 2, checked against flent 2.1.1): gzipped JSON
 * with "version" 4, "x_values" (seconds from T0 on the step grid), "results"
 * ({series: [one value per x, null when missing]}), "raw_values" ({series: [{"t":
 * unix time, "val": v, ...}]}, never empty: flent plots nothing without it) and
 * "metadata" (NAME, TITLE, HOST, HOSTS, LOCAL_HOST, LENGTH, TOTAL_LENGTH, STEP_SIZE,
 * TIME, T0, IP_VERSION, NOTE, TEST_PARAMETERS, FLENT_VERSION, SERIES_META, and
 * SYSCTLS / EGRESS_INFO when the result carries them).
 *
 * A flow's TCP RTT sub-series ("TCP upload BE::tcp_rtt") is not a series of its own
 * in flent: it is the "tcp_rtt" key of the flow's raw values (what flent's tcp_rtt
 * plots read), matched by step index. A flow without raw samples gets one raw value
 * per measured step ({"t", "val", "dur"}).
 *
 * NAME is the test's name, which flent also knows (rrul, rrul_be, tcp_upload,
 * tcp_download, tcp_nup, tcp_ndown, ping); for tcp_nup/tcp_ndown TEST_PARAMETERS
 * carries upload_streams/download_streams, which flent's test files need to load.
 */
#ifndef DEBLOAT_METER_FLENT_H
#define DEBLOAT_METER_FLENT_H

#include "base/json.h"
#include "meter/result.h"

/* "debloat-<version>", FLENT_VERSION in the metadata. */
#define FLENT_WRITER_NAME "debloat"

/* Build the document (owned by the caller, json_free). -ENOMEM, -EINVAL (bad
 * r->egress_info_json or r->sysctls_json). */
int flent_document(const struct test_result *r, struct jval **out);

/* Write the gzipped document to path; atomic (gz.h). -errno. */
int flent_write(const char *path, const struct test_result *r);

#endif
