/* SPDX-License-Identifier: MIT */
/*
 * qkind.h - what each qdisc kind's options are, written once: one table per kind (one
 * file per kind in src/qkind/), walked by everything that reads or writes options.
 *
 * An attribute (struct qattr) is one option of a kind. Its row says
 *   - the netlink attribute inside TCA_OPTIONS (linux/pkt_sched.h's number),
 *   - the tc word that sets it ("limit", "target"; a choice of words for modes and
 *     flags: "ecn"/"noecn"),
 *   - the key and unit under which the audit and snapshots report it (docs/json.md:
 *     "limit_packets", "target_us"), and how the reported value follows from the
 *     attribute (struct qshow),
 *   - how tc spells and sends its value (enum qenc),
 *   - the kernel's default, in the attribute's own unit, where the kernel has a fixed one.
 * Rows are in tc's attribute order (iproute2 6.1): encoding sends attributes in that
 * order, byte for byte as tc does. The audit's order is a separate column (show_pos),
 * so neither order constrains the other.
 *
 * The walkers:
 *   qkind_show     TCA_OPTIONS -> the audit's key/unit values (src/host)
 *   qkind_encode   tc words -> the attributes tc would send (src/fix builds the message)
 *   qkind_decode   TCA_OPTIONS -> the attributes that differ from the kernel's defaults,
 *                  for spelling back as words with qkind_spell (src/fix)
 *   qkind_spec_*   the words and keys the fix plan compares by value (src/fix/plan.c)
 *
 * Layers: this folder includes only src/'s base headers (value.h, nl.h) and the
 * library's units; it never prints and returns -errno. docs/design/qdisc-kinds.md says
 * how to add a kind.
 */
#ifndef DEBLOAT_QKIND_QKIND_H
#define DEBLOAT_QKIND_QKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/value.h"

/* How tc spells an attribute's value and how it travels in the attribute. */
enum qenc {
	QENC_U32,	/* a count: decimal, u32 */
	QENC_SIZE,	/* bytes, tc's size spelling ("64kb"), u32 */
	QENC_TIME_US,	/* tc's time spelling, sent as u32 microseconds */
	QENC_TIME_NS,	/* tc's time spelling, sent as u32 nanoseconds */
	QENC_RATE32,	/* tc's rate spelling, sent as u32 bytes/s */
	QENC_RATE64,	/* the same as a u64 */
	QENC_LOG2,	/* a count sent as its base-2 logarithm, rounded up (fq buckets) */
	QENC_S32,	/* a signed number (cake overhead) */
	QENC_CHOICE,	/* one word of several, each a u32 value */
	QENC_CHOICE_U8, /* the same, sent as a u8 */
	QENC_DERIVED,	/* set along with another word (cake's target with rtt): never spelled */
	QENC_FOREIGN,	/* no tc word we take sets it: rebuilding needs it absent or default */
};

/* How the audit reports an attribute's value (nothing for QSHOW_NONE). */
enum qshow {
	QSHOW_NONE,
	QSHOW_NUM,	  /* the number as sent */
	QSHOW_BOOL,	  /* nonzero: true */
	QSHOW_LOG2,	  /* 1 << value (values of 32 and above: nothing) */
	QSHOW_UNLESS_MAX, /* ~0U means "off": nothing */
	QSHOW_RATE,	  /* bytes/s as bits/s; a u32's ~0U (no limit) or a u64's 0: nothing */
	QSHOW_LIST,	  /* small integers (prio's priomap; the kind's own show() reads it) */
};

#define QA_DEFAULT	0x01 /* def is the kernel's fixed default: not spelled when equal */
#define QA_LINK_DEFAULT 0x02 /* the kernel's default depends on the link (see mtu_frames) */
#define QA_OMIT_ZERO	0x04 /* tc sends nothing for 0 */
#define QA_NONZERO	0x08 /* tc refuses 0 */
#define QA_SPEC		0x10 /* the fix plan compares it by value (others: as written) */
#define QA_SPEC_DEFAULT 0x20 /* the plan takes an absent one to be at def */
#define QA_NM		0x40 /* NetworkManager's tc.qdiscs takes it (times in us) */

struct qchoice {
	const char *word;
	uint32_t value;
	/* The value systemd.network(5) gives its attribute's key for this choice; NULL:
	 * yes/no by value for an on/off attribute (QSHOW_BOOL), else the word itself. */
	const char *networkd;
};

struct qattr {
	uint16_t type;	    /* the netlink attribute (0 where TCA_OPTIONS is a bare struct) */
	const char *word;   /* tc's word; for a choice, the option's name ("ecn") */
	const char *key;    /* the audit's JSON key, NULL when it does not report it */
	enum unit unit;	    /* the unit of the reported value */
	enum qenc enc;	    /* tc's spelling and the attribute's width */
	enum qshow show;    /* how the reported value follows from the attribute */
	uint8_t show_pos;   /* 1-based place in the audit's list of this kind's options */
	unsigned flags;	    /* QA_* */
	uint64_t def;	    /* the kernel's default, in the attribute's own unit */
	uint8_t mtu_frames; /* QA_LINK_DEFAULT: the default is this many of the link's frames
			     * (MTU + link header: the kernel's psched_mtu); 0: not so */
	uint16_t absent_if; /* decoding: ignore it when this attribute is present (0: never) */
	const struct qchoice *choices; /* QENC_CHOICE*: NULL-terminated */
	const char *networkd; /* its key in the kind's systemd.network(5) section, or NULL */
};

/* A word that sets more than its own attribute (cake's presets), or another way to set
 * one ("unlimited"). */
struct qword {
	const char *word;
	uint16_t type; /* the attribute it sets */
	bool arg;      /* its value follows; else it sets value */
	uint64_t value;
	uint16_t type2; /* another attribute it sets to value2 (0: none) */
	uint64_t value2;
	uint16_t div_type; /* also sets this attribute to the value / div, at least 1 */
	uint64_t div;
	bool forced; /* its value is sent even where QA_OMIT_ZERO would leave a 0 out */
	bool spec;   /* the plan reads it as a setting of its attribute */
};

/* Where a kind keeps its options in TCA_OPTIONS. */
enum qlayout {
	QLAYOUT_NONE, /* no options we read */
	QLAYOUT_NEST, /* one attribute per option */
	QLAYOUT_FIFO, /* a bare struct tc_fifo_qopt: attrs[0] is its limit */
	QLAYOUT_OWN,  /* a struct with attributes around it: the kind's own show() */
};

/* Values for the audit: at most max; those beyond are dropped. */
struct qshown {
	struct value *v;
	unsigned n, max;
};

void qshown_add(struct qshown *s, struct value v);

#define QKIND_MAX_ATTRS 24
#define QKIND_MAX_TYPE	31 /* above every attribute number in the tables */

struct qkind {
	const char *name;
	enum qlayout layout;
	bool leaf;		   /* fix may put it at a leaf of a root-qdisc spec (knob.h) */
	bool fifo;		   /* one first-in first-out queue per band: no flows, no AQM */
	bool builtin;		   /* built in wherever the kernel has qdiscs: no module, no
				    * CONFIG_NET_SCH_ option of its own */
	bool known_defaults;	   /* every option it reports has its default in the table, or
				    * is reported only when set (qkind_shown_defaults) */
	const struct qattr *attrs; /* in tc's order */
	size_t nattrs;
	const char *networkd;	   /* its systemd.network(5) section ("CAKE"), or NULL */
	const struct qword *words; /* extra words, looked at before the attributes' own */
	size_t nwords;
	/* QLAYOUT_OWN: the audit's values from TCA_OPTIONS' payload; -EBADMSG. */
	int (*show)(const void *opts, size_t len, struct qshown *out);
	/* A classful kind that shapes: a class's guaranteed rate in bits/s from its
	 * TCA_OPTIONS' payload (RTM_NEWTCLASS), what a qdisc under it drains at; -EBADMSG. */
	int (*class_rate)(const void *opts, size_t len, uint64_t *bps);
};

/* The kind named kind, or NULL. */
const struct qkind *qkind_find(const char *kind);
/* Every kind, for tests: the i-th, NULL past the last. */
const struct qkind *qkind_at(size_t i);

/*
 * The audit's key as an empty value (the tables' own key string, type and unit), for
 * whatever kind reports it: a key means the same in every kind. What a snapshot reads
 * back. false for a key no table has.
 */
bool qkind_key_value(const char *key, struct value *out);

/* Is kind named kind, and does its table say it is a FIFO (builtin)? false for unknown kinds. */
bool qkind_is_fifo(const char *kind);
bool qkind_is_builtin(const char *kind);

/*
 * Are the audit's values v[0..n) of a qdisc of kind k (qkind_show's keys) all at the
 * kernel's defaults, on a link whose frames are frame bytes (MTU + link header)? A value
 * that is absent counts as the default (older kernels report fewer); an option the
 * kernel reports only when it is set must be absent. false for a kind without
 * known_defaults.
 */
bool qkind_shown_defaults(const struct qkind *k, const struct value *v, size_t n, uint64_t frame);

/* The attribute of k with this netlink type, or NULL. */
const struct qattr *qkind_attr(const struct qkind *k, uint16_t type);
/* The attribute k reports under the audit's key, or NULL. */
const struct qattr *qkind_key_attr(const struct qkind *k, const char *key);

/*
 * The audit's values for TCA_OPTIONS' payload, appended to out in show_pos order. On
 * -EBADMSG (malformed) out->n is left as it was (the slots past it may be written).
 */
int qkind_show(const struct qkind *k, const void *opts, size_t len, struct qshown *out);

/* One attribute's value on the wire, as tc would send it. */
struct qkind_wire {
	const struct qattr *attr;
	uint64_t v; /* QENC_S32 as its two's complement in the low 32 bits */
};

/*
 * tc's option words for k into the attributes tc would send, in its order: out[] gets
 * at most QKIND_MAX_ATTRS, *n how many. -EINVAL with a message in err for an unknown
 * word, a missing or bad value, or words given to a kind that takes none.
 */
int qkind_encode(const struct qkind *k, char *const *words, int nwords, struct qkind_wire *out,
		 unsigned *n, char *err, size_t errlen);

/* Put one wire value into buf as the attribute's payload; returns its length (1, 4, 8). */
size_t qkind_wire_bytes(const struct qkind_wire *w, void *buf);

/*
 * The attributes of TCA_OPTIONS' payload that differ from the kernel's fixed defaults,
 * in tc's order (at most QKIND_MAX_ATTRS). -EBADMSG when malformed, -EOPNOTSUPP when an
 * attribute holds something no tc word sets.
 */
int qkind_decode(const struct qkind *k, const void *opts, size_t len, struct qkind_wire *out,
		 unsigned *n);

/* "limit 800", "ecn", "bandwidth 95mbit" for one attribute's value (truncated to len);
 * -EOPNOTSUPP when no word gives that value. */
int qkind_spell(const struct qattr *a, uint64_t v, char *buf, size_t len);

/*
 * For the plan, which keeps times in ns, rates in bytes/s and flags as 0/1:
 * qkind_spec_word finds the QA_SPEC attribute a word sets; *flag says the word is a
 * flag whose value is *value (else a value follows). qkind_spec_name finds it by the
 * plan's name for it (its word: "ecn" for ecn/noecn), qkind_spec_key by the audit's key.
 * qkind_spec_value turns an audit value into the plan's unit and qkind_spec_default gives the
 * kernel's default in it (false: none the plan may assume).
 */
const struct qattr *qkind_spec_word(const struct qkind *k, const char *word, bool *flag,
				    uint64_t *value);
const struct qattr *qkind_spec_name(const struct qkind *k, const char *name);
/*
 * Any attribute by one of tc's words for it: its own word ("limit", "ecn") with *choice
 * NULL, or one of its choices' words ("diffserv4", "nonat") with *choice that choice.
 * NULL when no attribute of k has that word.
 */
const struct qattr *qkind_word_attr(const struct qkind *k, const char *word,
				    const struct qchoice **choice);
const struct qattr *qkind_spec_key(const struct qkind *k, const char *key);
uint64_t qkind_spec_value(const struct qattr *a, uint64_t shown);
bool qkind_spec_default(const struct qattr *a, uint64_t *value);

#endif
