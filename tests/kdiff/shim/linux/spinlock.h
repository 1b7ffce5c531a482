/* SPDX-License-Identifier: MIT */
/* Locks do nothing in one thread (tests/kdiff/: the kernel's ptr_ring). */
#ifndef KDIFF_SHIM_SPINLOCK_H
#define KDIFF_SHIM_SPINLOCK_H
#include <linux/kernel.h>
typedef int spinlock_t;
#define spin_lock_init(l)	     ((void)(l))
#define spin_lock(l)		     ((void)(l))
#define spin_unlock(l)		     ((void)(l))
#define spin_lock_irq(l)	     ((void)(l))
#define spin_unlock_irq(l)	     ((void)(l))
#define spin_lock_bh(l)		     ((void)(l))
#define spin_unlock_bh(l)	     ((void)(l))
#define spin_lock_irqsave(l, f)	     ((void)(l), (void)(f))
#define spin_unlock_irqrestore(l, f) ((void)(l), (void)(f))
#endif
