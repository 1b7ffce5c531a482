/* SPDX-License-Identifier: MIT */
/*
 * lab/compare.h - `debloat lab compare PROFILE...` and `debloat lab seed`: the same
 * latency-under-load test across several lab profiles in turn, side by side.
 *
 * Each run is a child process, so that one failing run (the lab could not start, the
 * test was cut short) cannot take the others with it:
 *
 *	SELF lab --profile P [--set K=V]... -q --json-summary DIR/P.lab.json
 *	         --telemetry DIR/P.telemetry.json --
 *	     sh -c 'exec SELF test NAME "$DEBLOAT_LAB_BOARD" -l L -d D --cc CC --label P
 *	            -o DIR/P.json --flent DIR/P.flent.gz'
 *
 * with its output in DIR/P.log. SELF is this binary (/proc/self/exe), CC the
 * profile's congestion control. The runs' JSON is read back (plot/run-file.h) and the
 * lab's summary beside it (the BQL limit reached, drops and marks at each stage);
 * then a side-by-side table with each run's ratio to the first, one comparison plot
 * DIR/compare.svg (plot/plot.h, kind compare) and one plot per run (DIR/P.svg).
 *
 * `seed --board NAME` is compare of one board of lab/board.h's lab_boards: its stock
 * profile, its snapshot with `debloat fix`'s plan applied (written to
 * DIR/PROFILE-fixed.conf first; --shape, --ingress and --no-ingress as fix's), and
 * its driver with BQL under fq_codel where it has such a variant, read by
 * compare-board.c; its JSON has "board" instead of "seed" (docs/json.md).
 *
 * --sending (compare and seed): each profile is run a second time with LC_SEND_TEST
 * (plot/lab-table.h), the board sending only, into DIR/P.send.*; its goodput and
 * loaded p50 are rows of the table and "sending" in the run's JSON.
 *
 * `seed` is compare of the four profiles of the 2014 email (bbb-stock, bbb-bql,
 * bbb-bql-fq, bbb-bql-fq_codel), with a header that tells that story and a footer
 * that reads the table against it (how far loaded latency fell, against the seed's
 * 4-10x; where the BQL limit settled, against its "two full size packets").
 *
 * JSON (--json; keys stable, units in the names, null where nothing was measured):
 *	{"command": "compare"|"seed", "test", "sending_test", "length_s", "delay_s", "dir",
 *	 "plot" (DIR/compare.svg or null),
 *	 "runs": [{"profile", "describe" (what the run modelled), "ok", "error" (null or
 *	           why the run failed), "elapsed_s", "summary" (the run's JSON
 *	           `summary`, the keys of `debloat rrul`'s, or null),
 *	           "bql_limit_bytes" (the limit's median over
 *	           completions: where it settled; null without BQL),
 *	           "bql_limit_max_bytes", "ring_max_descriptors",
 *	           "drops": {stage: packets}, "marks": {stage: packets},
 *	           "ratio": {"download_mbps", "upload_mbps", "latency_idle_p50_ms", ...},
 *	           "files": {"json", "flent", "lab_summary", "telemetry", "log", "plot"},
 *	           "sending": null or {"test", "ok", "error", "download_mbps",
 *	                               "latency_loaded_p50_ms", "ratio", "files"}}],
 *	 "seed": {"loaded_p50_ratio", "bql_loaded_p50_ratio", "bql_limit_bytes",
 *	          "bql_limit_frames", "worst_download_change_pct", "worst_upload_change_pct",
 *	          "bql_download_change_pct"} (seed only: the footer's numbers)}
 *
 * cmd-lab-compare.c reads the options into struct lc_args; lab_compare_run() does the
 * rest. Exit status: 0 every run worked, 1 a run failed (the others are still shown),
 * 2 bad options or a bad profile.
 */
#ifndef DEBLOAT_LAB_COMPARE_H
#define DEBLOAT_LAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "fix/plan.h"

/* A terminal is only so wide; the runs are compared column by column. */
#define LC_MAX_PROFILES 8
#define LC_MAX_SETS	32

/* The 2014 email's four setups, as built-in profiles: what `lab seed` runs. */
#define LAB_SEED_RUNS 4
extern const char *const lab_seed_profiles[LAB_SEED_RUNS];

struct lab_board_entry;
struct lc_board;

struct lc_args {
	const char *cmd; /* "lab compare" or "lab seed", for messages */
	const char *usage;
	bool seed;
	double length_s, delay_s;
	const char *test;
	const char *sets[LC_MAX_SETS];
	size_t nsets;
	const char *dir;
	bool json;
	bool sending; /* --sending: each profile again with the board sending only */
	const char *profiles[LC_MAX_PROFILES];
	size_t nprofiles;
	/* seed --board NAME: that board's runs instead of the BeagleBone's four, its fixed
	 * run planned with these (--shape, --ingress, --no-ingress as fix's). */
	const struct lab_board_entry *board;
	struct plan_options plan;
	struct lc_board *boardp; /* its profiles, made by lab_compare_run (compare-board.c) */
};

/*
 * The runs a asks for, one after the other, then the report on stdout (text, or JSON
 * with a->json). a's profiles are loaded (with its --set words) and checked first; a
 * bad one is a usage error. Returns the exit status: 0, 1 (a run failed; or the lab
 * could not start, with the message printed), or 2 (a bad profile).
 */
int lab_compare_run(struct lc_args *a);

#endif
