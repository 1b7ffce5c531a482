/* SPDX-License-Identifier: MIT */
/*
 * fuzz-nqconfig.c - the responsiveness test's config parser and URL parser
 * (src/http/nqconfig.c) on arbitrary bytes, as a hostile server's /.well-known/nq.
 *
 * The first byte picks the target: even, the rest is a config document; odd, a URL.
 * Invariants: 0 or -EINVAL (or -ENOMEM), the output untouched on error and an error
 * message always given; a parsed config's three URLs share one authority and scheme;
 * every parsed URL's fields are NUL-terminated, its path starts with "/" and holds no
 * byte that would break a request line; a URL formatted back parses to the same URL.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/nqconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, int r)
{
	fprintf(stderr, "fuzz-nqconfig: %s (%d)\n", what, r);
	abort();
}

static void check_url(const struct nq_url *u)
{
	struct nq_url back;
	char text[1400];

	if (!memchr(u->host, 0, sizeof(u->host)) || !memchr(u->path, 0, sizeof(u->path)) ||
	    !memchr(u->authority, 0, sizeof(u->authority)) || !u->host[0] || u->path[0] != '/')
		fail("URL field not terminated, or an empty host or a path without /", 0);
	for (const char *c = u->path; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			fail("control character or space in a path", *c);
	nq_url_format(u, text, sizeof(text));
	if (nq_url_parse(text, &back) < 0 || memcmp(&back, u, sizeof(back)))
		fail("a URL formatted back parses differently", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nq_config c, untouched;
	char err[160] = "";
	char *buf;
	int r;

	if (!size)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	memset(&c, 0xa5, sizeof(c));
	untouched = c;
	if (data[0] & 1) {
		struct nq_url u;

		memset(&u, 0, sizeof(u));
		r = nq_url_parse(buf, &u);
		if (r == 0)
			check_url(&u);
		else if (r != -EINVAL)
			fail("unexpected URL error", r);
		free(buf);
		return 0;
	}
	r = nq_config_parse(buf, size - 1, &c, err, sizeof(err));
	if (r < 0) {
		if (r != -EINVAL && r != -ENOMEM)
			fail("unexpected error", r);
		if (memcmp(&c, &untouched, sizeof(c)))
			fail("output changed on error", r);
		if (r == -EINVAL && !err[0])
			fail("no reason given", r);
		free(buf);
		return 0;
	}
	check_url(&c.small);
	check_url(&c.large);
	check_url(&c.upload);
	if (strcmp(c.small.authority, c.large.authority) ||
	    strcmp(c.small.authority, c.upload.authority) || c.small.tls != c.upload.tls)
		fail("URLs of different servers accepted", 0);
	free(buf);
	return 0;
}
