/* SPDX-License-Identifier: MIT */
/*
 * fuzz-http.c - the exporter's two parsers of what strangers send (src/exporter/http.c):
 * HTTP request heads and --listen values, on arbitrary bytes. Nothing may read out of
 * bounds (ASan); results keep their contracts: a request is complete (> 0, never past
 * the input), incomplete (0, only below HTTP_MAX_REQUEST) or -EINVAL/-E2BIG, and a
 * parsed path is a NUL-terminated string starting with '/'; the output is untouched on
 * failure.
 *
 * Byte 0 picks the parser: even, a request head; odd, a --listen value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_request(const char *buf, size_t len)
{
	struct http_request r, before;
	int n;

	memset(&r, 0x5a, sizeof(r));
	before = r;
	n = http_parse_request(buf, len, &r);
	if (n > 0) {
		if ((size_t)n > len || (size_t)n > HTTP_MAX_REQUEST)
			abort();
		if (!memchr(r.path, '\0', sizeof(r.path)) || r.path[0] != '/')
			abort();
		if (r.method != HTTP_GET && r.method != HTTP_HEAD && r.method != HTTP_OTHER)
			abort();
		return;
	}
	if (n == 0 && len >= HTTP_MAX_REQUEST)
		abort();
	if (n < 0 && n != -EINVAL && n != -E2BIG)
		abort();
	if (memcmp(&r, &before, sizeof(r)))
		abort();
}

static void fuzz_listen(const uint8_t *data, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t slen = 0;
	char *s = malloc(len + 1);
	int r;

	if (!s)
		return;
	memcpy(s, data, len);
	s[len] = '\0';
	r = http_parse_listen(s, &ss, &slen);
	if (r != 0 && r != -EINVAL)
		abort();
	if (r == 0 && ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		abort();
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		fuzz_listen(data + 1, size - 1);
		return 0;
	}
	/* An exact-size copy, so ASan sees a read one past the input. */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	fuzz_request(copy, size - 1);
	free(copy);
	return 0;
}
