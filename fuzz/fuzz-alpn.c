/* SPDX-License-Identifier: MIT */
/*
 * fuzz-alpn.c - the server's ALPN choice of src/http/tls.c (tls_alpn_choose) on
 * arbitrary bytes, as a hostile client's ClientHello carries them. The first byte
 * picks what the server accepts (its low two bits: TLS_ALPN_H2, TLS_ALPN_HTTP1), the
 * rest is the list.
 *
 * Invariants: the choice is 0 or one accepted protocol; a choice points inside the
 * list at that protocol's name, right after a length byte equal to its length; no
 * choice leaves the outputs untouched; h2 wins whenever http/1.1 does and h2 is
 * accepted and offered; the function never reads past len (ASan: the list is copied
 * into a buffer of exactly its length).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz-alpn: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *name = (const unsigned char *)"untouched", *h2name = NULL;
	unsigned char len = 0xee, h2len = 0;
	unsigned accept, got;
	unsigned char *list;

	if (!size)
		return 0;
	accept = data[0] & (TLS_ALPN_H2 | TLS_ALPN_HTTP1);
	list = malloc(size - 1 ? size - 1 : 1);
	if (!list)
		return 0;
	memcpy(list, data + 1, size - 1);
	got = tls_alpn_choose(list, size - 1, accept, &name, &len);
	if (!got) {
		if (strcmp((const char *)name, "untouched") || len != 0xee)
			fail("outputs changed without a choice");
	} else {
		const char *want = got == TLS_ALPN_H2 ? "h2" : "http/1.1";

		if ((got != TLS_ALPN_H2 && got != TLS_ALPN_HTTP1) || !(got & accept))
			fail("chose a protocol not accepted");
		if (name <= list || name + len > list + size - 1 || name[-1] != len ||
		    len != strlen(want) || memcmp(name, want, len))
			fail("the choice is not a name in the list");
		if (got == TLS_ALPN_HTTP1 && (accept & TLS_ALPN_H2) &&
		    tls_alpn_choose(list, size - 1, TLS_ALPN_H2, &h2name, &h2len))
			fail("http/1.1 chosen although h2 was accepted and offered");
	}
	free(list);
	return 0;
}
