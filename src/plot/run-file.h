/* SPDX-License-Identifier: MIT */
/*
 * plot/run-file.h - one finished test read back from a file, for plots and comparisons.
 *
 * Two formats, told apart by content, never by the file name:
 *	- our JSON (`debloat test -o FILE.json`, meter/result-print.h): the series' per-step
 *	  values, and the summary as it was computed from every raw sample;
 *	- flent's data file (`--flent FILE.flent.gz`, or any flent 2.x file, format 4),
 *	  gzipped or not: per-step values, raw samples (kept for summary_compute) and
 *	  the metadata.
 * Both land in the same struct test_result (meter/result.h), so a plot of a run
 * looks the same from either file: plots draw the per-step values, which both hold.
 *
 * The summary: our JSON's own numbers when the file has them (they were computed
 * from raw samples the file does not keep), else summary_compute() on what was read.
 * Series flent computes on load ("TCP upload sum", "TCP totals", "Ping (ms) avg")
 * and series of kinds we do not know are skipped.
 *
 * Limits: a file of at most RUN_MAX_FILE_BYTES (inflated), RESULT_MAX_SERIES series,
 * RUN_MAX_STEPS steps. Errors are -errno with a reason for a person in err
 * ("series "TCP upload BE": 12 values, expected 351"); *out is untouched on failure.
 */
#ifndef DEBLOAT_PLOT_RUN_H
#define DEBLOAT_PLOT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "meter/result.h"
#include "meter/summary.h"

#define RUN_MAX_FILE_BYTES (64u << 20)
#define RUN_MAX_STEPS	   1000000u

enum run_format {
	RUN_FORMAT_DEBLOAT, /* our JSON */
	RUN_FORMAT_FLENT,   /* flent's data file */
};

struct telemetry;

struct run {
	char name[128]; /* the label, else the file's base name without extension */
	enum run_format format;
	struct test_result r;
	struct summary s;
	/* The lab's telemetry of this run (plot/telemetry-file.h), drawn under its latency;
	 * NULL for none. Borrowed: the caller frees it, run_free() does not. */
	const struct telemetry *telemetry;
};

/* Parse a document already in memory (inflated). -EINVAL (err says why), -ENOMEM. */
int run_parse(const char *buf, size_t len, const char *file_name, struct run *out, char *err,
	      size_t errlen);
/*
 * The whole file in a new NUL-terminated buffer (free()), inflated when it is gzip
 * (by its magic bytes, not its name): at most max bytes, else -EFBIG; -EBADMSG for
 * corrupt gzip data; -errno of open/read. On failure err (when errlen) says why
 * for people: "corrupt or truncated gzip data", "bigger than N MB", strerror.
 */
int run_read_bytes(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen);
/* Read a file (gzip or not), then run_parse. -errno of open/read too. */
int run_read(const char *path, struct run *out, char *err, size_t errlen);
void run_free(struct run *run);

/* A command reads at most this many runs: a plot of more is unreadable anyway. */
#define RUN_MAX_FILES 32

/*
 * Read n files into a new array (free with run_free_all). On failure err says which
 * file and why ("a.json: not JSON: ..."); nothing is returned.
 */
int run_read_all(char *const *paths, size_t n, struct run **out, char *err, size_t errlen);
void run_free_all(struct run *runs, size_t n);

#endif
