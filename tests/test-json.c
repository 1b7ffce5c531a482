/* SPDX-License-Identifier: MIT */
/* test-json.c - src/base/json.c: building, writing, parsing, reading files, and their errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "harness.h"

static char *write_temp(const char *text, size_t len)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-json-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		return NULL;
	fwrite(text, 1, len, f);
	fclose(f);
	return path;
}

TEST(build_then_parse_round_trip)
{
	struct jval *doc = json_new_object(), *arr = json_new_array(), *back = NULL;
	struct json_error err = {0};
	const char *text, *s = NULL;
	int64_t i = 0;
	bool b = false;
	size_t len = 0;

	REQUIRE(doc && arr);
	CHECK_EQ(json_set(doc, "latency_us", json_new_int(123040)), 0);
	CHECK_EQ(json_set(doc, "limit_bytes", json_new_uint(1879048192)), 0);
	CHECK_EQ(json_set(doc, "kind", json_new_string("fq_codel")), 0);
	CHECK_EQ(json_set(doc, "ecn", json_new_bool(true)), 0);
	CHECK_EQ(json_set(doc, "speed_mbps", NULL), 0);
	CHECK_EQ(json_append(arr, json_new_int(1)), 0);
	CHECK_EQ(json_append(arr, json_new_int(2)), 0);
	CHECK_EQ(json_set(doc, "priomap", arr), 0);

	text = json_text(doc, &len);
	REQUIRE(text);
	REQUIRE_EQ(json_parse(text, len, &back, &err), 0);
	CHECK_EQ(json_get_int(back, "latency_us", &i), 0);
	CHECK_EQ(i, 123040);
	CHECK_EQ(json_get_int(back, "limit_bytes", &i), 0);
	CHECK_EQ(i, 1879048192);
	CHECK_EQ(json_get_string(back, "kind", &s), 0);
	CHECK_STR(s, "fq_codel");
	CHECK_EQ(json_get_bool(back, "ecn", &b), 0);
	CHECK(b);
	CHECK(json_get(back, "speed_mbps") == NULL);
	CHECK_EQ(json_get_int(back, "speed_mbps", &i), -ENOENT);
	CHECK_EQ(json_array_len(json_get(back, "priomap")), 2);
	CHECK_EQ(json_kind_of(json_array_at(json_get(back, "priomap"), 1)), JSON_KIND_INT);
	CHECK(json_array_at(json_get(back, "priomap"), 2) == NULL);
	json_free(back);
	json_free(doc);
}

TEST(getters_check_types_and_leave_output_alone)
{
	struct jval *doc = NULL;
	const char *s = "untouched";
	int64_t i = 7;

	REQUIRE_EQ(json_parse("{\"a\": \"x\", \"n\": 3}", 18, &doc, NULL), 0);
	CHECK_EQ(json_get_int(doc, "a", &i), -EINVAL);
	CHECK_EQ(i, 7);
	CHECK_EQ(json_get_string(doc, "n", &s), -EINVAL);
	CHECK_STR(s, "untouched");
	CHECK_EQ(json_get_int(doc, "missing", &i), -ENOENT);
	CHECK(json_get(json_get(doc, "a"), "x") == NULL); /* not an object */
	json_free(doc);
}

TEST(set_on_a_non_object_fails_and_frees_the_value)
{
	struct jval *arr = json_new_array();

	/* Under ASan a leak here fails the run: json_set owns the value even on failure. */
	CHECK_EQ(json_set(arr, "k", json_new_string("leak?")), -EINVAL);
	CHECK_EQ(json_append(NULL, json_new_int(1)), -EINVAL);
	json_free(arr);
}

TEST(malformed_input_says_where_and_why)
{
	const char *text = "{\n  \"a\": 1,\n  \"b\": x\n}";
	struct jval *doc = (struct jval *)0x1;
	struct json_error err = {0};

	CHECK_EQ(json_parse(text, strlen(text), &doc, &err), -EINVAL);
	CHECK(doc == (struct jval *)0x1);
	CHECK_EQ(err.line, 3);
	CHECK(err.column >= 7 && err.column <= 9);
	CHECK(err.reason[0] != '\0');
}

TEST(truncated_document_is_an_error)
{
	struct jval *doc = NULL;
	struct json_error err = {0};

	CHECK_EQ(json_parse("{\"a\": [1, 2", 11, &doc, &err), -EINVAL);
	CHECK_STR(err.reason, "unexpected end of input");
	CHECK(doc == NULL);
}

TEST(data_after_the_document_is_an_error)
{
	struct jval *doc = NULL;
	struct json_error err = {0};

	CHECK_EQ(json_parse("{} x", 4, &doc, &err), -EINVAL);
	CHECK_EQ(err.column, 4);
	CHECK(doc == NULL);
	/* Whitespace around the document is fine. */
	CHECK_EQ(json_parse(" {} \n", 5, &doc, NULL), 0);
	json_free(doc);
}

TEST(bare_number_and_empty_input)
{
	struct jval *doc = NULL;

	CHECK_EQ(json_parse("42", 2, &doc, NULL), 0);
	CHECK_EQ(json_kind_of(doc), JSON_KIND_INT);
	json_free(doc);
	doc = NULL;
	CHECK_EQ(json_parse("", 0, &doc, NULL), -EINVAL);
	CHECK_EQ(json_parse("   ", 3, &doc, NULL), -EINVAL);
	CHECK(doc == NULL);
}

TEST(strict_mode_rejects_what_json_does_not_allow)
{
	struct jval *doc = NULL;

	CHECK_EQ(json_parse("[1, 2,]", 7, &doc, NULL), -EINVAL);
	CHECK_EQ(json_parse("[1 2]", 5, &doc, NULL), -EINVAL);
	CHECK_EQ(json_parse("{\"a\" 1}", 7, &doc, NULL), -EINVAL);
	CHECK(doc == NULL);
}

TEST(read_file_ok_missing_and_too_big)
{
	const char *text = "{\"interfaces\": []}\n";
	struct jval *doc = NULL;
	char *path = write_temp(text, strlen(text));

	REQUIRE(path);
	CHECK_EQ(json_read_file(path, 1024, &doc, NULL), 0);
	CHECK_EQ(json_array_len(json_get(doc, "interfaces")), 0);
	json_free(doc);
	doc = NULL;
	CHECK_EQ(json_read_file(path, strlen(text), &doc, NULL), 0); /* exactly the limit */
	json_free(doc);
	doc = NULL;
	CHECK_EQ(json_read_file(path, strlen(text) - 1, &doc, NULL), -EFBIG);
	CHECK(doc == NULL);
	unlink(path);
	CHECK_EQ(json_read_file(path, 1024, &doc, NULL), -ENOENT);
	CHECK_EQ(json_read_file("/tmp", 1024, &doc, NULL), -EISDIR);
	CHECK(doc == NULL);
}

TEST(read_file_reports_the_position_of_an_error)
{
	const char *text = "{\n\"a\": tru\n}";
	struct json_error err = {0};
	struct jval *doc = NULL;
	char *path = write_temp(text, strlen(text));

	REQUIRE(path);
	CHECK_EQ(json_read_file(path, 1024, &doc, &err), -EINVAL);
	CHECK_EQ(err.line, 2);
	unlink(path);
}

TEST(write_is_pretty_and_ends_with_a_newline)
{
	struct jval *doc = json_new_object();
	char buf[256] = {0};
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	REQUIRE(doc && f);
	json_set(doc, "path", json_new_string("/sys/class/net"));
	CHECK_EQ(json_write(f, doc), 0);
	fclose(f);
	CHECK(strstr(buf, "\"path\": \"/sys/class/net\"") != NULL); /* no "\/" escaping */
	CHECK(buf[strlen(buf) - 1] == '\n');
	json_free(doc);
}

TEST(say_error_words_a_parse_error)
{
	struct json_error e = {0};
	struct jval *v = NULL;
	char buf[160];

	REQUIRE_EQ(json_parse("{\n  \"a\": tru }", 14, &v, &e), -EINVAL);
	CHECK_EQ(json_say_error(&e, buf, sizeof(buf)), -EINVAL);
	CHECK(!strncmp(buf, "not JSON: line 2, column ", 25));
	CHECK(strstr(buf, e.reason) != NULL);
	e = (struct json_error){.reason = "no document"};
	CHECK_EQ(json_say_error(&e, buf, sizeof(buf)), -EINVAL);
	CHECK_STR(buf, "not JSON: no document");
}
