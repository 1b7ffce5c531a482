/* SPDX-License-Identifier: MIT */
/*
 * telemetry.h - what the lab records: the 10 ms telemetry file (JSON or CSV) and the
 * summary at exit (text or JSON, through print.h). Keys: docs/json.md, "debloat lab".
 *
 * A telemetry sample holds the emulator's gauges at t_s (seconds since the loop
 * started) and, for counters, what happened since the previous sample: drops and
 * marks per stage, and wire_util, the fraction of the interval the board's wire was
 * sending (0..1). JSON is written as it goes, one sample a line, so a long run costs
 * no memory and a file cut short by a crash is still readable up to its last line
 * (add "]}" to close it); CSV has a header line, then one line per sample.
 *
 * Errors are sticky -errno, returned by every later call and by close.
 */
#ifndef DEBLOAT_LAB_TELEMETRY_H
#define DEBLOAT_LAB_TELEMETRY_H

#include <stdint.h>
#include <stdio.h>

#include "base/print.h"
#include "emu.h"
#include "run-stats.h"

enum lab_telemetry_format {
	LAB_TELEMETRY_JSON,
	LAB_TELEMETRY_CSV,
};

/* CSV when path ends in ".csv" (any case), else JSON. */
enum lab_telemetry_format lab_telemetry_format_of(const char *path);

struct lab_telemetry_header {
	const char *profile;  /* the profile's name */
	const char *describe; /* lab_profile_describe()'s line */
	unsigned interval_ms;
	double start_unix_s; /* wall-clock time of t_s = 0 */
};

struct lab_telemetry_writer;

/* Create (truncate) path, close-on-exec. -errno. */
int lab_telemetry_open(const char *path, enum lab_telemetry_format fmt,
		       struct lab_telemetry_writer **out);
/* Write to f (not closed by the writer; for tests: open_memstream). -ENOMEM. */
int lab_telemetry_new(FILE *f, enum lab_telemetry_format fmt, struct lab_telemetry_writer **out);

/* The JSON header or the CSV header line; once, before the first sample. */
int lab_telemetry_begin(struct lab_telemetry_writer *w, const struct lab_telemetry_header *h);

/*
 * One sample: gauges from cur, counters as cur - prev, t_s from cur->t_ns - t0_ns.
 * prev is the previous sample (or the state at t0 for the first).
 */
int lab_telemetry_sample(struct lab_telemetry_writer *w, const struct lab_telemetry *prev,
			 const struct lab_telemetry *cur, uint64_t t0_ns);

/* Finish the document (JSON's closing brackets), flush, close the file if we opened
 * it, free. Returns the first error of the writer's life. NULL is fine. */
int lab_telemetry_close(struct lab_telemetry_writer *w);

/* The run's summary: text for people or the JSON object of docs/json.md. */
struct lab_summary {
	const char *profile;
	const char *describe;
	const struct lab_run_stats *run;
	bool bql;		 /* the profile has BQL: report its limit */
	int exit_status;	 /* the command's, or -1 when there was none */
	uint64_t error_bound_ns; /* lab_run_error_bound_ns() of the profile */
	double rate_mbps;	 /* the board's line rate, to say what the bound is */
	/* Packets each namespace's kernel dropped at its tun because the emulator did not
	 * read them in time (outside the model); -1 when unknown. [LAB_BOARD_TX]: the
	 * board's tun. */
	int64_t tun_queue_drops[2];
};
void lab_summary_print(struct printer *p, const struct lab_summary *s);

#endif
