/* SPDX-License-Identifier: MIT */
/*
 * test-fix-apply.c - src/fix/apply.c without root: a plan of file-backed knobs (BQL
 * limit_max per TX queue, sysctls) applied to a private sysfs and /proc tree behind
 * a journal in a private state directory, then taken back three ways: a --try that
 * was not confirmed (apply_rollback), a step the kernel refuses halfway (the steps
 * before it rolled back), and `debloat undo` (undo_run from the journal on disk). The
 * files are the judge; tests/test-fix.sh does the same on real links as root.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fix/apply.h"
#include "fix/journal.h"
#include "fix/plan.h"
#include "harness.h"

static char tree[64];
static char sys_root[PATH_MAX], proc_root[PATH_MAX], state[PATH_MAX], journal_path[PATH_MAX];

#define BQL0   "sys/class/net/eth9/queues/tx-0/byte_queue_limits/limit_max"
#define BQL1   "sys/class/net/eth9/queues/tx-1/byte_queue_limits/limit_max"
#define ECN    "proc/sys/net/ipv4/tcp_ecn"
#define NOTSNT "proc/sys/net/ipv4/tcp_notsent_lowat"

static void write_text(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (char *p = path + strlen(tree) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0700);
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The file's first line without its newline; "" when unreadable. */
static const char *read_text(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* A fresh tree: eth9 with two TX queues, two sysctls, an empty state directory. */
static int make_tree(struct apply_env *env)
{
	snprintf(tree, sizeof(tree), "/tmp/test-fix-apply-XXXXXX");
	if (!mkdtemp(tree))
		return -errno;
	write_text(BQL0, "1879048192\n");
	write_text(BQL1, "1879048192\n");
	write_text(ECN, "2\n");
	write_text(NOTSNT, "4294967295\n");
	snprintf(sys_root, sizeof(sys_root), "%s/sys", tree);
	snprintf(proc_root, sizeof(proc_root), "%s/proc", tree);
	snprintf(state, sizeof(state), "%s/state", tree);
	snprintf(journal_path, sizeof(journal_path), "%s/journal", state);
	if (mkdir(state, 0700) < 0)
		return -errno;
	apply_env_init(env, state);
	env->knobs = (struct knob_env){.sysfs_root = sys_root, .proc_root = proc_root};
	env->crash_after = env->crash_before = env->fail_at = 0;
	return 0;
}

static void remove_tree(void)
{
	char cmd[128];

	if (tree[0] && !strncmp(tree, "/tmp/test-fix-apply-", 20)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		if (system(cmd) != 0)
			fprintf(stderr, "  could not remove %s\n", tree);
	}
	tree[0] = '\0';
}

/* The plan fix makes for eth9 without BQL in use, and two sysctls: four steps. */
static int make_plan(struct plan *p, const struct apply_env *env)
{
	struct knob bql = {.kind = KNOB_BQL_LIMIT_MAX, .ifname = "eth9"};
	struct knob ecn = {.kind = KNOB_SYSCTL, .name = "net.ipv4.tcp_ecn"};
	struct knob lowat = {.kind = KNOB_SYSCTL, .name = "net.ipv4.tcp_notsent_lowat"};
	size_t failed = 0;
	int t, r;

	plan_init(p, &(struct plan_options){0});
	t = plan_add_target(p, "eth9");
	if (t < 0)
		return t;
	bql.queue = 0;
	if ((r = plan_add_step(p, t, &bql, "3000", false, "BQL")) < 0)
		return r;
	bql.queue = 1;
	if ((r = plan_add_step(p, t, &bql, "3000", false, "BQL")) < 0)
		return r;
	if ((r = plan_add_step(p, -1, &ecn, "1", false, "ECN")) < 0)
		return r;
	if ((r = plan_add_step(p, -1, &lowat, "16384", false, "lowat")) < 0)
		return r;
	r = apply_read_befores(p, &env->knobs, &failed);
	if (r < 0)
		return r;
	plan_settle(p);
	return 0;
}

static bool tree_as_before(void)
{
	return !strcmp(read_text(BQL0), "1879048192") && !strcmp(read_text(BQL1), "1879048192") &&
	       !strcmp(read_text(ECN), "2") && !strcmp(read_text(NOTSNT), "4294967295");
}

static bool tree_as_fixed(void)
{
	return !strcmp(read_text(BQL0), "3000") && !strcmp(read_text(BQL1), "3000") &&
	       !strcmp(read_text(ECN), "1") && !strcmp(read_text(NOTSNT), "16384");
}

TEST(apply_writes_every_step_and_journals_it)
{
	struct apply_env env;
	struct plan p;
	struct journal j, on_disk;
	char err[256];
	size_t failed = 99;
	int rollback_err = 0;

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	CHECK_STR(p.steps[0].before, "1879048192");
	CHECK_STR(p.steps[2].before, "2");
	CHECK_EQ(plan_count(&p, STEP_PLANNED), 4);
	journal_init(&j);
	REQUIRE_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), 0);
	CHECK(tree_as_fixed());
	for (size_t i = 0; i < p.nsteps; i++)
		CHECK_STR(plan_status_name(p.steps[i].status), plan_status_name(STEP_APPLIED));
	/* The journal on disk has every step, applied, with its before. */
	journal_init(&on_disk);
	REQUIRE_EQ(journal_read_file(journal_path, &on_disk, err, sizeof(err)), 0);
	REQUIRE_EQ(on_disk.n, 4);
	for (size_t i = 0; i < on_disk.n; i++)
		CHECK_EQ(on_disk.steps[i].state, JOURNAL_APPLIED);
	CHECK_STR(on_disk.steps[0].before, "1879048192");
	CHECK_STR(on_disk.steps[3].knob.name, "net.ipv4.tcp_notsent_lowat");
	CHECK_STR(on_disk.steps[3].before, "4294967295");
	journal_free(&on_disk);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}

TEST(a_second_apply_of_the_same_plan_changes_nothing)
{
	struct apply_env env;
	struct plan p;
	struct journal j;
	size_t failed = 0;
	int rollback_err = 0;

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	journal_init(&j);
	REQUIRE_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), 0);
	plan_free(&p);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	CHECK_EQ(plan_count(&p, STEP_PLANNED), 0);
	CHECK_EQ(plan_count(&p, STEP_SAME), 4);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}

TEST(rollback_of_an_unconfirmed_try_restores_every_file_and_the_journal)
{
	struct apply_env env;
	struct plan p;
	struct journal j, before;
	size_t failed = 0;
	int rollback_err = 0;

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	journal_init(&j);
	journal_init(&before);
	REQUIRE_EQ(journal_copy(&before, &j), 0);
	REQUIRE_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), 0);
	REQUIRE(tree_as_fixed());
	CHECK_EQ(access(journal_path, F_OK), 0);
	CHECK_EQ(apply_rollback(&p, &j, &before, false, &env), 0);
	CHECK(tree_as_before());
	for (size_t i = 0; i < p.nsteps; i++)
		CHECK_STR(plan_status_name(p.steps[i].status), plan_status_name(STEP_ROLLED_BACK));
	/* There was no journal before the run: there is none after. */
	CHECK(access(journal_path, F_OK) != 0);
	journal_free(&before);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}

TEST(a_refused_step_rolls_back_the_steps_before_it)
{
	struct apply_env env;
	struct plan p;
	struct journal j;
	size_t failed = 99;
	int rollback_err = 0;

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	env.fail_at = 3; /* the kernel refuses the third step (EINVAL) */
	journal_init(&j);
	CHECK_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), -EINVAL);
	CHECK_EQ(failed, 2);
	CHECK_EQ(rollback_err, 0);
	CHECK(tree_as_before());
	CHECK_STR(plan_status_name(p.steps[0].status), plan_status_name(STEP_ROLLED_BACK));
	CHECK_STR(plan_status_name(p.steps[1].status), plan_status_name(STEP_ROLLED_BACK));
	CHECK_STR(plan_status_name(p.steps[2].status), plan_status_name(STEP_FAILED));
	CHECK_STR(plan_status_name(p.steps[3].status), plan_status_name(STEP_NOT_REACHED));
	CHECK(access(journal_path, F_OK) != 0);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}

TEST(undo_from_the_journal_on_disk_restores_sysctls_first)
{
	struct apply_env env;
	struct plan p;
	struct journal j, on_disk;
	struct undo_item *items = NULL;
	size_t nitems = 0, failed = 0;
	int rollback_err = 0;
	char err[256];

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	journal_init(&j);
	REQUIRE_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), 0);
	REQUIRE(tree_as_fixed());
	/* Someone changed one knob again since: undo still writes the before back. */
	write_text(BQL1, "6000\n");
	journal_init(&on_disk);
	REQUIRE_EQ(journal_read_file(journal_path, &on_disk, err, sizeof(err)), 0);
	CHECK_EQ(undo_run(&on_disk, journal_path, NULL, 0, &env, &items, &nitems), 0);
	CHECK(tree_as_before());
	REQUIRE_EQ(nitems, 4);
	/* Newest phase first: the sysctls, then BQL. */
	CHECK_EQ(items[0].step.knob.kind, KNOB_SYSCTL);
	CHECK_EQ(items[1].step.knob.kind, KNOB_SYSCTL);
	CHECK_EQ(items[3].step.knob.kind, KNOB_BQL_LIMIT_MAX);
	for (size_t i = 0; i < nitems; i++)
		CHECK_STR(undo_result_name(items[i].result), undo_result_name(UNDO_RESTORED));
	for (size_t i = 0; i < nitems; i++)
		if (items[i].step.knob.kind == KNOB_BQL_LIMIT_MAX && items[i].step.knob.queue == 1)
			CHECK_STR(items[i].current, "6000");
	/* The journal is gone once everything is restored. */
	CHECK(access(journal_path, F_OK) != 0);
	free(items);
	journal_free(&on_disk);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}

TEST(undo_keeps_a_step_whose_write_fails_in_the_journal)
{
	struct apply_env env;
	struct plan p;
	struct journal j, on_disk, left;
	struct undo_item *items = NULL;
	size_t nitems = 0, failed = 0;
	int rollback_err = 0;
	char err[256], path[PATH_MAX];

	REQUIRE_EQ(make_tree(&env), 0);
	REQUIRE_EQ(make_plan(&p, &env), 0);
	journal_init(&j);
	REQUIRE_EQ(apply_plan(&p, &j, false, &env, &failed, &rollback_err), 0);
	/* tcp_ecn becomes a directory: its write back fails. */
	snprintf(path, sizeof(path), "%s/%s", tree, ECN);
	REQUIRE_EQ(unlink(path), 0);
	REQUIRE_EQ(mkdir(path, 0700), 0);
	journal_init(&on_disk);
	REQUIRE_EQ(journal_read_file(journal_path, &on_disk, err, sizeof(err)), 0);
	CHECK_EQ(undo_run(&on_disk, journal_path, NULL, 0, &env, &items, &nitems), -EIO);
	CHECK_STR(read_text(BQL0), "1879048192");
	CHECK_STR(read_text(NOTSNT), "4294967295");
	journal_init(&left);
	REQUIRE_EQ(journal_read_file(journal_path, &left, err, sizeof(err)), 0);
	REQUIRE_EQ(left.n, 1);
	CHECK_STR(left.steps[0].knob.name, "net.ipv4.tcp_ecn");
	CHECK_STR(left.steps[0].before, "2");
	free(items);
	journal_free(&left);
	journal_free(&on_disk);
	journal_free(&j);
	plan_free(&p);
	remove_tree();
}
