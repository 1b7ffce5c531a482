/* SPDX-License-Identifier: MIT */
/*
 * pool.h - free lists of buffers by size class, for the emulator's packets.
 *
 * A 64 KB super-packet freed to malloc is often given back to the kernel (heap
 * trimming, or munmap in other allocators) and faulted in again for the next one:
 * tens of microseconds on a VM, paid in the middle of the event loop. A pool keeps
 * freed buffers and hands them out again already touched.
 *
 * Sizes are rounded up to a class: 2 KB, 3 KB, 4 KB, 6 KB, ..., each class 1.5 or
 * 4/3 times the one before (powers of two and the halves between), so a buffer is
 * at most 1.5 times what was asked. Requests above LAB_POOL_MAX_SIZE go to malloc
 * and free directly. Each class keeps at most LAB_POOL_KEEP_BYTES of free buffers;
 * beyond that a put frees. lab_pool_put needs the size given to lab_pool_get (the
 * caller knows it; nothing is stored in the buffer while it is in use).
 *
 * Not thread-safe: one pool per owner. Zero-initialised is an empty pool.
 */
#ifndef DEBLOAT_LAB_POOL_H
#define DEBLOAT_LAB_POOL_H

#include <stddef.h>
#include <stdint.h>

#define LAB_POOL_CLASSES    14
#define LAB_POOL_MIN_SIZE   2048u
#define LAB_POOL_MAX_SIZE   (LAB_POOL_MIN_SIZE * 96) /* 192 KB: the largest class */
#define LAB_POOL_KEEP_BYTES (4u << 20)

struct lab_pool {
	void *head[LAB_POOL_CLASSES];  /* free buffers, linked through their first bytes */
	size_t kept[LAB_POOL_CLASSES]; /* bytes on each list */
	uint64_t gets, hits;	       /* requests, and those served from a list */
};

/* The capacity of the class serving `size` bytes; 0 when above LAB_POOL_MAX_SIZE. */
size_t lab_pool_class_size(size_t size);

/* A buffer of at least `size` bytes, or NULL when out of memory. */
void *lab_pool_get(struct lab_pool *p, size_t size);

/* Give back a buffer from lab_pool_get(p, size) with the same size. NULL is ignored. */
void lab_pool_put(struct lab_pool *p, void *buf, size_t size);

/* Free every kept buffer; the pool stays usable. */
void lab_pool_clear(struct lab_pool *p);

#endif
