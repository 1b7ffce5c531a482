/* SPDX-License-Identifier: MIT */
/*
 * fuzz-http1req.c - the responsiveness server's HTTP/1.1 request head parser
 * (src/http/http1req.c) on arbitrary bytes, as a hostile client sends them, and what
 * the server does with a parsed head: its route, and the config written with its Host.
 *
 * Invariants: the result is the head's length (within the input and HTTP1REQ_MAX_HEAD),
 * 0 (more needed, only while the input is shorter than HTTP1REQ_MAX_HEAD), or -EBADMSG /
 * -EMSGSIZE, and the output is untouched unless it succeeded; a parsed head has a
 * method of letters and a path starting with '/', NUL-terminated within their fields;
 * bytes after the head change nothing; a Host that nq_authority_ok takes gives a config
 * that our own client's parser reads back with that host, and one it refuses is never
 * written; the parser never reads past len (ASan: the input is copied into a buffer of
 * exactly len bytes).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http1req.h"
#include "http/nqconfig.h"
#include "http/nqserve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int r)
{
	fprintf(stderr, "fuzz-http1req: %s (%d)\n", what, r);
	abort();
}

static void check_config(const struct http1_req *r)
{
	char buf[NQ_CONFIG_MAX], err[128];
	struct nq_config cfg;
	int n = nq_config_write(buf, sizeof(buf), "http", r->host);

	if (!nq_authority_ok(r->host)) {
		if (n != -EINVAL)
			fail("config written for a refused authority", n);
		return;
	}
	if (n <= 0)
		fail("no config for a good authority", n);
	/* A host our URL parser refuses (say "a:b:c") is the client's to reject; whatever it
	 * reads must hold no byte the authority did not have. */
	if (nq_config_parse(buf, (size_t)n, &cfg, err, sizeof(err)) == 0 &&
	    !strstr(r->host, cfg.small.host))
		fail("config names another host", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), *more;
	struct http1_req r, untouched, again;
	int n, m;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(&r, 0xa5, sizeof(r));
	untouched = r;
	n = http1_parse_request(buf, size, &r);
	if (n <= 0) {
		if (n != 0 && n != -EBADMSG && n != -EMSGSIZE)
			fail("unexpected error", n);
		if (n == 0 && size >= HTTP1REQ_MAX_HEAD)
			fail("wants more past the head limit", n);
		if (memcmp(&r, &untouched, sizeof(r)))
			fail("output changed without a head", n);
		free(buf);
		return 0;
	}
	if ((size_t)n > size || n > HTTP1REQ_MAX_HEAD || r.head_len != (size_t)n)
		fail("head length out of bounds", n);
	if (!memchr(r.method, '\0', sizeof(r.method)) || !memchr(r.path, '\0', sizeof(r.path)) ||
	    !memchr(r.host, '\0', sizeof(r.host)) || r.path[0] != '/' || !r.method[0])
		fail("fields not terminated or malformed", n);
	(void)nq_route(r.method, r.path);
	check_config(&r);
	more = malloc(size + 16);
	if (more) {
		memcpy(more, buf, size);
		memset(more + size, 'x', 16);
		m = http1_parse_request(more, size + 16, &again);
		if (m != n || strcmp(again.method, r.method) || strcmp(again.path, r.path) ||
		    strcmp(again.host, r.host) || again.has_length != r.has_length ||
		    again.content_length != r.content_length || again.chunked != r.chunked ||
		    again.close != r.close || again.expect_continue != r.expect_continue)
			fail("bytes after the head changed the head", m);
		free(more);
	}
	free(buf);
	return 0;
}
