/* SPDX-License-Identifier: MIT */
/*
 * fix/knob-type.h - one row of the knob registry (knob.h's KNOB_ROWS): everything
 * debloat knows about one kind of knob, in the file of its family (knob-root.c: the
 * root qdisc's tree; ingress-shape.c: the download shaper; knob-link.c: link
 * attributes; knob-sysfs.c: BQL and sysctls; knob-ethtool.c: rings and offloads; one
 * file per kind added later). knob.c is the registry and dispatches knob_read,
 * knob_write, knob_value_equal, knob_describe and knob_commands through it; the
 * planner, the emitters and the lab read the rows, so no code outside these files
 * asks which kind a knob is.
 *
 * A row's functions follow knob.h's contract (-errno, nothing printed; read gives the
 * spelling write takes). The helpers at the end are the registry's, shared by rows.
 *
 * docs/design/knobs.md says why. Internal to src/fix (and the layers above it); not a
 * public interface.
 */
#ifndef DEBLOAT_FIX_KNOB_TYPE_H
#define DEBLOAT_FIX_KNOB_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix/knob.h"
#include "host/host.h"

/* A knob's flags. */
#define KNOB_HOST_WIDE (1u << 0) /* no interface: host-wide (a sysctl) */
#define KNOB_HAS_QUEUE (1u << 1) /* knob.queue names a TX queue */
#define KNOB_HAS_NAME  (1u << 2) /* knob.name names a feature or a sysctl */
#define KNOB_OPTIONAL  (1u << 3) /* a plan's step may fail without failing fix */
#define KNOB_LIVE_TREE                                                                             \
	(1u << 4) /* "default" is the kernel's own tree: the planner                               \
		     compares a wish against the tree it reads (plan.h) */

/* Shell commands being written: knob_line appends one, with its newline. */
struct knob_lines {
	char *buf;
	size_t len, used;
	int err; /* -ENOSPC once full */
};

__attribute__((format(printf, 2, 3))) void knob_line(struct knob_lines *o, const char *fmt, ...);
/* Letters, digits, '.', '_', '-': a word a command line needs no quotes for. */
bool knob_word_ok(const char *v);

/* Where a persistent configuration (networkd, NetworkManager) puts a knob's value. */
enum knob_place {
	KNOB_NOWHERE,	  /* it has no word for it: why says so */
	KNOB_KEY,	  /* key=value: a [Link] key, a connection property */
	KNOB_QDISC_TREE,  /* a root-qdisc spec: the emitter's own qdisc words */
	KNOB_SYSCTL_LINE, /* a sysctl.d line */
	KNOB_AT_LINK_UP	  /* no word, but its commands set it again at each link up (a
			     NetworkManager dispatcher script): why says why */
};

struct knob_word {
	enum knob_place place;
	const char *key; /* KNOB_KEY: "TxBufferSize", "ethtool.ring-tx" */
	char value[64];	 /* KNOB_KEY: the value in that file's spelling */
	const char *why; /* KNOB_NOWHERE, KNOB_AT_LINK_UP: why there is none */
};

struct knob_type {
	const char *name; /* knob_kind_name: the journal's and JSON's word */
	int phase;	  /* apply order, lowest first; undo goes the other way */
	unsigned flags;	  /* KNOB_* above */
	/* The knob without its interface, for messages: "TX ring", "tx-0 BQL limit_max". */
	void (*label)(const struct knob *k, char *buf, size_t len);
	int (*read)(const struct knob *k, const struct knob_env *env, char *val, size_t len);
	int (*write)(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		     size_t msglen);
	/* Do two values, as knob_read spells them, mean the same setting? */
	bool (*equal)(const char *a, const char *b);
	/* The planner's second look when equal says no (values a person wrote): NULL none. */
	bool (*loose_equal)(const char *a, const char *b);
	/* The shell commands with write's effect (commands.h); value already checked to
	 * be one word when the row has no spec. -EINVAL for a value it cannot say. */
	int (*commands)(struct knob_lines *o, const struct knob *k, const char *value,
			unsigned ntxq);
	bool spec_value; /* the value is a root-qdisc spec, not one word */
	/* systemd-networkd (systemd 252): in a .link file's [Link] (else the .network
	 * drop-in, or sysctl.d for a host-wide knob), and the words. */
	bool nd_link;
	void (*networkd)(const struct knob *k, const char *value, struct knob_word *w);
	/* NetworkManager's connection properties. */
	void (*nm)(const struct knob *k, const char *value, struct knob_word *w);
	/* The value a host read elsewhere (a snapshot) records for k, as read spells it;
	 * -ENOENT where it has none. NULL: a snapshot never has it (a root's whole spec). */
	int (*from_host)(const struct knob *k, const struct host *h, char *val, size_t len);
};

/* The row of a kind; NULL when kind is no knob's. */
const struct knob_type *knob_type_of(enum knob_kind kind);
/* Its flags (KNOB_HOST_WIDE ...); 0 for no knob's kind. */
unsigned knob_flags(enum knob_kind kind);

/* The rows themselves, each defined in its family's file. */
#define KNOB_ROW_EXTERN(kind, row) extern const struct knob_type row;
KNOB_ROWS(KNOB_ROW_EXTERN)
#undef KNOB_ROW_EXTERN

/* ---- helpers the rows share (knob.c) ---- */

/* The interface of that name in h, or NULL. */
const struct iface *knob_host_iface(const struct host *h, const char *name);
/* v (>= 0) as a number in val; -ENOENT for a negative v (not recorded). */
int knob_put_known(char *val, size_t len, int64_t v);

const char *knob_sysfs_root(const struct knob_env *env); /* "/sys" */
const char *knob_proc_root(const struct knob_env *env);	 /* "/proc" */

__attribute__((format(printf, 3, 4))) void knob_msg(char *msg, size_t len, const char *fmt, ...);
/* val = s; -ENOSPC when it does not fit. */
int knob_put(char *val, size_t len, const char *s);
int knob_put_u64(char *val, size_t len, uint64_t v);
/* A decimal number and nothing else, up to max; -EINVAL. */
int knob_parse_number(const char *s, uint64_t max, uint64_t *out);
/* The interface's index in this namespace, or -ENODEV. */
int knob_ifindex(const char *ifname);
/*
 * Is SYSFS/class/net/IF this namespace's IF? Under the real /sys after setns without a
 * remount it may be another namespace's device of the same name: -EXDEV. A test's own
 * tree is taken as it is (-ENODEV when the directory is missing).
 */
int knob_sysfs_iface_check(const struct knob_env *env, const char *ifname);
/* Send netlink requests and wait for their acks; done: bytes acknowledged. */
int knob_send(void *buf, size_t len, size_t *done, char *msg, size_t msglen);

/* What rtnetlink says of a link. */
struct knob_link_facts {
	uint32_t txqueuelen, tx_queues, gso_max_size;
};
int knob_link_facts(int ifindex, struct knob_link_facts *out);

/* Equal as decimal numbers. */
bool knob_numbers_equal(const char *a, const char *b);
/* Equal after collapsing runs of blanks (space, tab) and trimming both ends. */
bool knob_blanks_equal(const char *a, const char *b);
/* As knob_blanks_equal, any white space. */
bool knob_words_equal(const char *a, const char *b);
/* Letters of either case. */
bool knob_case_equal(const char *a, const char *b);

#endif
