/* SPDX-License-Identifier: MIT */
/* hmac.c - HMAC-SHA256 from RFC 2104 section 2. */
#include <string.h>

#include "hmac.h"

void hmac_sha256(const uint8_t *key, size_t keylen, const void *data, size_t len,
		 uint8_t out[HMAC_SHA256_LEN])
{
	uint8_t k0[SHA256_BLOCK] = {0}, pad[SHA256_BLOCK], inner[SHA256_LEN];
	struct sha256 s;
	unsigned i;

	/* Keys longer than a block are hashed first; shorter ones are zero-padded. */
	if (keylen > SHA256_BLOCK)
		sha256(key, keylen, k0);
	else if (keylen)
		memcpy(k0, key, keylen);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k0[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, data, len);
	sha256_final(&s, inner);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k0[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, out);
	memset(k0, 0, sizeof(k0));
	memset(pad, 0, sizeof(pad));
}

bool hmac_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint8_t d = 0;

	for (size_t i = 0; i < len; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
