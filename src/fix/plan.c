/* SPDX-License-Identifier: MIT */
/* plan.c - plan.h: the steps of a fix, from the same description and policy as audit. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <debloat/units.h>

#include "audit/drivers.h"
#include "base/array.h"
#include "base/say.h"
#include "fix/knob-type.h"
#include "fix/plan.h"
#include "fix/root-spec.h"
#include "host/avail.h"
#include "host/qdisc.h"
#include "qkind/qkind.h"

void plan_init(struct plan *p, const struct plan_options *opts)
{
	memset(p, 0, sizeof(*p));
	if (opts)
		p->opts = *opts;
}

void plan_free(struct plan *p)
{
	free(p->targets);
	free(p->steps);
	memset(p, 0, sizeof(*p));
}

const char *plan_role_name(enum plan_role role)
{
	return role == PLAN_ROLE_SERVER ? "server" : "host";
}

int plan_role_from_name(const char *name)
{
	if (!strcmp(name, "host"))
		return PLAN_ROLE_HOST;
	if (!strcmp(name, "server"))
		return PLAN_ROLE_SERVER;
	return -EINVAL;
}

const char *plan_status_name(enum step_status s)
{
	static const char *const names[] = {
	    [STEP_PLANNED] = "planned",		[STEP_SAME] = "same",
	    [STEP_UNSUPPORTED] = "unsupported", [STEP_APPLIED] = "applied",
	    [STEP_REFUSED] = "refused",		[STEP_FAILED] = "failed",
	    [STEP_ROLLED_BACK] = "rolled-back", [STEP_NOT_REACHED] = "not-reached",
	};

	return s <= STEP_NOT_REACHED ? names[s] : "?";
}

int plan_parse_rate(const char *s, uint64_t *bytes_per_sec)
{
	uint64_t v;

	if (db_parse_rate(s, &v) < 0 || v < PLAN_SHAPE_MIN || v > PLAN_SHAPE_MAX)
		return -EINVAL;
	*bytes_per_sec = v;
	return 0;
}

int plan_phase(enum knob_kind kind)
{
	const struct knob_type *t = knob_type_of(kind);

	return t ? t->phase : INT_MAX;
}

bool plan_knob_optional(enum knob_kind kind)
{
	const struct knob_type *t = knob_type_of(kind);

	return t && (t->flags & KNOB_OPTIONAL);
}

int plan_add_target(struct plan *p, const char *name)
{
	struct plan_target *t;
	int r;

	if (p->ntargets == p->targets_cap) {
		t = array_grow(p->targets, &p->targets_cap, sizeof(*t), 4, PLAN_MAX_STEPS, &r);
		if (!t)
			return r;
		p->targets = t;
	}
	t = &p->targets[p->ntargets];
	memset(t, 0, sizeof(*t));
	say(t->name, sizeof(t->name), "%s", name);
	t->bql_in_use = TRI_UNKNOWN;
	return (int)p->ntargets++;
}

int plan_add_step(struct plan *p, int target, const struct knob *k, const char *after,
		  bool optional, const char *why)
{
	struct plan_step *s;
	int r;

	if (strlen(after) >= KNOB_VALUE_MAX)
		return -EINVAL;
	if (p->nsteps == p->steps_cap) {
		s = array_grow(p->steps, &p->steps_cap, sizeof(*s), 16, PLAN_MAX_STEPS, &r);
		if (!s)
			return r;
		p->steps = s;
	}
	s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->knob = *k;
	s->target = target;
	s->optional = optional;
	say(s->after, sizeof(s->after), "%s", after);
	say(s->why, sizeof(s->why), "%s", why ? why : "");
	s->status = STEP_PLANNED;
	return 0;
}

__attribute__((format(printf, 2, 3))) static void target_note(struct plan_target *t,
							      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_vnote(t->notes[0], sizeof(t->notes[0]), &t->nnotes, PLAN_MAX_NOTES, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void host_note(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_vnote(p->notes[0], sizeof(p->notes[0]), &p->nnotes, PLAN_MAX_NOTES, fmt, ap);
	va_end(ap);
}

/* Unknown availability counts as available, as in the policy: the write will tell. */
static bool have_kind(const struct host *h, const char *kind)
{
	return !h || avail_of(h->qdisc_kinds, HOST_NQDISC_KINDS, kind) != QDISC_AVAIL_NO;
}

/* policy.h's FIFO of the last resort and its GSO cap. */
static uint32_t gso_cap(const struct iface *ifc)
{
	return policy_gso_cap(ifc);
}

/* What goes at the leaves: the role's kind, or the best this kernel has instead. */
struct leaf {
	char spec[128];
	bool fifo; /* the short pfifo of the last resort */
};

static void choose_leaf(struct plan *p, struct plan_target *t, const struct iface *ifc,
			const struct host *h, uint64_t rate, struct leaf *leaf)
{
	unsigned n = policy_fifo_len(ifc, rate);
	bool want_fq = p->opts.role == PLAN_ROLE_SERVER;

	leaf->fifo = false;
	if (want_fq && have_kind(h, "fq")) {
		say(leaf->spec, sizeof(leaf->spec), "fq");
		return;
	}
	if (have_kind(h, "fq_codel")) {
		if (want_fq)
			target_note(t,
				    "this kernel has no fq (pacing for servers): fq_codel instead");
		/* policy.h's parameters for the link's speed, plus ECN. */
		say(leaf->spec, sizeof(leaf->spec), "fq_codel%s ecn",
		    policy_fq_codel_params(ifc->speed_mbps));
		return;
	}
	if (have_kind(h, "cake")) {
		target_note(t, "this kernel has no %sfq_codel: cake in its place",
			    want_fq ? "fq nor " : "");
		say(leaf->spec, sizeof(leaf->spec), "cake");
		return;
	}
	target_note(t,
		    "this kernel has no %sfq_codel nor cake: the best it can do is a short FIFO, "
		    "pfifo limit %u (about %u ms) with txqueuelen %u and GSO packets of at most "
		    "%u bytes",
		    want_fq ? "fq, " : "", n, POLICY_FIFO_MS, n, gso_cap(ifc));
	say(leaf->spec, sizeof(leaf->spec), "pfifo limit %u", n);
	leaf->fifo = true;
}

static const struct finding *finding_of(const struct verdict *v, const char *code)
{
	for (unsigned i = 0; i < v->nfindings; i++)
		if (!strcmp(v->findings[i].code, code))
			return &v->findings[i];
	return NULL;
}

static struct knob knob_of(enum knob_kind kind, const char *ifname, int queue, const char *name)
{
	struct knob k;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	if (ifname)
		say(k.ifname, sizeof(k.ifname), "%s", ifname);
	k.queue = queue;
	if (name)
		say(k.name, sizeof(k.name), "%s", name);
	return k;
}

static bool multi_queue(const struct iface *ifc)
{
	/* The kernel puts mq at the root of a multi-queue device; sysfs lists its queues. */
	return (ifc->qdisc && !strcmp(ifc->qdisc->kind, "mq")) || ifc->nbql > 1;
}

/* The root-qdisc step; *fifo_left says whether a FIFO remains for txqueuelen to size,
 * and *rate the rate of the shaper above it (0: none). */
static int plan_root(struct plan *p, int ti, const struct iface *ifc, const struct host *h,
		     const struct verdict *v, bool *fifo_left, uint64_t *fifo_rate)
{
	struct plan_target *t = &p->targets[ti];
	const struct finding *fifo = finding_of(v, "fifo-qdisc");
	struct leaf leaf;
	char spec[KNOB_VALUE_MAX], why[PLAN_NOTE_MAX], rate[32], was[96] = "";
	struct knob k = knob_of(KNOB_ROOT_QDISC, ifc->name, 0, NULL);
	bool given = p->opts.shape_rate > 0;
	bool shape = given || (ifc->physical && v->bql_in_use == TRI_NO);
	struct policy_shaper sh;

	policy_shaper(ifc, h, p->opts.shape_rate, &sh);
	*fifo_left = false;
	*fifo_rate = 0;
	if (!given && !ifc->physical && ifc->qdisc && !strcmp(ifc->qdisc->kind, "noqueue")) {
		target_note(t, "noqueue at the root: packets do not wait in a qdisc on this "
			       "virtual link, so its root qdisc is left as it is");
		return 0;
	}
	/* The leaf's FIFO length follows the shaper's rate, when there will be a shaper. */
	choose_leaf(p, t, ifc, h,
		    shape && sh.rate && (have_kind(h, "cake") || have_kind(h, "htb")) ? sh.rate : 0,
		    &leaf);
	if (fifo && fifo->delay_us >= 0)
		say(was, sizeof(was), "; the FIFO there now can add %lld.%lld ms",
		    (long long)(fifo->delay_us / 1000), (long long)(fifo->delay_us % 1000 / 100));

	if (shape && !given && !ifc->speed_mbps) {
		target_note(t,
			    "%s has no BQL but the link speed is unknown: no shaper at 95%% of "
			    "it",
			    ifc->driver[0] ? ifc->driver : "the driver");
		shape = false;
	}
	if (shape) {
		say(rate, sizeof(rate), "%s", sh.spelled);
		if (have_kind(h, "cake")) {
			say(spec, sizeof(spec), "cake bandwidth %s", rate);
		} else if (have_kind(h, "htb")) {
			target_note(t, "this kernel has no cake: htb shapes at %s with %s under it",
				    rate, leaf.spec);
			say(spec, sizeof(spec), "htb %s %s", rate, leaf.spec);
			*fifo_left = leaf.fifo;
			*fifo_rate = sh.rate;
		} else {
			target_note(t, "this kernel has neither cake nor htb: no shaper, only %s",
				    leaf.spec);
			shape = false;
		}
	}
	if (shape && given && sh.ceiling && sh.ceiling->mbps < ifc->speed_mbps) {
		/* the user's rate on a board whose NIC or bus is the bottleneck: that is why */
		say(why, sizeof(why),
		    "%s has no BQL (%s): shape at %s as given (--shape), under the %u Mbit/s "
		    "%s on %s moves%s, so the queue forms in the qdisc%s",
		    ifc->driver, v->bql_reason, rate, sh.ceiling->mbps, sh.ceiling->driver,
		    sh.ceiling->where,
		    sh.ceiling->shared ? " for transmit and receive together" : "", was);
	} else if (shape && given) {
		say(why, sizeof(why),
		    "shape at %s, below the bottleneck measured beyond %s, so the queue forms "
		    "here%s",
		    rate, ifc->name, was);
	} else if (shape && sh.source == RATE_SOURCE_TABLE) {
		say(why, sizeof(why),
		    "%s has no BQL (%s): shape at %s, 95%% of %u Mbit/s%s (the drivers table's "
		    "ceiling), so the queue forms in the qdisc, not the TX ring%s",
		    ifc->driver, v->bql_reason, rate, sh.achievable_mbps,
		    sh.halved ? " per direction" : "", was);
	} else if (shape) {
		say(why, sizeof(why),
		    "%s has no BQL (%s): shape at %s, ~95%% of %u Mbit/s, so the queue forms in "
		    "the qdisc, not the TX ring%s",
		    ifc->driver[0] ? ifc->driver : "the driver", v->bql_reason, rate,
		    ifc->speed_mbps, was);
	}
	if (shape) {
		t->shaped = true;
		t->shaper = sh;
	} else if (multi_queue(ifc)) {
		say(spec, sizeof(spec), "mq %s", leaf.spec);
		say(why, sizeof(why), "one %s per TX queue under mq%s", leaf.spec, was);
		*fifo_left = leaf.fifo;
	} else {
		say(spec, sizeof(spec), "%s", leaf.spec);
		say(why, sizeof(why), "%s%s%s", leaf.spec,
		    leaf.fifo ? ": the shortest queue this kernel can make"
		    : p->opts.role == PLAN_ROLE_SERVER && !strcmp(leaf.spec, "fq")
			? ": fair queueing with pacing for a server"
			: ": flows share the link and each queue stays short",
		    was);
		*fifo_left = leaf.fifo;
	}
	return plan_add_step(p, ti, &k, spec, false, why);
}

/*
 * The root shaper's rate is one direction's share of a ceiling transmit and receive
 * share: the receive direction needs its own shaper at that rate, or it takes more
 * than its half and starves the transmit the root shaper planned for.
 */
static bool shared_ceiling_shaped(const struct plan_target *t)
{
	return t->shaped && t->shaper.ceiling && t->shaper.ceiling->shared &&
	       (t->shaper.halved || t->shaper.source == RATE_SOURCE_GIVEN);
}

/* The download shaper: cake, else htb over fq_codel or a byte FIFO. At --ingress's rate,
 * else at the root shaper's where the ceiling is shared (shared_ceiling_shaped). */
static int plan_ingress(struct plan *p, int ti, const struct iface *ifc, const struct host *h)
{
	struct plan_target *t = &p->targets[ti];
	struct knob k = knob_of(KNOB_INGRESS, ifc->name, 0, NULL);
	char spec[KNOB_VALUE_MAX], why[PLAN_NOTE_MAX], rate[32];
	uint64_t r = p->opts.ingress_rate;
	bool shared = false;

	if (!r && !p->opts.no_ingress && shared_ceiling_shaped(t)) {
		r = t->shaper.rate;
		shared = true;
	}
	if (!r)
		return 0;
	if (db_format_rate(r, rate, sizeof(rate)) < 0)
		return -EINVAL;
	if (have_kind(h, "cake")) {
		say(spec, sizeof(spec), "cake bandwidth %s", rate);
	} else if (have_kind(h, "htb") && have_kind(h, "fq_codel")) {
		say(spec, sizeof(spec), "htb %s fq_codel ecn", rate);
	} else if (have_kind(h, "htb")) {
		uint32_t limit = policy_ingress_fifo_bytes(ifc, r);

		say(spec, sizeof(spec), "htb %s bfifo limit %u", rate, limit);
		target_note(t,
			    "this kernel has no cake nor fq_codel: the download's shaper holds a "
			    "FIFO of %u bytes (%u ms at %s as the egress's, or three of the "
			    "largest packets that arrive%s)",
			    limit, POLICY_FIFO_MS, rate,
			    policy_ingress_frames_only(ifc) ? ": frames, with GRO off"
							    : ": 64 KB on a virtual link");
		if (ifc->gro == FEATURE_ON && policy_ingress_frames_only(ifc)) {
			struct knob g = knob_of(KNOB_OFFLOAD, ifc->name, 0, "rx-gro");
			int e = plan_add_step(p, ti, &g, "off", true,
					      "GRO builds packets of up to 64 KB, longer than the "
					      "download's short FIFO holds");

			if (e < 0)
				return e;
		}
	} else {
		target_note(t, "this kernel has neither cake nor htb: the download is not shaped");
		return 0;
	}
	if (shared)
		say(why, sizeof(why),
		    "%s on %s moves %u Mbit/s for transmit and receive together: a transmit-only "
		    "shaper cannot hold while the board also receives, so shape %s's ingress at "
		    "%s too, through an ifb device: both directions at half",
		    t->shaper.ceiling->driver, t->shaper.ceiling->where, t->shaper.ceiling->mbps,
		    ifc->name, rate);
	else if (t->shaped && t->shaper.ceiling && t->shaper.ceiling->shared)
		say(why, sizeof(why),
		    "%s on %s moves %u Mbit/s for transmit and receive together: shape %s's "
		    "ingress at %s (--ingress) through an ifb device, so that the download and "
		    "the root shaper's %s split it as given",
		    t->shaper.ceiling->driver, t->shaper.ceiling->where, t->shaper.ceiling->mbps,
		    ifc->name, rate, t->shaper.spelled);
	else
		say(why, sizeof(why),
		    "the download's queue builds upstream: shape %s's ingress at %s through an "
		    "ifb device so that it forms here",
		    ifc->name, rate);
	return plan_add_step(p, ti, &k, spec, false, why);
}

static int plan_txqueuelen(struct plan *p, int ti, const struct iface *ifc, uint64_t rate)
{
	unsigned n = policy_fifo_len(ifc, rate);
	struct knob k = knob_of(KNOB_TXQUEUELEN, ifc->name, 0, NULL);
	char val[16], why[PLAN_NOTE_MAX];

	/* Only shorter: a txqueuelen someone set below ours is theirs to keep. */
	if (ifc->txqueuelen && ifc->txqueuelen < n)
		n = ifc->txqueuelen;
	say(val, sizeof(val), "%u", n);
	say(why, sizeof(why),
	    "a FIFO remains: txqueuelen sizes it if the root is ever reset to the default");
	return plan_add_step(p, ti, &k, val, false, why);
}

/* A FIFO leaf counts packets: cap the packets TCP hands it at two full frames. */
static int plan_gso_cap(struct plan *p, int ti, const struct iface *ifc)
{
	struct knob k = knob_of(KNOB_GSO_MAX_SIZE, ifc->name, 0, NULL);
	char val[16], why[PLAN_NOTE_MAX];

	if (!ifc->gso_max_size || ifc->gso_max_size <= gso_cap(ifc))
		return 0;
	say(val, sizeof(val), "%u", gso_cap(ifc));
	say(why, sizeof(why),
	    "TCP hands the qdisc GSO packets of up to %u bytes even with GSO off (it segments "
	    "after the qdisc): two frames at most keep the FIFO short in time",
	    ifc->gso_max_size);
	return plan_add_step(p, ti, &k, val, true, why);
}

static int plan_bql(struct plan *p, int ti, const struct iface *ifc, const struct verdict *v)
{
	uint32_t want = ifc->speed_mbps <= 10 ? POLICY_BQL_MAX_10M : POLICY_BQL_MAX_100M;
	char val[16], why[PLAN_NOTE_MAX];
	int r;

	if (v->bql_in_use != TRI_YES || !ifc->speed_mbps || ifc->speed_mbps > 100)
		return 0;
	say(val, sizeof(val), "%u", want);
	say(why, sizeof(why),
	    "BQL autotuning is often 2x too high below 100 Mbit/s: %u bytes at %u Mbit/s", want,
	    ifc->speed_mbps);
	for (size_t i = 0; i < ifc->nbql; i++) {
		struct knob k;

		if (!ifc->bql[i].present)
			continue;
		k = knob_of(KNOB_BQL_LIMIT_MAX, ifc->name, (int)ifc->bql[i].queue, NULL);
		r = plan_add_step(p, ti, &k, val, false, why);
		if (r < 0)
			return r;
	}
	return 0;
}

static int plan_rings(struct plan *p, int ti, const struct iface *ifc, const struct host *h,
		      const struct verdict *v)
{
	struct plan_target *t = &p->targets[ti];
	const struct driver_info *d = v->driver;
	uint64_t frame = (uint64_t)ifc->mtu + POLICY_FRAME_OVERHEAD, n;
	char val[16], why[PLAN_NOTE_MAX], at[96];
	struct policy_shaper sh;
	uint32_t mbps;
	struct knob k;

	if (!ifc->physical || v->bql_in_use != TRI_NO)
		return 0;
	if (d && d->lever == DRIVER_LEVER_NONE) {
		target_note(t, "%s has no ring size to shrink: the shaper is the only lever",
			    ifc->driver);
		return 0;
	}
	if (d && d->lever == DRIVER_LEVER_RX_RING) {
		if (ifc->ring_rx < 0 || ifc->ring_rx >= d->lever_rx ||
		    (ifc->ring_rx_max >= 0 && ifc->ring_rx_max < d->lever_rx))
			return 0;
		k = knob_of(KNOB_RING_RX, ifc->name, 0, NULL);
		say(val, sizeof(val), "%d", d->lever_rx);
		say(why, sizeof(why),
		    "%s ignores the TX ring size, but TX gets what RX leaves of the shared "
		    "descriptor pool: %d TX descriptors",
		    ifc->driver, d->lever_tx);
		return plan_add_step(p, ti, &k, val, true, why);
	}
	if (ifc->ring_tx <= 0 || !ifc->speed_mbps)
		return 0;
	/* About 1 ms of full frames, as policy's big-tx-ring recommends, at the rate the
	 * ring drains: the drivers table's ceiling (per direction when shared) where it is
	 * below the line rate, since descriptors wait for the bus, not the wire. */
	policy_shaper(ifc, h, 0, &sh);
	mbps = policy_drain_mbps(ifc, h);
	if (sh.source == RATE_SOURCE_TABLE)
		say(at, sizeof(at), "%u Mbit/s, the drivers table's ceiling%s", mbps,
		    sh.halved ? " per direction" : "");
	else
		say(at, sizeof(at), "%u Mbit/s", mbps);
	n = (uint64_t)mbps * 1000 / 8 / frame;
	n = n < PLAN_RING_MIN ? PLAN_RING_MIN : n;
	if (n >= (uint64_t)ifc->ring_tx)
		return 0;
	k = knob_of(KNOB_RING_TX, ifc->name, 0, NULL);
	say(val, sizeof(val), "%llu", (unsigned long long)n);
	say(why, sizeof(why),
	    "without BQL the whole TX ring fills: %llu descriptors are about 1 ms at %s",
	    (unsigned long long)n, at);
	return plan_add_step(p, ti, &k, val, true, why);
}

static bool plan_has_step(const struct plan *p, const struct knob *k)
{
	for (size_t i = 0; i < p->nsteps; i++)
		if (p->steps[i].knob.kind == k->kind &&
		    !strcmp(p->steps[i].knob.ifname, k->ifname) &&
		    !strcmp(p->steps[i].knob.name, k->name))
			return true;
	return false;
}

static int plan_offloads(struct plan *p, int ti, const struct iface *ifc)
{
	static const struct {
		const char *feature, *short_name;
		size_t offset;
	} features[] = {
	    {"tx-tcp-segmentation", "TSO", offsetof(struct iface, tso)},
	    {"tx-generic-segmentation", "GSO", offsetof(struct iface, gso)},
	    {"rx-gro", "GRO", offsetof(struct iface, gro)},
	};
	int64_t wire_us = policy_bytes_delay_us(POLICY_SUPER_PACKET, ifc->speed_mbps);
	char why[PLAN_NOTE_MAX];
	int r;

	if (!ifc->speed_mbps || ifc->speed_mbps > 100)
		return 0;
	for (size_t i = 0; i < COUNT(features); i++) {
		const enum feature_state *s =
		    (const enum feature_state *)((const char *)ifc + features[i].offset);
		struct knob k;

		if (*s != FEATURE_ON)
			continue;
		k = knob_of(KNOB_OFFLOAD, ifc->name, 0, features[i].feature);
		if (plan_has_step(p, &k))
			continue; /* the download's FIFO turned it off already */
		say(why, sizeof(why),
		    "%s builds 64 KB super-packets: %lld.%lld ms each at %u Mbit/s, and a queue "
		    "always overshoots by one",
		    features[i].short_name, (long long)(wire_us / 1000),
		    (long long)(wire_us % 1000 / 100), ifc->speed_mbps);
		r = plan_add_step(p, ti, &k, "off", true, why);
		if (r < 0)
			return r;
	}
	return 0;
}

int plan_iface(struct plan *p, const struct iface *ifc, const struct host *host, bool named)
{
	struct plan_target *t;
	struct verdict v;
	bool fifo_left;
	uint64_t fifo_rate;
	int ti, r;

	ti = plan_add_target(p, ifc->name);
	if (ti < 0)
		return ti;
	t = &p->targets[ti];
	policy_iface(ifc, host, &v);
	t->ifc = ifc;
	t->speed_mbps = ifc->speed_mbps;
	t->bql_in_use = v.bql_in_use;
	say(t->bql_reason, sizeof(t->bql_reason), "%s", v.bql_reason ? v.bql_reason : "");
	if (ifc->loopback) {
		t->skipped = !named;
		t->refused = named;
		say(t->refused_why, sizeof(t->refused_why),
		    "%s is loopback: it has no wire to queue for, so there is nothing to fix",
		    ifc->name);
		return ti;
	}
	if (!ifc->physical && !named) {
		t->skipped = true;
		say(t->refused_why, sizeof(t->refused_why),
		    "%s is a virtual link (%s): name it to fix it", ifc->name, ifc->kind);
		return ti;
	}
	if (v.bql_in_use == TRI_UNKNOWN && ifc->physical)
		target_note(t,
			    "whether %s uses BQL is unknown until traffic has flowed: no shaper "
			    "now; run fix again after some traffic",
			    ifc->driver[0] ? ifc->driver : "the driver");
	r = plan_root(p, ti, ifc, host, &v, &fifo_left, &fifo_rate);
	if (!r)
		r = plan_ingress(p, ti, ifc, host);
	if (!r && fifo_left)
		r = plan_txqueuelen(p, ti, ifc, fifo_rate);
	if (!r)
		r = plan_bql(p, ti, ifc, &v);
	if (!r)
		r = plan_rings(p, ti, ifc, host, &v);
	if (!r)
		r = plan_offloads(p, ti, ifc);
	if (!r && fifo_left)
		r = plan_gso_cap(p, ti, ifc);
	return r < 0 ? r : ti;
}

int plan_host(struct plan *p, const struct host *host)
{
	const struct sysctl_entry *s;
	const char *kind = NULL;
	struct knob k;
	char why[PLAN_NOTE_MAX];
	int r;

	s = host ? host_sysctl(host, "net.core.default_qdisc") : NULL;
	if (s && !s->err) {
		if (p->opts.role == PLAN_ROLE_SERVER && have_kind(host, "fq"))
			kind = "fq";
		else if (have_kind(host, "fq_codel"))
			kind = "fq_codel";
		else if (have_kind(host, "cake"))
			kind = "cake";
		/* Already so (a snapshot says it, or the host): no step, so a dry run from a
		 * snapshot plans what a run on the host would change, and nothing more. */
		if (kind && !strcmp(s->value, kind)) {
			kind = NULL;
		} else if (kind) {
			k = knob_of(KNOB_SYSCTL, NULL, 0, "net.core.default_qdisc");
			say(why, sizeof(why),
			    "new interfaces and mq's queues get %s instead of a FIFO", kind);
			r = plan_add_step(p, -1, &k, kind, false, why);
			if (r < 0)
				return r;
		} else if (strcmp(s->value, "fq_codel") && strcmp(s->value, "fq") &&
			   strcmp(s->value, "cake")) {
			host_note(p,
				  "net.core.default_qdisc stays %s: this kernel has none of "
				  "fq_codel, fq, cake",
				  s->value);
		}
	}
	s = host ? host_sysctl(host, "net.ipv4.tcp_ecn") : NULL;
	if (s && !s->err && strcmp(s->value, "1")) {
		k = knob_of(KNOB_SYSCTL, NULL, 0, "net.ipv4.tcp_ecn");
		return plan_add_step(p, -1, &k, "1", false,
				     "ask for ECN, so AQM can mark instead of drop");
	}
	return 0;
}

int plan_build(struct plan *p, const struct host *host, bool named)
{
	int r;

	for (size_t i = 0; i < host->n; i++) {
		r = plan_iface(p, &host->ifaces[i], host, named);
		if (r < 0)
			return r;
	}
	return plan_host(p, host);
}

bool plan_value_equal(const struct knob *k, const char *have, const char *want,
		      const struct iface *ifc)
{
	const struct knob_type *t = knob_type_of(k->kind);

	if (!t)
		return false;
	/* The knob layer's own comparison first: it knows how knob_read spells things. */
	if (t->equal(have, want))
		return true;
	if (t->flags & KNOB_LIVE_TREE)
		return root_spec_covers_text(have, want, ifc ? ifc->qdisc : NULL);
	return t->loose_equal && t->loose_equal(have, want);
}

void plan_settle(struct plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_step *s = &p->steps[i];
		struct plan_target *t = s->target >= 0 ? &p->targets[s->target] : NULL;

		if (s->status != STEP_PLANNED)
			continue;
		if (s->knob.kind == KNOB_ROOT_QDISC && !strncmp(s->before, "other:", 6)) {
			const char *what = s->before + 6 + strspn(s->before + 6, " ");

			if (!p->opts.force) {
				t->refused = true;
				say(t->refused_why, sizeof(t->refused_why),
				    "%s's root qdisc is %s, which undo could not rebuild: "
				    "--force replaces it (undo then restores the kernel's default)",
				    t->name, what);
				continue;
			}
			t->forced = true;
			say(s->msg, sizeof(s->msg),
			    "replaces %s (--force): undo restores the kernel's default, not it",
			    what);
			say(s->before, sizeof(s->before), "default");
			continue;
		}
		if (s->knob.kind == KNOB_INGRESS && !strncmp(s->before, "other:", 6)) {
			t->refused = true;
			say(t->refused_why, sizeof(t->refused_why),
			    "%s's ingress has %s: debloat did not make it and will not replace it",
			    t->name, s->before + 6 + strspn(s->before + 6, " "));
			continue;
		}
		if (plan_value_equal(&s->knob, s->before, s->after, t ? t->ifc : NULL))
			s->status = STEP_SAME;
	}
}

size_t plan_count(const struct plan *p, enum step_status status)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsteps; i++)
		n += p->steps[i].status == status;
	return n;
}

bool plan_refused(const struct plan *p)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (p->targets[i].refused)
			return true;
	return false;
}
