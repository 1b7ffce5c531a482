/* SPDX-License-Identifier: MIT */
/*
 * qdisc-opts.h - the inside of the root-qdisc knob (knob.h): per leaf kind (fq_codel,
 * fq, cake, pfifo, bfifo, pfifo_fast), tc's option words turned into TCA_OPTIONS exactly
 * as tc encodes them (with base/nl.h's builder), and TCA_OPTIONS turned back into words.
 *
 * The two directions walk one table per kind (src/qkind/, docs/design/qdisc-kinds.md),
 * in tc's attribute order: encoding sends
 * an attribute only when a word set it (as tc does), decoding spells an attribute only
 * when it differs from the kernel's fixed default, in the same order. So decoding what
 * encoding wrote gives a canonical spelling ("fq_codel target 5000us limit 800" and
 * "fq_codel limit 800" are both "limit 800"), and decoding a kernel dump gives the
 * words that rebuild that qdisc.
 *
 * Internal to src/fix; not a public interface.
 */
#ifndef DEBLOAT_FIX_QDISC_OPTS_H
#define DEBLOAT_FIX_QDISC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "base/nl.h"
#include "fix/knob.h"

/* fq_codel, fq, cake, pfifo, bfifo, pfifo_fast (src/qkind/'s kinds marked leaf): what a
 * spec may put at a leaf. */
bool qdisc_leaf_kind(const char *kind);

/*
 * Append TCA_OPTIONS for kind from tc's option words (nothing at all where tc sends
 * nothing: pfifo without a limit, pfifo_fast). -EINVAL for an unknown kind, word or
 * value, with a message in err naming it; -ENOSPC from the buffer.
 */
int qdisc_opts_encode(struct nlbuf *b, const char *kind, char *const *words, int nwords, char *err,
		      size_t errlen);

#define QDISC_OPTS_MAX 24

/* One option as words: "limit 800", "ecn", "bandwidth 95mbit". */
struct qdisc_opt {
	const char *key; /* the option's name, for comparing two sets ("ecn" for ecn/noecn) */
	char text[48];
	bool link_default; /* the kernel's default depends on the link (MTU, txqueuelen) */
};

struct qdisc_opts {
	unsigned n;
	struct qdisc_opt v[QDISC_OPTS_MAX];
};

/*
 * The words for TCA_OPTIONS' payload (opts NULL or len 0: none was given), without the
 * options at the kernel's fixed defaults; attributes this file does not know are
 * ignored. -EBADMSG when malformed, -EOPNOTSUPP when an attribute holds something no
 * tc word sets (a cake fwmark, a CE threshold selector): not rebuildable.
 */
int qdisc_opts_decode(const char *kind, const void *opts, size_t len, struct qdisc_opts *out);

/* "limit 800 quantum 300" ("" for none); -ENOSPC. */
int qdisc_opts_format(const struct qdisc_opts *o, char *buf, size_t len);

/*
 * Do a and b configure the same qdisc? Equal texts for every key both name; a key only
 * one names must be link-dependent (its default cannot be known here) to be equal.
 */
bool qdisc_opts_equal(const struct qdisc_opts *a, const struct qdisc_opts *b);

/* The burst tc gives an htb class of this rate (bytes/s), in scheduler ticks: what the
 * kernel reports back as the class's buffer and cbuffer. */
uint32_t qdisc_htb_burst_ticks(uint64_t rate, const struct knob_psched *clock);

#endif
