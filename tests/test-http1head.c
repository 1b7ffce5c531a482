/* SPDX-License-Identifier: MIT */
/* test-http1head.c - the HTTP/1.1 head scanning shared by both parsers (base/http1head.h). */
#include <errno.h>
#include <string.h>

#include "base/http1head.h"
#include "harness.h"

TEST(head_end_finds_the_empty_line)
{
	CHECK_EQ(http1_head_end("A\r\nB: c\r\n\r\nbody", 15), 11);
	CHECK_EQ(http1_head_end("A\nB: c\n\nbody", 12), 8);
	CHECK_EQ(http1_head_end("A\r\nB: c\r\n\r", 10), 0); /* not there yet */
	CHECK_EQ(http1_head_end("", 0), 0);
}

TEST(parse_u64_digits_only)
{
	uint64_t v = 7;

	CHECK_EQ(http1_parse_u64("18446744073709551609", 20, &v), 0);
	CHECK_EQ(v, UINT64_MAX - 6);
	v = 7;
	CHECK_EQ(http1_parse_u64("18446744073709551616", 20, &v), -EBADMSG);
	CHECK_EQ(http1_parse_u64("", 0, &v), -EBADMSG);
	CHECK_EQ(http1_parse_u64("1 ", 2, &v), -EBADMSG);
	CHECK_EQ(http1_parse_u64("-1", 2, &v), -EBADMSG);
	CHECK_EQ(v, 7); /* untouched on failure */
}

TEST(fields_walk_to_the_empty_line)
{
	const char *h = "Host:  a.b \r\nX-Y:\tz, w\t\nConnection: close\r\n\r\n";
	size_t end = http1_head_end(h, strlen(h)), pos = 0;
	struct http1_field f;

	REQUIRE_EQ(http1_next_field(h, end, &pos, &f), 1);
	CHECK(http1_field_is(&f, "HOST"));
	CHECK_EQ(f.value_len, 3);
	CHECK(!memcmp(f.value, "a.b", 3));
	REQUIRE_EQ(http1_next_field(h, end, &pos, &f), 1);
	CHECK(http1_field_is(&f, "x-y") && !http1_field_is(&f, "x-yz"));
	CHECK(http1_value_has(&f, "Z") && http1_value_has(&f, "w") && !http1_value_has(&f, "z,"));
	REQUIRE_EQ(http1_next_field(h, end, &pos, &f), 1);
	REQUIRE_EQ(http1_next_field(h, end, &pos, &f), 0);
	CHECK_EQ(pos, end);
	CHECK_EQ(http1_next_field(h, end, &pos, &f), 0);
}

TEST(fields_refuse_malformed_lines)
{
	struct http1_field f;
	const char *bad[] = {"no colon\r\n\r\n", ": empty name\r\n\r\n", " folded: x\r\n\r\n",
			     "\tfolded: x\n\n"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t end = http1_head_end(bad[i], strlen(bad[i])), pos = 0;

		CHECK_EQ(http1_next_field(bad[i], end, &pos, &f), -EBADMSG);
	}
}

static int framing(struct http1_framing *fr, const char *h)
{
	size_t end = http1_head_end(h, strlen(h)), pos = 0;
	struct http1_field f;
	int r, taken = 0;

	memset(fr, 0, sizeof(*fr));
	while ((r = http1_next_field(h, end, &pos, &f)) > 0) {
		r = http1_framing_field(fr, &f);
		if (r < 0)
			return r;
		taken += r;
	}
	return r < 0 ? r : taken;
}

TEST(framing_fields)
{
	struct http1_framing fr;

	CHECK_EQ(framing(&fr, "Content-Length: 12\nHost: x\nTransfer-Encoding: gzip, chunked\n"
			      "Connection: Keep-Alive\n\n"),
		 3);
	CHECK(fr.has_length && fr.content_length == 12 && fr.chunked);
	CHECK(fr.keep_alive && !fr.close);
	CHECK_EQ(
	    framing(&fr, "content-length: 5\r\nCONTENT-LENGTH: 5\r\nConnection: close\r\n\r\n"), 3);
	CHECK(fr.content_length == 5 && fr.close && !fr.keep_alive && !fr.chunked);
	CHECK_EQ(framing(&fr, "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"), -EBADMSG);
	CHECK_EQ(framing(&fr, "Content-Length: 0x5\r\n\r\n"), -EBADMSG);
	CHECK_EQ(framing(&fr, "Content-Length:\r\n\r\n"), -EBADMSG);
}
