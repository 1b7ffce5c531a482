/* SPDX-License-Identifier: MIT */
/*
 * plot/telemetry-file.h - the lab's telemetry file read back, so that `debloat plot
 * --telemetry FILE` can draw the emulated link's queues under the latency of the run
 * that loaded it.
 *
 * The file (src/lab/telemetry.h writes it; docs/json.md, "Lab telemetry"), JSON,
 * gzipped or not:
 *	{"profile", "describe", "interval_ms", "start_unix_s",
 *	 "samples": [{"t_s", "qdisc_backlog_bytes", "qdisc_backlog_pkts", "ring_descs",
 *	              "ring_bytes", "bql_limit_bytes", "bql_inflight_bytes",
 *	              "switch_backlog_bytes", "board_port_backlog_bytes",
 *	              "client_qdisc_backlog_bytes", "tsq_held_bytes", "wire_util",
 *	              "drops": {STAGE: n}, "marks": {STAGE: n}}, ...]}
 * t_s is seconds since the lab started and start_unix_s the wall-clock time of
 * t_s = 0: a sample happened at start_unix_s + t_s, which is how it is matched with a
 * run (whose x = 0 is its "t0", or flent's TIME). Gauges are the state at t_s; drops
 * and marks are packets dropped and CE-marked per stage ("qdisc", "switch", ...)
 * since the previous sample.
 *
 * The lab writes a sample a line, so a file cut short (the lab was killed) lacks its
 * closing "]}": such a file reads up to its last complete sample, and says so
 * (truncated).
 *
 * What is checked, each with a reason for a person in err ("sample 12: \"t_s\" 0.11
 * is before the previous sample's 0.12"):
 *	- start_unix_s and samples are required, and each sample's t_s: finite, t_s >= 0
 *	  and never decreasing;
 *	- a gauge or counter is a finite number >= 0, or null or absent (unknown: NaN);
 *	- profile and describe are kept when they are strings; other keys are ignored,
 *	  so a newer lab's file still reads.
 * Limits: TELEMETRY_MAX_FILE_BYTES of JSON (inflated), TELEMETRY_MAX_SAMPLES samples,
 * TELEMETRY_MAX_STAGES stage names (each shorter than TELEMETRY_STAGE_LEN) in drops
 * and marks together. Errors are -EINVAL (err says why) or -ENOMEM; *out is untouched
 * on failure.
 */
#ifndef DEBLOAT_PLOT_TELEMETRY_H
#define DEBLOAT_PLOT_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>

struct run;

#define TELEMETRY_MAX_FILE_BYTES (64u << 20)
#define TELEMETRY_MAX_SAMPLES	 360000u /* an hour at the lab's 10 ms */
#define TELEMETRY_MAX_STAGES	 16
#define TELEMETRY_STAGE_LEN	 32

/* The gauges of a sample, in the file's keys' order. */
enum telemetry_gauge {
	TELEMETRY_QDISC_BACKLOG_BYTES,
	TELEMETRY_QDISC_BACKLOG_PKTS,
	TELEMETRY_RING_DESCS,
	TELEMETRY_RING_BYTES,
	TELEMETRY_BQL_LIMIT_BYTES,
	TELEMETRY_BQL_INFLIGHT_BYTES,
	TELEMETRY_SWITCH_BACKLOG_BYTES,
	TELEMETRY_BOARD_PORT_BACKLOG_BYTES,
	TELEMETRY_CLIENT_QDISC_BACKLOG_BYTES,
	TELEMETRY_TSQ_HELD_BYTES,
	TELEMETRY_WIRE_UTIL,
	TELEMETRY_NGAUGES,
};

/* The gauge's key in the file: "qdisc_backlog_bytes", ... */
const char *telemetry_gauge_key(enum telemetry_gauge g);

/* One stage's counter over the samples. */
struct telemetry_counter {
	char stage[TELEMETRY_STAGE_LEN];
	bool marks;	/* a "marks" counter, else "drops" */
	double *values; /* per sample, since the previous one; NaN where not named */
};

struct telemetry {
	char profile[64]; /* "" when the file has no string there */
	char describe[160];
	double interval_ms; /* NaN when absent */
	double start_unix_s;
	size_t n;			   /* samples, at least 1 */
	double *t_s;			   /* n times, never decreasing */
	double *gauge[TELEMETRY_NGAUGES];  /* n values each; NaN = unknown */
	bool has_gauge[TELEMETRY_NGAUGES]; /* some sample had a number there */
	struct telemetry_counter counters[TELEMETRY_MAX_STAGES];
	size_t ncounters;
	bool truncated; /* cut short: read up to its last complete sample */
};

/* Parse a document already in memory (inflated). */
int telemetry_parse(const char *buf, size_t len, struct telemetry *out, char *err, size_t errlen);
/* Read a file (gzip or not), then telemetry_parse. -errno of open/read too. */
int telemetry_read(const char *path, struct telemetry *out, char *err, size_t errlen);
void telemetry_free(struct telemetry *t);

/*
 * Seconds of overlap between the telemetry and a run's timeline (from its t0 to its
 * last step), by wall clock; 0 when none, or when the run has no start time.
 */
double telemetry_overlap_s(const struct telemetry *t, const struct run *run);

/*
 * The run the telemetry belongs to: the one it overlaps most by wall clock, among
 * those without telemetry yet. -ENOENT (err says what each covers) when it overlaps
 * none, -EBUSY when the only runs it overlaps already have telemetry.
 */
int telemetry_match(const struct telemetry *t, const struct run *runs, size_t nruns, char *err,
		    size_t errlen);

/*
 * What happened at a stage between two wall-clock times: the sum of the counter over
 * the samples taken in (from, to] (each counts since the sample before it). NaN when
 * no sample there names the stage.
 */
double telemetry_counter_sum(const struct telemetry *t, const struct telemetry_counter *c,
			     double from_unix_s, double to_unix_s);

#endif
