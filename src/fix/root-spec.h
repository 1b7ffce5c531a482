/* SPDX-License-Identifier: MIT */
/*
 * fix/root-spec.h - the root-qdisc spec (knob.h's grammar), one type for every user:
 *
 *	default                 the kernel's own root
 *	KIND [OPTS]             KIND at the root
 *	mq KIND [OPTS]          mq, one KIND per TX queue
 *	htb RATE KIND [OPTS]    htb, one class at RATE, KIND as its leaf
 *
 * KIND is a leaf kind (qdisc_leaf_kind). root_spec_parse is the one parser of that
 * grammar: the knob layer builds netlink requests and commands from its words, the
 * planner and the emitters read its options as typed values (root_spec_typed), the
 * spec of a live tree comes in the same type (root_spec_of_tree), and the comparisons
 * live here too:
 *  - root_spec_same: two specs build the same tree (knob_value_equal's answer: the
 *    options canonical as the kernel would hold them; a link-dependent default left
 *    out equals any value);
 *  - root_spec_covers: what is there carries every option a wish names (the planner's
 *    question; "default" is then the live tree's own spec).
 * htb's rate is a number (bytes/s) from the parse on; a leaf's option values are
 * numbers in the typed view, words only where tc's words are the output.
 *
 * Internal to src/fix. A parsed spec's words point into its own store: do not copy it.
 */
#ifndef DEBLOAT_FIX_ROOT_SPEC_H
#define DEBLOAT_FIX_ROOT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix/knob.h"
#include "fix/qdisc-opts.h"
#include "host/iface.h"

enum root_shape {
	ROOT_SHAPE_DEFAULT, /* "default" */
	ROOT_SHAPE_LEAF,    /* "KIND [OPTS]" */
	ROOT_SHAPE_MQ,	    /* "mq KIND [OPTS]" */
	ROOT_SHAPE_HTB,	    /* "htb RATE KIND [OPTS]" */
};

#define ROOT_SPEC_WORDS	   64
#define ROOT_SPEC_MAX_OPTS 16

/* One option in the typed view. */
struct root_spec_opt {
	char name[24]; /* the kind's table's word ("ecn" for ecn/noecn) */
	bool numeric;
	uint64_t v;    /* numbers in base units: ns, bytes, bytes/s, packets; flags 0/1 */
	char word[40]; /* when !numeric: the value as written */
};

struct root_spec {
	enum root_shape shape;
	char kind[QDISC_KIND_MAX];    /* the leaf's kind */
	uint64_t htb_rate;	      /* ROOT_SHAPE_HTB: bytes per second */
	char *words[ROOT_SPEC_WORDS]; /* the leaf's option words as written (in store) */
	int nwords;
	char store[KNOB_VALUE_MAX];
	struct root_spec_opt opts[ROOT_SPEC_MAX_OPTS]; /* root_spec_typed's */
	unsigned nopts;
};

/* The grammar: -EINVAL with a message for anything but the four shapes over a known
 * leaf kind. The option words are checked by root_spec_opts or root_spec_typed. */
int root_spec_parse(const char *text, struct root_spec *out, char *err, size_t errlen);
/* The leaf's options, canonical (encoded as tc would, then decoded). */
int root_spec_opts(const struct root_spec *s, struct qdisc_opts *out, char *err, size_t errlen);
/* Fill s->opts from its words: -EINVAL for a value that does not read, too many. An
 * option the kind's table does not know is kept as written. */
int root_spec_typed(struct root_spec *s);
/* root_spec_parse and root_spec_typed, without a message: -EINVAL. */
int root_spec_read(const char *text, struct root_spec *out);

/* The spec of a live tree, where it has one (no htb: its rate is in a class); only the
 * typed view is filled. -ENOENT. */
int root_spec_of_tree(const struct qdisc *root, struct root_spec *out);
/* Does have carry everything want asks for (typed views)? */
bool root_spec_covers(const struct root_spec *have, const struct root_spec *want);

/* Two values of the root-qdisc knob that build the same tree; "other: ..." texts only
 * when identical; an unparsable spec equals nothing. */
bool root_spec_same(const char *a, const char *b);
/* Does the value have (knob_read's) carry the wish want? have "default" is the live
 * tree root (NULL: unknown, then no). */
bool root_spec_covers_text(const char *have, const char *want, const struct qdisc *root);

#endif
