/* SPDX-License-Identifier: MIT */
/*
 * test-bqlview.c - the live BQL view (bqlview.c and bql.c's watch) over a fake /sys in a
 * temp directory: which interfaces are chosen, values that change between samples,
 * counter deltas, pre-6.9 kernels without stall files, an interface that goes away,
 * and the three layouts (line, JSON line, table).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/bqlview.h"
#include "base/json.h"
#include "harness.h"

static char root[64];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

static void putf(const char *ifname, const char *file, const char *content)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/net/%s/%s", ifname, file);
	put(rel, content);
}

static void put_queue(const char *ifname, unsigned q, const char *limit, const char *inflight,
		      bool stall)
{
	static const char *const files[] = {"limit_min", "limit_max", "hold_time"};
	static const char *const values[] = {"0\n", "1879048192\n", "1000\n"};
	char rel[256];

	snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/limit", q);
	putf(ifname, rel, limit);
	snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/inflight", q);
	putf(ifname, rel, inflight);
	for (size_t i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/%s", q, files[i]);
		putf(ifname, rel, values[i]);
	}
	if (stall) {
		snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/stall_thrs", q);
		putf(ifname, rel, "0\n");
		snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/stall_cnt", q);
		putf(ifname, rel, "2\n");
		snprintf(rel, sizeof(rel), "queues/tx-%u/byte_queue_limits/stall_max", q);
		putf(ifname, rel, "7\n");
	}
}

static void put_stats(const char *ifname, const char *bytes, const char *packets)
{
	putf(ifname, "statistics/tx_bytes", bytes);
	putf(ifname, "statistics/tx_packets", packets);
}

/*
 * eth0 (ifindex 2): two queues, stall files, counters. veth0 (3): queues without BQL.
 * lo (1): no queues at all. eth1 (4): one queue, no stall files (pre-6.9).
 */
static void make_root(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return;
	}
	snprintf(root, sizeof(root), "/tmp/test-bqlview-XXXXXX");
	if (!mkdtemp(root)) {
		root[0] = '\0';
		return;
	}
	putf("lo", "ifindex", "1\n");
	putf("eth0", "ifindex", "2\n");
	put_queue("eth0", 1, "3028\n", "1514\n", true);
	put_queue("eth0", 0, "1514\n", "0\n", true);
	put_stats("eth0", "1000\n", "10\n");
	putf("veth0", "ifindex", "3\n");
	putf("veth0", "queues/tx-0/xps_cpus", "0\n");
	putf("eth1", "ifindex", "4\n");
	put_queue("eth1", 0, "0\n", "0\n", false);
	put_stats("eth1", "0\n", "0\n");
}

static char *render(const struct bqlview *v, enum bqlview_style style)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer *p;

	if (!f)
		return NULL;
	p = print_new(f, style == BQLVIEW_JSON ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (p) {
		if (style == BQLVIEW_JSON)
			print_set_compact(p);
		bqlview_print(v, p, style);
		print_finish(p);
		print_free(p);
	}
	fclose(f);
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

TEST(open_one_reads_queues_in_order)
{
	struct bqlview v = {0};
	const char *gone = NULL;

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, "eth0"), 0);
	REQUIRE_EQ(v.n, 1);
	CHECK_STR(v.ifaces[0].name, "eth0");
	REQUIRE_EQ(v.ifaces[0].watch.n, 2);
	REQUIRE_EQ(bqlview_sample(&v, 1000000000, 1700000000123, &gone), 0);
	CHECK_EQ(v.ifaces[0].queues[0].queue, 0);
	CHECK_EQ(v.ifaces[0].queues[0].limit, 1514);
	CHECK_EQ(v.ifaces[0].queues[1].queue, 1);
	CHECK_EQ(v.ifaces[0].queues[1].inflight, 1514);
	CHECK_EQ(v.ifaces[0].queues[1].limit_max, 1879048192);
	CHECK_EQ(v.ifaces[0].queues[1].stall_cnt, 2);
	CHECK_EQ(v.ifaces[0].queues[1].stall_max_jiffies, 7);
	CHECK_EQ(v.ifaces[0].tx_bytes, 1000);
	CHECK_EQ(v.ifaces[0].tx_bytes_delta, -1); /* no previous sample */
	CHECK_EQ(v.samples, 1);
	bqlview_close(&v);
}

TEST(open_errors_and_output_untouched)
{
	struct bqlview v = {.n = 99};

	make_root();
	CHECK_EQ(bqlview_open(&v, root, "nosuch0"), -ENODEV);
	CHECK_EQ(bqlview_open(&v, root, "veth0"), -EOPNOTSUPP);
	CHECK_EQ(bqlview_open(&v, root, "lo"), -EOPNOTSUPP);
	CHECK_EQ(bqlview_open(&v, root, "../eth0"), -ENODEV);
	CHECK_EQ(v.n, 99);
}

TEST(open_all_skips_interfaces_without_bql_in_ifindex_order)
{
	struct bqlview v = {0};

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, NULL), 0);
	REQUIRE_EQ(v.n, 2);
	CHECK_STR(v.ifaces[0].name, "eth0");
	CHECK_STR(v.ifaces[1].name, "eth1");
	bqlview_close(&v);
}

TEST(open_all_without_any_bql_fails)
{
	struct bqlview v = {0};
	char cmd[256];

	make_root();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/class/net/eth0' '%s/class/net/eth1'", root, root);
	REQUIRE_EQ(system(cmd), 0);
	CHECK_EQ(bqlview_open(&v, root, NULL), -EOPNOTSUPP);
}

TEST(changes_between_samples_and_deltas)
{
	struct bqlview v = {0};
	const char *gone = NULL;

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, "eth0"), 0);
	REQUIRE_EQ(bqlview_sample(&v, 1000000000, 1700000000000, &gone), 0);
	put_queue("eth0", 0, "4542\n", "3028\n", true);
	put_stats("eth0", "4000\n", "12\n");
	REQUIRE_EQ(bqlview_sample(&v, 1050000000, 1700000000050, &gone), 0);
	CHECK_EQ(v.ifaces[0].queues[0].limit, 4542);
	CHECK_EQ(v.ifaces[0].queues[0].inflight, 3028);
	CHECK_EQ(v.ifaces[0].tx_bytes_delta, 3000);
	CHECK_EQ(v.ifaces[0].tx_packets_delta, 2);
	CHECK_EQ(v.elapsed_us, 50000);
	/* A counter that went backwards was reset: no delta rather than a huge one. */
	put_stats("eth0", "10\n", "1\n");
	REQUIRE_EQ(bqlview_sample(&v, 1100000000, 1700000000100, &gone), 0);
	CHECK_EQ(v.ifaces[0].tx_bytes_delta, -1);
	CHECK_EQ(v.samples, 3);
	bqlview_close(&v);
}

TEST(interface_going_away_is_enodev)
{
	struct bqlview v = {0};
	const char *gone = NULL;
	char cmd[256];

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, "eth0"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/class/net/eth0'", root);
	REQUIRE_EQ(system(cmd), 0);
	CHECK_EQ(bqlview_sample(&v, 1, 1, &gone), -ENODEV);
	CHECK(gone && !strcmp(gone, "eth0"));
	bqlview_close(&v);
}

TEST(lines_one_per_queue_raw_numbers)
{
	struct bqlview v = {0};
	const char *gone = NULL;
	char *out;

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, NULL), 0);
	REQUIRE_EQ(bqlview_sample(&v, 1000000000, 1700000000123, &gone), 0);
	out = render(&v, BQLVIEW_LINES);
	REQUIRE(out);
	CHECK_EQ(count_lines(out), 3);
	CHECK(strstr(out, "1700000000.123 eth0 tx-0 limit 1514 limit_min 0 limit_max 1879048192 "
			  "inflight 0 hold_time_ms 1000 stall_thrs_ms 0 stall_cnt 2 "
			  "stall_max_jiffies 7 tx_bytes_delta - tx_packets_delta -\n"));
	/* eth1 has no stall files: the keys are left out, not shown as unknown. */
	CHECK(strstr(out, "1700000000.123 eth1 tx-0 limit 0 limit_min 0 limit_max 1879048192 "
			  "inflight 0 hold_time_ms 1000 tx_bytes_delta - tx_packets_delta -\n"));
	free(out);
	bqlview_close(&v);
}

TEST(json_is_one_line_that_parses)
{
	struct bqlview v = {0};
	const char *gone = NULL;
	struct json_error err;
	struct jval *doc = NULL;
	char *out;

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, "eth0"), 0);
	v.interval_ms = 50;
	REQUIRE_EQ(bqlview_sample(&v, 1000000000, 1700000000000, &gone), 0);
	put_stats("eth0", "2514\n", "11\n");
	REQUIRE_EQ(bqlview_sample(&v, 1050000000, 1700000000050, &gone), 0);
	out = render(&v, BQLVIEW_JSON);
	REQUIRE(out);
	CHECK_EQ(count_lines(out), 1);
	CHECK_EQ(json_parse(out, strlen(out), &doc, &err), 0);
	json_free(doc);
	CHECK(strstr(out, "\"sample\":2"));
	CHECK(strstr(out, "\"interval_ms\":50"));
	CHECK(strstr(out, "\"elapsed_us\":50000"));
	CHECK(strstr(out, "\"tx_bytes_delta\":1514"));
	CHECK(strstr(out, "\"tx_packets_delta\":1"));
	CHECK(strstr(out, "\"queue\":1,\"limit\":3028"));
	CHECK(strstr(out, "\"stall_max_jiffies\":7"));
	free(out);
	bqlview_close(&v);
}

TEST(table_redraws_from_home_and_clears_leftovers)
{
	struct bqlview v = {0};
	const char *gone = NULL;
	char *first, *second;

	make_root();
	REQUIRE_EQ(bqlview_open(&v, root, "eth0"), 0);
	v.interval_ms = 1000;
	REQUIRE_EQ(bqlview_sample(&v, 1000000000, 1700000000000, &gone), 0);
	first = render(&v, BQLVIEW_TABLE);
	put_stats("eth0", "126000\n", "110\n");
	REQUIRE_EQ(bqlview_sample(&v, 2000000000, 1700000001000, &gone), 0);
	second = render(&v, BQLVIEW_TABLE);
	REQUIRE(first && second);
	CHECK(!strncmp(first, "\033[?25l\033[2J\033[H", 13)); /* hide cursor, clear, home */
	CHECK(!strncmp(second, "\033[H", 3));		      /* later: home only */
	CHECK(strstr(second, "\033[J"));
	CHECK(strstr(second, "LIMIT_MAX"));
	CHECK(strstr(second, "STALL_CNT"));
	CHECK(strstr(second, "1792MiB"));
	CHECK(strstr(second, "1Mbit")); /* 125000 bytes in 1 s */
	CHECK(strstr(second, "100"));	/* packets per second */
	CHECK_EQ(count_lines(second), 2 + 2 + 1);
	free(first);
	free(second);
	bqlview_close(&v);
}
