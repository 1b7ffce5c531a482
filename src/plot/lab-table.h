/* SPDX-License-Identifier: MIT */
/*
 * plot/lab-table.h - the runs of `debloat lab compare` and `lab seed`, side by side:
 * a table for people (each value with its ratio to the first run that worked) and
 * the "runs" array of their JSON (lab/compare.h has the keys). The runs are finished
 * ones, read back from their directory (a test's JSON, the lab's summary beside it),
 * so the table sits with the other readers of finished runs; lab/compare.c fills
 * struct lc_run and calls lc_print_runs.
 */
#ifndef DEBLOAT_PLOT_LAB_TABLE_H
#define DEBLOAT_PLOT_LAB_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/print.h"

struct run;
struct jval;

/* A run's name as a file stem: as long as a lab profile's name may be. */
#define LC_NAME_MAX 64
/* The lab's stages a run reports drops and marks at. */
#define LC_MAX_STAGES 8

/* A run's files: the JSON key of each in "files", and its name after the profile's. */
#define LC_RUN_FILES 6
extern const char *const lc_run_files[LC_RUN_FILES][2];

struct lc_stage {
	char name[24];
	double drops, marks; /* NaN when the lab did not say */
};

/* One profile's run: what was asked, how it went, what it measured. */
struct lc_run {
	char base[LC_NAME_MAX];	    /* the profile's name, as a file name */
	char stem[LC_NAME_MAX + 8]; /* base, made unique: the files' stem and the label */
	const char *profile;	    /* as given: a built-in name or a path */
	char describe[512];	    /* what the run models (the lab's words) */
	char cc[16];
	bool bql;

	bool ok;
	char error[320]; /* why it failed */
	double elapsed_s;

	struct run *run;      /* the test's result; NULL when it failed */
	struct jval *doc;     /* the test's JSON document (its "summary" is reprinted) */
	double bql_limit_p50; /* bytes; NaN when unknown or without BQL */
	double bql_limit_max;
	double ring_max;
	double sched_p99_us;   /* the emulator's scheduling error p99; NaN when unknown */
	double sched_bound_us; /* the bound it had to keep */
	struct lc_stage stages[LC_MAX_STAGES];
	size_t nstages;
	bool plotted; /* P.svg was written */

	/* The sending-only run beside it (lab compare --sending): the same profile with
	 * LC_SEND_TEST, its files under STEM LC_SEND_SUFFIX. */
	bool send_tried, send_ok;
	char send_error[320];
	double send_mbps;	/* the board's goodput (the test's download); NaN: none */
	double send_loaded_p50; /* ms; NaN: none */
};

/* The sending-only test: the client downloads, so the board sends (as an NFS or iSCSI
 * server does) and receives only ACKs; several flows, as several clients. */
#define LC_SEND_TEST   "tcp_ndown"
#define LC_SEND_SUFFIX ".send"

/* DIR/STEM.EXT into out. */
void lc_file_path(char *out, size_t len, const char *dir, const char *stem, const char *ext);

/* Enough digits to read, no more: 0.31, 12.4, 160; "-" for NaN. Returns snprintf's. */
int lc_fmt_num(char *buf, size_t len, double v);
/* A number as JSON: an integer when it is one, null when NaN. */
void lc_json_num(struct printer *p, const char *key, double v);
/*
 * runs[0..n), each with its ratios to runs[base] (the first that worked; n: none), once:
 * the "runs" array of lab/compare.h's JSON, and the side-by-side table in text (none when
 * no run worked), with its notes on runs whose emulator fell behind.
 */
void lc_print_runs(struct printer *p, const char *dir, const struct lc_run *runs, size_t n,
		   size_t base);

#endif
