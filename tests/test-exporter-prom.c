/* SPDX-License-Identifier: MIT */
/*
 * test-exporter-prom.c - src/exporter/prom.c, the text format writer, and
 * src/exporter/metrics.c on hand-made interfaces: escaping, types, one HELP and TYPE
 * per family with its samples together, numbers, and what is left out.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/policy.h"
#include "exporter/metrics.h"
#include "exporter/prom.h"
#include "harness.h"

static const struct prom_family drops = {"t_drops_total", PROM_COUNTER, "Drops."};
static const struct prom_family backlog = {"t_backlog_bytes", PROM_GAUGE, "Backlog."};

static char *finish(struct prom *w, int *r)
{
	char *out = NULL;
	size_t len = 0;

	*r = prom_finish(w, &out, &len);
	if (*r == 0 && strlen(out) != len) {
		free(out);
		return NULL;
	}
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

TEST(one_help_and_type_per_family_with_its_samples_together)
{
	struct prom *w = prom_new();
	struct prom_label a[1] = {{"device", "a"}}, b[1] = {{"device", "b"}};
	char *out;
	int r;

	REQUIRE(w);
	/* interleaved, as a walk over interfaces adds them */
	prom_add_u64(w, &drops, a, 1, 1);
	prom_add_u64(w, &backlog, a, 1, 2);
	prom_add_u64(w, &drops, b, 1, 3);
	prom_add_u64(w, &backlog, b, 1, 4);
	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	REQUIRE(out);
	CHECK_STR(out, "# HELP t_drops_total Drops.\n"
		       "# TYPE t_drops_total counter\n"
		       "t_drops_total{device=\"a\"} 1\n"
		       "t_drops_total{device=\"b\"} 3\n"
		       "# HELP t_backlog_bytes Backlog.\n"
		       "# TYPE t_backlog_bytes gauge\n"
		       "t_backlog_bytes{device=\"a\"} 2\n"
		       "t_backlog_bytes{device=\"b\"} 4\n");
	free(out);
	prom_free(w);
}

TEST(label_values_escape_backslash_quote_and_newline)
{
	struct prom *w = prom_new();
	struct prom_label l[2] = {{"device", "a\\b\"c\nd"}, {"x", ""}};
	char *out;
	int r;

	prom_add_u64(w, &drops, l, 2, 0);
	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	CHECK(strstr(out, "t_drops_total{device=\"a\\\\b\\\"c\\nd\",x=\"\"} 0\n") != NULL);
	free(out);
	prom_free(w);
}

TEST(help_escapes_backslash_and_newline_but_not_quotes)
{
	static const struct prom_family f = {"t_help", PROM_GAUGE, "a \"b\" c\\d\ne"};
	struct prom *w = prom_new();
	char *out;
	int r;

	prom_add_u64(w, &f, NULL, 0, 7);
	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	CHECK_STR(out, "# HELP t_help a \"b\" c\\\\d\\ne\n# TYPE t_help gauge\nt_help 7\n");
	free(out);
	prom_free(w);
}

TEST(integers_are_exact_and_doubles_read_back)
{
	struct prom *w = prom_new();
	struct prom_label l[1] = {{"k", "v"}};
	char *out;
	int r;

	prom_add_u64(w, &drops, l, 1, UINT64_MAX);
	prom_add_double(w, &backlog, NULL, 0, 0.1);
	prom_add_double(w, &backlog, l, 1, 1.0 / 3.0);
	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	CHECK(strstr(out, "t_drops_total{k=\"v\"} 18446744073709551615\n") != NULL);
	CHECK(strstr(out, "t_backlog_bytes 0.1\n") != NULL);
	CHECK(strstr(out, "t_backlog_bytes{k=\"v\"} 0.33333333333333331\n") != NULL);
	free(out);
	prom_free(w);
}

TEST(nan_and_infinities_are_spelled_as_prometheus_reads_them)
{
	struct prom *w = prom_new();
	char *out;
	int r;

	prom_add_double(w, &backlog, NULL, 0, NAN);
	prom_add_double(w, &backlog, NULL, 0, INFINITY);
	prom_add_double(w, &backlog, NULL, 0, -INFINITY);
	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	CHECK(strstr(out, "t_backlog_bytes NaN\nt_backlog_bytes +Inf\nt_backlog_bytes -Inf\n"));
	free(out);
	prom_free(w);
}

TEST(bad_names_and_a_type_clash_fail_the_whole_exposition)
{
	static const struct prom_family bad = {"9starts_with_digit", PROM_GAUGE, ""};
	static const struct prom_family clash = {"t_drops_total", PROM_GAUGE, "other"};
	struct prom_label l[1] = {{"__reserved", "x"}};
	struct prom *w;
	char *out;
	int r;

	w = prom_new();
	prom_add_u64(w, &bad, NULL, 0, 1);
	out = finish(w, &r);
	CHECK_EQ(r, -EINVAL);
	CHECK(out == NULL);
	prom_free(w);

	w = prom_new();
	prom_add_u64(w, &drops, NULL, 0, 1);
	prom_add_u64(w, &clash, NULL, 0, 1);
	out = finish(w, &r);
	CHECK_EQ(r, -EINVAL);
	prom_free(w);

	w = prom_new();
	prom_add_u64(w, &drops, l, 1, 1);
	out = finish(w, &r);
	CHECK_EQ(r, -EINVAL);
	prom_free(w);

	CHECK(prom_name_valid("a:b_c9"));
	CHECK(!prom_name_valid(""));
	CHECK(!prom_name_valid("a-b"));
	CHECK(prom_label_name_valid("device"));
	CHECK(!prom_label_name_valid("a:b"));
}

TEST(an_empty_exposition_is_empty_text)
{
	struct prom *w = prom_new();
	char *out;
	int r;

	out = finish(w, &r);
	REQUIRE_EQ(r, 0);
	CHECK_STR(out, "");
	free(out);
	prom_free(w);
}

/* ---- metrics.c on a hand-made host ---- */

static struct qdisc leaf(const char *kind, uint32_t handle, uint32_t parent, uint64_t bytes)
{
	struct qdisc q = {0};

	strcpy(q.kind, kind);
	q.handle = handle;
	q.parent = parent;
	q.stats.have = true;
	q.stats.bytes = bytes;
	q.stats.packets = bytes / 1000;
	q.stats.drops = 5;
	q.stats.backlog_bytes = 3000;
	q.xstats = (struct qdisc_xstats){-1, -1, -1, -1, -1, -1, -1, -1, -1};
	return q;
}

static char *collect(struct iface *ifc, size_t n)
{
	struct host h = {.ifaces = ifc, .n = n};
	struct metrics_context ctx = {.hz = 250, .scrapes = 3, .version = "9.9"};
	struct prom *w = prom_new();
	char *out = NULL;
	size_t len;

	metrics_collect(w, &h, &ctx);
	if (prom_finish(w, &out, &len) < 0)
		out = NULL;
	prom_free(w);
	return out;
}

TEST(children_come_with_their_parent_and_handle_as_tc_prints_them)
{
	struct qdisc kids[2], root;
	struct iface ifc = {.name = "v0",
			    .mtu = 1500,
			    .txqueuelen = 1000,
			    .speed_mbps = 100,
			    .duplex = IFACE_DUPLEX_FULL,
			    .tx_queues = 1};
	char *out;

	root = leaf("htb", 0x10000, 0xFFFFFFFFU, 1000000);
	kids[0] = leaf("pfifo", 0x100000, 0x10001, 600000);
	kids[1] = leaf("fq_codel", 0x200000, 0x10002, 400000);
	kids[1].xstats.ecn_marks = 42;
	root.children = kids;
	root.nchildren = 2;
	ifc.qdisc = &root;
	out = collect(&ifc, 1);
	REQUIRE(out);
	CHECK(strstr(out, "debloat_qdisc_bytes_total{device=\"v0\",kind=\"htb\",handle=\"1:\","
			  "parent=\"root\"} 1000000\n"));
	CHECK(strstr(out, "debloat_qdisc_bytes_total{device=\"v0\",kind=\"pfifo\",handle=\"10:\","
			  "parent=\"1:1\"} 600000\n"));
	CHECK(strstr(out, "debloat_qdisc_ecn_marks_total{device=\"v0\",kind=\"fq_codel\","
			  "handle=\"20:\",parent=\"1:2\"} 42\n"));
	/* the htb and pfifo have no ECN counter: no sample rather than a 0 */
	CHECK_EQ(count(out, "debloat_qdisc_ecn_marks_total{"), 1);
	CHECK_EQ(count(out, "# TYPE debloat_qdisc_bytes_total counter\n"), 1);
	CHECK(strstr(out, "debloat_interface_speed_bytes{device=\"v0\"} 12500000\n"));
	free(out);
}

TEST(unknown_speed_is_absent_and_an_ungraded_interface_has_no_grade)
{
	struct qdisc root = leaf("pfifo_fast", 0, 0xFFFFFFFFU, 0);
	struct iface ifc = {.name = "v1", .mtu = 1500, .txqueuelen = 1000, .tx_queues = 1};
	struct verdict v;
	char *out;

	/* a FIFO whose drain time cannot be told without the speed voids the grade */
	ifc.qdisc = &root;
	policy_iface(&ifc, NULL, &v);
	REQUIRE(!v.graded);
	out = collect(&ifc, 1);
	REQUIRE(out);
	CHECK(!strstr(out, "debloat_interface_speed_bytes{"));
	CHECK(!strstr(out, "debloat_audit_grade{"));
	CHECK(!strstr(out, "debloat_audit_worst_delay_seconds{"));
	CHECK(
	    !strstr(out, "debloat_audit_finding_delay_seconds{device=\"v1\",code=\"fifo-qdisc\"}"));
	CHECK(strstr(out, "debloat_audit_finding_info{device=\"v1\",code=\"fifo-qdisc\","));
	CHECK(strstr(out, "debloat_interface_txqueuelen_packets{device=\"v1\"} 1000\n"));
	free(out);
}

TEST(a_fifo_at_100_mbit_is_graded_with_its_finding_delay_in_seconds)
{
	struct qdisc root = leaf("pfifo_fast", 0, 0xFFFFFFFFU, 0);
	struct iface ifc = {.name = "e0",
			    .mtu = 1500,
			    .txqueuelen = 1000,
			    .speed_mbps = 100,
			    .duplex = IFACE_DUPLEX_FULL,
			    .tx_queues = 1,
			    .physical = true};
	struct verdict v;
	char *out, want[160];

	strcpy(ifc.kind, "physical");
	ifc.qdisc = &root;
	policy_iface(&ifc, NULL, &v);
	REQUIRE(v.graded);
	out = collect(&ifc, 1);
	REQUIRE(out);
	snprintf(want, sizeof(want), "debloat_audit_grade{device=\"e0\",grade=\"%s\"} %d\n",
		 grade_name(v.grade), (int)v.grade);
	CHECK(strstr(out, want));
	CHECK(
	    strstr(out, "debloat_audit_finding_delay_seconds{device=\"e0\",code=\"fifo-qdisc\"} "));
	CHECK(strstr(out, "debloat_audit_finding_info{device=\"e0\",code=\"fifo-qdisc\","));
	free(out);
}

TEST(bql_stall_max_is_converted_from_jiffies_with_hz)
{
	struct bql_queue q = {.queue = 2,
			      .present = true,
			      .limit = 3028,
			      .limit_min = 0,
			      .limit_max = 1879048192,
			      .inflight = 1514,
			      .hold_time_ms = 1000,
			      .stall_thrs_ms = 0,
			      .stall_cnt = 4,
			      .stall_max_jiffies = 25};
	struct iface ifc = {.name = "e1", .bql = &q, .nbql = 1};
	char *out;

	out = collect(&ifc, 1);
	REQUIRE(out);
	CHECK(strstr(out, "debloat_bql_inflight_bytes{device=\"e1\",queue=\"tx-2\"} 1514\n"));
	CHECK(strstr(out, "debloat_bql_stalls_total{device=\"e1\",queue=\"tx-2\"} 4\n"));
	CHECK(strstr(out, "debloat_bql_stall_max_seconds{device=\"e1\",queue=\"tx-2\"} 0.1\n"));
	CHECK(strstr(out, "debloat_bql_hold_time_seconds{device=\"e1\",queue=\"tx-2\"} 1\n"));
	free(out);
}

TEST(every_family_in_the_table_has_a_valid_name_and_counters_end_in_total)
{
	for (size_t i = 0; i < metrics_nfamilies; i++) {
		const struct prom_family *f = metrics_families[i];
		size_t n = strlen(f->name);
		bool total = n > 6 && !strcmp(f->name + n - 6, "_total");

		CHECK(prom_name_valid(f->name));
		CHECK(!strncmp(f->name, "debloat_", 8));
		CHECK_EQ(total, f->type == PROM_COUNTER);
		CHECK(f->help && *f->help);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(f->name, metrics_families[j]->name));
	}
}

TEST(fix_journal_changes_count_begun_and_applied_steps_of_the_device)
{
	struct iface ifc[2] = {{.name = "e0"}, {.name = "e1"}};
	struct host h = {.ifaces = ifc, .n = 2};
	struct knob k = {.kind = KNOB_TXQUEUELEN, .ifname = "e0"};
	struct metrics_context ctx = {.version = "1"};
	struct journal j;
	struct prom *w;
	char *out = NULL;
	size_t len;

	journal_init(&j);
	REQUIRE_EQ(journal_add(&j, &k, "1000", "100", "", NULL), 0);
	k.kind = KNOB_ROOT_QDISC;
	REQUIRE_EQ(journal_add(&j, &k, "default", "pfifo limit 100", "", NULL), 0);
	k.kind = KNOB_RING_TX;
	REQUIRE_EQ(journal_add(&j, &k, "256", "64", "", NULL), 0);
	j.steps[0].state = JOURNAL_APPLIED;
	j.steps[1].state = JOURNAL_BEGUN;
	/* steps[2] stays planned: it touched nothing */
	ctx.journal = &j;
	w = prom_new();
	metrics_collect(w, &h, &ctx);
	REQUIRE_EQ(prom_finish(w, &out, &len), 0);
	CHECK(strstr(out, "debloat_fix_journal_changes{device=\"e0\"} 2\n"));
	CHECK(strstr(out, "debloat_fix_journal_changes{device=\"e1\"} 0\n"));
	CHECK(strstr(out, "debloat_fix_journal_valid 1\n"));
	free(out);
	prom_free(w);

	/* unreadable: no counts, valid 0 */
	ctx.journal = NULL;
	ctx.journal_err = -EINVAL;
	w = prom_new();
	metrics_collect(w, &h, &ctx);
	REQUIRE_EQ(prom_finish(w, &out, &len), 0);
	CHECK(!strstr(out, "debloat_fix_journal_changes{"));
	CHECK(strstr(out, "debloat_fix_journal_valid 0\n"));
	free(out);
	prom_free(w);
	journal_free(&j);
}
