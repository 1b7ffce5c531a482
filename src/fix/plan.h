/* SPDX-License-Identifier: MIT */
/*
 * plan.h - what `debloat fix` would change: per interface a list of steps, each a knob
 * (knob.h), the value it should take, and why. A pure function of what audit reads
 * (struct iface, struct host) and the policy audit judges it with (policy.h), so tests
 * feed it hand-made interfaces and the plan can never disagree with the audit.
 *
 * Building a plan happens in two pure halves around one read of the host:
 *
 *	plan_iface() / plan_host()   the "after" values, from the iface and the policy
 *	(apply.h: read each knob's "before" with knob_read)
 *	plan_settle()                drop steps already at their value, refuse what
 *	                             undo could not rebuild
 *
 * The recommendations are docs/design/host-tuning.md's, through policy.h:
 *
 *   root qdisc   fq_codel with limit/quantum for the link speed (policy's numbers) and
 *                ecn; fq for --role server (pacing); under mq, one child per TX queue
 *                when the device is multi-queue. Where the driver has no BQL
 *                (verdict.bql_in_use == TRI_NO), a shaper at 95% of the achievable
 *                rate (policy_shaper: the line rate, or the drivers table's ceiling
 *                on this machine, halved when transmit and receive share it):
 *                "cake bandwidth R", or "htb R LEAF" without cake; the target
 *                records the rate and its source.
 *                Availability first (host->qdisc_kinds; unknown counts as available,
 *                as in the policy): fq_codel, then cake, then a short pfifo (the
 *                policy's short length, policy_fifo_len). Each kind
 *                the plan wanted and the kernel lacks is a note saying what it does
 *                instead. A virtual link at noqueue keeps it (nothing queues there).
 *                With opts.shape_rate, every interface planned is shaped at that rate
 *                (cake, or htb over the leaf), virtual links included.
 *                The FIFO is short in time, not only in packets (policy_fifo_len at
 *                the shaper's rate, else the link speed), and comes with
 *                gso_max_size capped (policy_gso_cap), so that no packet in it is
 *                longer than two frames.
 *   ingress      the download shaper, right after the root: at opts.ingress_rate, or,
 *                without it (and without opts.no_ingress), at the root shaper's rate
 *                where that rate is per direction of a shared ceiling (the drivers
 *                table's shared ceiling halved, or --shape on a NIC whose ceiling is
 *                shared): a transmit-only shaper cannot hold while the board also
 *                receives, since the receive side takes more than its half.
 *   txqueuelen   only when a FIFO remains (a pfifo leaf): the same short length.
 *   BQL          limit_max of every TX queue: 3000 at <= 100 Mbit/s, 1514 at <= 10,
 *                only where BQL is in use.
 *   rings        only where BQL is missing: cpsw's lever (RX to lever_rx, which leaves
 *                lever_tx TX descriptors), else TX to ~1 ms of frames (at least 4)
 *                where the driver has a TX ring to shrink.
 *   offloads     TSO, GSO, GRO off at <= 100 Mbit/s (those that are on); gso_max_size
 *                capped where a FIFO leaf remains (above).
 *   sysctls      net.core.default_qdisc (when this namespace has it) to the role's
 *                kind, net.ipv4.tcp_ecn=1. Host-wide: planned once per plan.
 *
 * Steps are kept in apply order: per interface root qdisc, txqueuelen, BQL, rings,
 * offloads; then the sysctls. Undo restores in the reverse (plan_phase): sysctls
 * first, so that deleting a root qdisc attaches the kernel's default of before.
 */
#ifndef DEBLOAT_FIX_PLAN_H
#define DEBLOAT_FIX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit/policy.h"
#include "fix/knob.h"
#include "host/host.h"

#define PLAN_MAX_NOTES 8
#define PLAN_NOTE_MAX  256
#define PLAN_MAX_STEPS 4096 /* a 64-queue NIC has 64 BQL knobs; 4096 is plenty */
#define PLAN_RING_MIN  4    /* docs/design/host-tuning.md: ethtool -G tx 4..20 */

enum plan_role {
	PLAN_ROLE_HOST,
	PLAN_ROLE_SERVER, /* prefers fq: pacing for TCP-heavy servers */
};

struct plan_options {
	enum plan_role role;
	bool force; /* replace a root qdisc fix cannot rebuild (undo restores "default") */
	/*
	 * Shape every planned interface at this rate (bytes/s; 0: only where the driver
	 * has no BQL, at ~95% of line rate). Given a rate, a named virtual link is shaped
	 * too, even at noqueue: the caller measured a bottleneck beyond it.
	 */
	uint64_t shape_rate;
	/*
	 * Shape every planned interface's download at this rate (bytes/s; 0: not), through
	 * an ifb device (knob KNOB_INGRESS, fix/ingress-shape.h): cake, or htb over fq_codel or a
	 * byte FIFO (policy_ingress_fifo_bytes). 0 also means: where the root shaper's
	 * rate is half a ceiling transmit and receive share, the download is shaped at the
	 * same rate (plan_ingress), unless no_ingress.
	 */
	uint64_t ingress_rate;
	bool no_ingress; /* fix --no-ingress: never the automatic download shaper */
};

enum step_status {
	STEP_PLANNED,	  /* to be applied */
	STEP_SAME,	  /* already at its value: omitted, but still part of the setup */
	STEP_UNSUPPORTED, /* knob_read says this host has no such knob (-ENOENT...) */
	STEP_APPLIED,
	STEP_REFUSED,	  /* an optional step the driver cannot do (EOPNOTSUPP); left as it was */
	STEP_FAILED,	  /* the kernel refused it: the run was rolled back */
	STEP_ROLLED_BACK, /* applied, then restored by the rollback */
	STEP_NOT_REACHED, /* after a failure: never applied */
};

struct plan_step {
	struct knob knob;
	int target;    /* index in plan->targets; -1 for host-wide knobs (sysctls) */
	bool optional; /* rings and offloads: a driver without the feature does not abort the fix;
			any other refusal rolls back like a required step */
	char after[KNOB_VALUE_MAX];
	char before[KNOB_VALUE_MAX]; /* knob_read's answer; "" until read */
	char why[PLAN_NOTE_MAX];
	enum step_status status;
	unsigned journal_id;	 /* its step in the journal, once apply has written it */
	int err;		 /* with STEP_UNSUPPORTED, _REFUSED, _FAILED: -errno */
	char msg[PLAN_NOTE_MAX]; /* the knob layer's message, or a note */
};

struct plan_target {
	char name[IF_NAMESIZE];
	const struct iface *ifc; /* the description planned from (borrowed) */
	uint32_t speed_mbps;
	enum tristate bql_in_use;
	char bql_reason[192];
	bool skipped; /* not named and not to be touched (loopback, virtual): no steps */
	bool refused; /* named, but fix will not touch it: refused_why */
	char refused_why[PLAN_NOTE_MAX];
	bool forced; /* --force replaced a root qdisc undo cannot rebuild */
	/* The root shaper, when the plan has one: its rate, where the rate came from (the
	 * line rate, the drivers table's ceiling, --shape) and the ceiling's rule. */
	bool shaped;
	struct policy_shaper shaper;
	char notes[PLAN_MAX_NOTES][PLAN_NOTE_MAX]; /* fallbacks and what could not be done */
	unsigned nnotes;
};

struct plan {
	struct plan_options opts;
	struct plan_target *targets;
	size_t ntargets, targets_cap;
	struct plan_step *steps;
	size_t nsteps, steps_cap;
	char notes[PLAN_MAX_NOTES][PLAN_NOTE_MAX]; /* host-wide notes */
	unsigned nnotes;
};

void plan_init(struct plan *p, const struct plan_options *opts);
void plan_free(struct plan *p);

/*
 * Plan one interface. named: the user named it (else it came from --all). Loopback is
 * always refused (named) or skipped; a link that is not physical is skipped unless
 * named. Returns the target's index, or -ENOMEM / -E2BIG.
 */
int plan_iface(struct plan *p, const struct iface *ifc, const struct host *host, bool named);

/* The host-wide steps (sysctls), once, after the interfaces. 0 or -ENOMEM. */
int plan_host(struct plan *p, const struct host *host);

/* Every interface of host (named: see plan_iface), then plan_host. */
int plan_build(struct plan *p, const struct host *host, bool named);

/*
 * Append one step (for plans read back from a persisted file). target -1 is host-wide.
 * -ENOMEM, -E2BIG, -EINVAL (a value longer than KNOB_VALUE_MAX).
 */
int plan_add_step(struct plan *p, int target, const struct knob *k, const char *after,
		  bool optional, const char *why);
/* Add an empty target named name (for persisted plans); its index or -errno. */
int plan_add_target(struct plan *p, const char *name);

/*
 * With every step's `before` read: a step whose before already equals its after
 * becomes STEP_SAME; a root qdisc that knob_read called "other: ..." refuses its
 * target unless opts.force, which then plans undo to restore "default" (the step's
 * before becomes "default" and its msg says what it replaced). Steps already marked
 * STEP_UNSUPPORTED stay. A target refused here keeps its steps but none are applied.
 */
void plan_settle(struct plan *p);

/* Steps to apply (STEP_PLANNED) and whether any target is refused. */
size_t plan_count(const struct plan *p, enum step_status status);
bool plan_refused(const struct plan *p);

/* Undo's order is the reverse of these phases: 0 root qdisc ... 5 sysctl. */
int plan_phase(enum knob_kind kind);

/* Optional knobs (rings, offloads): refused by a driver, the fix goes on without them. */
bool plan_knob_optional(enum knob_kind kind);

/*
 * Is the value `have` (as knob_read spells it) the value `want` (as a plan spells
 * it)? Numbers compare as numbers, root-qdisc specs by shape, kind and every option
 * `want` names (tc spellings: "5ms" == "5000us", "95mbit" == "95Mbit"); `have` may
 * name more options (the kernel's defaults). ifc (may be NULL) supplies the live tree
 * when have is "default".
 */
bool plan_value_equal(const struct knob *k, const char *have, const char *want,
		      const struct iface *ifc);

/* A shaper's rate as tc spells it ("80mbit"), in bytes/s: 64 kbit/s to 100 Gbit/s.
 * -EINVAL outside that range or the spelling. */
#define PLAN_SHAPE_MIN 8000ULL
#define PLAN_SHAPE_MAX 12500000000ULL
int plan_parse_rate(const char *s, uint64_t *bytes_per_sec);

const char *plan_role_name(enum plan_role role);
int plan_role_from_name(const char *name); /* -EINVAL */
const char *plan_status_name(enum step_status s);

#endif
