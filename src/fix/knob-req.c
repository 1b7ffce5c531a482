/* SPDX-License-Identifier: MIT */
/*
 * knob-req.c - the netlink requests behind the root-qdisc and txqueuelen knobs, byte
 * for byte what `tc` and `ip` (iproute2 6.1) send for the same configuration
 * (tests/fixtures/netlink holds their captured bytes), and htb's rate arithmetic in
 * the scheduler's ticks, done as tc does it (in doubles, truncating where it does) so
 * that the class request matches too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "fix/knob.h"
#include "fix/qdisc-opts.h"
#include "fix/root-spec.h"

/* tc's defaults for an htb class: the packet size its rate tables cover, and the
 * resulting table cell (256 cells of 8 bytes). */
#define HTB_MTU		 1600
#define HTB_CELL_LOG	 3
#define HTB_RATE2QUANTUM 10
#define HTB_VERSION	 3
/* What tc takes for "HZ" when /proc/net/psched does not say. */
#define PSCHED_FALLBACK_HZ 100

int knob_psched_read(const char *proc_root, struct knob_psched *out)
{
	char path[512];
	struct knob_psched c;
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/net/psched", proc_root ? proc_root : "/proc");
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%08x%08x%08x%08x", &c.t2us, &c.us2t, &c.clock_res, &c.hz);
	fclose(f);
	if (n != 4 || c.us2t == 0 || c.clock_res == 0)
		return -EINVAL;
	*out = c;
	return 0;
}

/* Scheduler ticks per microsecond. The kernel advertises t2us 1000 with a nanosecond
 * clock for the sake of old tc binaries; tc reads that as 1. */
static double tick_in_usec(const struct knob_psched *c)
{
	double t2us = c->clock_res == 1000000000 ? c->us2t : c->t2us;

	return t2us / c->us2t * ((double)c->clock_res / 1000000);
}

static uint32_t clamp_u32(double v)
{
	return v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
}

/* Time to send size bytes at rate bytes/s, in ticks: whole microseconds first. */
static uint32_t xmit_ticks(const struct knob_psched *c, uint64_t rate, uint32_t size)
{
	uint32_t us = clamp_u32(1000000 * ((double)size / (double)rate));

	return clamp_u32(us * tick_in_usec(c));
}

static uint32_t psched_hz(const struct knob_psched *c)
{
	return c->clock_res == 1000000 && c->hz ? c->hz : PSCHED_FALLBACK_HZ;
}

uint32_t qdisc_htb_burst_ticks(uint64_t rate, const struct knob_psched *c)
{
	/* The smallest burst that still lets a full-size packet through at this rate. */
	uint32_t burst = (uint32_t)(rate / psched_hz(c) + HTB_MTU);

	return xmit_ticks(c, rate, burst);
}

static void qdisc_header(struct nlbuf *b, uint16_t type, uint16_t flags, uint32_t seq, int ifindex,
			 uint32_t parent, uint32_t handle)
{
	struct tcmsg tcm = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = handle,
	    .tcm_parent = parent,
	};

	nlbuf_msg(b, type, flags, seq, &tcm, sizeof(tcm));
}

/* One qdisc of a leaf kind with its options: tc qdisc add|replace ... KIND OPTS. */
static int leaf_request(struct nlbuf *b, uint16_t flags, uint32_t seq, int ifindex, uint32_t parent,
			uint32_t handle, const struct root_spec *s, char *err, size_t errlen)
{
	qdisc_header(b, RTM_NEWQDISC, flags, seq, ifindex, parent, handle);
	nlbuf_str(b, TCA_KIND, s->kind);
	return qdisc_opts_encode(b, s->kind, s->words, s->nwords, err, errlen);
}

/* tc class add|replace dev D parent R: classid R:1 htb rate RATE ceil RATE */
static void htb_class_request(struct nlbuf *b, uint16_t flags, uint32_t seq, int ifindex,
			      unsigned major, uint64_t rate, const struct knob_psched *c)
{
	struct tc_htb_opt opt = {0};
	uint32_t table[256];
	uint32_t rate32 = rate >= (1ULL << 32) ? UINT32_MAX : (uint32_t)rate;
	size_t nest;

	/* Rate tables: the time to send each 8-byte size class up to the MTU. */
	for (unsigned i = 0; i < 256; i++)
		table[i] = xmit_ticks(c, rate32, (i + 1) << HTB_CELL_LOG);
	opt.rate.cell_log = HTB_CELL_LOG;
	opt.rate.linklayer = TC_LINKLAYER_ETHERNET;
	opt.rate.cell_align = -1;
	opt.rate.rate = rate32;
	opt.ceil = opt.rate;
	opt.buffer = qdisc_htb_burst_ticks(rate, c);
	opt.cbuffer = opt.buffer;

	qdisc_header(b, RTM_NEWTCLASS, flags, seq, ifindex, TC_H_MAKE(major << 16, 0),
		     TC_H_MAKE(major << 16, 1));
	nlbuf_str(b, TCA_KIND, "htb");
	nest = nlbuf_nest(b, TCA_OPTIONS);
	if (rate >= (1ULL << 32)) {
		nlbuf_u64(b, TCA_HTB_RATE64, rate);
		nlbuf_u64(b, TCA_HTB_CEIL64, rate);
	}
	nlbuf_attr(b, TCA_HTB_PARMS, &opt, sizeof(opt));
	nlbuf_attr(b, TCA_HTB_RTAB, table, sizeof(table));
	nlbuf_attr(b, TCA_HTB_CTAB, table, sizeof(table));
	nlbuf_nest_end(b, nest);
}

static int tree_requests(const struct root_spec *s, int ifindex, unsigned ntxq, int replace,
			 unsigned major, const struct knob_psched *c, uint32_t seq, struct nlbuf *b,
			 char *err, size_t errlen)
{
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK |
			 (replace ? NLM_F_CREATE | NLM_F_REPLACE : NLM_F_CREATE | NLM_F_EXCL);
	/* tc class replace is NLM_F_CREATE alone: a class has no "replace" of its own. */
	uint16_t class_flags =
	    NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | (replace ? 0 : NLM_F_EXCL);
	uint32_t root = TC_H_MAKE(major << 16, 0);
	struct tc_htb_glob glob = {
	    .version = HTB_VERSION,
	    .rate2quantum = HTB_RATE2QUANTUM,
	    .defcls = 1,
	};
	size_t nest;
	int r;

	switch (s->shape) {
	case ROOT_SHAPE_DEFAULT:
		qdisc_header(b, RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, seq, ifindex, TC_H_ROOT,
			     0);
		return b->err;
	case ROOT_SHAPE_LEAF:
		return leaf_request(b, flags, seq, ifindex, TC_H_ROOT, root, s, err, errlen);
	case ROOT_SHAPE_MQ:
		/* Handles stay below the kernel's automatic ones (8000: and up). */
		if (ntxq == 0 || ntxq > 0x7fff - major - 1) {
			snprintf(err, errlen, "mq needs between 1 and %u TX queues, not %u",
				 0x7fff - major - 1, ntxq);
			return -EINVAL;
		}
		qdisc_header(b, RTM_NEWQDISC, flags, seq++, ifindex, TC_H_ROOT, root);
		nlbuf_str(b, TCA_KIND, "mq");
		for (unsigned i = 0; i < ntxq; i++) {
			r = leaf_request(b, flags, seq++, ifindex, TC_H_MAKE(root, i + 1),
					 TC_H_MAKE((major + i + 1) << 16, 0), s, err, errlen);
			if (r < 0)
				return r;
		}
		return b->err;
	case ROOT_SHAPE_HTB:
		qdisc_header(b, RTM_NEWQDISC, flags, seq++, ifindex, TC_H_ROOT, root);
		nlbuf_str(b, TCA_KIND, "htb");
		nest = nlbuf_nest(b, TCA_OPTIONS);
		nlbuf_attr(b, TCA_HTB_INIT, &glob, sizeof(glob));
		nlbuf_nest_end(b, nest);
		htb_class_request(b, class_flags, seq++, ifindex, major, s->htb_rate, c);
		return leaf_request(b, flags, seq, ifindex, TC_H_MAKE(root, 1),
				    TC_H_MAKE((major + 0xf) << 16, 0), s, err, errlen);
	}
	return -EINVAL;
}

int knob_qdisc_requests_at(const char *spec, int ifindex, unsigned ntxq, int replace,
			   unsigned major, const struct knob_psched *clock, uint32_t seq, void *buf,
			   size_t len, char *err, size_t errlen)
{
	struct root_spec s;
	struct nlbuf b;
	int r;

	if (errlen)
		err[0] = '\0';
	if (major < 1 || major > 0x7000 || !clock || clock->us2t == 0) {
		snprintf(err, errlen, "root handle %x: is not one of 1: to 7000:", major);
		return -EINVAL;
	}
	r = root_spec_parse(spec, &s, err, errlen);
	if (r < 0)
		return r;
	/* Below 1 kB/s the tick arithmetic leaves 32 bits (and no link is that slow). */
	if (s.shape == ROOT_SHAPE_HTB && s.htb_rate < 1000) {
		snprintf(err, errlen, "htb rate below 8kbit");
		return -EINVAL;
	}
	nlbuf_init(&b, buf, len);
	r = tree_requests(&s, ifindex, ntxq, replace, major, clock, seq, &b, err, errlen);
	if (r < 0)
		return r;
	if (b.err < 0)
		return b.err;
	return b.len > INT32_MAX ? -ENOSPC : (int)b.len;
}

int knob_qdisc_requests(const char *spec, int ifindex, unsigned ntxq, int replace, uint32_t seq,
			void *buf, size_t len, char *err, size_t errlen)
{
	static const struct knob_psched standard = KNOB_PSCHED_STANDARD;

	return knob_qdisc_requests_at(spec, ifindex, ntxq, replace, 1, &standard, seq, buf, len,
				      err, errlen);
}

/* RTM_NEWLINK setting one u32 attribute of a link, as `ip link set` sends it. */
static int link_u32_request(int ifindex, uint16_t attr, uint32_t v, uint32_t seq, void *buf,
			    size_t len)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nlbuf b;

	nlbuf_init(&b, buf, len);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq, &ifi, sizeof(ifi));
	nlbuf_u32(&b, attr, v);
	if (b.err < 0)
		return b.err;
	return (int)b.len;
}

int knob_txqueuelen_request(int ifindex, uint32_t txqueuelen, uint32_t seq, void *buf, size_t len)
{
	return link_u32_request(ifindex, IFLA_TXQLEN, txqueuelen, seq, buf, len);
}

int knob_gso_max_size_request(int ifindex, uint32_t size, uint32_t seq, void *buf, size_t len)
{
	return link_u32_request(ifindex, IFLA_GSO_MAX_SIZE, size, seq, buf, len);
}
