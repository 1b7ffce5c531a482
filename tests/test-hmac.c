/* SPDX-License-Identifier: MIT */
/* test-hmac.c - src/base/sha256.c and hmac.c against FIPS 180-4 and RFC 4231 vectors. */
#include <stdio.h>
#include <string.h>

#include "base/hmac.h"
#include "harness.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void check_sha(const void *msg, size_t len, const char *want)
{
	uint8_t d[SHA256_LEN];
	char got[2 * SHA256_LEN + 1];

	sha256(msg, len, d);
	hex(d, sizeof(d), got);
	CHECK_STR(got, want);
}

TEST(sha256_fips_vectors)
{
	check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu",
		  112, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(sha256_million_a_in_odd_pieces)
{
	static uint8_t a[1000];
	uint8_t d[SHA256_LEN];
	char got[2 * SHA256_LEN + 1];
	struct sha256 s;
	size_t done = 0, piece = 1;

	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	/* Pieces of every size from 1 up cross the 64-byte block boundary at every offset. */
	while (done < 1000000) {
		size_t n = piece % 1000;

		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256_update(&s, a, n);
		done += n;
		piece++;
	}
	sha256_final(&s, d);
	hex(d, sizeof(d), got);
	CHECK_STR(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void check_hmac(const uint8_t *key, size_t klen, const void *data, size_t dlen,
		       const char *want)
{
	uint8_t mac[HMAC_SHA256_LEN];
	char got[2 * HMAC_SHA256_LEN + 1];

	hmac_sha256(key, klen, data, dlen, mac);
	hex(mac, sizeof(mac), got);
	got[strlen(want)] = '\0'; /* case 5 is truncated to 128 bits */
	CHECK_STR(got, want);
}

TEST(hmac_rfc4231_vectors)
{
	uint8_t k[131], d[50];

	memset(k, 0x0b, 20);
	check_hmac(k, 20, "Hi There", 8,
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28,
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20);
	memset(d, 0xdd, 50);
	check_hmac(k, 20, d, 50,
		   "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (int i = 0; i < 25; i++)
		k[i] = (uint8_t)(i + 1);
	memset(d, 0xcd, 50);
	check_hmac(k, 25, d, 50,
		   "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k, 0x0c, 20);
	check_hmac(k, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b");
	memset(k, 0xaa, 131);
	check_hmac(k, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	check_hmac(k, 131,
		   "This is a test using a larger than block-size key and a larger than block-size "
		   "data. The key needs to be hashed before being used by the HMAC algorithm.",
		   152, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(hmac_equal_compares_every_byte)
{
	uint8_t a[16] = {0}, b[16] = {0};

	CHECK(hmac_equal(a, b, 16));
	b[15] = 1;
	CHECK(!hmac_equal(a, b, 16));
	CHECK(hmac_equal(a, b, 15));
}
