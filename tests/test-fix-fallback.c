/* SPDX-License-Identifier: MIT */
/*
 * test-fix-fallback.c - src/fix/fallback.c and avail_loaded_or_builtin(): which kinds
 * of a value the kernel refused count as missing, on a fake /sys and /lib/modules.
 * A kind whose module is loaded now or built in is never blamed; pfifo and pfifo_fast
 * never are; a kind already missing is not counted twice; words that are no kind
 * (rates, options, "mq") are ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fix/fallback.h"
#include "harness.h"
#include "host/avail.h"

static char root[64];
static char sysfs[128], modules[128];

static void mkdirs(const char *path)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "mkdir -p '%s'", path);
	if (system(buf) != 0)
		abort();
}

/* A tree: sch_htb loaded (in /sys/module), sch_fq_codel built in, the rest absent. */
static void make_tree(void)
{
	char path[256];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/dbt-fallback-%d", (int)getpid());
	snprintf(sysfs, sizeof(sysfs), "%s/sys", root);
	snprintf(modules, sizeof(modules), "%s/lib/modules", root);
	snprintf(path, sizeof(path), "%s/module/sch_htb", sysfs);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/6.1.0-test", modules);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/6.1.0-test/modules.builtin", modules);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs("kernel/net/sched/sch_fq_codel.ko\nkernel/net/sched/sch_mq.ko\n", f);
	fclose(f);
}

static void remove_tree(void)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "rm -rf '%s'", root);
	if (system(buf) != 0)
		abort();
}

static void host_with(struct host *h, enum qdisc_avail all)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->kernel_release, sizeof(h->kernel_release), "6.1.0-test");
	for (size_t k = 0; k < HOST_NQDISC_KINDS; k++) {
		h->qdisc_kinds[k].kind = avail_qdisc_kinds[k];
		h->qdisc_kinds[k].avail = all;
	}
}

TEST(loaded_or_builtin)
{
	struct host_paths paths = {.sysfs = sysfs, .modules = modules};

	make_tree();
	CHECK(avail_loaded_or_builtin(&paths, "6.1.0-test", "htb"));	  /* loaded */
	CHECK(avail_loaded_or_builtin(&paths, "6.1.0-test", "fq_codel")); /* built in */
	CHECK(avail_loaded_or_builtin(&paths, "6.1.0-test", "pfifo"));
	CHECK(!avail_loaded_or_builtin(&paths, "6.1.0-test", "cake"));
	CHECK(
	    !avail_loaded_or_builtin(&paths, "6.1.0-test", "fq")); /* sch_fq_codel is not sch_fq */
	CHECK(!avail_loaded_or_builtin(&paths, "6.9.9-other", "fq_codel")); /* no list */
	remove_tree();
}

TEST(marks_only_what_would_not_load)
{
	struct host_paths paths = {.sysfs = sysfs, .modules = modules};
	struct host h;
	char names[64];

	make_tree();
	host_with(&h, QDISC_AVAIL_YES);
	CHECK_EQ(fallback_mark(&h, &paths, "cake bandwidth 95mbit", names, sizeof(names)), 1);
	CHECK_STR(names, "cake");
	CHECK_EQ(avail_of(h.qdisc_kinds, HOST_NQDISC_KINDS, "cake"), QDISC_AVAIL_NO);
	CHECK_EQ(avail_of(h.qdisc_kinds, HOST_NQDISC_KINDS, "htb"), QDISC_AVAIL_YES);
	/* Once missing, not counted again: a new plan would not name it. */
	CHECK_EQ(fallback_mark(&h, &paths, "cake", names, sizeof(names)), 0);
	CHECK_STR(names, "");
	/* htb is loaded and fq_codel built in: a refusal of this is not theirs. */
	CHECK_EQ(
	    fallback_mark(&h, &paths, "htb 95mbit fq_codel limit 800 ecn", names, sizeof(names)),
	    0);
	/* A sysctl value, and two kinds at once. */
	CHECK_EQ(fallback_mark(&h, &paths, "fq", names, sizeof(names)), 1);
	CHECK_STR(names, "fq");
	host_with(&h, QDISC_AVAIL_UNKNOWN);
	CHECK_EQ(fallback_mark(&h, &paths, "mq  tbf\tcodel 5ms", names, sizeof(names)), 2);
	CHECK_STR(names, "tbf codel"); /* in the order the value names them */
	CHECK_EQ(fallback_mark(&h, &paths, "pfifo limit 100", names, sizeof(names)), 0);
	/* A buffer too short for the names still marks them, and stays a string. */
	host_with(&h, QDISC_AVAIL_YES);
	CHECK_EQ(fallback_mark(&h, &paths, "cake fq", names, 4), 2);
	CHECK(strlen(names) < 4);
	remove_tree();
}
