/* SPDX-License-Identifier: MIT */
/*
 * The cache line size the kernel's ptr_ring sizes its consumer batch by (two lines of
 * pointers); the differential test builds with -DKDIFF_CACHE_BYTES to stand for other
 * machines (64: x86-64 and ARMv7's 64-byte lines; with 4-byte pointers, 128 here gives
 * the same batch of 32 as a 32-bit ARM board).
 */
#ifndef KDIFF_SHIM_CACHE_H
#define KDIFF_SHIM_CACHE_H
#ifndef KDIFF_CACHE_BYTES
#define KDIFF_CACHE_BYTES 64
#endif
#define SMP_CACHE_BYTES KDIFF_CACHE_BYTES
#ifndef ____cacheline_aligned_in_smp
#define ____cacheline_aligned_in_smp
#endif
#endif
