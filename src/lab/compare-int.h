/* SPDX-License-Identifier: MIT */
/*
 * lab/compare-int.h - what the three parts of `debloat lab compare` and `lab seed`
 * share (compare.h is their spec): compare.c runs the profiles and reads
 * their results into struct lc_run; plot/lab-table.c prints them side by side, as
 * text and as JSON; compare-seed.c reads the table against the 2014 email;
 * compare-board.c makes a board's runs.
 */
#ifndef DEBLOAT_LAB_COMPARE_INT_H
#define DEBLOAT_LAB_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/print.h"
#include "lab/board.h"
#include "lab/compare.h"
#include "lab/profile.h"
#include "plot/lab-table.h"

/* The table of runs and the runs' files are plot/lab-table.h's. */
_Static_assert(LC_NAME_MAX == LAB_PROFILE_NAME_MAX, "a run's stem holds a profile's name");

/* A full-size Ethernet frame as DQL counts it (IP 1500 + 14 header). */
#define LC_FULL_FRAME 1514

/* ---- compare-seed.c ---- */

struct seed_reading {
	const struct lc_run *stock, *bql, *fq, *fq_codel;
	double loaded_ratio; /* stock loaded p50 / fq_codel loaded p50 */
	double bql_ratio;    /* stock loaded p50 / bql loaded p50 */
	double bql_frames;   /* bbb-bql's settled limit in full-size frames */
	/*
	 * Throughput against stock, percent. The fixed setups are BQL with fq and with
	 * fq_codel: the worst of their download and upload changes. BQL alone keeps
	 * pfifo_fast's queue, whose upload (starved by its own ACKs waiting behind the
	 * downloads) is noise; its download is the direction BQL acts on.
	 */
	double worst_down_pct, worst_up_pct;
	double bql_down_pct;
	/* Download + upload of the fixed setups over stock's, the lower of the two: the
	 * 2014 email's "enormous improvement in bidirectional throughput". */
	double worst_total_ratio;
};

/* What the seed's four runs say (the runs found by profile name; NaN where missing). */
void lc_seed_read(const struct lc_run *runs, size_t n, struct seed_reading *sr);
void lc_seed_header(struct printer *p, const struct lc_args *a);
void lc_seed_footer(struct printer *p, const struct seed_reading *sr);
void lc_seed_json(struct printer *p, const struct seed_reading *sr);

/* ---- compare-board.c ---- */

#define LC_BOARD_RUNS 3

/* `lab seed --board`: the stock profile, the board's snapshot with fix's plan applied,
 * and a BQL variant where the board has one, in that order. */
struct lc_board {
	struct lab_profile prof[LC_BOARD_RUNS]; /* those written to DIR */
	bool write[LC_BOARD_RUNS];		/* prof[i] goes to a file (else built-in) */
	char path[LC_BOARD_RUNS][4096];		/* the profile argument of each run */
	size_t n;
	struct lab_board fixed;		  /* what the plan did */
	size_t stock, fixed_run, bql_run; /* indices; bql_run == n: none */
	bool bql_ingress;		  /* the BQL run keeps fix's download shaper */
};

/* Build the board's profiles (no files yet). 0, or -errno with a message. */
int lc_board_prepare(const struct lab_board_entry *e, const struct plan_options *opts,
		     struct lc_board *b, char *err, size_t errlen);
/* Write the profiles that need a file into dir and point a's profiles at them. */
int lc_board_write(struct lc_board *b, const char *dir, struct lc_args *a, char *err,
		   size_t errlen);
void lc_board_header(struct printer *p, const struct lc_args *a);
void lc_board_footer(struct printer *p, const struct lc_args *a, const struct lc_run *runs);
void lc_board_json(struct printer *p, const struct lc_args *a, const struct lc_run *runs);

#endif
