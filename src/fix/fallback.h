/* SPDX-License-Identifier: MIT */
/*
 * fallback.h - what fix learns when the kernel refuses a qdisc kind it was promised.
 *
 * The availability check (host/avail.h) trusts modules.dep: a module listed there may
 * still be missing from disk or refuse to load. The kernel then answers a root qdisc,
 * or net.core.default_qdisc, with ENOENT, and the plan's first choice cannot be had.
 * fallback_mark() finds which kinds of the refused value the kernel could not load
 * (neither loaded now nor built in, host/avail.h) and sets them QDISC_AVAIL_NO in the
 * host's table, so that a new plan takes the next link of the chain: cake, then htb
 * with fq_codel (or fq) under it, then the short FIFO (plan.c, choose_leaf and plan_root).
 */
#ifndef DEBLOAT_FIX_FALLBACK_H
#define DEBLOAT_FIX_FALLBACK_H

#include <stddef.h>

#include "host/host.h"

/*
 * For each word of `value` (a root qdisc spec such as "htb 95mbit fq_codel ecn", or a
 * sysctl value such as "cake") that is a kind of h->qdisc_kinds not already marked
 * QDISC_AVAIL_NO and that avail_loaded_or_builtin() denies: mark it QDISC_AVAIL_NO and
 * append it to `names` (space-separated, NUL-terminated, truncated to len). Returns
 * how many kinds were marked: 0 means the refusal was not about a missing kind, and a
 * new plan would be the same.
 */
size_t fallback_mark(struct host *h, const struct host_paths *paths, const char *value, char *names,
		     size_t len);

#endif
