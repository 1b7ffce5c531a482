/* SPDX-License-Identifier: MIT */
/*
 * knob.h - every setting `debloat fix` can change, read and written as one string.
 *
 * A knob is one thing on one interface (or host-wide): the root qdisc, txqueuelen,
 * one TX queue's BQL limit_max, the TX or RX ring size, one offload feature, one
 * sysctl. knob_read() returns its current value in the same spelling knob_write()
 * takes, so the journal can store "before" values as strings and undo writes them
 * back verbatim. All access is in the calling process's network namespace.
 *
 * Value spellings:
 *   KNOB_ROOT_QDISC  a root-qdisc spec (below), or "default": the kernel's own choice
 *                    (restored by deleting the root qdisc; the kernel then attaches
 *                    pfifo_fast / mq + default_qdisc / noqueue as it does at boot).
 *                    knob_read() says "default" when what is there is a distribution
 *                    default (see knob_root_is_default), a spec when it is a tree
 *                    knob_write() can rebuild, else "other: <description>" (e.g.
 *                    "other: tbf 5:", "other: htb 1: with 2 child qdiscs"), which
 *                    knob_write() refuses. A tree in debloat's own numbering (root 1:
 *                    or 4001:, see below) reads as its spec first: "pfifo_fast", or plain
 *                    "fq_codel" where default_qdisc is fq_codel, read back as written.
 *   KNOB_TXQUEUELEN  packets, decimal
 *   KNOB_BQL_LIMIT_MAX  bytes, decimal (1879048192 is the kernel's "max")
 *   KNOB_RING_TX, KNOB_RING_RX  descriptors, decimal
 *   KNOB_OFFLOAD     "on" or "off" (name: the kernel's feature name, e.g.
 *                    "tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro")
 *   KNOB_SYSCTL      the file's contents without the trailing newline (name:
 *                    dotted, e.g. "net.ipv4.tcp_ecn")
 *   KNOB_INGRESS     the download shaper (fix/ingress-shape.h): "default" (none), or a
 *                    root-qdisc spec on the ifb device IFACE's ingress is redirected to
 *   KNOB_GSO_MAX_SIZE  bytes, decimal: the largest GSO packet the stack hands this
 *                    device's qdisc (IFLA_GSO_MAX_SIZE, `ip link set DEV gso_max_size
 *                    N`). A kernel that takes the attribute but ignores it on a link
 *                    that exists (older ones) reads back unchanged: -EOPNOTSUPP.
 *
 * Root-qdisc specs (the only trees fix builds, so the only ones it must restore):
 *   KIND [OPTS]               KIND at the root, handle R:
 *   mq KIND [OPTS]            mq at the root (handle R:), one KIND child per TX queue
 *                             with parent R:N (N = queue + 1), handle R+N: ... as tc
 *                             would number them when told explicitly
 *   htb RATE KIND [OPTS]      htb at the root (handle R:, default 1), one class R:1
 *                             with rate = ceil = RATE (tc's burst for that rate),
 *                             KIND as its leaf (handle R+f:, so 10: or 4010:)
 * R is 1 (so 1:, 2:..., 10:), or 4001 (4001:, 4002:..., 4010:) when one of those
 * handles is taken on the interface, as it is by a tree in the first numbering: a new
 * tree never shares a handle with the one it replaces, so the kernel builds it beside
 * the old one and swaps them in one step. (A replace naming the old root's own handle
 * would mean "change that qdisc", which fails for another kind; naming an old child's
 * handle, "move that qdisc to the root", which fails too.) knob_write picks R;
 * knob_read takes any numbering.
 * KIND is fq_codel, fq, cake, pfifo, bfifo or pfifo_fast; OPTS are tc's option
 * words for it (e.g. "fq_codel limit 800 quantum 300 target 5ms interval 100ms ecn",
 * "cake bandwidth 95mbit", "pfifo limit 100"). Netlink encodings follow
 * docs/design/host-tuning.md section 3 and equal what tc sends (tests/fixtures/netlink).
 *
 * knob_read spells a rebuildable tree canonically: options in tc's order, each in the
 * shortest exact units, those at the kernel's fixed defaults left out ("fq_codel limit
 * 800 quantum 300" for the example above). Compare values with knob_value_equal, not
 * strcmp: it knows "5ms" is "5000us" and that an option left out means its default.
 * Options whose default depends on the link (fq_codel and fq quantum, fq
 * initial_quantum, pfifo/bfifo limit) are always read out, and count as equal to an
 * unspecified one: name them in a spec when their value matters.
 *
 * Writing a tree is all or nothing: if a later request of the sequence fails (mq's
 * children or htb's leaf of a kind the kernel lacks), the previous tree is rebuilt from
 * what knob_read said before (or the root deleted, for "default") before returning the
 * error. A previous "other: ..." tree cannot be rebuilt; it is then lost (fix refuses
 * to replace one without --force).
 *
 * Errors: -ENODEV (no such interface), -ENOENT (no such file, sysctl, TX queue or
 * feature; or the kernel lacks the qdisc kind), -EOPNOTSUPP (the driver cannot do
 * it), -EPERM/-EACCES (not root), -EINVAL (a malformed value, or one the kernel
 * refused), -EXDEV (sysfs shows another network namespace's interface of that name:
 * a /sys not remounted after setns; nothing is written), -EBUSY (both root-qdisc
 * numberings above are taken by other qdiscs). Nothing is printed.
 */
#ifndef DEBLOAT_FIX_KNOB_H
#define DEBLOAT_FIX_KNOB_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The registry: one row per kind of knob, ROW(enum constant, row), the row being a
 * struct knob_type (fix/knob-type.h) in the file of its family. Adding a knob is a
 * row here and its file; the order is the enum's (journals store names, not numbers).
 */
#define KNOB_ROWS(ROW)                                                                             \
	ROW(KNOB_ROOT_QDISC, knob_root_qdisc)	    /* knob-root.c */                              \
	ROW(KNOB_TXQUEUELEN, knob_txqueuelen)	    /* knob-link.c */                              \
	ROW(KNOB_BQL_LIMIT_MAX, knob_bql_limit_max) /* knob-sysfs.c */                             \
	ROW(KNOB_RING_TX, knob_ring_tx)		    /* knob-ethtool.c */                           \
	ROW(KNOB_RING_RX, knob_ring_rx)		    /* knob-ethtool.c */                           \
	ROW(KNOB_OFFLOAD, knob_offload)		    /* knob-ethtool.c */                           \
	ROW(KNOB_SYSCTL, knob_sysctl)		    /* knob-sysfs.c */                             \
	ROW(KNOB_GSO_MAX_SIZE, knob_gso_max_size)   /* knob-link.c */                              \
	ROW(KNOB_INGRESS, knob_ingress)		    /* ingress-shape.c */                          \
	ROW(KNOB_TX_USECS, knob_tx_usecs)	    /* knob-coalesce.c */                          \
	ROW(KNOB_DRIVER, knob_driver)		    /* knob-driver.c */                            \
	ROW(KNOB_DRIVER_BOOT, knob_driver_boot)	    /* knob-driver-boot.c */

enum knob_kind {
#define KNOB_ROW_ENUM(kind, row) kind,
	KNOB_ROWS(KNOB_ROW_ENUM)
#undef KNOB_ROW_ENUM
};

/* How many kinds there are. */
#define KNOB_ROW_ONE(kind, row) +1
#define KNOB_KINDS		(0 KNOB_ROWS(KNOB_ROW_ONE))

#define KNOB_VALUE_MAX 512

struct knob {
	enum knob_kind kind;
	char ifname[IF_NAMESIZE]; /* empty for KNOB_SYSCTL */
	int queue;		  /* KNOB_BQL_LIMIT_MAX: the TX queue number */
	char name[64];		  /* KNOB_OFFLOAD: feature; KNOB_SYSCTL: dotted name */
};

/* Where knobs live: "/" in production; tests may point sysfs/proc elsewhere for
 * the file-backed knobs (BQL, sysctl). Netlink and ethtool always act on the
 * current network namespace. */
struct knob_env {
	const char *sysfs_root;	  /* "/sys" */
	const char *proc_root;	  /* "/proc" */
	const char *modules_root; /* "/lib/modules": the driver knob's module files */
	const char *release;	  /* the kernel release they are for; NULL: uname's */
	const char *etc_root;	  /* "/etc": the driver-boot knob's depmod.d file */
	const char *depmod;	  /* the program it runs after a change; NULL: "depmod" */
};

/* "root-qdisc", "txqueuelen", "bql-limit-max", "ring-tx", "ring-rx", "offload", "sysctl",
 * "gso-max-size", "ingress" */
const char *knob_kind_name(enum knob_kind kind);
int knob_kind_from_name(const char *name); /* -EINVAL if unknown */

/* "eth0 root qdisc", "eth0 tx-0 BQL limit_max", "net.ipv4.tcp_ecn": for messages. */
void knob_describe(const struct knob *k, char *buf, size_t len);
struct host;
/* The value h (a host read elsewhere: a snapshot) records for k, in knob_read's
 * spelling; -ENOENT where it records none. */
int knob_from_host(const struct knob *k, const struct host *h, char *val, size_t len);

/* env may be NULL: "/sys" and "/proc". -ENOSPC when val is too small. */
int knob_read(const struct knob *k, const struct knob_env *env, char *val, size_t len);
/*
 * msg (may be NULL): on failure, why in words: the kernel's extended-ack text ("Specified
 * qdisc kind is unknown."), or what was wrong with val ("unknown option \"quantom\"
 * for fq_codel"), or "" when there is nothing to add to the errno. Writing the value
 * that is already there is allowed (and for "default" over a kernel-made root, a no-op).
 */
int knob_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
	       size_t msglen);

/*
 * Do two values of a knob of this kind mean the same setting? Root qdiscs compare as
 * described above; sysctls with runs of blanks as one space; numbers as numbers; the
 * rest as strings. An unparsable root-qdisc spec equals nothing.
 */
int knob_value_equal(enum knob_kind kind, const char *a, const char *b);

/* A root-qdisc spec in knob_read's spelling ("fq_codel target 5000us" -> "fq_codel").
 * -EINVAL with a message in err. */
int knob_qdisc_canonical(const char *spec, char *out, size_t len, char *err, size_t errlen);

/*
 * Netlink request building, exposed for the golden tests: the exact bytes of each
 * request knob_write() sends for a root-qdisc spec on ifindex (a sequence of
 * messages for mq and htb trees; "default" is one RTM_DELQDISC of the root).
 * seq numbers start at `seq` and increase by one per message, nlmsg_pid 0.
 * replace: NLM_F_CREATE|NLM_F_REPLACE on every qdisc (tc qdisc replace) and
 * NLM_F_CREATE on htb's class (tc class replace); else NLM_F_CREATE|NLM_F_EXCL on
 * all (tc ... add). knob_write() always replaces. Every message asks NLM_F_ACK.
 * Returns the total length, -EINVAL (bad spec, message in err), -ENOSPC.
 */
int knob_qdisc_requests(const char *spec, int ifindex, unsigned ntxq, int replace, uint32_t seq,
			void *buf, size_t len, char *err, size_t errlen);

/*
 * The packet scheduler's clock, as /proc/net/psched gives it (four hex words): tc turns
 * htb's rates and bursts into ticks with it, so the class request depends on it.
 * KNOB_PSCHED_STANDARD is what a kernel with high-resolution timers reports (tc then
 * counts 15.625 ticks per microsecond, and takes 1e9 as "HZ" for htb's minimal burst);
 * one without them reports its timer rate as the fourth word, which changes the burst.
 */
struct knob_psched {
	uint32_t t2us, us2t, clock_res, hz;
};
#define KNOB_PSCHED_STANDARD                                                                       \
	{                                                                                          \
		1000, 64, 1000000, 1000000000                                                      \
	}
/* From PROC_ROOT/net/psched; -errno, or -EINVAL when malformed. */
int knob_psched_read(const char *proc_root, struct knob_psched *out);

#define KNOB_ROOT_MAJOR	    0x1
#define KNOB_ROOT_MAJOR_ALT 0x4001

/* knob_qdisc_requests with the root's handle major (R above: 1 to 0x7000, the tree's
 * handles staying below the kernel's automatic 8000: and up) and the clock given;
 * knob_qdisc_requests is KNOB_ROOT_MAJOR with KNOB_PSCHED_STANDARD. */
int knob_qdisc_requests_at(const char *spec, int ifindex, unsigned ntxq, int replace,
			   unsigned major, const struct knob_psched *clock, uint32_t seq, void *buf,
			   size_t len, char *err, size_t errlen);
/* RTM_NEWLINK setting IFLA_TXQLEN, as `ip link set DEV txqueuelen N` sends it. */
int knob_txqueuelen_request(int ifindex, uint32_t txqueuelen, uint32_t seq, void *buf, size_t len);
/* RTM_NEWLINK setting IFLA_GSO_MAX_SIZE, as `ip link set DEV gso_max_size N` sends it. */
int knob_gso_max_size_request(int ifindex, uint32_t size, uint32_t seq, void *buf, size_t len);

/*
 * Is this root qdisc (kind + its decoded options, children attached as host_qdisc_tree
 * does) what a distribution would leave there on its own: noqueue, noop (a device
 * that is down), mq whose children are all default_kind with default options, or
 * default_kind itself with default options? A qdisc with handle 0 is one the kernel
 * attached itself, so it always counts (with its default options by construction); a
 * pfifo_fast with a handle was added by someone (`tc qdisc add ... pfifo_fast`) and
 * does not count: deleting it would leave the device's own default, noqueue on a veth.
 * Default options are the kernel's as the kind's table gives them (qkind_shown_defaults:
 * fq_codel and fq; their quanta for a 1500-byte Ethernet link), as systemd's
 * default_qdisc=fq_codel leaves them; any other default kind with a handle counts as set.
 * default_kind NULL: "pfifo_fast".
 */
struct qdisc;
int knob_root_is_default(const struct qdisc *root, const char *default_kind);

#endif
