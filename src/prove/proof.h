/* SPDX-License-Identifier: MIT */
/*
 * proof.h - the procedure of `debloat prove`, below the command: measure, fix on trial
 * (trial.h), measure again, keep the change only when the second measurement is better
 * (verdict.h), else put it back. Both runs, the fix's report and its log go into one
 * directory; cmd-prove.c parses the options, draws the plot and prints the report.
 *
 *	proof_setup   the interfaces (the route's to the server when none is named), the
 *	              output directory, the key
 *	proof_run     the proof itself
 *	proof_put_back_now  from a signal handler: end the trial's child, which puts
 *	              everything back (async-signal-safe)
 *	proof_free    what setup and run allocated
 *
 * Each direction is judged on its own (verdict.h, prove_judge_directions): a direction
 * whose goodput fell only as the other's rose is run alone with the change on; when
 * one direction's change is kept and the other's not, everything is put back and the
 * kept one goes on trial alone for a third run, which must pass the same verdict.
 *
 * Nothing prints here: what the user should see as it happens goes to o->note (a
 * sentence) and o->progress (every step of a test), failures come back as -errno or
 * -1 with r->why filled.
 */
#ifndef DEBLOAT_PROVE_PROOF_H
#define DEBLOAT_PROVE_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/host.h"
#include "meter/engine.h"
#include "prove/prove-print.h"
#include "prove/trial.h"
#include "prove/verdict.h"
#include "prove/watch.h"

#define PROOF_MAX_IFACES 8
/* The capacity runs: each direction alone, this long at most, this idle each side. */
#define PROOF_CAPACITY_S       10.0
#define PROOF_CAPACITY_DELAY_S 1.0

struct jval;

struct proof_opts {
	const char *server, *test, *out_dir, *keyfile, *state_dir, *role, *cc;
	char *ifaces[PROOF_MAX_IFACES];
	size_t nifaces;
	double length_s, delay_s, min_gain, max_loss;
	uint64_t shape;
	unsigned port;
	bool keep, undo, json, ingress, no_ingress;
	/* a sentence for the user as the proof goes (may be NULL) */
	void (*note)(void *ctx, const char *text);
	/* every step of a test: its label and progress (may be NULL) */
	void (*progress)(void *ctx, const char *label, const struct engine_progress *p);
	void *ctx;
};

enum proof_file {
	PROOF_BEFORE,
	PROOF_BEFORE_FLENT,
	PROOF_AFTER,
	PROOF_AFTER_FLENT,
	PROOF_FIX,
	PROOF_FIX_LOG,
	PROOF_PLOT,
	PROOF_PROVE,
	PROOF_CAP_UP,
	PROOF_CAP_DOWN,
	PROOF_ALONE_UP, /* a direction alone with the change on (prove_judge_directions) */
	PROOF_ALONE_DOWN,
	PROOF_RETRY, /* the second run again, with the kept direction's change only */
	PROOF_NFILES
};

/* The state of one proof. */
struct proof {
	struct proof_opts a;
	struct host host;
	const struct iface *ifc; /* the first interface */
	struct verdict audit;
	char dir[1024];
	char path[PROOF_NFILES][1100]; /* files in dir, by enum proof_file */
	struct prove_numbers before, after;
	struct prove_numbers cap_up, cap_down; /* each direction's capacity run */
	bool have_cap_up, have_cap_down;
	struct prove_numbers alone[PROVE_NDIRS]; /* each direction alone, the change on */
	bool have_alone[PROVE_NDIRS];
	struct prove_verdict first; /* the verdict on both changes, when one was put back
				       and the other tried alone (retried) */
	bool retried;
	struct prove_watch watch_before, watch_after; /* the first interface's counters */
	bool have_before, have_after;
	struct prove_capacity cap;
	struct prove_verdict verdict;
	const char *outcome; /* "kept", "put-back", "already-fixed", "nothing-to-change",
				"failed" */
	char why[1024];
	char undo_cmd[1200]; /* the command that puts the change back, for hints */
	bool already;	     /* the journal holds debloat's change to these interfaces */
	struct jval *fix;    /* fix's JSON report, when it ran */
	struct trial trial;
	uint8_t key[64];
	size_t keylen;
	char *route_iface; /* the interface found from the route, when none was named */
};

/* 0, or -errno with r->why saying what failed. */
int proof_setup(struct proof *r);

/* 0 kept or nothing to do, 1 put back, -1 failed (r->why says why). */
int proof_run(struct proof *r);

/* The report's inputs (prove-print.h) of this proof. */
void proof_report(const struct proof *r, struct prove_report *rep);

/* true when a change was on trial (it has been put back now). */
bool proof_put_back_now(void);

void proof_free(struct proof *r);

#endif
