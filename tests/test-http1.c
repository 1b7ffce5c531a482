/* SPDX-License-Identifier: MIT */
/* test-http1.c - the HTTP/1.1 response head parser (http/http1.h). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "http/http1.h"

static int parse(const char *s, struct http1_head *h)
{
	return http1_parse_head(s, strlen(s), h);
}

TEST(head_with_length)
{
	struct http1_head h;
	const char *s = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
			"content-length:  1 \r\n\r\nx";

	REQUIRE_EQ(parse(s, &h), (int)strlen(s) - 1);
	CHECK_EQ(h.status, 200);
	CHECK(h.has_length);
	CHECK_EQ(h.content_length, 1);
	CHECK(!h.chunked && !h.close);
}

TEST(head_framing_and_close)
{
	struct http1_head h;

	REQUIRE(parse("HTTP/1.0 200 OK\r\n\r\n", &h) > 0);
	CHECK(h.close && !h.has_length); /* 1.0: read to the end */
	REQUIRE(parse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n\r\n", &h) > 0);
	CHECK(!h.close);
	REQUIRE(parse("HTTP/1.1 200 OK\nTransfer-Encoding: gzip, Chunked\nConnection: close\n\n",
		      &h) > 0);
	CHECK(h.chunked && h.close);
	REQUIRE(parse("HTTP/1.1 404\r\n\r\n", &h) > 0);
	CHECK_EQ(h.status, 404);
}

TEST(head_incomplete_and_bad)
{
	struct http1_head h, before;
	char big[HTTP1_MAX_HEAD + 1];

	memset(&h, 0x5a, sizeof(h));
	before = h;
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nContent-Le", &h), 0);
	CHECK_EQ(parse("", &h), 0);
	CHECK_EQ(parse("HTTP/2 200\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 20x OK\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 099 Low\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 2000 OK\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", &h),
		 -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", &h), -EBADMSG);
	CHECK_EQ(parse("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", &h),
		 -EBADMSG);
	CHECK(!memcmp(&h, &before, sizeof(h)));
	memset(big, 'a', sizeof(big));
	CHECK_EQ(http1_parse_head(big, sizeof(big), &h), -EMSGSIZE);
	CHECK_EQ(http1_parse_head(big, sizeof(big) - 2, &h), 0);
}
