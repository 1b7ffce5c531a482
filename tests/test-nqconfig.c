/* SPDX-License-Identifier: MIT */
/* test-nqconfig.c - the responsiveness config and URL parser (http/nqconfig.h). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "http/nqconfig.h"

static int parse(const char *doc, struct nq_config *c, char *err)
{
	return nq_config_parse(doc, strlen(doc), c, err, 160);
}

TEST(config_valid_with_endpoint_and_unknown_keys)
{
	struct nq_config c;
	char err[160] = "";

	REQUIRE_EQ(parse("{\"version\": 1, \"urls\": {"
			 "\"small_download_url\": \"http://192.0.2.7:4080/api/v1/small\","
			 "\"large_download_url\": \"http://192.0.2.7:4080/api/v1/large\","
			 "\"upload_url\": \"http://192.0.2.7:4080/api/v1/slurp\","
			 "\"future_url\": 7}, \"test_endpoint\": \"198.51.100.1\", \"x\": {}}",
			 &c, err),
		   0);
	CHECK_STR(c.small.host, "192.0.2.7");
	CHECK_STR(c.small.port, "4080");
	CHECK_STR(c.small.path, "/api/v1/small");
	CHECK_STR(c.large.path, "/api/v1/large");
	CHECK_STR(c.upload.path, "/api/v1/slurp");
	CHECK_STR(c.upload.authority, "192.0.2.7:4080");
	CHECK_STR(c.test_endpoint, "198.51.100.1");
	CHECK(!c.small.tls);
}

/* Apple's and goserver's duplicates stand in for missing keys; the draft's win. */
TEST(config_https_duplicates)
{
	struct nq_config c;
	char err[160] = "";

	REQUIRE_EQ(parse("{\"urls\": {"
			 "\"small_https_download_url\": \"https://h.example/small\","
			 "\"large_https_download_url\": \"https://h.example/large\","
			 "\"https_upload_url\": \"https://h.example/slurp\"}}",
			 &c, err),
		   0);
	CHECK(c.large.tls);
	CHECK_STR(c.large.port, "443");
	CHECK_STR(c.large.authority, "h.example");
	REQUIRE_EQ(parse("{\"urls\": {\"small_download_url\": \"http://h/s\","
			 "\"small_https_download_url\": \"https://h/s\","
			 "\"large_download_url\": \"http://h/l\", \"upload_url\": \"http://h/u\"}}",
			 &c, err),
		   0);
	CHECK(!c.small.tls);
}

TEST(config_missing_keys_say_which)
{
	struct nq_config c, before;
	char err[160] = "";

	memset(&c, 0x5a, sizeof(c));
	before = c;
	CHECK_EQ(parse("{\"version\": 1, \"urls\": {\"small_download_url\": \"http://a/s\","
		       "\"large_download_url\": \"http://a/l\"}}",
		       &c, err),
		 -EINVAL);
	CHECK_STR(err, "urls.upload_url is missing");
	CHECK(!memcmp(&c, &before, sizeof(c))); /* untouched on failure */
	CHECK_EQ(parse("{\"version\": 1}", &c, err), -EINVAL);
	CHECK_STR(err, "no \"urls\" object");
	CHECK_EQ(parse("{\"version\": 2, \"urls\": {}}", &c, err), -EINVAL);
	CHECK_STR(err, "version is not 1");
}

TEST(config_hostile_input)
{
	struct nq_config c;
	char err[160] = "", big[NQ_MAX_CONFIG_BYTES + 2];

	CHECK_EQ(parse("", &c, err), -EINVAL);
	CHECK(!strncmp(err, "not JSON", 8));
	CHECK_EQ(parse("[1]", &c, err), -EINVAL);
	CHECK_STR(err, "not a JSON object");
	CHECK_EQ(parse("{\"urls\": {\"small_download_url\": 5}}", &c, err), -EINVAL);
	CHECK_STR(err, "urls.small_download_url is not a string");
	/* one server only: the draft's MUST */
	CHECK_EQ(
	    parse("{\"urls\": {\"small_download_url\": \"http://a/s\","
		  "\"large_download_url\": \"http://evil/l\", \"upload_url\": \"http://a/u\"}}",
		  &c, err),
	    -EINVAL);
	CHECK_STR(err, "the URLs do not share one scheme, host and port");
	/* a path that would smuggle a header into the request */
	CHECK_EQ(parse("{\"urls\": {\"small_download_url\": \"http://a/s\\r\\nX: y\","
		       "\"large_download_url\": \"http://a/l\", \"upload_url\": \"http://a/u\"}}",
		       &c, err),
		 -EINVAL);
	CHECK_EQ(parse("{\"urls\": {\"small_download_url\": \"http://a/s\","
		       "\"large_download_url\": \"http://a/l\", \"upload_url\": \"http://a/u\"},"
		       "\"test_endpoint\": \"a b\"}",
		       &c, err),
		 -EINVAL);
	memset(big, ' ', sizeof(big));
	CHECK_EQ(nq_config_parse(big, sizeof(big), &c, err, sizeof(err)), -EINVAL);
}

TEST(url_forms)
{
	struct nq_url u;
	char back[1400];

	REQUIRE_EQ(nq_url_parse("http://[::1]:4080/.well-known/nq", &u), 0);
	CHECK_STR(u.host, "::1");
	CHECK_STR(u.authority, "[::1]:4080");
	nq_url_format(&u, back, sizeof(back));
	CHECK_STR(back, "http://[::1]:4080/.well-known/nq");
	REQUIRE_EQ(nq_url_parse("http://example.net", &u), 0);
	CHECK_STR(u.port, "80");
	CHECK_STR(u.path, "/");
	REQUIRE_EQ(nq_url_parse("http://h?x=1", &u), 0);
	CHECK_STR(u.path, "/?x=1");
	CHECK_EQ(nq_url_parse("ftp://h/", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http://user@h/", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http://h:0/", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http://h:65536/", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http:///x", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http://h/#frag", &u), -EINVAL);
	CHECK_EQ(nq_url_parse("http://[::1/", &u), -EINVAL);
}
