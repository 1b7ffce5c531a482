/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/clock.h"
#include "base/say.h"
#include "fix/driver.h"
#include "fix/fallback.h"
#include "fix/fix-run.h"
#include "fix/journal.h"
#include "host/snapshot.h"

/* Plans again after the kernel refused a kind: at most once per kind it may refuse. */
#define FIX_MAX_FALLBACKS 4

__attribute__((format(printf, 2, 3))) static void fail(struct fix_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void note(struct fix_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_vnote(&r->notes[0][0], FIX_RUN_NOTE_MAX, &r->nnotes, FIX_RUN_NOTES, fmt, ap);
	va_end(ap);
}

void fix_run_init(struct fix_run *r, const struct fix_run_options *o)
{
	r->o = *o;
	r->lockfd = -1;
	r->result = "failed";
	apply_env_init(&r->env, o->state_dir);
}

/* A plan from ROOT/etc/debloat/IFACE.conf, for the interface host_read found. */
static int plan_from_persisted(struct fix_run *r, const char *ifname)
{
	struct persist ps;
	char err[512];
	int ti, ret;

	ret = persist_read(r->o.root ? r->o.root : "/", ifname, &ps, err, sizeof(err));
	if (ret == -ENOENT) {
		fail(r, "nothing saved for %s: no %s/etc/debloat/%s.conf", ifname,
		     r->o.root ? r->o.root : "", ifname);
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot read the saved setup: %s", err[0] ? err : strerror(-ret));
		return ret;
	}
	ti = plan_add_target(&r->plan, ifname);
	ret = ti;
	if (ti >= 0) {
		struct plan_target *t = &r->plan.targets[ti];

		t->ifc = r->host.n ? &r->host.ifaces[0] : NULL;
		t->speed_mbps = t->ifc ? t->ifc->speed_mbps : 0;
		for (size_t i = 0; i < ps.n && ret >= 0; i++)
			ret = plan_add_step(&r->plan, ps.sets[i].knob.kind == KNOB_SYSCTL ? -1 : ti,
					    &ps.sets[i].knob, ps.sets[i].value,
					    plan_knob_optional(ps.sets[i].knob.kind),
					    "saved by debloat fix --persist");
	}
	persist_free(&ps);
	if (ret < 0)
		fail(r, "cannot build the plan: %s", strerror(-ret));
	return ret < 0 ? ret : 0;
}

/*
 * Test hook: DEBLOAT_FIX_ASSUME_QDISC="fq_codel cake" makes the plan believe this kernel
 * has those kinds, so tests can watch the kernel refuse one (nothing else changes).
 */
static void assume_available(struct host *h)
{
	const char *v = getenv("DEBLOAT_FIX_ASSUME_QDISC");
	char words[128], *save = NULL;

	if (!v || strlen(v) >= sizeof(words))
		return;
	memcpy(words, v, strlen(v) + 1);
	for (char *w = strtok_r(words, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		for (size_t i = 0; i < HOST_NQDISC_KINDS; i++)
			if (h->qdisc_kinds[i].kind && !strcmp(h->qdisc_kinds[i].kind, w))
				h->qdisc_kinds[i].avail = QDISC_AVAIL_YES;
}

/* A root-qdisc spec that shapes: someone chose a rate for it. */
static bool shaper_spec(const char *v)
{
	static const char *const shapers[] = {"htb ", "tbf ", "hfsc "};

	for (size_t i = 0; i < COUNT(shapers); i++)
		if (!strncmp(v, shapers[i], strlen(shapers[i])))
			return true;
	return !strncmp(v, "cake ", 5) && strstr(v, "bandwidth ");
}

/*
 * A shaper tree at a root that debloat's journal does not hold is the user's own (an
 * htb at their line's rate over their FIFO): replacing it loses their rate and queue,
 * so the target is refused, naming them, unless --force (undo then rebuilds it).
 */
static void refuse_user_shapers(struct fix_run *r)
{
	char path[APPLY_PATH_MAX], err[256];
	struct journal j = {0};
	bool have = apply_state_path(&r->env, "journal", path, sizeof(path)) == 0 &&
		    journal_read_file(path, &j, err, sizeof(err)) == 0;

	for (size_t i = 0; i < r->plan.nsteps; i++) {
		struct plan_step *s = &r->plan.steps[i];
		struct plan_target *t = s->target >= 0 ? &r->plan.targets[s->target] : NULL;

		if (!t || s->status != STEP_PLANNED || s->knob.kind != KNOB_ROOT_QDISC ||
		    !shaper_spec(s->before) || (have && journal_find(&j, &s->knob)))
			continue;
		if (r->o.plan.force) {
			snprintf(s->msg, sizeof(s->msg),
				 "replaces your own shaper \"%s\" (--force): undo rebuilds it",
				 s->before);
			continue;
		}
		t->refused = true;
		snprintf(t->refused_why, sizeof(t->refused_why),
			 "%s's root is a shaper debloat did not make (\"%s\"): replacing it "
			 "would lose its rate and its queue; --force replaces it (undo rebuilds "
			 "it)",
			 t->name, s->before);
	}
	if (have)
		journal_free(&j);
}

/* The plan for r->host (or from the persisted file of `ifname`), its befores read. */
static int make_plan(struct fix_run *r, const char *ifname)
{
	size_t failed = 0;
	char what[96];
	int ret;

	plan_init(&r->plan, &r->o.plan);
	if (r->o.apply_persisted) {
		ret = plan_from_persisted(r, ifname);
	} else if (r->o.driver) {
		struct driver_plan_options dopt = {.peer = r->o.peer,
						   .ssh_connection = r->o.ssh_connection,
						   .force = r->o.plan.force,
						   .persist = r->o.driver_persist};

		ret = r->host.n == 1
			  ? driver_plan(&r->plan, &r->host.ifaces[0], &r->env.knobs, &dopt)
			  : -EINVAL;
		if (ret < 0)
			fail(r, "cannot plan the driver swap: %s", strerror(-ret));
	} else if ((ret = plan_build(&r->plan, &r->host, r->named)) < 0)
		fail(r, "cannot build the plan: %s", strerror(-ret));
	if (ret < 0)
		return ret;
	ret = apply_read_befores(&r->plan, &r->env.knobs, &failed);
	if (ret < 0) {
		knob_describe(&r->plan.steps[failed].knob, what, sizeof(what));
		fail(r, "cannot read %s: %s", what, strerror(-ret));
		return ret;
	}
	plan_settle(&r->plan);
	if (!r->o.apply_persisted && !r->o.driver)
		refuse_user_shapers(r);
	return 0;
}

/*
 * The plan for a snapshot's host (the names given, else all): nothing is read from
 * this host; each step's before is the snapshot's value where it has one.
 */
static int plan_snapshot(struct fix_run *r, char *const names[], size_t nnames)
{
	char err[512];
	size_t bad = 0;
	int ret;

	ret = snapshot_read_file(r->o.from, &r->host, err, sizeof(err));
	if (ret < 0) {
		fail(r, "cannot read snapshot %s: %s", r->o.from, err[0] ? err : strerror(-ret));
		return ret;
	}
	ret = snapshot_select(&r->host, names, nnames, &bad);
	if (ret == -ENODEV)
		fail(r, "snapshot %s has no interface %s", r->o.from, names[bad]);
	else if (ret < 0)
		fail(r, "cannot read snapshot %s: %s", r->o.from, strerror(-ret));
	if (ret < 0)
		return ret;
	plan_init(&r->plan, &r->o.plan);
	ret = plan_build(&r->plan, &r->host, nnames > 0);
	if (ret < 0) {
		fail(r, "cannot build the plan: %s", strerror(-ret));
		return ret;
	}
	/* The snapshot's values as "before": a step already done there is left out. */
	for (size_t i = 0; i < r->plan.nsteps; i++) {
		struct plan_step *s = &r->plan.steps[i];
		const struct plan_target *t = s->target >= 0 ? &r->plan.targets[s->target] : NULL;

		if (knob_from_host(&s->knob, &r->host, s->before, sizeof(s->before)) < 0)
			snprintf(s->before, sizeof(s->before), "unknown");
		if (s->status == STEP_PLANNED && strcmp(s->before, "unknown") &&
		    plan_value_equal(&s->knob, s->before, s->after, t ? t->ifc : NULL))
			s->status = STEP_SAME;
	}
	return 0;
}

int fix_run_plan(struct fix_run *r, char *const names[], size_t nnames)
{
	size_t bad = 0;
	int ret;

	if (r->o.from)
		return plan_snapshot(r, names, nnames);
	ret = host_read(&r->host, &host_default_paths, names, nnames, &bad);
	if (ret == -ENODEV) {
		fail(r, "cannot find interface %s: %s", names[bad], strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot read the interfaces: %s", strerror(-ret));
		return ret;
	}
	assume_available(&r->host);
	r->named = nnames > 0;
	return make_plan(r, nnames ? names[0] : NULL);
}

static int load_journal(struct fix_run *r)
{
	char err[512];
	int ret;

	ret = apply_state_path(&r->env, "journal", r->journal_path, sizeof(r->journal_path));
	if (!ret)
		ret = apply_lock(&r->env, r->o.apply_persisted, &r->lockfd);
	if (ret == -EBUSY) {
		fail(r, "another fix or undo is running on %s (a --try waiting for confirmation?)",
		     r->env.state_dir);
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot use the state directory %s: %s; nothing was changed",
		     r->env.state_dir, strerror(-ret));
		return ret;
	}
	ret = journal_read_file(r->journal_path, &r->journal, err, sizeof(err));
	r->journal_existed = ret == 0;
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		fail(r, "cannot read the journal: %s; nothing was changed (the journal is kept)",
		     err[0] ? err : strerror(-ret));
	return ret;
}

static void failed_message(struct fix_run *r, size_t i, int err, int rollback_err)
{
	const struct plan_step *s = &r->plan.steps[i];
	char what[96];
	size_t undone = plan_count(&r->plan, STEP_ROLLED_BACK);

	knob_describe(&s->knob, what, sizeof(what));
	if (rollback_err)
		fail(r,
		     "cannot set %s to \"%s\": %s; rolling back failed (%s): run `%s undo` "
		     "(the journal %s has every value)",
		     what, s->after, s->msg[0] ? s->msg : strerror(-err), strerror(-rollback_err),
		     PROG_NAME, r->journal_path);
	else
		fail(r, "cannot set %s to \"%s\": %s; %s", what, s->after,
		     s->msg[0] ? s->msg : strerror(-err),
		     undone ? "the steps already applied were rolled back: nothing changed"
			    : "nothing was changed");
}

/*
 * After the kernel refused step `failed` with ENOENT: when that step names qdisc kinds
 * the kernel could not load (fallback.h), count them as missing and plan again, the
 * same host less those kinds. 1: a new plan is ready; 0: nothing to fall back from;
 * -errno: the new plan cannot be made (fail() said why).
 */
static int fall_back(struct fix_run *r, size_t failed)
{
	const struct plan_step *s = &r->plan.steps[failed];
	char names[64];
	int ret;

	if (s->knob.kind != KNOB_ROOT_QDISC &&
	    !(s->knob.kind == KNOB_SYSCTL && !strcmp(s->knob.name, "net.core.default_qdisc")))
		return 0;
	if (!fallback_mark(&r->host, &host_default_paths, s->after, names, sizeof(names)))
		return 0;
	note(r,
	     "this kernel lists %s but cannot load it (%s): everything was put back; "
	     "planning again without it",
	     names, s->msg[0] ? s->msg : strerror(-s->err));
	if (r->fell_back[0] && strlen(r->fell_back) + 1 < sizeof(r->fell_back))
		strcat(r->fell_back, " ");
	if (strlen(r->fell_back) + strlen(names) < sizeof(r->fell_back))
		strcat(r->fell_back, names);
	plan_free(&r->plan);
	ret = make_plan(r, NULL);
	return ret < 0 ? ret : 1;
}

int fix_run_apply(struct fix_run *r)
{
	size_t failed;
	int ret, rollback_err, fb = 0;

	r->result = "failed";
	ret = load_journal(r);
	if (ret < 0)
		return ret;
	ret = journal_copy(&r->before_run, &r->journal);
	if (ret < 0) {
		fail(r, "%s", strerror(-ret));
		return ret;
	}
	for (unsigned tries = 0;; tries++) {
		ret = apply_plan(&r->plan, &r->journal, r->journal_existed, &r->env, &failed,
				 &rollback_err);
		if (ret != -ENOENT || failed == SIZE_MAX || rollback_err || r->o.apply_persisted ||
		    tries == FIX_MAX_FALLBACKS)
			break;
		fb = fall_back(r, failed);
		if (fb <= 0)
			break;
	}
	if (fb < 0)
		return fb;
	if (ret < 0 && failed == SIZE_MAX) {
		fail(r, "cannot write the journal %s: %s; nothing was changed", r->journal_path,
		     strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		failed_message(r, failed, ret, rollback_err);
		return ret;
	}
	r->result = "applied";
	return 0;
}

int fix_run_trial_wait(struct fix_run *r, int key_fd, volatile sig_atomic_t *stop,
		       void (*tick)(unsigned left, void *arg), void *arg)
{
	uint64_t start = mono_ns();
	int ret = apply_wait_confirm(&r->env, r->o.try_seconds, key_fd, stop, tick, arg);

	r->try_confirmed = ret == 1;
	r->trial_signal = stop ? *stop : 0;
	r->trial_ns = mono_ns() - start;
	return ret;
}

int fix_run_trial_undo(struct fix_run *r)
{
	int ret =
	    apply_rollback(&r->plan, &r->journal, &r->before_run, r->journal_existed, &r->env);

	if (ret < 0) {
		fail(r, "not confirmed, and undoing it failed: %s; run `%s undo%s%s`",
		     strerror(-ret), PROG_NAME, r->o.state_dir ? " --state-dir " : "",
		     r->o.state_dir ? r->o.state_dir : "");
		return ret;
	}
	/* Ended by a signal (prove ending its trial, a Ctrl-C): say so, not a timeout. */
	if (r->trial_signal)
		fail(r, "ended after %.0f s by %s, not confirmed: everything was put back",
		     (double)r->trial_ns / 1e9, strsignal(r->trial_signal));
	else
		fail(r, "not confirmed within %u s: everything was put back", r->o.try_seconds);
	r->result = "rolled-back";
	return -ETIMEDOUT;
}

int fix_run_persist(struct fix_run *r)
{
	char exe[PATH_MAX], err[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret = 0;

	if (n < 0) {
		ret = -errno;
		fail(r, "cannot find this program's path for the unit: %s", strerror(-ret));
		return ret;
	}
	exe[n] = '\0';
	for (size_t i = 0; i < r->plan.ntargets && !ret; i++) {
		if (r->plan.targets[i].skipped || r->plan.targets[i].refused)
			continue;
		ret = persist_install(r->o.root ? r->o.root : "/", &r->plan, (int)i, exe,
				      &r->persisted, err, sizeof(err));
		if (ret < 0)
			fail(r, "cannot persist the setup of %s: %s", r->plan.targets[i].name, err);
	}
	return ret;
}

int fix_run_confirm(const struct apply_env *env, long *pid)
{
	char path[APPLY_PATH_MAX], err[512];
	struct journal j = {0};
	int ret;

	*pid = 0;
	ret = apply_state_path(env, "journal", path, sizeof(path));
	if (!ret)
		ret = journal_read_file(path, &j, err, sizeof(err));
	*pid = j.pid;
	journal_free(&j);
	if (ret < 0 || *pid <= 0 || (kill((pid_t)*pid, 0) < 0 && errno == ESRCH))
		return -ESRCH;
	return apply_confirm(env);
}

void fix_run_free(struct fix_run *r)
{
	apply_unlock(r->lockfd);
	r->lockfd = -1;
	journal_free(&r->journal);
	journal_free(&r->before_run);
	plan_free(&r->plan);
	host_free(&r->host);
}
