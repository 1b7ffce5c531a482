/* SPDX-License-Identifier: MIT */
/*
 * apply.h - carrying out a plan (plan.h) through the knob layer (knob.h), journaled
 * (journal.h) so that a failure rolls back, a crash leaves a journal undo restores
 * from, and `debloat undo` returns every knob to its value before the first fix.
 *
 * The state directory holds what fix knows of one network namespace's interfaces, so
 * its default is one per namespace: /var/lib/debloat in the host's (PID 1's),
 * /var/lib/debloat/netns-INODE in any other (INODE: the namespace's, as
 * /proc/self/ns/net names it; in every namespace when PID 1's cannot be read, as in a
 * sandbox), and two fixes or proves in two namespaces never share a lock or a journal.
 * It holds:
 *	journal   what fix changed (journal.h)
 *	lock      flock()ed by a running fix or undo: one at a time
 *	confirm   written by `debloat fix --confirm` for a `--try` run waiting on it
 *
 * Order. Steps are applied in plan order (root qdisc, txqueuelen, BQL, rings,
 * offloads, then sysctls) and restored in the reverse of plan_phase(), newest first
 * within a phase. That puts net.core.default_qdisc back before any root qdisc is
 * deleted, so the kernel attaches the default of before. When only some interfaces are
 * undone and a changed default_qdisc stays, undo sets the old default for the moment
 * it restores a "default" root, then puts the new one back.
 *
 * Test hooks (environment, for tests/test-fix.sh): DEBLOAT_FIX_CRASH_AFTER=N raises
 * SIGKILL right after the run's step N is applied and journaled; _CRASH_BEFORE=N right
 * after its `begin` is journaled and before its value is written; DEBLOAT_FIX_FAIL_AT=N
 * makes step N fail as if the kernel refused it (EINVAL), without writing it.
 *
 * Nothing here prints; results are in the plan's steps and in struct undo_item.
 */
#ifndef DEBLOAT_FIX_APPLY_H
#define DEBLOAT_FIX_APPLY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "fix/journal.h"
#include "fix/knob.h"
#include "fix/plan.h"

#define APPLY_STATE_DIR "/var/lib/debloat"
#define APPLY_PATH_MAX	4096

struct apply_env {
	struct knob_env knobs;
	const char *state_dir;
	char default_dir[64]; /* the default state_dir, of this network namespace */
	unsigned crash_after, crash_before, fail_at; /* test hooks; 0 = off */
};

/*
 * The default state directory of this process's network namespace into buf (above).
 * Without /proc/self/ns/net, the host's. -ENAMETOOLONG.
 */
int apply_default_state_dir(char *buf, size_t len);

/* knobs "/sys" and "/proc", the given state dir (NULL: apply_default_state_dir), hooks
 * from the environment. */
void apply_env_init(struct apply_env *e, const char *state_dir);

/* STATE_DIR/NAME into buf. -ENAMETOOLONG. */
int apply_state_path(const struct apply_env *e, const char *name, char *buf, size_t len);

/*
 * Create the state directory if needed (0755) and take its lock, waiting for it when
 * wait is set (boot-time runs), else -EBUSY when another fix or undo holds it. *lockfd
 * is closed with apply_unlock. -EROFS, -EACCES... when the directory cannot be written
 * (so this is checked before anything changes).
 */
int apply_lock(const struct apply_env *e, bool wait, int *lockfd);
void apply_unlock(int lockfd);

/*
 * Read every planned step's current value into its before. A knob this host does not
 * have (-ENOENT, -EOPNOTSUPP) makes the step STEP_UNSUPPORTED with a message; any other
 * error returns -errno with *failed the step's index.
 */
int apply_read_befores(struct plan *p, const struct knob_env *env, size_t *failed);

/*
 * Apply the plan's STEP_PLANNED steps (targets refused by plan_settle must not be
 * there: the caller checks plan_refused first). j is the journal on disk (empty when
 * there is none; existed says which): it is extended with the run's steps and written
 * atomically before the first change, then each step is journaled as it goes.
 *
 * An optional step the driver refuses (-EINVAL, -EOPNOTSUPP) becomes STEP_REFUSED and
 * the run goes on. Any other failure becomes STEP_FAILED (its msg the kernel's
 * words), the steps already applied are rolled back (STEP_ROLLED_BACK), the rest are
 * STEP_NOT_REACHED, the journal goes back to what it was, and the error is returned
 * with *failed its index. If the rollback itself fails, the journal stays as it is so
 * that undo can finish, and *rollback_err says why.
 */
int apply_plan(struct plan *p, struct journal *j, bool existed, const struct apply_env *e,
	       size_t *failed, int *rollback_err);

/*
 * Take back what apply_plan applied in this run (a --try that was not confirmed), the
 * same way a failure does; j and existed as given to apply_plan, old the journal as it
 * was before (apply_plan's caller keeps a copy). 0, or the first error (the journal is
 * then left for undo).
 */
int apply_rollback(struct plan *p, struct journal *j, const struct journal *old, bool existed,
		   const struct apply_env *e);

/*
 * Wait for `debloat fix --confirm` (the confirm file) or, when tty_fd >= 0, a key on
 * that terminal, for up to seconds. tick (may be NULL) is called with the whole
 * seconds left each time that number changes, for a countdown. 1 confirmed, 0
 * expired, -EINTR when *stop became set (a signal: the caller rolls back).
 */
int apply_wait_confirm(const struct apply_env *e, unsigned seconds, int tty_fd,
		       volatile sig_atomic_t *stop, void (*tick)(unsigned left, void *arg),
		       void *arg);
/* For --confirm: write the confirm file. -errno. */
int apply_confirm(const struct apply_env *e);

enum undo_result {
	UNDO_RESTORED,	/* written back */
	UNDO_UNCHANGED, /* already at its before (never changed, or restored earlier) */
	UNDO_SKIPPED,	/* never begun: nothing to restore */
	UNDO_GONE,	/* the interface no longer exists */
	UNDO_FAILED,	/* the write failed: the step stays in the journal */
};

struct undo_item {
	struct journal_step step;
	char current[KNOB_VALUE_MAX]; /* what was there before undo ("" if unreadable) */
	enum undo_result result;
	int err;
	char msg[PLAN_NOTE_MAX];
};

/*
 * Restore the journal's steps for the named interfaces (all when nnames is 0; the
 * sysctls when no other interface's step remains), newest phase first, and rewrite
 * the journal without them (removing it when it is empty). Steps that fail stay in
 * it. *items (malloc'ed, in restore order) says what happened to each. Returns 0, or
 * -EIO when some step failed, or -errno when the journal could not be rewritten.
 */
int undo_run(struct journal *j, const char *journal_path, char *const names[], size_t nnames,
	     const struct apply_env *e, struct undo_item **items, size_t *nitems);

const char *undo_result_name(enum undo_result r);

#endif
