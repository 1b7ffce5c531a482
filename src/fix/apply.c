/* SPDX-License-Identifier: MIT */
/* apply.c - apply.h: a plan applied step by step behind a journal, rolled back, undone. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fsutil.h"
#include "base/say.h"
#include "fix/apply.h"

static unsigned env_step(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return 0;
	n = strtoul(v, &end, 10);
	return *end || n > UINT_MAX ? 0 : (unsigned)n;
}

int apply_default_state_dir(char *buf, size_t len)
{
	struct stat self, host;
	int n;

	/* PID 1's namespace unreadable (a sandbox): keyed all the same, never shared. */
	if (stat("/proc/self/ns/net", &self) < 0 ||
	    (stat("/proc/1/ns/net", &host) == 0 && self.st_ino == host.st_ino &&
	     self.st_dev == host.st_dev))
		n = snprintf(buf, len, "%s", APPLY_STATE_DIR);
	else
		n = snprintf(buf, len, "%s/netns-%llu", APPLY_STATE_DIR,
			     (unsigned long long)self.st_ino);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void apply_env_init(struct apply_env *e, const char *state_dir)
{
	memset(e, 0, sizeof(*e));
	e->knobs.sysfs_root = "/sys";
	e->knobs.proc_root = "/proc";
	if (!state_dir && apply_default_state_dir(e->default_dir, sizeof(e->default_dir)) == 0)
		state_dir = e->default_dir;
	e->state_dir = state_dir ? state_dir : APPLY_STATE_DIR;
	e->crash_after = env_step("DEBLOAT_FIX_CRASH_AFTER");
	e->crash_before = env_step("DEBLOAT_FIX_CRASH_BEFORE");
	e->fail_at = env_step("DEBLOAT_FIX_FAIL_AT");
}

int apply_state_path(const struct apply_env *e, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", e->state_dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int apply_lock(const struct apply_env *e, bool wait, int *lockfd)
{
	char path[APPLY_PATH_MAX];
	int fd, r;

	r = mkdir_p(e->state_dir);
	if (r < 0)
		return r;
	r = apply_state_path(e, "lock", path, sizeof(path));
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		if (errno == EINTR)
			continue;
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return r;
	}
	*lockfd = fd;
	return 0;
}

void apply_unlock(int lockfd)
{
	if (lockfd >= 0)
		close(lockfd);
}

int apply_read_befores(struct plan *p, const struct knob_env *env, size_t *failed)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];
		int r;

		if (s->status != STEP_PLANNED)
			continue;
		r = knob_read(&s->knob, env, s->before, sizeof(s->before));
		if (r == -ENOENT || r == -EOPNOTSUPP) {
			s->status = STEP_UNSUPPORTED;
			s->err = r;
			say(s->msg, sizeof(s->msg), "not on this host: %s", strerror(-r));
			continue;
		}
		if (r < 0) {
			s->err = r;
			*failed = i;
			return r;
		}
	}
	return 0;
}

/*
 * Put one knob back: nothing to do when it already holds `before` (a step that was
 * begun but never written, or one restored earlier). 1 unchanged, 0 written, -errno.
 */
static int restore_one(const struct knob *k, const struct knob_env *env, const char *before,
		       char *current, size_t curlen, char *msg, size_t msglen)
{
	int r;

	msg[0] = '\0';
	current[0] = '\0';
	r = knob_read(k, env, current, curlen);
	if (r == -ENODEV)
		return r;
	if (r == 0 && plan_value_equal(k, current, before, NULL))
		return 1;
	if (r < 0)
		current[0] = '\0';
	return knob_write(k, env, before, msg, msglen);
}

static void set_state(struct journal *j, unsigned id, enum journal_state state)
{
	struct journal_step *s = journal_by_id(j, id);

	if (s && s->state < state)
		s->state = state;
}

int apply_rollback(struct plan *p, struct journal *j, const struct journal *old, bool existed,
		   const struct apply_env *e)
{
	char path[APPLY_PATH_MAX], cur[KNOB_VALUE_MAX], msg[PLAN_NOTE_MAX];
	int first = 0, r;

	/* Reverse plan order is reverse phase order: sysctls go back before roots. */
	for (size_t i = p->nsteps; i-- > 0;) {
		struct plan_step *s = &p->steps[i];

		if (s->status != STEP_APPLIED && s->status != STEP_FAILED)
			continue;
		r = restore_one(&s->knob, &e->knobs, s->before, cur, sizeof(cur), msg, sizeof(msg));
		if (r < 0) {
			if (!first)
				first = r;
			if (s->status == STEP_APPLIED) {
				s->err = r;
				say(s->msg, sizeof(s->msg), "could not be rolled back: %s",
				    msg[0] ? msg : strerror(-r));
			}
			continue;
		}
		if (s->status == STEP_APPLIED)
			s->status = STEP_ROLLED_BACK;
	}
	if (first)
		return first; /* the journal stays: undo can finish the job */
	r = apply_state_path(e, "journal", path, sizeof(path));
	if (r < 0)
		return r;
	r = existed ? journal_write_file(path, old) : journal_remove_file(path);
	if (r < 0)
		return r;
	journal_free(j);
	return journal_copy(j, old);
}

int apply_plan(struct plan *p, struct journal *j, bool existed, const struct apply_env *e,
	       size_t *failed, int *rollback_err)
{
	char path[APPLY_PATH_MAX], msg[PLAN_NOTE_MAX];
	struct journal old;
	unsigned k = 0;
	int r;

	*failed = SIZE_MAX;
	*rollback_err = 0;
	r = apply_state_path(e, "journal", path, sizeof(path));
	if (r < 0)
		return r;
	r = journal_copy(&old, j);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];

		if (s->status != STEP_PLANNED)
			continue;
		r = journal_add(j, &s->knob, s->before, s->after, s->msg, &s->journal_id);
		if (r < 0)
			goto restore_journal;
	}
	if (!existed || !j->created)
		j->created = (long long)time(NULL);
	j->pid = (long)getpid();
	/* Every before is on disk before the first change. */
	r = journal_write_file(path, j);
	if (r < 0)
		goto restore_journal;

	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];

		if (s->status != STEP_PLANNED)
			continue;
		k++;
		msg[0] = '\0';
		r = journal_append(path, "begin", s->journal_id);
		if (r < 0) {
			say(msg, sizeof(msg), "cannot journal it: %s", strerror(-r));
		} else {
			set_state(j, s->journal_id, JOURNAL_BEGUN);
			if (e->crash_before == k)
				raise(SIGKILL);
			if (e->fail_at == k) {
				r = -EINVAL;
				say(msg, sizeof(msg),
				    "refused (the DEBLOAT_FIX_FAIL_AT test hook)");
			} else {
				r = knob_write(&s->knob, &e->knobs, s->after, msg, sizeof(msg));
			}
		}
		if (r == -EOPNOTSUPP && s->optional && e->fail_at != k) {
			s->status = STEP_REFUSED;
			s->err = r;
			say(s->msg, sizeof(s->msg), "%s", msg[0] ? msg : strerror(-r));
			continue;
		}
		if (r == 0) {
			s->status = STEP_APPLIED;
			r = journal_append(path, "done", s->journal_id);
			if (r < 0)
				say(msg, sizeof(msg), "applied, but cannot journal it: %s",
				    strerror(-r));
		}
		if (r < 0) {
			/* Also when it was written but not journaled: the rollback restores it. */
			s->status = STEP_FAILED;
			s->err = r;
			say(s->msg, sizeof(s->msg), "%s", msg[0] ? msg : strerror(-r));
			*failed = i;
			for (size_t n = i + 1; n < p->nsteps; n++)
				if (p->steps[n].status == STEP_PLANNED)
					p->steps[n].status = STEP_NOT_REACHED;
			*rollback_err = apply_rollback(p, j, &old, existed, e);
			journal_free(&old);
			return r;
		}
		set_state(j, s->journal_id, JOURNAL_APPLIED);
		if (e->crash_after == k)
			raise(SIGKILL);
	}
	journal_free(&old);
	return 0;

restore_journal:
	journal_free(j);
	if (journal_copy(j, &old) < 0)
		r = -ENOMEM;
	journal_free(&old);
	return r;
}

static int64_t now_ms(void)
{
	return (int64_t)(mono_ns() / 1000000);
}

int apply_confirm(const struct apply_env *e)
{
	char path[APPLY_PATH_MAX];
	int r = apply_state_path(e, "confirm", path, sizeof(path));

	return r < 0 ? r : journal_write_atomic(path, "confirmed\n", 10, 0600);
}

int apply_wait_confirm(const struct apply_env *e, unsigned seconds, int tty_fd,
		       volatile sig_atomic_t *stop, void (*tick)(unsigned left, void *arg),
		       void *arg)
{
	int64_t shown = -1;
	char path[APPLY_PATH_MAX];
	struct termios saved, raw;
	bool restore_tty = false;
	int tty = tty_fd; /* tty_fd goes -1 if the terminal hangs up; restore this one */
	int64_t deadline = now_ms() + (int64_t)seconds * 1000;
	int r;

	r = apply_state_path(e, "confirm", path, sizeof(path));
	if (r < 0)
		return r;
	unlink(path); /* a confirmation from an earlier run does not count */
	if (tty_fd >= 0 && isatty(tty_fd) && tcgetattr(tty_fd, &saved) == 0) {
		/* One key, no Enter needed, nothing echoed; typed-ahead keys do not count. */
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		restore_tty = tcsetattr(tty_fd, TCSANOW, &raw) == 0;
		tcflush(tty_fd, TCIFLUSH);
	} else {
		tty_fd = -1;
	}
	for (;;) {
		struct pollfd pfd = {.fd = tty_fd, .events = POLLIN};
		int64_t left = deadline - now_ms();
		char c;

		if (*stop) {
			r = -EINTR;
			break;
		}
		if (access(path, F_OK) == 0) {
			unlink(path);
			r = 1;
			break;
		}
		if (left <= 0) {
			r = 0;
			break;
		}
		if (tick && (left + 999) / 1000 != shown) {
			shown = (left + 999) / 1000;
			tick((unsigned)shown, arg);
		}
		if (poll(&pfd, tty_fd >= 0 ? 1 : 0, left < 100 ? (int)left : 100) > 0) {
			ssize_t n = read(tty_fd, &c, 1);

			if (n == 1) {
				r = 1;
				break;
			}
			if (n == 0 || (pfd.revents & (POLLHUP | POLLERR)))
				tty_fd =
				    -1; /* the terminal went away: only --confirm or expiry now */
		}
	}
	if (restore_tty)
		tcsetattr(tty, TCSANOW, &saved);
	return r;
}

const char *undo_result_name(enum undo_result r)
{
	static const char *const names[] = {"restored", "unchanged", "skipped", "gone", "failed"};

	return r <= UNDO_FAILED ? names[r] : "?";
}

static bool named(const char *ifname, char *const names[], size_t nnames)
{
	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(ifname, names[i]))
			return true;
	return false;
}

/* Which steps this undo restores; see undo_run. */
static void select_steps(const struct journal *j, char *const names[], size_t nnames, bool *sel)
{
	bool others = false;

	for (size_t i = 0; i < j->n; i++) {
		const struct knob *k = &j->steps[i].knob;

		sel[i] = !nnames || (k->ifname[0] && named(k->ifname, names, nnames));
		others |= k->ifname[0] && !sel[i];
	}
	for (size_t i = 0; i < j->n; i++)
		if (!j->steps[i].knob.ifname[0])
			sel[i] = !others;
}

static int cmp_restore_order(const void *a, const void *b, void *arg)
{
	const struct journal *j = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int px = plan_phase(j->steps[x].knob.kind), py = plan_phase(j->steps[y].knob.kind);

	if (px != py)
		return py - px;		   /* later phases first */
	return x < y ? 1 : x > y ? -1 : 0; /* newest first */
}

/* A journaled default_qdisc change this undo leaves in place, or NULL. */
static const struct journal_step *kept_default_qdisc(const struct journal *j, const bool *sel)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct journal_step *s = &j->steps[i];

		if (!sel[i] && s->knob.kind == KNOB_SYSCTL && s->state != JOURNAL_PLANNED &&
		    !strcmp(s->knob.name, "net.core.default_qdisc"))
			return s;
	}
	return NULL;
}

static int undo_one(const struct journal_step *s, const struct journal_step *dq,
		    const struct apply_env *e, struct undo_item *it)
{
	char msg[PLAN_NOTE_MAX] = "";
	bool swap = dq && s->knob.kind == KNOB_ROOT_QDISC && !strcmp(s->before, "default");
	int r;

	/* The kernel attaches the current default_qdisc when a root is deleted. */
	if (swap)
		knob_write(&dq->knob, &e->knobs, dq->before, NULL, 0);
	r = restore_one(&s->knob, &e->knobs, s->before, it->current, sizeof(it->current), msg,
			sizeof(msg));
	if (swap)
		knob_write(&dq->knob, &e->knobs, dq->after, NULL, 0);
	if (r == 1) {
		it->result = UNDO_UNCHANGED;
		say(it->msg, sizeof(it->msg), "already at its value before the fix");
	} else if (r == 0) {
		it->result = UNDO_RESTORED;
		if (swap)
			say(it->msg, sizeof(it->msg),
			    "with net.core.default_qdisc %s for the moment, as before the fix",
			    dq->before);
	} else if (r == -ENODEV) {
		it->result = UNDO_GONE;
		it->err = r;
		say(it->msg, sizeof(it->msg), "%s no longer exists", s->knob.ifname);
	} else {
		it->result = UNDO_FAILED;
		it->err = r;
		say(it->msg, sizeof(it->msg), "%s", msg[0] ? msg : strerror(-r));
	}
	return it->result == UNDO_FAILED ? -EIO : 0;
}

int undo_run(struct journal *j, const char *journal_path, char *const names[], size_t nnames,
	     const struct apply_env *e, struct undo_item **items, size_t *nitems)
{
	const struct journal_step *dq;
	struct undo_item *out = NULL;
	struct journal rest;
	size_t *order = NULL, n = 0;
	bool *sel = NULL;
	int ret = 0, r;

	*items = NULL;
	*nitems = 0;
	journal_init(&rest);
	sel = calloc(j->n ? j->n : 1, sizeof(*sel));
	order = calloc(j->n ? j->n : 1, sizeof(*order));
	out = calloc(j->n ? j->n : 1, sizeof(*out));
	if (!sel || !order || !out) {
		ret = -ENOMEM;
		goto out;
	}
	select_steps(j, names, nnames, sel);
	for (size_t i = 0; i < j->n; i++)
		if (sel[i])
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_restore_order, j);
	dq = kept_default_qdisc(j, sel);

	for (size_t i = 0; i < n; i++) {
		const struct journal_step *s = &j->steps[order[i]];
		struct undo_item *it = &out[i];

		it->step = *s;
		if (s->state == JOURNAL_PLANNED) {
			it->result = UNDO_SKIPPED;
			say(it->msg, sizeof(it->msg), "never applied");
			continue;
		}
		if (undo_one(s, dq, e, it) < 0)
			ret = -EIO;
	}
	*items = out;
	*nitems = n;

	/* The journal keeps what was not selected and what failed, in its order. */
	rest.created = j->created;
	rest.pid = j->pid;
	for (size_t i = 0; i < j->n; i++) {
		bool failed = false;

		for (size_t o = 0; o < n && sel[i]; o++)
			failed |= order[o] == i && (*items)[o].result == UNDO_FAILED;
		if (sel[i] && !failed)
			continue;
		r = journal_add(&rest, &j->steps[i].knob, j->steps[i].before, j->steps[i].after,
				j->steps[i].note, NULL);
		if (r < 0) {
			ret = r;
			goto done;
		}
		rest.steps[rest.n - 1].id = j->steps[i].id;
		rest.steps[rest.n - 1].state = j->steps[i].state;
	}
	r = rest.n ? journal_write_file(journal_path, &rest) : journal_remove_file(journal_path);
	if (r < 0) {
		ret = r;
		goto done;
	}
	journal_free(j);
	*j = rest;
	journal_init(&rest);
done:
	out = NULL; /* the caller's, through *items */
out:
	journal_free(&rest);
	free(out);
	free(order);
	free(sel);
	return ret;
}
