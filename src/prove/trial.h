/* SPDX-License-Identifier: MIT */
/*
 * trial.h - a change on trial: `debloat fix IFACE... --try SECONDS` run as a child of
 * this process, which keeps it or puts it back.
 *
 * The child is this program (/proc/self/exe) with /dev/null for input (a key pressed
 * for the parent must not confirm), its standard output (fix's JSON) and error (its
 * messages) into files. It gets SIGTERM when its parent dies
 * (PR_SET_PDEATHSIG), even by SIGKILL, and a fix on trial takes SIGTERM as "not
 * confirmed": everything is put back. Should both die by SIGKILL, the journal in the
 * state directory lets `debloat undo` restore it. A Ctrl-C on the terminal reaches
 * both; the child puts everything back by itself.
 *
 *	trial_start   fork and exec; wait (at most TRIAL_READY_S) until fix says the change
 *	              is in place (fix/ready.h) or ends without a
 *	              trial (nothing to change, refused, failed: its exit status)
 *	trial_keep    confirm (the state directory's confirm file) and wait for it to end
 *	trial_put_back  SIGTERM, and wait for it to have put everything back
 *
 * Every wait is bounded (TRIAL_END_S for the end); -ETIMEDOUT then, and the child is
 * killed (its journal stays for undo). Nothing is printed here.
 */
#ifndef DEBLOAT_PROVE_TRIAL_H
#define DEBLOAT_PROVE_TRIAL_H

#include <stdbool.h>
#include <sys/types.h>

#define TRIAL_READY_S 60
#define TRIAL_END_S   30

struct trial {
	pid_t pid;  /* 0 once it has ended */
	int status; /* its wait status, once ended */
	bool ready; /* the change is in place and on trial */
	const char *state_dir;
};

/*
 * argv: fix's arguments after "fix" (NULL-terminated); out, log: where its stdout and
 * stderr go.
 * 0 with t->ready set (on trial) or t->pid 0 (it ended: t->status), or -errno.
 */
int trial_start(struct trial *t, const char *state_dir, char *const argv[], const char *out,
		const char *log);

/* 0 when fix ended with status 0 after the confirmation; -ECANCELED when it ended
 * otherwise (it put everything back), -ETIMEDOUT, -errno. */
int trial_keep(struct trial *t);

/* 0 once it ended (having put everything back), -ETIMEDOUT (killed), -errno. */
int trial_put_back(struct trial *t);

/* The exit status fix ended with, -1 when it has not ended or died by a signal. */
int trial_exit_code(const struct trial *t);

#endif
