/* SPDX-License-Identifier: MIT */
/*
 * sha256.h - SHA-256 (FIPS 180-4), small and portable, for the HMAC of keyed servers.
 * Not constant-time against cache attacks beyond what plain 32-bit arithmetic gives;
 * it authenticates probe packets, it does not encrypt anything.
 */
#ifndef DEBLOAT_BASE_SHA256_H
#define DEBLOAT_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN   32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes; /* message length so far */
	uint8_t block[SHA256_BLOCK];
	size_t fill; /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);

#endif
