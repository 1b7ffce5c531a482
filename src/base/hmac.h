/* SPDX-License-Identifier: MIT */
/*
 * hmac.h - HMAC-SHA256 (RFC 2104, test vectors of RFC 4231) for keyed servers: HELLO
 * and WELCOME carry a full tag, probes a 16-byte truncation (RFC 4231 case 5 shows
 * truncation is the leftmost bytes). Compare tags with hmac_equal (constant time).
 */
#ifndef DEBLOAT_BASE_HMAC_H
#define DEBLOAT_BASE_HMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

#define HMAC_SHA256_LEN SHA256_LEN

void hmac_sha256(const uint8_t *key, size_t keylen, const void *data, size_t len,
		 uint8_t out[HMAC_SHA256_LEN]);
/* Equal in constant time for a given len. */
bool hmac_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif
