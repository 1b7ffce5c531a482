/* SPDX-License-Identifier: MIT */
/* Allocation for the kernel's ptr_ring in userspace (tests/kdiff/). */
#ifndef KDIFF_SHIM_SLAB_H
#define KDIFF_SHIM_SLAB_H
#include <linux/kernel.h>
typedef unsigned int gfp_t;
#define GFP_KERNEL	 0u
#define KMALLOC_MAX_SIZE (1UL << 30)
#define __GFP_ZERO	 1u
#define alloc_hooks(x)	 (x)
static inline void *kvmalloc_array_noprof(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n ? n : 1, size); /* ptr_ring asks for zeroed slots */
}
static inline void *kmalloc_array_noprof(size_t n, size_t size, gfp_t gfp)
{
	return kvmalloc_array_noprof(n, size, gfp);
}
#define kvmalloc_array kvmalloc_array_noprof
static inline void kvfree(void *p)
{
	free(p);
}
static inline void kfree(void *p)
{
	free(p);
}
#endif
