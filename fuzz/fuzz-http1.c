/* SPDX-License-Identifier: MIT */
/*
 * fuzz-http1.c - the HTTP/1.1 response head parser of src/http/http1.c on arbitrary
 * bytes, as a hostile server sends them.
 *
 * Invariants: the result is the head's length (within the input and HTTP1_MAX_HEAD),
 * 0 (more needed, only while the input is shorter than HTTP1_MAX_HEAD), or -EBADMSG /
 * -EMSGSIZE, and the output is untouched unless it succeeded; a parsed head has a
 * status of 100..999; parsing the same bytes fed whole or with more after the head
 * gives the same head; the parser never reads past len (ASan: the input is copied
 * into a buffer of exactly len bytes).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int r)
{
	fprintf(stderr, "fuzz-http1: %s (%d)\n", what, r);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), *more;
	struct http1_head h, untouched, again;
	int n, m;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&h, 0xa5, sizeof(h));
	untouched = h;
	n = http1_parse_head(buf, size, &h);
	if (n <= 0) {
		if (n != 0 && n != -EBADMSG && n != -EMSGSIZE)
			fail("unexpected error", n);
		if (n == 0 && size >= HTTP1_MAX_HEAD)
			fail("wants more past the head limit", n);
		if (memcmp(&h, &untouched, sizeof(h)))
			fail("output changed without a head", n);
		free(buf);
		return 0;
	}
	if ((size_t)n > size || n > HTTP1_MAX_HEAD || h.head_len != (size_t)n)
		fail("head length out of bounds", n);
	if (h.status < 100 || h.status > 999)
		fail("status out of range", h.status);
	more = malloc(size + 16);
	if (more) { /* body bytes after the head change nothing */
		memcpy(more, buf, size);
		memset(more + size, 'x', 16);
		m = http1_parse_head(more, size + 16, &again);
		if (m != n || again.status != h.status || again.has_length != h.has_length ||
		    again.content_length != h.content_length || again.chunked != h.chunked ||
		    again.close != h.close)
			fail("bytes after the head changed the head", m);
		free(more);
	}
	free(buf);
	return 0;
}
