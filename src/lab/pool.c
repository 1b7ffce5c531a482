/* SPDX-License-Identifier: MIT */
/* pool.c - free lists of buffers by size class (pool.h). */
#include "pool.h"

#include <stdlib.h>

/* Class i holds 2 KB * 2^(i/2), times 1.5 for odd i: 2, 3, 4, 6, 8, 12, ... KB. */
static size_t class_cap(unsigned i)
{
	size_t base = (size_t)LAB_POOL_MIN_SIZE << (i / 2);

	return i % 2 ? base + base / 2 : base;
}

static int class_of(size_t size)
{
	for (unsigned i = 0; i < LAB_POOL_CLASSES; i++)
		if (size <= class_cap(i))
			return (int)i;
	return -1;
}

size_t lab_pool_class_size(size_t size)
{
	int c = class_of(size);

	return c < 0 ? 0 : class_cap((unsigned)c);
}

void *lab_pool_get(struct lab_pool *p, size_t size)
{
	int c = class_of(size);
	void *b;

	p->gets++;
	if (c < 0)
		return malloc(size);
	if ((b = p->head[c])) {
		p->head[c] = *(void **)b;
		p->kept[c] -= class_cap((unsigned)c);
		p->hits++;
		return b;
	}
	return malloc(class_cap((unsigned)c));
}

void lab_pool_put(struct lab_pool *p, void *buf, size_t size)
{
	int c = class_of(size);

	if (!buf)
		return;
	if (c < 0 || p->kept[c] + class_cap((unsigned)c) > LAB_POOL_KEEP_BYTES) {
		free(buf);
		return;
	}
	*(void **)buf = p->head[c];
	p->head[c] = buf;
	p->kept[c] += class_cap((unsigned)c);
}

void lab_pool_clear(struct lab_pool *p)
{
	for (unsigned i = 0; i < LAB_POOL_CLASSES; i++) {
		while (p->head[i]) {
			void *b = p->head[i];

			p->head[i] = *(void **)b;
			free(b);
		}
		p->kept[i] = 0;
	}
}
