/* SPDX-License-Identifier: MIT */
/* test-report.c - meter/result-print.h: our JSON document has the keys docs/json.md promises. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "base/json.h"
#include "meter-fixture.h"
#include "meter/result-print.h"

TEST(json_contract_keys)
{
	static const char *const top[] = {"test",
					  "host",
					  "length_s",
					  "step_s",
					  "summary",
					  "series",
					  "label",
					  "cc",
					  "server_overloaded",
					  "client_cpu_saturated",
					  "unavailable"};
	static const char *const summary[] = {"download_mbps",
					      "upload_mbps",
					      "latency_idle_ms",
					      "latency_loaded_ms",
					      "induced_latency_ms",
					      "loss_pct",
					      "rpm",
					      "grade",
					      "flows",
					      "probes"};
	char path[] = "/tmp/test-report-XXXXXX";
	struct test_result r;
	struct summary s;
	struct jval *doc = NULL, *sum, *lat, *ser;
	const char *str;
	double d;
	int fd;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(result_write_json(path, &r, &s), 0);
	CHECK_EQ(json_read_file(path, 16 << 20, &doc, NULL), 0);
	unlink(path);
	REQUIRE(doc);
	for (size_t i = 0; i < sizeof(top) / sizeof(*top); i++)
		if (!json_get(doc, top[i]) && strcmp(top[i], "cc") && strcmp(top[i], "unavailable"))
			CHECK_STR(top[i], "a top-level key");
	sum = json_get(doc, "summary");
	for (size_t i = 0; i < sizeof(summary) / sizeof(*summary); i++)
		if (!json_get(sum, summary[i]))
			CHECK_STR(summary[i], "a key of summary");
	lat = json_get(sum, "latency_loaded_ms");
	CHECK_EQ(json_double_of(json_get(lat, "p50"), &d), 0);
	CHECK(d == 109);
	CHECK_EQ(json_double_of(json_get(json_get(sum, "latency_idle_ms"), "p99"), &d), 0);
	CHECK(d == 19.5);
	CHECK_EQ(json_double_of(json_get(sum, "download_mbps"), &d), 0);
	CHECK(d == 80);
	CHECK_EQ(json_double_of(json_get(sum, "induced_latency_ms"), &d), 0);
	CHECK(d == 94.5);
	CHECK_EQ(json_get_string(sum, "grade", &str), 0);
	CHECK_STR(str, "C");
	CHECK_EQ(json_array_len(json_get(sum, "flows")), 8);
	CHECK_EQ(json_array_len(json_get(sum, "probes")), 4);
	ser = json_get(json_get(doc, "series"), "TCP download EF");
	CHECK_EQ(json_array_len(json_get(ser, "values")), 51);
	CHECK_EQ(json_get_string(ser, "unit", &str), 0);
	CHECK_STR(str, "Mbits/s");
	json_free(doc);
	result_free(&r);
}

TEST(text_summary_names_the_numbers)
{
	struct test_result r;
	struct summary s;
	struct printer *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	r.client_cpu_saturated = true;
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	p = print_new(f, PRINT_MODE_TEXT);
	REQUIRE(p);
	result_print(p, &r, &s);
	CHECK_EQ(print_finish(p), 0);
	print_free(p);
	fclose(f);
	CHECK(strstr(buf, "UDP EF") != NULL);
	CHECK(strstr(buf, "109.00") != NULL);
	CHECK(strstr(buf, "download  80.00 Mbit/s in 4 flows, fairness 1.000") != NULL);
	CHECK(strstr(buf, "grade C") != NULL);
	CHECK(strstr(buf, "550 RPM") != NULL);
	CHECK(strstr(buf, "CPU was saturated") != NULL);
	fputs(buf, stdout);
	free(buf);
	result_free(&r);
}

TEST(write_json_fails_cleanly)
{
	struct test_result r;
	struct summary s;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK(result_write_json("/nonexistent-dir/x.json", &r, &s) < 0);
	result_free(&r);
}
