/* SPDX-License-Identifier: MIT */
/* flow.c - the 5-tuple hash of flow.h. */
#include "debloat/flow.h"

static uint32_t fnv1a(uint32_t h, const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619U;
	}
	return h;
}

uint32_t db_flow_hash(const struct db_flow_key *key)
{
	uint8_t tail[6] = {
	    (uint8_t)(key->sport >> 8), (uint8_t)key->sport, (uint8_t)(key->dport >> 8),
	    (uint8_t)key->dport,	key->proto,	     key->family,
	};
	unsigned alen = key->family == 4 ? 4 : 16;
	uint32_t h = 2166136261U;

	h = fnv1a(h, key->src, alen);
	h = fnv1a(h, key->dst, alen);
	h = fnv1a(h, tail, sizeof(tail));
	return db_hash_fmix32(h);
}
