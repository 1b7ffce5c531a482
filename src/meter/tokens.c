/* SPDX-License-Identifier: MIT */
/* tokens.c - the token table of tokens.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "meter/tokens.h"

#define TOKENS_MAX (1u << 24) /* entries: far above any client limit */

static uint64_t token_hash(const struct token_table *t, const uint8_t *token)
{
	uint64_t h;

	memcpy(&h, token, sizeof(h));
	/* A 64-bit finaliser (the one of splitmix64) over token ^ seed. */
	h ^= t->seed;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

int tokens_init(struct token_table *t, size_t max, uint64_t seed)
{
	size_t n = 16;

	memset(t, 0, sizeof(*t));
	if (!max || max > TOKENS_MAX)
		return -EINVAL;
	while (n < 2 * max)
		n *= 2;
	t->b = calloc(n, sizeof(*t->b));
	if (!t->b)
		return -ENOMEM;
	t->mask = n - 1;
	t->max = max;
	t->seed = seed;
	return 0;
}

void tokens_free(struct token_table *t)
{
	free(t->b);
	memset(t, 0, sizeof(*t));
}

/* The bucket holding token, or the empty bucket ending its run. */
static size_t token_slot(const struct token_table *t, const uint8_t *token, uint64_t h)
{
	size_t i = (size_t)h & t->mask;

	while (t->b[i].token &&
	       (t->b[i].hash != h || memcmp(t->b[i].token, token, PROTO_TOKEN_LEN)))
		i = (i + 1) & t->mask;
	return i;
}

int tokens_add(struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN], void *value)
{
	uint64_t h = token_hash(t, token);
	size_t i = token_slot(t, token, h);

	if (t->b[i].token)
		return -EEXIST;
	if (t->n == t->max)
		return -ENOSPC;
	t->b[i] = (struct token_bucket){.hash = h, .token = token, .value = value};
	t->n++;
	return 0;
}

void *tokens_find(const struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN])
{
	size_t i = token_slot(t, token, token_hash(t, token));

	return t->b[i].token ? t->b[i].value : NULL;
}

int tokens_del(struct token_table *t, const uint8_t token[PROTO_TOKEN_LEN])
{
	size_t i = token_slot(t, token, token_hash(t, token)), j = i;

	if (!t->b[i].token)
		return -ENOENT;
	/* Backward shift: pull later members of the run into the hole, each only if its
	 * home bucket is not between the hole and it (cyclically), so every entry stays
	 * reachable from its home without tombstones. */
	for (;;) {
		size_t home;

		t->b[i].token = NULL;
		for (;;) {
			j = (j + 1) & t->mask;
			if (!t->b[j].token)
				goto done;
			home = (size_t)t->b[j].hash & t->mask;
			if (((j - home) & t->mask) >= ((j - i) & t->mask))
				break;
		}
		t->b[i] = t->b[j];
		i = j;
	}
done:
	t->n--;
	return 0;
}
