/* SPDX-License-Identifier: MIT */
/*
 * flow.h - flow identity for the fair-queueing disciplines.
 *
 * The caller reduces a packet to its 5-tuple and hashes it once with
 * db_flow_hash() into pkt->hash. A discipline that spreads flows over buckets
 * mixes that hash with its own random perturbation (db_hash_perturb) so that
 * which flows share a bucket changes from one instance to the next (RFC 8290
 * section 4.1.1), then scales it into [0, n) without a division.
 *
 * The hash is our own (FNV-1a over the key, then the murmur3 32-bit finaliser):
 * fast, well mixed, not cryptographic. An attacker who can pick flows can still
 * aim at a bucket only if they learn the perturbation.
 */
#ifndef DEBLOAT_FLOW_H
#define DEBLOAT_FLOW_H

#include <stdint.h>

struct db_flow_key {
	uint8_t src[16]; /* IPv4 in the first 4 bytes, rest zero */
	uint8_t dst[16];
	uint16_t sport; /* host order; 0 for protocols without ports */
	uint16_t dport;
	uint8_t proto;	/* IPPROTO_* */
	uint8_t family; /* 4 or 6 */
};

uint32_t db_flow_hash(const struct db_flow_key *key);

/* murmur3's fmix32: every input bit flips each output bit with probability ~1/2. */
static inline uint32_t db_hash_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

/* A bijection of hash for each seed: distinct flows stay distinct. */
static inline uint32_t db_hash_perturb(uint32_t hash, uint32_t seed)
{
	return db_hash_fmix32(hash ^ seed);
}

/* Map a 32-bit hash onto [0, n) with a multiply instead of a modulo. */
static inline uint32_t db_reciprocal_scale(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

#endif
