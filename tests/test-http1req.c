/* SPDX-License-Identifier: MIT */
/*
 * test-http1req.c - the responsiveness server's request head parser (http/http1req.h)
 * and what it serves (http/nqserve.h): routes, and a config our own client reads.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "http/http1req.h"
#include "http/nqconfig.h"
#include "http/nqserve.h"

static int parse(const char *s, struct http1_req *r)
{
	return http1_parse_request(s, strlen(s), r);
}

TEST(request_get_with_host_and_query)
{
	struct http1_req r;
	const char *s = "GET /api/v1/large?x=1 HTTP/1.1\r\nHost:  [::1]:4043 \r\n"
			"Accept: */*\r\n\r\nNEXT";

	REQUIRE_EQ(parse(s, &r), (int)strlen(s) - 4);
	CHECK(!strcmp(r.method, "GET"));
	CHECK(!strcmp(r.path, "/api/v1/large"));
	CHECK(!strcmp(r.host, "[::1]:4043"));
	CHECK(!r.has_length && !r.chunked && !r.close && !r.expect_continue);
	CHECK_EQ(r.head_len, strlen(s) - 4);
}

TEST(request_post_framing)
{
	struct http1_req r;

	REQUIRE(parse("POST /api/v1/slurp HTTP/1.1\nContent-Length: 5000000\n"
		      "Expect: 100-continue\nConnection: close\n\n",
		      &r) > 0);
	CHECK(!strcmp(r.method, "POST"));
	CHECK(r.has_length && r.content_length == 5000000);
	CHECK(r.expect_continue && r.close);
	REQUIRE(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r) > 0);
	CHECK(r.chunked && !r.has_length);
	REQUIRE(parse("GET / HTTP/1.0\r\n\r\n", &r) > 0);
	CHECK(r.close); /* 1.0 without keep-alive */
	REQUIRE(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r) > 0);
	CHECK(!r.close);
}

TEST(request_incomplete_bad_and_too_long)
{
	struct http1_req r, before;
	static char big[HTTP1REQ_MAX_HEAD + 1];
	char path[HTTP1REQ_PATH_MAX + 32];

	memset(&r, 0x5a, sizeof(r));
	before = r;
	CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a", &r), 0);
	CHECK_EQ(parse("", &r), 0);
	CHECK_EQ(parse("GET / HTTP/2\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET http://a/ HTTP/1.1\r\n\r\n", &r), -EBADMSG); /* origin form only */
	CHECK_EQ(parse("G3T / HTTP/1.1\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET  / HTTP/1.1\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET / HTTP/1.1 x\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET / HTTP/1.1\r\nNoColon\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", &r), -EBADMSG);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", &r),
		 -EBADMSG);
	CHECK_EQ(parse("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", &r),
		 -EBADMSG);
	CHECK_EQ(parse("TOOLONGMETHODNAMEX / HTTP/1.1\r\n\r\n", &r), -EBADMSG);
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	memcpy(path + HTTP1REQ_PATH_MAX, " HTTP/1.1\r\n\r\n", 14);
	CHECK_EQ(parse(path, &r), -EBADMSG);
	CHECK(!memcmp(&r, &before, sizeof(r)));
	memset(big, 'a', sizeof(big));
	CHECK_EQ(http1_parse_request(big, sizeof(big), &r), -EMSGSIZE);
	CHECK_EQ(http1_parse_request(big, sizeof(big) - 2, &r), 0);
}

TEST(routes)
{
	CHECK_EQ(nq_route("GET", "/.well-known/nq"), NQ_CONFIG);
	CHECK_EQ(nq_route("GET", "/api/v1/config"), NQ_CONFIG);
	CHECK_EQ(nq_route("GET", "/api/v1/small"), NQ_SMALL);
	CHECK_EQ(nq_route("GET", "/api/v1/large"), NQ_LARGE);
	CHECK_EQ(nq_route("POST", "/api/v1/slurp"), NQ_SLURP);
	CHECK_EQ(nq_route("POST", "/api/v1/small"), NQ_BAD_METHOD);
	CHECK_EQ(nq_route("GET", "/api/v1/slurp"), NQ_BAD_METHOD);
	CHECK_EQ(nq_route("get", "/api/v1/small"), NQ_BAD_METHOD); /* methods are case-sensitive */
	CHECK_EQ(nq_route("GET", "/api/v1/small/"), NQ_NOT_FOUND);
	CHECK_EQ(nq_route("GET", "/"), NQ_NOT_FOUND);
}

/* What the server publishes, read back by our client's config parser. */
TEST(config_round_trip)
{
	char buf[NQ_CONFIG_MAX], err[128];
	struct nq_config cfg;
	int n;

	n = nq_config_write(buf, sizeof(buf), "http", "[::1]:4043");
	REQUIRE(n > 0);
	REQUIRE_EQ(nq_config_parse(buf, (size_t)n, &cfg, err, sizeof(err)), 0);
	CHECK(!strcmp(cfg.small.host, "::1") && !strcmp(cfg.small.port, "4043"));
	CHECK(!strcmp(cfg.small.path, "/api/v1/small"));
	CHECK(!strcmp(cfg.large.path, "/api/v1/large"));
	CHECK(!strcmp(cfg.upload.path, "/api/v1/slurp"));
	CHECK(!cfg.small.tls);
	CHECK(!strcmp(cfg.test_endpoint, "::1"));
	CHECK(strstr(buf, "\"small_https_download_url\": \"http://[::1]:4043/api/v1/small\""));
	CHECK(strstr(buf, "\"https_upload_url\""));
	n = nq_config_write(buf, sizeof(buf), "https", "rpm.example:443");
	REQUIRE(n > 0);
	REQUIRE_EQ(nq_config_parse(buf, (size_t)n, &cfg, err, sizeof(err)), 0);
	CHECK(cfg.large.tls && !strcmp(cfg.test_endpoint, "rpm.example"));
}

TEST(config_refuses_bad_authority)
{
	char buf[NQ_CONFIG_MAX];

	CHECK(nq_authority_ok("192.0.2.1:4043"));
	CHECK(!nq_authority_ok(""));
	CHECK(!nq_authority_ok("a\"b"));
	CHECK(!nq_authority_ok("a/b"));
	CHECK(!nq_authority_ok("a b"));
	CHECK_EQ(nq_config_write(buf, sizeof(buf), "http", "evil\",\"x"), -EINVAL);
	CHECK_EQ(nq_config_write(buf, sizeof(buf), "ftp", "a"), -EINVAL);
	CHECK_EQ(nq_config_write(buf, 16, "http", "a"), -ENOSPC);
}
