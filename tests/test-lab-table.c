/* SPDX-License-Identifier: MIT */
/*
 * test-lab-table.c - plot/lab-table.c (lc_print_runs), byte for byte: the
 * side-by-side table and its notes in text, the "runs" array in JSON, for a run whose
 * emulator fell behind, one that kept time without BQL and one that failed (and that
 * one alone), against
 * tests/fixtures/lab-table/ (HARNESS_WRITE_GOLDEN=1 writes them); and four and
 * six runs with sending-only rows against a width of 80 columns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "meter-fixture.h"
#include "plot/lab-table.h"
#include "plot/run-file.h"

#define NRUNS 3

static char *render(enum print_mode mode, bool none_worked)
{
	static struct run res[2];
	struct lc_run runs[NRUNS];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct printer *p;

	memset(runs, 0, sizeof(runs));
	memset(res, 0, sizeof(res));
	for (int i = 0; i < 2; i++) {
		if (fixture_rrul(&res[i].r) < 0 || summary_compute(&res[i].r, &res[i].s) < 0)
			return NULL;
		snprintf(runs[i].stem, sizeof(runs[i].stem), "%s",
			 i ? "bbb-fq_codel" : "bbb-stock");
		snprintf(runs[i].describe, sizeof(runs[i].describe), "BeagleBone Black, %s",
			 i ? "BQL and fq_codel" : "stock");
		runs[i].ok = true;
		runs[i].elapsed_s = 12.5 + i;
		runs[i].run = &res[i];
		runs[i].bql = i == 0;
		runs[i].bql_limit_p50 = i ? NAN : 3028;
		runs[i].bql_limit_max = i ? NAN : 6056;
		runs[i].ring_max = 64;
		runs[i].sched_p99_us = i ? 120 : 3100;
		runs[i].sched_bound_us = 246;
		runs[i].nstages = 2;
		snprintf(runs[i].stages[0].name, sizeof(runs[i].stages[0].name), "qdisc");
		runs[i].stages[0].drops = 7 * i;
		runs[i].stages[0].marks = i ? 40 : NAN;
		snprintf(runs[i].stages[1].name, sizeof(runs[i].stages[1].name),
			 i ? "switch" : "ring");
		runs[i].stages[1].drops = 2;
		runs[i].stages[1].marks = 0;
	}
	/* the second run measured less throughput and more latency than the first */
	res[1].s.download.sum_mbps /= 2;
	res[1].s.loaded.p50 *= 3;
	snprintf(runs[2].stem, sizeof(runs[2].stem), "broken");
	snprintf(runs[2].error, sizeof(runs[2].error), "lab: no such profile");
	runs[2].bql_limit_p50 = runs[2].bql_limit_max = runs[2].ring_max = NAN;
	runs[2].sched_p99_us = runs[2].sched_bound_us = NAN;

	f = open_memstream(&buf, &len);
	p = f ? print_new(f, mode) : NULL;
	if (p) {
		lc_print_runs(p, "/nonexistent-dir", none_worked ? runs + 2 : runs,
			      none_worked ? 1 : NRUNS, none_worked ? 1 : 0);
		if (print_finish(p) < 0) {
			free(buf);
			buf = NULL;
		}
	}
	print_free(p);
	if (f)
		fclose(f);
	for (int i = 0; i < 2; i++)
		result_free(&res[i].r);
	return buf;
}

TEST(text_is_pinned)
{
	char *got = render(PRINT_MODE_TEXT, false);

	CHECK_GOLDEN("tests/fixtures/lab-table", "runs.txt", got);
	free(got);
}

TEST(json_is_pinned)
{
	char *got = render(PRINT_MODE_JSON, false);

	CHECK_GOLDEN("tests/fixtures/lab-table", "runs.json", got);
	free(got);
}

/* No run worked: no table, no notes; the JSON still has the run. */
TEST(none_worked_is_pinned)
{
	char *got = render(PRINT_MODE_TEXT, true);

	CHECK_GOLDEN("tests/fixtures/lab-table", "none.txt", got);
	free(got);
	got = render(PRINT_MODE_JSON, true);
	CHECK_GOLDEN("tests/fixtures/lab-table", "none.json", got);
	free(got);
}

/* n runs of the seed's names (the longest stems it has), each with a sending-only run. */
static char *render_wide(size_t n)
{
	static const char *const stems[] = {"bbb-stock",	"bbb-bql",	   "bbb-bql-fq",
					    "bbb-bql-fq_codel", "wandboard-fixed", "rpi3bplus-bql"};
	static struct run res[6];
	struct lc_run runs[6];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct printer *p;

	memset(runs, 0, sizeof(runs));
	memset(res, 0, sizeof(res));
	for (size_t i = 0; i < n; i++) {
		if (fixture_rrul(&res[i].r) < 0 || summary_compute(&res[i].r, &res[i].s) < 0)
			return NULL;
		snprintf(runs[i].stem, sizeof(runs[i].stem), "%s", stems[i]);
		runs[i].ok = true;
		runs[i].run = &res[i];
		runs[i].bql = i > 0;
		runs[i].bql_limit_p50 = 30272;
		runs[i].bql_limit_max = 30478;
		runs[i].ring_max = 512;
		runs[i].sched_p99_us = runs[i].sched_bound_us = NAN;
		runs[i].send_tried = runs[i].send_ok = true;
		runs[i].send_mbps = i == 1 ? 214.0 : 430.0;
		runs[i].send_loaded_p50 = 11.4 / (double)(i + 1);
		/* wide cells: five digits and a two-digit ratio */
		res[i].s.loaded.p50 *= (double)(i + 1) * 100;
	}
	f = open_memstream(&buf, &len);
	p = f ? print_new(f, PRINT_MODE_TEXT) : NULL;
	if (p) {
		lc_print_runs(p, "/nonexistent-dir", runs, n, 0);
		if (print_finish(p) < 0) {
			free(buf);
			buf = NULL;
		}
	}
	print_free(p);
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++)
		result_free(&res[i].r);
	return buf;
}

static size_t widest_line(const char *s)
{
	size_t most = 0;

	for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
		if ((size_t)(nl - s) > most)
			most = (size_t)(nl - s);
	return most;
}

#define HEAD4 "                       stock        bql            bql-fq         bql-fq_codel\n"

/* Four runs of the seed fit 80 columns; six go on in a second block, still within. */
TEST(wide_tables_fit_80_columns)
{
	char *got = render_wide(4);

	REQUIRE(got);

	CHECK(widest_line(got) <= 80);
	/* one block: every run's name on the first line, less the prefix all share */
	CHECK(strncmp(got, HEAD4, strlen(HEAD4)) == 0);
	CHECK(strstr(got, "\n\n") == NULL);
	CHECK(strstr(got, "each run's name less bbb- at the head") != NULL);
	/* the sending-only rows, with their ratio to the first run's */
	CHECK(strstr(got, "\nsending only Mbit/s  ") != NULL);
	CHECK(strstr(got, "214 (x0.50)") != NULL);
	CHECK(strstr(got, "\nsending only p50 ms  ") != NULL);
	free(got);

	got = render_wide(6);
	REQUIRE(got);
	CHECK(widest_line(got) <= 80);
	CHECK(strstr(got, "\n\n") != NULL); /* a second block */
	free(got);
}
