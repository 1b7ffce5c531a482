/* SPDX-License-Identifier: MIT */
/*
 * fix-run.h - one run of `debloat fix`, below the command: read the host (or a snapshot,
 * or what --persist saved), plan, apply behind the journal, fall back when the kernel
 * will not load a qdisc kind it lists, take a --try back that was not confirmed, and
 * persist. The command parses options, calls these in order and prints the run.
 *
 * The steps, each returning 0 or -errno:
 *	fix_run_init      the options; the state directory's environment (apply.h)
 *	fix_run_plan      the plan, every step's before read (or "unknown" for --from)
 *	fix_run_apply     lock, journal, apply; on a refused kind, plan again and retry
 *	fix_run_trial_wait / fix_run_trial_undo   a --try: wait for the confirmation,
 *	                  else take the run back
 *	fix_run_persist   --persist's files for every target applied
 *	fix_run_free      the lock released, everything freed
 *
 * Nothing here prints. A failure leaves its sentence in r->error (what the command
 * prints as "debloat: fix: ERROR" and puts in the JSON's "error"); what happened on the
 * way that the user should read as it stands (a kind planned again without) is in
 * r->notes, in order, and goes before the error. r->result names the outcome for the
 * JSON's "result" (see docs/json.md): "failed" until a step says otherwise.
 */
#ifndef DEBLOAT_FIX_FIX_RUN_H
#define DEBLOAT_FIX_FIX_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix/apply.h"
#include "fix/persist.h"
#include "fix/plan.h"
#include "host/host.h"

/* What the run is asked to do (the command's options that reach below it). */
struct fix_run_options {
	struct plan_options plan;
	const char *state_dir; /* NULL: APPLY_STATE_DIR */
	const char *root;      /* --persist's files and --apply-persisted's source, or NULL: / */
	const char *from;      /* a snapshot to plan for (a dry run), or NULL: this host */
	unsigned try_seconds;  /* 0: no trial */
	bool apply_persisted;  /* the plan is the one saved for one interface */
	/* --driver: the plan is the swap of one interface's driver to ours (driver.h) */
	bool driver;
	const char *peer;	    /* --peer: who must answer after it; NULL the gateway */
	const char *ssh_connection; /* the session we run in ($SSH_CONNECTION), or NULL */
	bool driver_persist;	    /* --driver --persist: ours at boot too (a plan step) */
};

#define FIX_RUN_NOTES	 4
#define FIX_RUN_NOTE_MAX 512

struct fix_run {
	struct fix_run_options o;
	struct apply_env env;
	struct host host;
	struct plan plan;
	struct journal journal, before_run; /* before_run: for a --try rollback */
	bool journal_existed;
	int lockfd;
	char journal_path[APPLY_PATH_MAX];
	const char *result; /* "applied", "already-fixed", "dry-run", "failed", ... */
	char error[768];    /* why the last step failed, or "" */
	char notes[FIX_RUN_NOTES][FIX_RUN_NOTE_MAX];
	unsigned nnotes;
	struct persist_files persisted;
	bool try_confirmed;
	int trial_signal;   /* the signal that ended the trial's wait, or 0 */
	uint64_t trial_ns;  /* how long the trial waited */
	bool named;	    /* interfaces were named on the command line */
	char fell_back[96]; /* kinds the kernel would not load (fallback.h), or "" */
};

/* Set up r (zeroed by the caller) for the options: no lock held, nothing read. */
void fix_run_init(struct fix_run *r, const struct fix_run_options *o);

/*
 * Read the named interfaces (all physical ones when nnames is 0) and plan for them,
 * every step's before read and the plan settled; from the snapshot o.from instead (all
 * its interfaces unless named; befores "unknown"); or, with o.apply_persisted, the
 * plan saved for names[0]. -ENODEV for a name not found; -errno otherwise.
 */
int fix_run_plan(struct fix_run *r, char *const names[], size_t nnames);

/*
 * Apply the plan: take the state directory's lock (-EBUSY while another fix or undo
 * holds it), read the journal, apply behind it (apply.h). When the kernel refuses a
 * root qdisc or default_qdisc because it cannot load a kind it lists, the run is taken
 * back, the kind marked missing, and the plan made again without it (a note says so;
 * r->fell_back names the kinds), at most a few times. 0 with r->result "applied", or
 * -errno with the plan's steps showing what failed and what was rolled back.
 */
int fix_run_apply(struct fix_run *r);

/*
 * A --try after fix_run_apply: wait o.try_seconds for `debloat fix --confirm` or, when
 * key_fd >= 0, a key on it; stop when *stop becomes nonzero; tick (may be NULL) once
 * a second with the seconds left. 1 confirmed (r->try_confirmed), 0 not, or -errno.
 */
int fix_run_trial_wait(struct fix_run *r, int key_fd, volatile sig_atomic_t *stop,
		       void (*tick)(unsigned left, void *arg), void *arg);

/*
 * Take back what fix_run_apply applied, for a trial that was not confirmed:
 * -ETIMEDOUT with r->result "rolled-back" when everything was put back, another
 * -errno when undoing failed (the journal is left for `debloat undo`).
 */
int fix_run_trial_undo(struct fix_run *r);

/* --persist: the saved setup, unit and hook of every target not skipped or refused
 * (persist.h), under o.root. 0 or -errno; r->persisted lists the files written. */
int fix_run_persist(struct fix_run *r);

/*
 * `debloat fix --confirm`: confirm the --try run waiting in the state directory.
 * -ESRCH when none is waiting; -errno when the confirmation cannot be written.
 * *pid is the waiting run's process.
 */
int fix_run_confirm(const struct apply_env *env, long *pid);

/* The lock released; journal, plan and host freed. */
void fix_run_free(struct fix_run *r);

#endif
