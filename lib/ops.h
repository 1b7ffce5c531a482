/* SPDX-License-Identifier: MIT */
/*
 * ops.h - the void-pointer trampolines from struct db_qdisc_ops to a discipline's
 * typed functions (private to lib/).
 *
 * Every discipline has PFX_init, PFX_destroy, PFX_enqueue, PFX_dequeue, PFX_reset
 * and PFX_stats taking its own state type; DB_QDISC_OPS_WRAPPERS(PFX) defines the
 * static ops_init ... ops_stats that the ops table points at. Calling through a
 * cast function pointer would be undefined behaviour; these compile to a jump.
 * A discipline with PFX_parse, PFX_format and PFX_xstats of its own also takes
 * DB_QDISC_PARAM_WRAPPERS(PFX); the others write ops_parse/format/xstats by hand.
 * DB_QDISC_OPS_METHODS fills an ops table's function members from those names;
 * the table itself keeps only what differs: kind, usage, sizes, defaults, next_ns.
 */
#ifndef DEBLOAT_LIB_OPS_H
#define DEBLOAT_LIB_OPS_H

#include "debloat/model.h"

#define DB_QDISC_OPS_WRAPPERS(pfx)                                                                 \
	static int ops_init(void *priv, const void *params, const struct db_qdisc_env *env)        \
	{                                                                                          \
		return pfx##_init(priv, params, env);                                              \
	}                                                                                          \
	static void ops_destroy(void *priv)                                                        \
	{                                                                                          \
		pfx##_destroy(priv);                                                               \
	}                                                                                          \
	static int ops_enqueue(void *priv, struct db_pkt *pkt, uint64_t now_ns)                    \
	{                                                                                          \
		return pfx##_enqueue(priv, pkt, now_ns);                                           \
	}                                                                                          \
	static struct db_pkt *ops_dequeue(void *priv, uint64_t now_ns)                             \
	{                                                                                          \
		return pfx##_dequeue(priv, now_ns);                                                \
	}                                                                                          \
	static void ops_reset(void *priv)                                                          \
	{                                                                                          \
		pfx##_reset(priv);                                                                 \
	}                                                                                          \
	static void ops_stats(const void *priv, struct db_qdisc_stats *st)                         \
	{                                                                                          \
		pfx##_stats(priv, st);                                                             \
	}

#define DB_QDISC_PARAM_WRAPPERS(pfx)                                                               \
	static int ops_parse(void *params, int argc, char *const argv[], char *err, size_t errlen) \
	{                                                                                          \
		return pfx##_parse(params, argc, argv, err, errlen);                               \
	}                                                                                          \
	static int ops_format(const void *params, char *buf, size_t len)                           \
	{                                                                                          \
		return pfx##_format(params, buf, len);                                             \
	}                                                                                          \
	static int ops_xstats(const void *priv, struct db_stat *out, int max)                      \
	{                                                                                          \
		return pfx##_xstats(priv, out, max);                                               \
	}

#define DB_QDISC_OPS_METHODS                                                                       \
	.parse = ops_parse, .format = ops_format, .init = ops_init, .destroy = ops_destroy,        \
	.enqueue = ops_enqueue, .dequeue = ops_dequeue, .reset = ops_reset, .stats = ops_stats,    \
	.xstats = ops_xstats

#endif
