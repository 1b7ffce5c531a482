/* SPDX-License-Identifier: MIT */
/*
 * test-flent.c - meter/flent.h: the file read back (gunzip, parse) has what flent
 * needs to load and plot it (docs/design/measurement.md section 2).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/gz.h"
#include "base/json.h"
#include "harness.h"
#include "meter-fixture.h"
#include "meter/egress.h"
#include "meter/flent.h"

/* Write r to a temporary .flent.gz and read it back as JSON. */
static struct jval *round_trip(const struct test_result *r)
{
	char path[] = "/tmp/test-flent-XXXXXX";
	struct jval *doc = NULL;
	void *buf = NULL;
	size_t len = 0;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	if (flent_write(path, r) == 0 && gz_read_file(path, 64 << 20, &buf, &len) == 0)
		json_parse(buf, len, &doc, NULL);
	free(buf);
	unlink(path);
	return doc;
}

static int match_key(const char *key, struct jval *v, void *data)
{
	return !strcmp(key, (const char *)data);
}

/* Present, even when its value is null (json_get cannot tell null from absent). */
static bool has_key(const struct jval *obj, const char *key)
{
	return json_object_foreach(obj, match_key, (void *)key) == 1;
}

struct count {
	size_t n, bad, expect;
};

static int check_array_len(const char *key, struct jval *v, void *data)
{
	struct count *c = data;

	c->n++;
	if (json_kind_of(v) != JSON_KIND_ARRAY || json_array_len(v) != c->expect) {
		fprintf(stderr, "results[%s]: not an array of %zu\n", key, c->expect);
		c->bad++;
	}
	return 0;
}

static int check_nonempty(const char *key, struct jval *v, void *data)
{
	struct count *c = data;

	c->n++;
	if (json_kind_of(v) != JSON_KIND_ARRAY || !json_array_len(v)) {
		fprintf(stderr, "raw_values[%s]: empty\n", key);
		c->bad++;
	}
	return 0;
}

TEST(metadata_has_every_required_key)
{
	static const char *const keys[] = {"NAME",
					   "TITLE",
					   "HOST",
					   "HOSTS",
					   "LOCAL_HOST",
					   "LENGTH",
					   "TOTAL_LENGTH",
					   "STEP_SIZE",
					   "TIME",
					   "T0",
					   "IP_VERSION",
					   "NOTE",
					   "TEST_PARAMETERS",
					   "FLENT_VERSION",
					   "SERIES_META"};
	struct test_result r;
	struct jval *doc, *meta;
	int64_t version = 0;
	const char *s;
	double d;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	doc = round_trip(&r);
	REQUIRE(doc);
	CHECK_EQ(json_get_int(doc, "version", &version), 0);
	CHECK_EQ(version, 4);
	meta = json_get(doc, "metadata");
	REQUIRE(meta);
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!has_key(meta, keys[i]))
			CHECK_STR(keys[i], "a key of metadata");
	CHECK_EQ(json_get_string(meta, "NAME", &s), 0);
	CHECK_STR(s, "rrul");
	CHECK_EQ(json_get_string(meta, "TITLE", &s), 0);
	CHECK_STR(s, "fixture run");
	CHECK_EQ(json_get_string(meta, "TIME", &s), 0);
	CHECK_STR(s, "2023-11-14T22:13:20.000000Z");
	CHECK_EQ(json_get_string(meta, "FLENT_VERSION", &s), 0);
	CHECK(!strncmp(s, "debloat-", 8));
	CHECK_EQ(json_double_of(json_get(meta, "STEP_SIZE"), &d), 0);
	CHECK(d == 0.2);
	CHECK_EQ(json_double_of(json_get(meta, "TOTAL_LENGTH"), &d), 0);
	CHECK(d == 10);
	CHECK_EQ(json_array_len(json_get(meta, "HOSTS")), 1);
	CHECK(!has_key(meta, "EGRESS_INFO")); /* not set in r: left out */
	json_free(doc);
	result_free(&r);
}

TEST(arrays_as_long_as_x_values_and_raw_nonempty)
{
	struct test_result r;
	struct jval *doc, *x, *icmp, *first;
	struct count results = {0}, raw = {0};
	double d;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	doc = round_trip(&r);
	REQUIRE(doc);
	x = json_get(doc, "x_values");
	REQUIRE_EQ(json_array_len(x), 51);
	CHECK_EQ(json_double_of(json_array_at(x, 3), &d), 0);
	CHECK(d == 0.6); /* rounded to the grid, not 0.6000000000000001 */
	results.expect = 51;
	CHECK_EQ(json_object_foreach(json_get(doc, "results"), check_array_len, &results), 0);
	CHECK_EQ(results.bad, 0);
	/* 8 flows and 4 probes; the tcp_rtt sub-series rides in its flow's raw values */
	CHECK_EQ(results.n, 12);
	CHECK_EQ(json_object_foreach(json_get(doc, "raw_values"), check_nonempty, &raw), 0);
	CHECK_EQ(raw.bad, 0);
	CHECK_EQ(raw.n, 12);

	/* null marks a missing point: ICMP has no probe in step 0 */
	icmp = json_get(json_get(doc, "results"), "Ping (ms) ICMP");
	CHECK(json_array_at(icmp, 0) == NULL);
	CHECK_EQ(json_double_of(json_array_at(icmp, 1), &d), 0);
	CHECK(d == 10);
	/* the lost probe of UDP BK is not a raw value: 50 of its 51 samples */
	CHECK_EQ(json_array_len(json_get(json_get(doc, "raw_values"), "Ping (ms) UDP BK")), 50);
	/* step 11, the first of the load: flows have a raw value per step, and tcp_rtt */
	first = json_array_at(json_get(json_get(doc, "raw_values"), "TCP upload BE"), 11);
	CHECK_EQ(json_double_of(json_get(first, "tcp_rtt"), &d), 0);
	CHECK(d == 51);
	CHECK_EQ(json_double_of(json_get(first, "t"), &d), 0);
	CHECK(d == FIXTURE_T0 + 2.2);
	CHECK_EQ(json_double_of(json_get(first, "val"), &d), 0);
	CHECK(d == 5);
	CHECK(!json_get(json_array_at(json_get(json_get(doc, "raw_values"), "TCP upload BE"), 0),
			"tcp_rtt"));
	json_free(doc);
	result_free(&r);
}

TEST(series_names_are_flents)
{
	static const char *const names[] = {
	    "TCP upload BE",	"TCP upload BK",    "TCP upload CS5",	"TCP upload EF",
	    "TCP download BE",	"TCP download BK",  "TCP download CS5", "TCP download EF",
	    "Ping (ms) UDP EF", "Ping (ms) UDP BK", "Ping (ms) UDP BE", "Ping (ms) ICMP"};
	struct test_result r;
	struct jval *doc, *meta;
	const char *unit;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	doc = round_trip(&r);
	REQUIRE(doc);
	meta = json_get(json_get(doc, "metadata"), "SERIES_META");
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		CHECK(json_get(json_get(doc, "results"), names[i]));
		CHECK(json_get(json_get(doc, "raw_values"), names[i]));
		unit = NULL;
		CHECK_EQ(json_get_string(json_get(meta, names[i]), "UNITS", &unit), 0);
		CHECK_STR(unit, i < 8 ? "Mbits/s" : "ms");
	}
	json_free(doc);
	result_free(&r);
}

TEST(egress_and_sysctls_embedded_and_bad_json_refused)
{
	struct test_result r;
	struct jval *doc, *meta;
	const char *s;
	int64_t qlen = 0;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	r.egress_info_json = strdup("{\"iface\":\"eth0\",\"link_params\":{\"qlen\":1000}}");
	r.sysctls_json = strdup("{\"net.core.default_qdisc\":\"fq_codel\"}");
	r.server_overloaded = true;
	REQUIRE(r.egress_info_json && r.sysctls_json);
	doc = round_trip(&r);
	REQUIRE(doc);
	meta = json_get(doc, "metadata");
	CHECK_EQ(json_get_string(json_get(meta, "EGRESS_INFO"), "iface", &s), 0);
	CHECK_STR(s, "eth0");
	CHECK_EQ(
	    json_get_int(json_get(json_get(meta, "EGRESS_INFO"), "link_params"), "qlen", &qlen), 0);
	CHECK_EQ(qlen, 1000);
	CHECK_EQ(json_get_string(json_get(meta, "SYSCTLS"), "net.core.default_qdisc", &s), 0);
	CHECK_STR(s, "fq_codel");
	CHECK_EQ(json_get_string(meta, "NOTE", &s), 0);
	CHECK_STR(s, "server overloaded");
	json_free(doc);

	free(r.egress_info_json);
	r.egress_info_json = strdup("{not json");
	CHECK(flent_write("/tmp/test-flent-never-written.flent.gz", &r) < 0);
	CHECK(access("/tmp/test-flent-never-written.flent.gz", F_OK) != 0);
	result_free(&r);
}

TEST(tcp_nup_gets_stream_count)
{
	struct test_result r = {0};
	struct jval *doc, *tp;
	const char *s = NULL;

	snprintf(r.test, sizeof(r.test), "tcp_nup");
	r.length_s = 2;
	r.step_s = 0.5;
	r.t0 = FIXTURE_T0;
	REQUIRE_EQ(result_init(&r, 5), 0);
	for (int i = 1; i <= 3; i++) {
		char name[32];
		struct series *se;

		snprintf(name, sizeof(name), "TCP upload::%d", i);
		se = result_add_series(&r, name, "Mbits/s", SERIES_UPLOAD, 0);
		REQUIRE(se);
		se->values[2] = 10;
	}
	doc = round_trip(&r);
	REQUIRE(doc);
	tp = json_get(json_get(doc, "metadata"), "TEST_PARAMETERS");
	CHECK_EQ(json_get_string(tp, "upload_streams", &s), 0);
	CHECK_STR(s, "3");
	CHECK(!json_get(tp, "download_streams"));
	json_free(doc);
	result_free(&r);
}

TEST(egress_of_loopback_server_is_lo)
{
	char *egress = NULL, *sysctls = NULL;
	struct jval *e = NULL, *s = NULL;
	const char *str = NULL;
	int64_t qlen = -1;
	int r = egress_info("127.0.0.1", &egress, &sysctls);

	if (r == -EPERM || r == -EACCES || r == -EPROTONOSUPPORT)
		SKIP("no rtnetlink here");
	REQUIRE_EQ(r, 0);
	REQUIRE_EQ(json_parse(egress, strlen(egress), &e, NULL), 0);
	REQUIRE_EQ(json_parse(sysctls, strlen(sysctls), &s, NULL), 0);
	CHECK_EQ(json_get_string(e, "iface", &str), 0);
	CHECK_STR(str, "lo");
	CHECK(json_kind_of(json_get(e, "qdiscs")) == JSON_KIND_ARRAY);
	CHECK(json_kind_of(json_get(e, "bql")) == JSON_KIND_OBJECT);
	CHECK(json_kind_of(json_get(e, "offloads")) == JSON_KIND_OBJECT);
	CHECK_EQ(json_get_int(json_get(e, "link_params"), "qlen", &qlen), 0);
	CHECK(qlen >= 0);
	CHECK(json_get(s, "net.core.default_qdisc") != NULL);
	json_free(e);
	json_free(s);
	free(egress);
	free(sysctls);
}
