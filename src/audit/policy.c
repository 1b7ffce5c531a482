/* SPDX-License-Identifier: MIT */
/* policy.c - policy.h: findings, delays and grades from an interface description. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <debloat/units.h>

#include "base/array.h"
#include "base/say.h"
#include "drivers.h"
#include "host/avail.h"
#include "host/host.h"
#include "host/qdisc.h"
#include "policy.h"
#include "qkind/qkind.h"

const char *grade_name(enum grade g)
{
	static const char *const names[] = {"A+", "A", "B", "C", "D", "F"};

	return g <= GRADE_F ? names[g] : "?";
}

const char *severity_name(enum severity s)
{
	static const char *const names[] = {"info", "warning", "critical"};

	return s <= SEVERITY_CRITICAL ? names[s] : "?";
}

enum grade policy_grade(int64_t delay_us)
{
	if (delay_us < 5000)
		return GRADE_A_PLUS;
	if (delay_us < 30000)
		return GRADE_A;
	if (delay_us < 60000)
		return GRADE_B;
	if (delay_us < 200000)
		return GRADE_C;
	if (delay_us < 400000)
		return GRADE_D;
	return GRADE_F;
}

/* bits / (Mbit/s) = microseconds, rounded to the nearest. */
int64_t policy_bytes_delay_us(uint64_t bytes, uint32_t speed_mbps)
{
	if (!speed_mbps || bytes > UINT64_MAX / 8)
		return -1;
	return (int64_t)((bytes * 8 + speed_mbps / 2) / speed_mbps);
}

int64_t policy_fifo_delay_us(uint64_t packets, uint32_t mtu, uint32_t speed_mbps)
{
	uint64_t frame = (uint64_t)mtu + POLICY_FRAME_OVERHEAD;

	if (packets > UINT64_MAX / 8 / frame)
		return -1;
	return policy_bytes_delay_us(packets * frame, speed_mbps);
}

static enum severity severity_for(int64_t delay_us)
{
	if (delay_us < 0)
		return SEVERITY_WARNING;
	if (delay_us < 5000)
		return SEVERITY_INFO;
	if (delay_us < 60000)
		return SEVERITY_WARNING;
	return SEVERITY_CRITICAL;
}

enum tristate policy_bql_in_use(const struct iface *ifc, const char **reason)
{
	bool any_dir = false;

	if (!ifc->bql_read) {
		*reason = "the BQL files could not be read";
		return TRI_UNKNOWN;
	}
	for (size_t i = 0; i < ifc->nbql; i++) {
		const struct bql_queue *q = &ifc->bql[i];
		int64_t floor = q->limit_min > 0 ? q->limit_min : 0;

		if (!q->present)
			continue;
		any_dir = true;
		if (q->inflight > 0 || q->limit > floor) {
			*reason = "a BQL limit has moved from its floor, or bytes are in flight";
			return TRI_YES;
		}
	}
	if (!any_dir) {
		*reason = "no byte_queue_limits in sysfs: no BQL for this device or kernel";
		return TRI_NO;
	}
	/* The directory exists for every TX queue whether the driver calls BQL or not
	 * (docs/design/bql-and-drivers.md section 3): only traffic tells them apart. */
	if (ifc->have_stats && ifc->tx_packets > 0) {
		*reason = "packets were sent, yet every BQL limit stays at its floor";
		return TRI_NO;
	}
	*reason = "BQL limit and inflight are 0 and nothing was sent yet";
	return TRI_UNKNOWN;
}

static struct finding *add_finding(struct verdict *v, const char *code)
{
	struct finding *f;

	if (v->nfindings == POLICY_MAX_FINDINGS)
		return NULL;
	f = &v->findings[v->nfindings++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->delay_us = -1;
	f->delay_min_us = -1;
	return f;
}

static void evidence(struct finding *f, struct value val)
{
	if (f->nevidence < POLICY_MAX_EVIDENCE)
		f->evidence[f->nevidence++] = val;
}

/* docs/design/host-tuning.md section 1: fq_codel's limit and quantum for the link's speed. */
const char *policy_fq_codel_params(uint32_t speed_mbps)
{
	if (!speed_mbps)
		return "";
	if (speed_mbps <= 10)
		return " limit 600 quantum 300";
	if (speed_mbps < 100)
		return " limit 800 quantum 300";
	if (speed_mbps <= 100)
		return " limit 800";
	if (speed_mbps <= 1000)
		return " limit 1200";
	return "";
}

struct fifo_scan {
	const struct iface *ifc;
	uint64_t gso_bytes, tsq_cap; /* a packet's most bytes; POLICY_TSQ_FLOWS x TSQ */
	const struct qdisc *worst, *worst_parent;
	int64_t worst_delay_us, worst_min_us;
	uint64_t worst_packets, worst_bytes; /* the worst FIFO's limit, in its own unit */
	uint64_t worst_rate_bps;	     /* what drains it; 0 when unknown */
	const char *worst_unknown_why;
	unsigned count;
};

static void fifo_limit(const struct iface *ifc, const struct qdisc *q, uint64_t *packets,
		       uint64_t *bytes)
{
	const struct value *limit;

	*packets = *bytes = 0;
	if (!strcmp(q->kind, "bfifo")) {
		limit = host_qdisc_option(q, "limit_bytes");
		*bytes = limit ? limit->u : (uint64_t)ifc->txqueuelen * ifc->mtu;
		return;
	}
	/* pfifo_fast has no limit of its own: each band holds txqueuelen packets. */
	limit = strcmp(q->kind, "pfifo_fast") ? host_qdisc_option(q, "limit_packets") : NULL;
	*packets = limit ? limit->u : ifc->txqueuelen ? ifc->txqueuelen : 1;
}

/*
 * The rate a FIFO drains at. At the root, or under a qdisc that only spreads packets
 * over TX queues or bands, that is the link's speed; under tbf it is tbf's rate;
 * under a shaping class (htb) it is that class's rate, as the host or the snapshot
 * read it; under anything else that can shape (hfsc, a class not read, ...) it is
 * unknown rather than optimistic.
 */
static uint64_t drain_rate_bps(const struct iface *ifc, const struct qdisc *q,
			       const struct qdisc *parent, const char **why)
{
	static const char *const line_rate_parents[] = {"mq", "mqprio", "multiq", "prio"};
	const struct value *rate;

	*why = NULL;
	if (q->class_rate_bps)
		return q->class_rate_bps;
	if (parent && !strcmp(parent->kind, "tbf")) {
		rate = host_qdisc_option(parent, "rate_bps");
		if (rate && rate->u)
			return rate->u;
	}
	if (parent) {
		bool line_rate = false;

		for (size_t i = 0; i < COUNT(line_rate_parents); i++)
			line_rate |= !strcmp(parent->kind, line_rate_parents[i]);
		if (!line_rate) {
			*why = "the rate of the shaper class above it could not be read";
			return 0;
		}
	}
	if (!ifc->speed_mbps) {
		*why = "link speed unknown";
		return 0;
	}
	return (uint64_t)ifc->speed_mbps * 1000000;
}

static int64_t delay_at_rate_us(uint64_t bytes, uint64_t rate_bps)
{
	if (!rate_bps)
		return -1;
	/* In double: exact for any realistic queue, and free of 64-bit overflow. */
	return (int64_t)((double)bytes * 8.0 * 1e6 / (double)rate_bps + 0.5);
}

static void scan_fifos(struct fifo_scan *s, const struct qdisc *q, const struct qdisc *parent)
{
	if (qkind_is_fifo(q->kind)) {
		uint64_t packets, bytes, rate;
		const char *why;
		int64_t d;

		uint64_t frames, most;
		int64_t dmin;

		fifo_limit(s->ifc, q, &packets, &bytes);
		rate = drain_rate_bps(s->ifc, q, parent, &why);
		frames = packets * ((uint64_t)s->ifc->mtu + POLICY_FRAME_OVERHEAD);
		/* Packets as TCP hands them (GSO), as far as TSQ lets flows queue them. */
		most = packets > UINT64_MAX / s->gso_bytes ? UINT64_MAX : packets * s->gso_bytes;
		most = most < s->tsq_cap ? most : s->tsq_cap;
		most = most > frames ? most : frames;
		d = delay_at_rate_us(bytes ? bytes : most, rate);
		dmin = bytes || most == frames ? -1 : delay_at_rate_us(frames, rate);
		/* An unknown delay outranks any known one: it may be the largest. */
		if (!s->count || (s->worst_delay_us >= 0 && (d < 0 || d > s->worst_delay_us))) {
			s->worst = q;
			s->worst_parent = parent;
			s->worst_delay_us = d;
			s->worst_min_us = d < 0 ? -1 : dmin;
			s->worst_packets = packets;
			s->worst_bytes = bytes;
			s->worst_rate_bps = rate;
			s->worst_unknown_why = why;
		}
		s->count++;
	}
	for (size_t i = 0; i < q->nchildren; i++)
		scan_fifos(s, &q->children[i], q);
}

/* What one flow's TSQ lets it keep below its socket, from the host's sysctl. */
static uint64_t tsq_bytes(const struct host *host)
{
	const struct sysctl_entry *e =
	    host ? host_sysctl(host, "net.ipv4.tcp_limit_output_bytes") : NULL;
	unsigned long long v;
	char *end;

	if (!e || e->err || !e->value[0])
		return POLICY_TSQ_DEFAULT_BYTES;
	v = strtoull(e->value, &end, 10);
	return *end || !v ? POLICY_TSQ_DEFAULT_BYTES : v;
}

static void find_fifo(const struct iface *ifc, const struct host *host, struct verdict *v)
{
	uint64_t frame = (uint64_t)ifc->mtu + POLICY_FRAME_OVERHEAD;
	struct fifo_scan s = {.ifc = ifc,
			      .gso_bytes = ifc->gso_max_size > frame ? ifc->gso_max_size
					   : ifc->gso_max_size	     ? frame
								     : POLICY_SUPER_PACKET,
			      .tsq_cap = POLICY_TSQ_FLOWS * tsq_bytes(host)};
	char where[64], holds[32], handle[16], unknown[128] = "";
	const char *params = policy_fq_codel_params(ifc->speed_mbps);
	struct finding *f;

	if (!ifc->qdisc)
		return;
	scan_fifos(&s, ifc->qdisc, NULL);
	if (!s.count || !(f = add_finding(v, "fifo-qdisc")))
		return;
	f->delay_us = s.worst_delay_us;
	f->delay_min_us = s.worst_min_us;
	f->delay_unknown_why = s.worst_unknown_why;
	f->grades = true;
	f->layer = LAYER_QDISC;
	f->severity = severity_for(f->delay_us);
	if (s.worst_bytes)
		say(holds, sizeof(holds), "%llu bytes", (unsigned long long)s.worst_bytes);
	else
		say(holds, sizeof(holds), "%llu packets", (unsigned long long)s.worst_packets);
	if (!s.worst_parent)
		say(where, sizeof(where), "at the root");
	else if (s.count > 1)
		say(where, sizeof(where), "under %s (the worst of %u FIFOs)", s.worst_parent->kind,
		    s.count);
	else
		say(where, sizeof(where), "under %s", s.worst_parent->kind);
	if (f->delay_us < 0)
		say(unknown, sizeof(unknown), " (the delay cannot be told: %s)",
		    s.worst_unknown_why);
	say(f->message, sizeof(f->message),
	    "%s %s queues up to %s in one FIFO: a bulk flow fills it and every other packet "
	    "waits behind it%s",
	    s.worst->kind, where, holds, unknown);

	if (s.worst_bytes) {
		evidence(f, value_uint("limit_bytes", s.worst_bytes, UNIT_BYTES));
	} else {
		evidence(f, value_uint("limit_packets", s.worst_packets, UNIT_PACKETS));
		evidence(f, value_uint("frame_bytes", (uint64_t)ifc->mtu + POLICY_FRAME_OVERHEAD,
				       UNIT_BYTES));
		if (s.worst_min_us >= 0) {
			evidence(f, value_uint("gso_packet_bytes", s.gso_bytes, UNIT_BYTES));
			evidence(f,
				 value_uint("tsq_bytes", s.tsq_cap / POLICY_TSQ_FLOWS, UNIT_BYTES));
		}
	}
	if (s.worst_rate_bps)
		evidence(f, value_uint("rate_bps", s.worst_rate_bps, UNIT_BPS));
	if (s.count > 1)
		evidence(f, value_uint("fifo_qdiscs", s.count, UNIT_NONE));

	if (!s.worst_parent) {
		say(f->recommendation, sizeof(f->recommendation),
		    "tc qdisc replace dev %s root fq_codel%s", ifc->name, params);
	} else if (!strcmp(s.worst_parent->kind, "mq")) {
		say(f->recommendation, sizeof(f->recommendation),
		    "sysctl -w net.core.default_qdisc=fq_codel, then tc qdisc replace dev %s root "
		    "mq "
		    "(each TX queue gets a new fq_codel)",
		    ifc->name);
	} else {
		host_qdisc_format_handle(s.worst->parent, handle, sizeof(handle));
		say(f->recommendation, sizeof(f->recommendation),
		    "tc qdisc replace dev %s parent %s fq_codel%s", ifc->name, handle, params);
	}
}

static bool has_kind(const struct qdisc *q, const char *kind)
{
	if (!q)
		return false;
	if (!strcmp(q->kind, kind))
		return true;
	for (size_t i = 0; i < q->nchildren; i++)
		if (has_kind(&q->children[i], kind))
			return true;
	return false;
}

static void find_txqueuelen(const struct iface *ifc, struct verdict *v)
{
	struct finding *f;

	/*
	 * txqueuelen is the size of pfifo_fast's bands; a pfifo or bfifo took it as its
	 * limit when made and keeps its own since, so lowering txqueuelen helps only
	 * pfifo_fast. docs/design/host-tuning.md's 100 is for links of 100 Mbit and less.
	 */
	if (!has_kind(ifc->qdisc, "pfifo_fast") || !ifc->speed_mbps || ifc->speed_mbps > 100 ||
	    ifc->txqueuelen <= 100)
		return;
	f = add_finding(v, "txqueuelen-long");
	if (!f)
		return;
	f->delay_us = policy_fifo_delay_us(ifc->txqueuelen, ifc->mtu, ifc->speed_mbps);
	f->grades = true;
	f->layer = LAYER_QDISC;
	f->severity =
	    severity_for(f->delay_us) > SEVERITY_WARNING ? SEVERITY_CRITICAL : SEVERITY_WARNING;
	say(f->message, sizeof(f->message),
	    "txqueuelen %u at %u Mbit/s: a full queue of %u-byte frames takes %lld ms to drain",
	    ifc->txqueuelen, ifc->speed_mbps, ifc->mtu + POLICY_FRAME_OVERHEAD,
	    (long long)((f->delay_us + 500) / 1000));
	evidence(f, value_uint("txqueuelen", ifc->txqueuelen, UNIT_NONE));
	evidence(f,
		 value_uint("frame_bytes", (uint64_t)ifc->mtu + POLICY_FRAME_OVERHEAD, UNIT_BYTES));
	evidence(f, value_uint("speed_mbps", ifc->speed_mbps, UNIT_MBPS));
	say(f->recommendation, sizeof(f->recommendation),
	    "ip link set dev %s txqueuelen 100 (it matters only while a FIFO stays; "
	    "fq_codel makes it irrelevant)",
	    ifc->name);
}

/* A rate in kbit/s as tc takes it: whole megabits as "mbit", the rest as "kbit". */
static void spell_kbit(uint64_t kbit, char *buf, size_t len)
{
	if (kbit % 1000)
		say(buf, len, "%llukbit", (unsigned long long)kbit);
	else
		say(buf, len, "%llumbit", (unsigned long long)(kbit / 1000));
}

void policy_shaper_rate(uint32_t speed_mbps, char *buf, size_t len)
{
	if (!speed_mbps)
		say(buf, len, "<95%% of line rate>");
	else
		spell_kbit((uint64_t)speed_mbps * POLICY_SHAPER_PERMILLE, buf, len);
}

uint64_t policy_shaper_bytes(uint32_t speed_mbps)
{
	return (uint64_t)speed_mbps * POLICY_SHAPER_PERMILLE * 1000 / 8;
}

static const struct driver_ceiling *ceiling_of(const struct iface *ifc, const struct host *host)
{
	const char *compatible[HOST_MAX_COMPATIBLE];
	size_t n = 0;

	for (size_t i = 0; host && i < host->ncompatible && i < HOST_MAX_COMPATIBLE; i++)
		compatible[n++] = host->compatible[i];
	return driver_ceiling(ifc->driver, compatible, n, ifc->usb_speed_mbps);
}

uint32_t policy_drain_mbps(const struct iface *ifc, const struct host *host)
{
	struct policy_shaper sh;

	policy_shaper(ifc, host, 0, &sh);
	return sh.source == RATE_SOURCE_TABLE ? sh.achievable_mbps : ifc->speed_mbps;
}

void policy_shaper(const struct iface *ifc, const struct host *host, uint64_t given,
		   struct policy_shaper *out)
{
	const struct driver_ceiling *c = ceiling_of(ifc, host);
	uint32_t per_direction = c ? (c->shared ? c->mbps / 2 : c->mbps) : 0;
	uint64_t kbit;

	memset(out, 0, sizeof(*out));
	out->ceiling = c;
	if (given) {
		out->source = RATE_SOURCE_GIVEN;
		out->rate = given;
		db_format_rate(given, out->spelled, sizeof(out->spelled));
		say(out->source_text, sizeof(out->source_text), "--shape");
		say(out->why, sizeof(out->why), "the rate given (--shape)");
		return;
	}
	if (!ifc->speed_mbps) {
		say(out->spelled, sizeof(out->spelled), "<95%% of line rate>");
		say(out->why, sizeof(out->why), "the link speed is unknown");
		return;
	}
	/* The table's ceiling counts only below line rate: a GigE i.MX6 board that
	 * negotiated 100 Mbit/s is held by its link, not its bus. */
	if (c && per_direction < ifc->speed_mbps) {
		out->source = RATE_SOURCE_TABLE;
		out->achievable_mbps = per_direction;
		out->halved = c->shared;
		/* Per mille of the whole ceiling, then halved: no rounding before the split. */
		kbit = (uint64_t)c->mbps * POLICY_SHAPER_PERMILLE / (c->shared ? 2 : 1);
		say(out->source_text, sizeof(out->source_text),
		    "drivers table: %s on %s, %u Mbit/s%s", c->driver, c->where, c->mbps,
		    c->shared ? " shared by transmit and receive" : "");
		if (c->shared)
			say(out->why, sizeof(out->why),
			    "95%% of half of %u Mbit/s, the ceiling of %s on %s for transmit and "
			    "receive together: half for each direction holds whatever the mix",
			    c->mbps, c->driver, c->where);
		else
			say(out->why, sizeof(out->why),
			    "95%% of %u Mbit/s, the ceiling of %s on %s", c->mbps, c->driver,
			    c->where);
	} else {
		out->source = RATE_SOURCE_LINE;
		out->achievable_mbps = ifc->speed_mbps;
		kbit = (uint64_t)ifc->speed_mbps * POLICY_SHAPER_PERMILLE;
		say(out->source_text, sizeof(out->source_text), "line rate");
		say(out->why, sizeof(out->why), "~95%% of %u Mbit/s, the line rate",
		    ifc->speed_mbps);
	}
	out->rate = kbit * 1000 / 8;
	spell_kbit(kbit, out->spelled, sizeof(out->spelled));
}

uint32_t policy_gso_cap(const struct iface *ifc)
{
	return 2 * ((ifc->mtu ? ifc->mtu : 1500) + 14);
}

unsigned policy_fifo_len(const struct iface *ifc, uint64_t rate)
{
	unsigned most =
	    ifc->speed_mbps && ifc->speed_mbps <= 10 ? POLICY_FIFO_10M : POLICY_FIFO_MAX;
	uint64_t n;

	if (!rate)
		rate = (uint64_t)ifc->speed_mbps * 1000000 / 8;
	if (!rate)
		return most;
	n = rate * POLICY_FIFO_MS / 1000 / policy_gso_cap(ifc);
	return n < POLICY_FIFO_MIN ? POLICY_FIFO_MIN : n > most ? most : (unsigned)n;
}

bool policy_ingress_frames_only(const struct iface *ifc)
{
	return ifc->physical && ifc->lro != FEATURE_ON;
}

uint32_t policy_ingress_fifo_bytes(const struct iface *ifc, uint64_t rate)
{
	uint64_t b = rate * POLICY_FIFO_MS / 1000,
		 least = (uint64_t)POLICY_FIFO_MIN * policy_gso_cap(ifc);
	uint64_t big = 3 * (uint64_t)(policy_ingress_frames_only(ifc) ? policy_gso_cap(ifc)
								      : POLICY_SUPER_PACKET);

	if (big > least)
		least = big;

	return b < least ? (uint32_t)least : b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

static enum qdisc_avail kind_avail(const struct host *host, const char *kind)
{
	return host ? avail_of(host->qdisc_kinds, HOST_NQDISC_KINDS, kind) : QDISC_AVAIL_UNKNOWN;
}

static const char *kernel_release(const struct host *host)
{
	return host && host->kernel_release[0] ? host->kernel_release : NULL;
}

static uint64_t frame_bytes(const struct iface *ifc)
{
	return (uint64_t)ifc->mtu + POLICY_FRAME_OVERHEAD;
}

/*
 * sysfs first (docs/design/bql-and-drivers.md section 3: only traffic tells); where it cannot
 * tell, the driver table (and for "since X.Y" drivers the kernel's release) can.
 * Evidence beats the table: a cpsw kernel with the out-of-tree patch shows BQL moving.
 */
static void resolve_bql(const struct iface *ifc, const struct host *host, struct verdict *v)
{
	const struct driver_info *d = v->driver;
	const char *release = kernel_release(host);
	int has;

	v->bql_in_use = policy_bql_in_use(ifc, &v->bql_reason);
	if (v->bql_in_use != TRI_UNKNOWN || !d || !ifc->bql_read)
		return;
	has = driver_has_bql(d, release);
	if (d->bql == DRIVER_BQL_SINCE && has >= 0) {
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "%s has BQL since Linux %s; this kernel is %s", ifc->driver, d->since, release);
	} else if (d->bql == DRIVER_BQL_SINCE) {
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "%s has BQL since Linux %s, and this kernel's release is unknown; %s",
		    ifc->driver, d->since, v->bql_reason);
	} else if (has == 0 && ifc->bql_module_loaded) {
		/* The table speaks of the kernel's driver, not of ours from kmod/. */
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "%s is the out-of-tree module %s, which has BQL, and sysfs cannot tell yet",
		    ifc->driver, ifc->bql_module_path);
		has = -1;
	} else if (has == 0) {
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "%s has no BQL in mainline Linux, and sysfs cannot tell yet", ifc->driver);
	} else if (has == 1) {
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "%s uses BQL in mainline Linux; sysfs cannot tell yet", ifc->driver);
	} else {
		say(v->bql_reason_buf, sizeof(v->bql_reason_buf),
		    "whether %s has BQL depends on the kernel build and can only be told at "
		    "runtime: %s",
		    ifc->driver, v->bql_reason);
	}
	v->bql_reason = v->bql_reason_buf;
	if (has >= 0)
		v->bql_in_use = has ? TRI_YES : TRI_NO;
}

/*
 * ethtool's TX ring when it reports one, else the driver table's usual one. A USB
 * driver's URBs are not what ethtool reports: there the table's count stands, and
 * each URB holds as many frames as fit in its bytes.
 */
static void resolve_ring(const struct iface *ifc, struct verdict *v)
{
	uint32_t urb = v->driver ? v->driver->tx_urb_bytes : 0;

	v->ring_tx = -1;
	if (ifc->ring_tx > 0 && !urb) {
		v->ring_tx = ifc->ring_tx;
	} else if (v->driver && v->driver->tx_ring > 0) {
		v->ring_tx = v->driver->tx_ring;
		v->ring_from_table = true;
		v->ring_urb_bytes = urb;
	}
	if (v->ring_tx > 0 && (uint64_t)v->ring_tx <= UINT32_MAX)
		v->ring_bytes = (uint64_t)v->ring_tx * (urb ? urb : frame_bytes(ifc));
}

/* The full TX queue's drain time at the rate that drains it; -1 when unknown. */
static int64_t ring_delay_us(const struct iface *ifc, const struct host *host,
			     const struct verdict *v)
{
	if (!v->ring_bytes)
		return -1;
	return policy_bytes_delay_us(v->ring_bytes, policy_drain_mbps(ifc, host));
}

/* The shaper of docs/design/bql-and-drivers.md section 5, in the form this kernel can make. */
static void shaper_advice(const struct iface *ifc, const struct host *host, char *buf, size_t len)
{
	struct policy_shaper sh;
	const char *rate;

	policy_shaper(ifc, host, 0, &sh);
	rate = sh.spelled;
	if (kind_avail(host, "cake") != QDISC_AVAIL_NO) {
		say(buf, len,
		    "tc qdisc replace dev %s root cake bandwidth %s (without cake: htb rate %s "
		    "with an fq_codel child)",
		    ifc->name, rate, rate);
		return;
	}
	say(buf, len,
	    "this kernel has no cake, so htb with an fq_codel child (cake bandwidth %s "
	    "elsewhere): tc qdisc replace dev %s root handle 1: htb default 1; tc class add "
	    "dev %s parent 1: classid 1:1 htb rate %s; tc qdisc add dev %s parent 1:1 fq_codel",
	    rate, ifc->name, ifc->name, rate, ifc->name);
}

static void find_no_bql(const struct iface *ifc, const struct host *host, struct verdict *v)
{
	const struct driver_info *d = v->driver;
	const char *drv = ifc->driver[0] ? ifc->driver : "the driver";
	char shaper[320], ring[96] = "";
	struct finding *f;
	struct policy_shaper sh;
	int64_t limit = 0, inflight = 0;

	if (!ifc->physical || v->bql_in_use == TRI_YES || !(f = add_finding(v, "no-bql")))
		return;
	f->layer = LAYER_DEVICE;
	for (size_t i = 0; i < ifc->nbql; i++) {
		if (ifc->bql[i].limit > limit)
			limit = ifc->bql[i].limit;
		if (ifc->bql[i].inflight > inflight)
			inflight = ifc->bql[i].inflight;
	}
	evidence(f, value_uint("tx_queues", ifc->nbql, UNIT_NONE));
	evidence(f, value_uint("limit_bytes", (uint64_t)limit, UNIT_BYTES));
	evidence(f, value_uint("inflight_bytes", (uint64_t)inflight, UNIT_BYTES));
	if (ifc->have_stats)
		evidence(f, value_uint("tx_packets", ifc->tx_packets, UNIT_NONE));

	if (v->bql_in_use == TRI_UNKNOWN) {
		f->severity = SEVERITY_INFO;
		say(f->message, sizeof(f->message),
		    "whether %s uses BQL is unknown until traffic has flowed: %s", drv,
		    v->bql_reason);
		say(f->recommendation, sizeof(f->recommendation),
		    "run debloat audit %s again after some traffic (a download will do)",
		    ifc->name);
		return;
	}
	/* Without BQL the whole ring fills: its drain time is what this adds. An unknown
	 * one grades too, so that it voids the grade rather than counting as empty. */
	f->delay_us = ring_delay_us(ifc, host, v);
	f->grades = true;
	if (f->delay_us >= 0) {
		evidence(f, value_uint("ring_tx", (uint64_t)v->ring_tx, UNIT_NONE));
		if (v->ring_urb_bytes) {
			evidence(f, value_uint("urb_bytes", v->ring_urb_bytes, UNIT_BYTES));
			say(ring, sizeof(ring),
			    "; its %lld TX URBs of %u KB (the usual ones of %s) add up to "
			    "%lld.%lld ms",
			    (long long)v->ring_tx, v->ring_urb_bytes / 1024, drv,
			    (long long)(f->delay_us / 1000), (long long)(f->delay_us % 1000 / 100));
		} else {
			evidence(f, value_uint("frame_bytes", frame_bytes(ifc), UNIT_BYTES));
			say(ring, sizeof(ring), "; its %lld-frame TX queue adds up to %lld.%lld ms",
			    (long long)v->ring_tx, (long long)(f->delay_us / 1000),
			    (long long)(f->delay_us % 1000 / 100));
		}
	} else {
		f->delay_unknown_why =
		    ifc->speed_mbps ? "TX ring size unknown" : "link speed unknown";
	}
	f->severity =
	    severity_for(f->delay_us) > SEVERITY_WARNING ? SEVERITY_CRITICAL : SEVERITY_WARNING;
	say(f->message, sizeof(f->message),
	    "%s does not use BQL (%s): the TX queue below the qdisc is an unmanaged FIFO%s", drv,
	    v->bql_reason, ring);
	shaper_advice(ifc, host, shaper, sizeof(shaper));
	policy_shaper(ifc, host, 0, &sh);
	if (sh.source == RATE_SOURCE_TABLE)
		evidence(f, value_uint("ceiling_mbps", sh.ceiling->mbps, UNIT_MBPS));
	evidence(f, value_bool("bql_module_installed", ifc->bql_module[0] != '\0'));
	/* Our driver with BQL is installed but the kernel's still drives the NIC: the
	 * real fix is one reload away, and it cuts the link while it happens. */
	if (ifc->bql_module[0] && !ifc->bql_module_loaded) {
		say(f->recommendation, sizeof(f->recommendation),
		    "load the driver with BQL installed for this kernel (%s), from a console or "
		    "another interface since it takes %s down for a moment: debloat fix --driver "
		    "%s (--persist keeps it at boot); until then shape at %s: %s",
		    ifc->bql_module_path, ifc->name, ifc->name,
		    sh.source == RATE_SOURCE_TABLE ? sh.why : "~95% of line rate", shaper);
		return;
	}
	say(f->recommendation, sizeof(f->recommendation),
	    "shape at %s so the queue forms in the qdisc: %s%s%s",
	    sh.source == RATE_SOURCE_TABLE ? sh.why : "~95% of line rate", shaper,
	    d && d->lever == DRIVER_LEVER_NONE ? " (this driver has no ring to shrink)"
					       : "; and shrink the TX ring (see big-tx-ring)",
	    sh.halved ? "; and the download at the same rate through an ifb (debloat fix does "
			"both): a transmit-only shaper cannot hold while the board also receives"
		      : "");
}

static void find_big_tx_ring(const struct iface *ifc, const struct host *host, struct verdict *v)
{
	const struct driver_info *d = v->driver;
	int64_t delay = ring_delay_us(ifc, host, v);
	uint32_t drain = policy_drain_mbps(ifc, host);
	struct finding *f;

	if (!ifc->physical || v->bql_in_use != TRI_NO || delay < POLICY_RING_OK_US ||
	    !(f = add_finding(v, "big-tx-ring")))
		return;
	f->layer = LAYER_DEVICE;
	f->delay_us = delay;
	f->grades = true;
	f->severity = severity_for(delay);
	evidence(f, value_uint("ring_tx", (uint64_t)v->ring_tx, UNIT_NONE));
	if (ifc->ring_tx_max > 0)
		evidence(f, value_uint("ring_tx_max", (uint64_t)ifc->ring_tx_max, UNIT_NONE));
	if (v->ring_urb_bytes)
		evidence(f, value_uint("urb_bytes", v->ring_urb_bytes, UNIT_BYTES));
	else
		evidence(f, value_uint("frame_bytes", frame_bytes(ifc), UNIT_BYTES));
	evidence(f, value_uint("speed_mbps", ifc->speed_mbps, UNIT_MBPS));
	if (drain != ifc->speed_mbps)
		evidence(f, value_uint("drain_mbps", drain, UNIT_MBPS));
	evidence(f, value_bool("ring_from_driver_table", v->ring_from_table));
	say(f->message, sizeof(f->message),
	    "a TX %s of %lld %s without BQL holds %lld.%lld ms at %u Mbit/s%s%s%s",
	    v->ring_urb_bytes ? "queue" : "ring", (long long)v->ring_tx,
	    v->ring_urb_bytes ? "URBs" : "frames", (long long)(delay / 1000),
	    (long long)(delay % 1000 / 100), drain,
	    v->ring_from_table ? " (the usual ring of " : "", v->ring_from_table ? ifc->driver : "",
	    v->ring_from_table ? ")" : "");

	if (d && d->lever == DRIVER_LEVER_RX_RING) {
		int64_t left =
		    policy_fifo_delay_us((uint64_t)d->lever_tx, ifc->mtu, ifc->speed_mbps);

		say(f->recommendation, sizeof(f->recommendation),
		    "ethtool -G %s rx %d: %s ignores the tx size, but TX gets what RX leaves of "
		    "the shared descriptor pool: %d TX descriptors, ~%lld.%lld ms%s%s",
		    ifc->name, d->lever_rx, ifc->driver, d->lever_tx, (long long)(left / 1000),
		    (long long)(left % 1000 / 100), d->note ? "; " : "", d->note ? d->note : "");
	} else if (d && d->lever == DRIVER_LEVER_NONE) {
		say(f->recommendation, sizeof(f->recommendation),
		    "%s has no ring size to shrink: shape just below line rate (see no-bql) so "
		    "the queue forms in the qdisc instead",
		    ifc->driver);
	} else {
		/* docs/design/host-tuning.md: tx 4..20 before BQL; aim at ~1 ms of frames. */
		uint64_t n = (uint64_t)policy_drain_mbps(ifc, host) * 1000 / 8 / frame_bytes(ifc);

		n = n < 4 ? 4 : n > (uint64_t)v->ring_tx ? (uint64_t)v->ring_tx : n;
		say(f->recommendation, sizeof(f->recommendation),
		    "ethtool -G %s tx %llu (about 1 ms of frames; the driver may round it up)",
		    ifc->name, (unsigned long long)n);
	}
}

/* docs/design/host-tuning.md: limit_max 3000 at <= 100 Mbit/s, 1514 at <= 10 Mbit/s. */
static void find_bql_limit_high(const struct iface *ifc, struct verdict *v)
{
	uint64_t want = ifc->speed_mbps <= 10 ? POLICY_BQL_MAX_10M : POLICY_BQL_MAX_100M;
	int64_t limit = -1, limit_max = -1;
	struct finding *f;

	if (v->bql_in_use != TRI_YES || !ifc->speed_mbps || ifc->speed_mbps > 100)
		return;
	for (size_t i = 0; i < ifc->nbql; i++) {
		if (!ifc->bql[i].present)
			continue;
		if (ifc->bql[i].limit > limit)
			limit = ifc->bql[i].limit;
		if (ifc->bql[i].limit_max > limit_max)
			limit_max = ifc->bql[i].limit_max;
	}
	/* Autotuning is often 2x too high below 100 Mbit/s. */
	if (!(limit_max > (int64_t)want || limit > 2 * (int64_t)want))
		return;
	f = add_finding(v, "bql-limit-high");
	if (!f)
		return;
	f->layer = LAYER_DEVICE;
	f->grades = true;
	f->delay_us = policy_bytes_delay_us(limit > 0 ? (uint64_t)limit : 0, ifc->speed_mbps);
	f->severity =
	    severity_for(f->delay_us) > SEVERITY_INFO ? severity_for(f->delay_us) : SEVERITY_INFO;
	if (limit >= 0)
		evidence(f, value_uint("limit_bytes", (uint64_t)limit, UNIT_BYTES));
	if (limit_max >= 0)
		evidence(f, value_uint("limit_max_bytes", (uint64_t)limit_max, UNIT_BYTES));
	evidence(f, value_uint("recommended_limit_max_bytes", want, UNIT_BYTES));
	evidence(f, value_uint("speed_mbps", ifc->speed_mbps, UNIT_MBPS));
	say(f->message, sizeof(f->message),
	    "BQL limit_max is %lld bytes at %u Mbit/s (limit now %lld): autotuning may let the "
	    "ring hold more than the %llu bytes this rate needs",
	    (long long)limit_max, ifc->speed_mbps, (long long)limit, (unsigned long long)want);
	say(f->recommendation, sizeof(f->recommendation),
	    "echo %llu > /sys/class/net/%s/queues/tx-N/byte_queue_limits/limit_max (each TX "
	    "queue)",
	    (unsigned long long)want, ifc->name);
}

static void find_gso(const struct iface *ifc, struct verdict *v)
{
	char off[64] = "";
	struct finding *f;

	if (!ifc->speed_mbps || ifc->speed_mbps > 100 ||
	    !(ifc->tso == FEATURE_ON || ifc->gso == FEATURE_ON || ifc->gro == FEATURE_ON) ||
	    !(f = add_finding(v, "gso-at-low-speed")))
		return;
	f->layer = LAYER_DEVICE;
	f->grades = true;
	/* BQL stops the queue only after the skb that crossed the limit: one super-packet. */
	f->delay_us = policy_bytes_delay_us(POLICY_SUPER_PACKET, ifc->speed_mbps);
	f->severity = SEVERITY_WARNING;
	if (ifc->tso != FEATURE_UNKNOWN)
		evidence(f, value_bool("tso", ifc->tso == FEATURE_ON));
	if (ifc->gso != FEATURE_UNKNOWN)
		evidence(f, value_bool("gso", ifc->gso == FEATURE_ON));
	if (ifc->gro != FEATURE_UNKNOWN)
		evidence(f, value_bool("gro", ifc->gro == FEATURE_ON));
	evidence(f, value_uint("super_packet_bytes", POLICY_SUPER_PACKET, UNIT_BYTES));
	evidence(f, value_uint("speed_mbps", ifc->speed_mbps, UNIT_MBPS));
	say(off, sizeof(off), "%s%s%s", ifc->tso == FEATURE_ON ? " tso off" : "",
	    ifc->gso == FEATURE_ON ? " gso off" : "", ifc->gro == FEATURE_ON ? " gro off" : "");
	say(f->message, sizeof(f->message),
	    "offloads that build 64 KB super-packets are on at %u Mbit/s: one is %lld.%lld ms "
	    "on the wire, and the queue always overshoots by one",
	    ifc->speed_mbps, (long long)(f->delay_us / 1000),
	    (long long)(f->delay_us % 1000 / 100));
	say(f->recommendation, sizeof(f->recommendation), "ethtool -K %s%s", ifc->name, off);
}

static struct finding *find_code(struct verdict *v, const char *code)
{
	for (unsigned i = 0; i < v->nfindings; i++)
		if (!strcmp(v->findings[i].code, code))
			return &v->findings[i];
	return NULL;
}

/*
 * The fixes above name fq_codel (fifo-qdisc) and cake or htb (no-bql). Where this
 * kernel lacks them, say what to use instead: fq_codel, then cake, then a short pfifo
 * with a shorter txqueuelen (fix's fallback order, src/fix/plan.c).
 */
static void find_qdisc_unavailable(const struct iface *ifc, const struct host *host,
				   struct verdict *v)
{
	enum qdisc_avail fq_codel = kind_avail(host, "fq_codel");
	enum qdisc_avail cake = kind_avail(host, "cake");
	enum qdisc_avail htb = kind_avail(host, "htb");
	bool want_fq_codel = find_code(v, "fifo-qdisc") != NULL;
	const struct finding *nobql = find_code(v, "no-bql");
	bool want_shaper = nobql && nobql->severity != SEVERITY_INFO;
	bool shaped = want_shaper && htb != QDISC_AVAIL_NO;
	struct policy_shaper sh;
	unsigned short_len;
	const char *rate;
	char gso[64] = "";
	struct finding *f;

	if (!(want_fq_codel && fq_codel == QDISC_AVAIL_NO) &&
	    !(want_shaper && cake == QDISC_AVAIL_NO && htb == QDISC_AVAIL_NO))
		return;
	f = add_finding(v, "qdisc-unavailable");
	if (!f)
		return;
	f->severity = SEVERITY_WARNING;
	evidence(f, value_bool("fq_codel_available", fq_codel == QDISC_AVAIL_YES));
	evidence(f, value_bool("cake_available", cake == QDISC_AVAIL_YES));
	evidence(f, value_bool("htb_available", htb == QDISC_AVAIL_YES));
	policy_shaper(ifc, host, 0, &sh);
	rate = sh.spelled;
	short_len = policy_fifo_len(ifc, shaped ? sh.rate : 0);
	if (fq_codel == QDISC_AVAIL_NO && cake != QDISC_AVAIL_NO) {
		say(f->message, sizeof(f->message),
		    "this kernel (%s) has no fq_codel: use cake in its place",
		    kernel_release(host) ? kernel_release(host) : "release unknown");
		if (want_shaper)
			say(f->recommendation, sizeof(f->recommendation),
			    "tc qdisc replace dev %s root cake bandwidth %s", ifc->name, rate);
		else
			say(f->recommendation, sizeof(f->recommendation),
			    "tc qdisc replace dev %s root cake", ifc->name);
		return;
	}
	say(f->message, sizeof(f->message),
	    "this kernel (%s) has %s: the best it can do is a short FIFO",
	    kernel_release(host) ? kernel_release(host) : "release unknown",
	    fq_codel == QDISC_AVAIL_NO ? "neither fq_codel nor cake" : "neither cake nor htb");
	if (ifc->gso_max_size > policy_gso_cap(ifc))
		say(gso, sizeof(gso), " gso_max_size %u", policy_gso_cap(ifc));
	if (shaped)
		say(f->recommendation, sizeof(f->recommendation),
		    "tc qdisc replace dev %s root handle 1: htb default 1; tc class add dev %s "
		    "parent 1: classid 1:1 htb rate %s; tc qdisc add dev %s parent 1:1 pfifo "
		    "limit %u; ip link set dev %s txqueuelen %u%s",
		    ifc->name, ifc->name, rate, ifc->name, short_len, ifc->name, short_len, gso);
	else
		say(f->recommendation, sizeof(f->recommendation),
		    "tc qdisc replace dev %s root pfifo limit %u; ip link set dev %s txqueuelen "
		    "%u%s",
		    ifc->name, short_len, ifc->name, short_len, gso);
}

void policy_iface(const struct iface *ifc, const struct host *host, struct verdict *out)
{
	memset(out, 0, sizeof(*out));
	out->driver = driver_lookup(ifc->driver);
	resolve_bql(ifc, host, out);
	resolve_ring(ifc, out);
	/* Loopback has no wire: its queue never waits for one. */
	if (ifc->loopback) {
		out->ungraded_why = "loopback";
		return;
	}
	/* noop drops every packet (a down ifb, a device never set up): nothing queues there
	 * to judge, and grading it A+ would praise a queue that is not in use. */
	if (ifc->qdisc && !strcmp(ifc->qdisc->kind, "noop")) {
		out->ungraded_why = "not judged: its qdisc is noop (it sends nothing)";
		return;
	}
	find_fifo(ifc, host, out);
	find_txqueuelen(ifc, out);
	find_no_bql(ifc, host, out);
	find_big_tx_ring(ifc, host, out);
	find_bql_limit_high(ifc, out);
	find_gso(ifc, out);
	find_qdisc_unavailable(ifc, host, out);

	out->graded = true;
	for (unsigned i = 0; i < out->nfindings; i++) {
		const struct finding *f = &out->findings[i];
		int64_t *layer = f->layer == LAYER_QDISC    ? &out->qdisc_delay_us
				 : f->layer == LAYER_DEVICE ? &out->device_delay_us
							    : NULL;

		if (layer && f->delay_us > *layer)
			*layer = f->delay_us;
		if (f->grades && f->delay_us < 0) {
			out->graded = false;
			out->ungraded_why =
			    f->delay_unknown_why ? f->delay_unknown_why : "a delay cannot be told";
		}
	}
	out->worst_delay_us = out->qdisc_delay_us + out->device_delay_us;
	if (out->graded)
		out->grade = policy_grade(out->worst_delay_us);
}

unsigned policy_sysctls(const struct sysctl_entry *sysctls, size_t n, struct finding *out,
			unsigned max)
{
	unsigned count = 0;

	for (size_t i = 0; i < n && count < max; i++) {
		const struct sysctl_entry *s = &sysctls[i];
		struct finding *f = &out[count];

		if (!s->name || s->err)
			continue;
		memset(f, 0, sizeof(*f));
		f->delay_us = -1;
		f->severity = SEVERITY_INFO;
		if (!strcmp(s->name, "net.core.default_qdisc") && qkind_is_fifo(s->value)) {
			f->code = "default-qdisc-fifo";
			say(f->message, sizeof(f->message),
			    "net.core.default_qdisc is %s: new interfaces and mq's queues get a "
			    "FIFO",
			    s->value);
			say(f->recommendation, sizeof(f->recommendation),
			    "sysctl -w net.core.default_qdisc=fq_codel (and keep it in "
			    "/etc/sysctl.d/)");
			count++;
		} else if (!strcmp(s->name, "net.ipv4.tcp_ecn") && strcmp(s->value, "1")) {
			f->code = "tcp-ecn-off";
			say(f->message, sizeof(f->message),
			    "net.ipv4.tcp_ecn is %s: this host does not ask for ECN, so AQM can "
			    "only "
			    "drop its packets",
			    s->value);
			say(f->recommendation, sizeof(f->recommendation),
			    "sysctl -w net.ipv4.tcp_ecn=1");
			count++;
		}
	}
	return count;
}
