/* SPDX-License-Identifier: MIT */
/*
 * test-fix-run.c - src/fix/fix-run.c without root: a plan for a board's snapshot
 * (every before "unknown"), the sentences it leaves for a snapshot or a saved setup
 * that is not there, and --confirm, which finds the run waiting by the journal's pid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fix/fix-run.h"
#include "fix/journal.h"
#include "harness.h"

static char board[512];

static const char *beaglebone(void)
{
	const char *dir = harness_source_dir("boards");

	if (!dir)
		return NULL;
	snprintf(board, sizeof(board), "%s/beaglebone-black.json", dir);
	return board;
}

TEST(plans_for_a_snapshot)
{
	struct fix_run *r = calloc(1, sizeof(*r));
	const char *file = beaglebone();

	REQUIRE(r && file);
	fix_run_init(r, &(struct fix_run_options){.from = file});
	REQUIRE_EQ(fix_run_plan(r, NULL, 0), 0);
	CHECK_STR(r->error, "");
	CHECK(r->plan.ntargets >= 1);
	CHECK(r->plan.nsteps >= 1);
	/* the befores are the snapshot's where it has them; a planned step changes one */
	size_t known = 0;
	for (size_t i = 0; i < r->plan.nsteps; i++) {
		const struct plan_step *s = &r->plan.steps[i];

		CHECK(s->before[0] != '\0');
		known += strcmp(s->before, "unknown") != 0;
		if (s->status == STEP_PLANNED)
			CHECK(strcmp(s->before, s->after) != 0);
	}
	CHECK(known > 0);
	fix_run_free(r);
	free(r);
}

TEST(says_why_a_plan_cannot_be_made)
{
	struct fix_run *r = calloc(1, sizeof(*r));
	char *nope[] = {"nope0"};
	const char *file = beaglebone();
	char want[600];

	REQUIRE(r && file);
	fix_run_init(r, &(struct fix_run_options){.from = file});
	CHECK_EQ(fix_run_plan(r, nope, 1), -ENODEV);
	snprintf(want, sizeof(want), "snapshot %s has no interface nope0", file);
	CHECK_STR(r->error, want);
	CHECK_STR(r->result, "failed");
	fix_run_free(r);

	memset(r, 0, sizeof(*r));
	fix_run_init(r, &(struct fix_run_options){.from = "/nonexistent/snapshot.json"});
	CHECK(fix_run_plan(r, NULL, 0) < 0);
	{
		static const char want_start[] =
		    "cannot read snapshot /nonexistent/snapshot.json: ";

		if (!CHECK(!strncmp(r->error, want_start, sizeof(want_start) - 1)))
			fprintf(stderr, "  error: %s\n", r->error);
	}
	fix_run_free(r);
	free(r);
}

TEST(nothing_saved_to_apply)
{
	struct fix_run *r = calloc(1, sizeof(*r));
	char *lo[] = {"lo"}, root[64], want[256];

	REQUIRE(r);
	snprintf(root, sizeof(root), "/tmp/dbt-fixrun-%d", (int)getpid());
	REQUIRE(mkdir(root, 0700) == 0);
	fix_run_init(r, &(struct fix_run_options){.root = root, .apply_persisted = true});
	CHECK_EQ(fix_run_plan(r, lo, 1), -ENOENT);
	snprintf(want, sizeof(want), "nothing saved for lo: no %s/etc/debloat/lo.conf", root);
	CHECK_STR(r->error, want);
	fix_run_free(r);
	free(r);
	rmdir(root);
}

TEST(confirms_only_a_run_that_waits)
{
	struct apply_env env;
	struct journal j;
	char dir[64], journal[128], confirm[128], buf[32] = {0};
	long pid = -1;
	pid_t child;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/dbt-fixrun-confirm-%d", (int)getpid());
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(confirm, sizeof(confirm), "%s/confirm", dir);
	REQUIRE(mkdir(dir, 0700) == 0);
	apply_env_init(&env, dir);

	CHECK_EQ(fix_run_confirm(&env, &pid), -ESRCH); /* no journal */
	CHECK(access(confirm, F_OK) < 0);

	child = fork(); /* a pid that has ended */
	REQUIRE(child >= 0);
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	journal_init(&j);
	j.pid = child;
	REQUIRE_EQ(journal_write_file(journal, &j), 0);
	CHECK_EQ(fix_run_confirm(&env, &pid), -ESRCH);
	CHECK(access(confirm, F_OK) < 0);

	j.pid = getpid(); /* a run that is alive */
	REQUIRE_EQ(journal_write_file(journal, &j), 0);
	CHECK_EQ(fix_run_confirm(&env, &pid), 0);
	CHECK_EQ(pid, getpid());
	f = fopen(confirm, "r");
	CHECK(f && fgets(buf, sizeof(buf), f));
	CHECK_STR(buf, "confirmed\n");
	if (f)
		fclose(f);
	journal_free(&j);
	unlink(confirm);
	unlink(journal);
	rmdir(dir);
}
