/* SPDX-License-Identifier: MIT */
/* test-model.c - making disciplines from tc-style specs: the registry and its errors. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "debloat/model.h"
#include "harness.h"

TEST(every_kind_is_registered_once)
{
	const char *want[] = {"pfifo_fast", "pfifo", "bfifo", "codel", "fq_codel", "fq", "shaper"};
	int n = 0;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct db_qdisc_ops *ops = db_qdisc_find(want[i]);
		if (CHECK(ops != NULL))
			CHECK_STR(ops->kind, want[i]);
	}
	while (db_qdisc_kinds[n])
		n++;
	CHECK_EQ(n, 7);
	CHECK(db_qdisc_find("cake") == NULL);
}

TEST(defaults_format_and_parse_back_to_the_same_spec)
{
	for (int i = 0; db_qdisc_kinds[i]; i++) {
		struct db_qdisc *q = NULL, *again = NULL;
		char a[512], b[512], err[160] = "";

		REQUIRE_EQ(db_qdisc_create(db_qdisc_kinds[i]->kind, NULL, &q, err, sizeof(err)), 0);
		REQUIRE(db_qdisc_format(q, a, sizeof(a)) > 0);
		CHECK(strncmp(a, db_qdisc_kinds[i]->kind, strlen(db_qdisc_kinds[i]->kind)) == 0);
		if (CHECK_EQ(db_qdisc_create(a, NULL, &again, err, sizeof(err)), 0)) {
			db_qdisc_format(again, b, sizeof(b));
			CHECK_STR(b, a);
			db_qdisc_destroy(again);
		}
		db_qdisc_destroy(q);
	}
}

TEST(options_reach_the_discipline)
{
	struct db_qdisc *q = NULL;
	char buf[512], err[160] = "";

	REQUIRE_EQ(db_qdisc_create("fq_codel limit 800 quantum 300 target 5ms ecn", NULL, &q, err,
				   sizeof(err)),
		   0);
	db_qdisc_format(q, buf, sizeof(buf));
	CHECK(strstr(buf, "limit 800") != NULL);
	CHECK(strstr(buf, "quantum 300") != NULL);
	CHECK(strstr(buf, "target 5ms") != NULL);
	CHECK(strstr(buf, " ecn") != NULL);
	db_qdisc_destroy(q);
}

TEST(blanks_tabs_and_newlines_separate_words)
{
	struct db_qdisc *q = NULL;
	char err[160] = "";

	CHECK_EQ(db_qdisc_create("  pfifo\tlimit\n 10  ", NULL, &q, err, sizeof(err)), 0);
	db_qdisc_destroy(q);
}

TEST(misspelt_option_is_named_in_the_error)
{
	struct db_qdisc *q = (struct db_qdisc *)0x1;
	char err[160] = "";

	CHECK_EQ(db_qdisc_create("fq_codel limit 800 quantom 300", NULL, &q, err, sizeof(err)),
		 -EINVAL);
	CHECK_STR(err, "unknown option \"quantom\" for fq_codel");
	CHECK(q == (struct db_qdisc *)0x1); /* untouched on failure */
}

TEST(unknown_kind_lists_the_known_ones)
{
	struct db_qdisc *q = NULL;
	char err[160] = "";

	CHECK_EQ(db_qdisc_create("cake bandwidth 95mbit", NULL, &q, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "unknown qdisc \"cake\" (known: pfifo_fast, pfifo, bfifo, codel, fq_codel, "
		       "fq, shaper)");
	CHECK(q == NULL);
}

TEST(empty_huge_and_wordy_specs_are_refused)
{
	struct db_qdisc *q = NULL;
	char big[2048], err[160] = "";

	CHECK_EQ(db_qdisc_create("", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "empty qdisc spec");
	CHECK_EQ(db_qdisc_create(" \t ", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK_EQ(db_qdisc_create(NULL, NULL, &q, err, sizeof(err)), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_EQ(db_qdisc_create(big, NULL, &q, err, sizeof(err)), -EINVAL);
	strcpy(big, "pfifo");
	for (int i = 0; i < 40; i++)
		strcat(big, " limit 5");
	CHECK_EQ(db_qdisc_create(big, NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "qdisc spec has more than 64 words");
	CHECK(q == NULL);
}

TEST(errors_without_a_message_buffer_do_not_crash)
{
	struct db_qdisc *q = NULL;

	CHECK_EQ(db_qdisc_create("fq_codel quantom 1", NULL, &q, NULL, 0), -EINVAL);
	CHECK_EQ(db_qdisc_create("nosuch", NULL, &q, NULL, 0), -ENOENT);
}

TEST(every_kind_reports_named_xstats_through_the_ops_table)
{
	for (int i = 0; db_qdisc_kinds[i]; i++) {
		struct db_qdisc *q = NULL;
		struct db_stat st[32];
		char err[160] = "";
		int n;

		REQUIRE_EQ(db_qdisc_create(db_qdisc_kinds[i]->kind, NULL, &q, err, sizeof(err)), 0);
		n = db_qdisc_xstats(q, st, 32);
		if (!CHECK(n > 0))
			fprintf(stderr, "  %s reports no xstats\n", db_qdisc_kinds[i]->kind);
		for (int k = 0; k < n; k++)
			CHECK(st[k].name != NULL && st[k].name[0] != '\0');
		CHECK_EQ(db_qdisc_xstats(q, st, 0), 0);
		db_qdisc_destroy(q);
	}
}
