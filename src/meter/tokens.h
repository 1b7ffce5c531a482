/* SPDX-License-Identifier: MIT */
/*
 * tokens.h - the server's running tests by token: an open-addressing hash table
 * (linear probing, deletion by backward shift, so no tombstones) from a 16-byte token
 * to a pointer.
 *
 * Why a table: every probe names its test by token, and with thousands of tests a
 * scan of every slot per probe costs more than answering the probe. Lookup, insert and
 * remove are O(1) on average; the table never grows: it is sized once for `max`
 * entries at a load factor of at most 1/2, so a lookup walks a short run.
 *
 * The hash: the token's first 8 bytes mixed with a seed. Tokens come from getrandom()
 * and a client cannot choose the token of a test it wants its probes counted against,
 * but it can send probes with any token it likes: a per-server random seed keeps the
 * bucket of a chosen token unpredictable anyway. Two tokens with the same hash (or the
 * same first 8 bytes) are told apart by the full 16-byte compare.
 *
 * Memory: 16 bytes per bucket (a pointer and the 8-byte hash key), two to four buckets
 * per entry. No I/O, no clock; single-threaded.
 */
#ifndef DEBLOAT_METER_TOKENS_H
#define DEBLOAT_METER_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "meter/proto.h"

struct token_bucket {
	uint64_t hash;
	const uint8_t *token; /* the entry's own token (it lives in the entry); NULL: empty */
	void *value;
};

struct token_table {
	struct token_bucket *b;
	size_t mask; /* buckets - 1 (a power of two) */
	size_t n, max;
	uint64_t seed;
};

/* Room for max entries. -ENOMEM, -EINVAL for max 0 or too large. */
int tokens_init(struct token_table *t, size_t max, uint64_t seed);
void tokens_free(struct token_table *t);

/*
 * Add value under token. token must stay valid and unchanged while it is in the table
 * (it is the entry's own copy, not copied here). -EEXIST when the token is there,
 * -ENOSPC when max entries are in; the table is unchanged on error.
 */
int tokens_add(struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN], void *value);
/* The value under token, or NULL. */
void *tokens_find(const struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN]);
/* Remove token; -ENOENT when it is not there. */
int tokens_del(struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN]);

#endif
