/* SPDX-License-Identifier: MIT */
/*
 * qdisc-opts.c - qdisc-opts.h: the message builder, and one table per leaf kind saying
 * which tc word sets which attribute, how its value is spelled and sent, and what the
 * kernel's default is. Attribute orders are tc's (iproute2 6.1), as captured in
 * tests/fixtures/netlink; numbers are the kernel's ABI (linux/pkt_sched.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "array.h"
#include "debloat/units.h"
#include "fix/qdisc-opts.h"
#include "nl.h"

/* ---- the builder ---- */

void nlbuf_init(struct nlbuf *b, void *buf, size_t cap)
{
	*b = (struct nlbuf){.buf = buf, .cap = cap};
}

/* Reserve n bytes (plus padding to 4) at the end, zeroed; NULL once out of room. */
static void *nlbuf_room(struct nlbuf *b, size_t n)
{
	size_t padded = NLMSG_ALIGN(n);
	void *p;

	if (b->err || padded < n || padded > b->cap - b->len) {
		b->err = -ENOSPC;
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, padded);
	b->len += padded;
	/* The message grows with each attribute: keep its length current. */
	if (b->len - b->msg >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)(b->buf + b->msg);

		nlh->nlmsg_len = (uint32_t)(b->len - b->msg);
	}
	return p;
}

void nlbuf_msg(struct nlbuf *b, uint16_t type, uint16_t flags, uint32_t seq, const void *hdr,
	       size_t hdrlen)
{
	struct nlmsghdr nlh = {.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq};
	unsigned char *p;

	if (b->err)
		return;
	b->msg = b->len;
	p = nlbuf_room(b, NLMSG_HDRLEN + hdrlen);
	if (!p)
		return;
	nlh.nlmsg_len = (uint32_t)(b->len - b->msg);
	memcpy(p, &nlh, sizeof(nlh));
	memcpy(p + NLMSG_HDRLEN, hdr, hdrlen);
}

void nlbuf_attr(struct nlbuf *b, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type};
	unsigned char *p;

	if (n > UINT16_MAX - NLA_HDRLEN) {
		b->err = b->err ? b->err : -ENOSPC;
		return;
	}
	p = nlbuf_room(b, NLA_HDRLEN + n);
	if (!p)
		return;
	memcpy(p, &a, sizeof(a));
	if (n)
		memcpy(p + NLA_HDRLEN, data, n);
}

void nlbuf_u8(struct nlbuf *b, uint16_t type, uint8_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u32(struct nlbuf *b, uint16_t type, uint32_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_u64(struct nlbuf *b, uint16_t type, uint64_t v)
{
	nlbuf_attr(b, type, &v, sizeof(v));
}

void nlbuf_str(struct nlbuf *b, uint16_t type, const char *s)
{
	nlbuf_attr(b, type, s, strlen(s) + 1);
}

size_t nlbuf_nest(struct nlbuf *b, uint16_t type)
{
	size_t off = b->len;

	nlbuf_attr(b, type, NULL, 0);
	return off;
}

void nlbuf_nest_end(struct nlbuf *b, size_t off)
{
	struct nlattr *a;

	if (b->err || b->len - off > UINT16_MAX) {
		b->err = b->err ? b->err : -ENOSPC;
		return;
	}
	a = (struct nlattr *)(void *)(b->buf + off);
	a->nla_len = (uint16_t)(b->len - off);
}

/* ---- the kinds ---- */

enum enc {
	ENC_U32,       /* a count: decimal */
	ENC_SIZE,      /* bytes, tc's size spelling ("64kb") */
	ENC_TIME_US,   /* tc's time spelling, sent in microseconds */
	ENC_TIME_NS,   /* tc's time spelling, sent in nanoseconds */
	ENC_RATE32,    /* tc's rate spelling, sent in bytes/s as a u32 */
	ENC_RATE64,    /* the same as a u64 */
	ENC_LOG2,      /* a count sent as its base-2 logarithm, rounded up (fq buckets) */
	ENC_S32,       /* a signed number (cake overhead) */
	ENC_CHOICE,    /* one word of several, each a u32 value */
	ENC_CHOICE_U8, /* the same, sent as a u8 */
	ENC_DERIVED,   /* set along with another word (cake's target with rtt): never spelled */
	ENC_FOREIGN,   /* no tc word we take sets it: rebuilding needs it absent or default */
};

#define SLOT_DEFAULT	  0x01 /* def is the kernel's default: not spelled when equal */
#define SLOT_LINK_DEFAULT 0x02 /* the kernel's default depends on the link */
#define SLOT_OMIT_ZERO	  0x04 /* tc sends nothing for 0 */
#define SLOT_NONZERO	  0x08 /* tc refuses 0 */

struct choice {
	const char *word;
	uint32_t value;
};

struct slot {
	uint16_t attr;
	const char *key; /* the word taking a value, or the name of a choice */
	enum enc enc;
	unsigned flags;
	uint64_t def;
	const struct choice *choices; /* ENC_CHOICE*: NULL-terminated */
};

/* Words that set more than their own slot (cake). */
struct extra_word {
	const char *word;
	uint16_t attr; /* the slot the word sets */
	bool arg;      /* its value follows; else it sets value */
	uint64_t value;
	uint16_t attr2; /* another slot it sets to value2 (0: none) */
	uint64_t value2;
	bool cake_target; /* also sets TCA_CAKE_TARGET to rtt / 20, at least 1 */
	bool forced;	  /* its value is sent even when 0 */
};

struct kind {
	const char *name;
	const struct slot *slots; /* in tc's order */
	size_t nslots;
	const struct extra_word *extra;
	size_t nextra;
	bool raw_fifo; /* TCA_OPTIONS is a bare struct tc_fifo_qopt: slot 0 is the limit */
	bool none;     /* takes no options at all (pfifo_fast) */
};

static const struct choice ecn_choices[] = {{"ecn", 1}, {"noecn", 0}, {NULL, 0}};

static const struct slot fq_codel_slots[] = {
    {TCA_FQ_CODEL_LIMIT, "limit", ENC_U32, SLOT_DEFAULT | SLOT_OMIT_ZERO, 10240, NULL},
    {TCA_FQ_CODEL_FLOWS, "flows", ENC_U32, SLOT_DEFAULT | SLOT_OMIT_ZERO, 1024, NULL},
    {TCA_FQ_CODEL_QUANTUM, "quantum", ENC_SIZE, SLOT_LINK_DEFAULT | SLOT_OMIT_ZERO, 0, NULL},
    {TCA_FQ_CODEL_INTERVAL, "interval", ENC_TIME_US, SLOT_DEFAULT | SLOT_OMIT_ZERO, 100000, NULL},
    {TCA_FQ_CODEL_TARGET, "target", ENC_TIME_US, SLOT_DEFAULT | SLOT_OMIT_ZERO, 5000, NULL},
    {TCA_FQ_CODEL_ECN, "ecn", ENC_CHOICE, SLOT_DEFAULT, 1, ecn_choices},
    /* The kernel reports a CE threshold only when one is set. */
    {TCA_FQ_CODEL_CE_THRESHOLD, "ce_threshold", ENC_TIME_US, 0, 0, NULL},
    {TCA_FQ_CODEL_MEMORY_LIMIT, "memory_limit", ENC_SIZE, SLOT_DEFAULT, 32u << 20, NULL},
    {TCA_FQ_CODEL_DROP_BATCH_SIZE, "drop_batch", ENC_U32, SLOT_DEFAULT | SLOT_OMIT_ZERO, 64, NULL},
    /* ce_threshold_selector: reported only when set. */
    {TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, NULL, ENC_FOREIGN, 0, 0, NULL},
    {TCA_FQ_CODEL_CE_THRESHOLD_MASK, NULL, ENC_FOREIGN, 0, 0, NULL},
};

static const struct choice pacing_choices[] = {{"pacing", 1}, {"nopacing", 0}, {NULL, 0}};
static const struct choice horizon_choices[] = {{"horizon_drop", 1}, {"horizon_cap", 0}, {NULL, 0}};

static const struct slot fq_slots[] = {
    {TCA_FQ_BUCKETS_LOG, "buckets", ENC_LOG2, SLOT_DEFAULT | SLOT_NONZERO, 10, NULL},
    {TCA_FQ_PLIMIT, "limit", ENC_U32, SLOT_DEFAULT, 10000, NULL},
    {TCA_FQ_FLOW_PLIMIT, "flow_limit", ENC_U32, SLOT_DEFAULT, 100, NULL},
    {TCA_FQ_QUANTUM, "quantum", ENC_SIZE, SLOT_LINK_DEFAULT, 0, NULL},
    {TCA_FQ_INITIAL_QUANTUM, "initial_quantum", ENC_SIZE, SLOT_LINK_DEFAULT, 0, NULL},
    {TCA_FQ_RATE_ENABLE, "pacing", ENC_CHOICE, SLOT_DEFAULT, 1, pacing_choices},
    /* ~0U: no maximum (the kernel reports larger rates as ~0U too). */
    {TCA_FQ_FLOW_MAX_RATE, "maxrate", ENC_RATE32, SLOT_DEFAULT, UINT32_MAX, NULL},
    {TCA_FQ_LOW_RATE_THRESHOLD, "low_rate_threshold", ENC_RATE32, SLOT_DEFAULT, 550000 / 8, NULL},
    {TCA_FQ_FLOW_REFILL_DELAY, "refill_delay", ENC_TIME_US, SLOT_DEFAULT, 40000, NULL},
    {TCA_FQ_ORPHAN_MASK, "orphan_mask", ENC_U32, SLOT_DEFAULT, 1023, NULL},
    {TCA_FQ_CE_THRESHOLD, "ce_threshold", ENC_TIME_US, SLOT_DEFAULT, UINT32_MAX, NULL},
    {TCA_FQ_TIMER_SLACK, "timer_slack", ENC_TIME_NS, SLOT_DEFAULT, 10000, NULL},
    {TCA_FQ_HORIZON, "horizon", ENC_TIME_US, SLOT_DEFAULT, 10000000, NULL},
    {TCA_FQ_HORIZON_DROP, "horizon_drop", ENC_CHOICE_U8, SLOT_DEFAULT, 1, horizon_choices},
};

static const struct choice diffserv_choices[] = {{"diffserv3", 0},  {"diffserv4", 1},
						 {"diffserv8", 2},  {"besteffort", 3},
						 {"precedence", 4}, {NULL, 0}};
static const struct choice atm_choices[] = {{"noatm", 0}, {"atm", 1}, {"ptm", 2}, {NULL, 0}};
static const struct choice flow_choices[] = {
    {"flowblind", 0},	 {"srchost", 1},      {"dsthost", 2},	     {"hosts", 3}, {"flows", 4},
    {"dual-srchost", 5}, {"dual-dsthost", 6}, {"triple-isolate", 7}, {NULL, 0}};
static const struct choice autorate_choices[] = {{"autorate-ingress", 1}, {NULL, 0}};
static const struct choice nat_choices[] = {{"nat", 1}, {"nonat", 0}, {NULL, 0}};
static const struct choice wash_choices[] = {{"wash", 1}, {"nowash", 0}, {NULL, 0}};
static const struct choice gso_choices[] = {{"split-gso", 1}, {"no-split-gso", 0}, {NULL, 0}};
static const struct choice ingress_choices[] = {{"ingress", 1}, {"egress", 0}, {NULL, 0}};
static const struct choice ack_choices[] = {
    {"no-ack-filter", 0}, {"ack-filter", 1}, {"ack-filter-aggressive", 2}, {NULL, 0}};

static const struct slot cake_slots[] = {
    /* 0 is "unlimited", the default; "bandwidth 0" sends nothing, as in tc. */
    {TCA_CAKE_BASE_RATE64, "bandwidth", ENC_RATE64, SLOT_DEFAULT | SLOT_OMIT_ZERO, 0, NULL},
    {TCA_CAKE_DIFFSERV_MODE, "diffserv", ENC_CHOICE, SLOT_DEFAULT, 0, diffserv_choices},
    {TCA_CAKE_ATM, "atm", ENC_CHOICE, SLOT_DEFAULT, 0, atm_choices},
    {TCA_CAKE_FLOW_MODE, "flowmode", ENC_CHOICE, SLOT_DEFAULT, 7, flow_choices},
    /* Spelled whenever set, 0 too: the kernel then stops counting the MAC header
     * (it reports TCA_CAKE_RAW while no overhead was ever set). */
    {TCA_CAKE_OVERHEAD, "overhead", ENC_S32, 0, 0, NULL},
    {TCA_CAKE_MPU, "mpu", ENC_U32, SLOT_DEFAULT | SLOT_OMIT_ZERO, 0, NULL},
    {TCA_CAKE_RTT, "rtt", ENC_TIME_US, SLOT_DEFAULT | SLOT_OMIT_ZERO, 100000, NULL},
    {TCA_CAKE_TARGET, NULL, ENC_DERIVED, 0, 0, NULL},
    {TCA_CAKE_AUTORATE, "autorate", ENC_CHOICE, SLOT_DEFAULT, 0, autorate_choices},
    {TCA_CAKE_MEMORY, "memlimit", ENC_SIZE, SLOT_DEFAULT | SLOT_OMIT_ZERO, 0, NULL},
    {TCA_CAKE_NAT, "nat", ENC_CHOICE, SLOT_DEFAULT, 0, nat_choices},
    {TCA_CAKE_WASH, "wash", ENC_CHOICE, SLOT_DEFAULT, 0, wash_choices},
    {TCA_CAKE_SPLIT_GSO, "split-gso", ENC_CHOICE, SLOT_DEFAULT, 1, gso_choices},
    {TCA_CAKE_INGRESS, "ingress", ENC_CHOICE, SLOT_DEFAULT, 0, ingress_choices},
    {TCA_CAKE_ACK_FILTER, "ack-filter", ENC_CHOICE, SLOT_DEFAULT, 0, ack_choices},
    {TCA_CAKE_FWMARK, NULL, ENC_FOREIGN, SLOT_DEFAULT, 0, NULL},
};

/* tc's round-trip-time presets set rtt, and target to a twentieth of it. */
#define CAKE_RTT(w, us)                                                                            \
	{                                                                                          \
		w, TCA_CAKE_RTT, false, us, 0, 0, true, false                                      \
	}

static const struct extra_word cake_extra[] = {
    /* "bandwidth 0" sends no rate, "unlimited" sends a rate of 0: tc's way. */
    {"bandwidth", TCA_CAKE_BASE_RATE64, true, 0, TCA_CAKE_AUTORATE, 0, false, false},
    {"unlimited", TCA_CAKE_BASE_RATE64, false, 0, TCA_CAKE_AUTORATE, 0, false, true},
    {"rtt", TCA_CAKE_RTT, true, 0, 0, 0, true, false},
    CAKE_RTT("datacentre", 100),
    CAKE_RTT("lan", 1000),
    CAKE_RTT("metro", 10000),
    CAKE_RTT("regional", 30000),
    CAKE_RTT("internet", 100000),
    CAKE_RTT("oceanic", 300000),
    CAKE_RTT("satellite", 1000000),
    CAKE_RTT("interplanetary", 1000000000),
};

static const struct slot pfifo_slots[] = {
    {0, "limit", ENC_U32, SLOT_LINK_DEFAULT | SLOT_NONZERO, 0, NULL},
};

static const struct slot bfifo_slots[] = {
    {0, "limit", ENC_SIZE, SLOT_LINK_DEFAULT | SLOT_NONZERO, 0, NULL},
};

static const struct kind kinds[] = {
    {"fq_codel", fq_codel_slots, COUNT(fq_codel_slots), NULL, 0, false, false},
    {"fq", fq_slots, COUNT(fq_slots), NULL, 0, false, false},
    {"cake", cake_slots, COUNT(cake_slots), cake_extra, COUNT(cake_extra), false, false},
    {"pfifo", pfifo_slots, 1, NULL, 0, true, false},
    {"bfifo", bfifo_slots, 1, NULL, 0, true, false},
    {"pfifo_fast", NULL, 0, NULL, 0, false, true},
};

static const struct kind *kind_of(const char *name)
{
	for (size_t i = 0; i < COUNT(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

bool qdisc_leaf_kind(const char *kind)
{
	return kind_of(kind) != NULL;
}

static int slot_index(const struct kind *k, uint16_t attr)
{
	for (size_t i = 0; i < k->nslots; i++)
		if (k->slots[i].attr == attr)
			return (int)i;
	return -1;
}

/* ---- encoding ---- */

struct setting {
	bool set;
	bool forced; /* sent even where SLOT_OMIT_ZERO would leave a 0 out */
	uint64_t v;  /* ENC_S32 as its two's complement in the low 32 bits */
};

static int parse_value(const struct slot *s, const char *text, uint64_t *out)
{
	uint64_t v;
	uint32_t u;
	int r;

	switch (s->enc) {
	case ENC_U32:
		r = db_parse_u32(text, &u);
		v = u;
		break;
	case ENC_SIZE:
		r = db_parse_size(text, &u);
		v = u;
		break;
	case ENC_TIME_US:
	case ENC_TIME_NS:
		r = db_parse_time_ns(text, &v);
		if (r == 0 && s->enc == ENC_TIME_US)
			v /= 1000;
		if (r == 0 && v > UINT32_MAX)
			r = -EINVAL;
		break;
	case ENC_RATE32:
	case ENC_RATE64:
		r = db_parse_rate(text, &v);
		if (r == 0 && s->enc == ENC_RATE32 && v > UINT32_MAX)
			r = -EINVAL;
		break;
	case ENC_LOG2:
		r = db_parse_u32(text, &u);
		if (r == 0 && u == 0)
			r = -EINVAL;
		/* tc's rounding: the smallest power of two at least as large */
		for (v = 0; r == 0 && (1ULL << v) < u; v++)
			;
		break;
	case ENC_S32: {
		const char *p = text[0] == '-' ? text + 1 : text;

		r = db_parse_u32(p, &u);
		if (r == 0 && u > (p == text ? (uint32_t)INT32_MAX : (uint32_t)INT32_MAX + 1))
			r = -EINVAL;
		v = p == text ? u : (uint32_t)(0u - u);
		break;
	}
	default:
		r = -EINVAL;
		break;
	}
	if (r == 0 && (s->flags & SLOT_NONZERO) && v == 0 && s->enc != ENC_LOG2)
		r = -EINVAL;
	if (r == 0)
		*out = v;
	return r;
}

static void put_slot(struct nlbuf *b, const struct slot *s, uint64_t v)
{
	switch (s->enc) {
	case ENC_RATE64:
		nlbuf_u64(b, s->attr, v);
		break;
	case ENC_CHOICE_U8:
		nlbuf_u8(b, s->attr, (uint8_t)v);
		break;
	default:
		nlbuf_u32(b, s->attr, (uint32_t)v);
		break;
	}
}

/* Set a slot by attribute number (for extra words); slots the table lacks are a bug. */
static void set_attr(const struct kind *k, struct setting *set, uint16_t attr, uint64_t v)
{
	int i = slot_index(k, attr);

	if (i >= 0)
		set[i] = (struct setting){.set = true, .v = v};
}

/* One word (and its value, if it takes one) into the settings; returns words used. */
static int apply_word(const struct kind *k, struct setting *set, char *const *words, int left,
		      char *err, size_t errlen)
{
	const char *w = words[0];
	uint64_t v;

	for (size_t i = 0; i < k->nextra; i++) {
		const struct extra_word *x = &k->extra[i];
		int s = slot_index(k, x->attr);

		if (strcmp(w, x->word) || s < 0)
			continue;
		v = x->value;
		if (x->arg) {
			if (left < 2 || parse_value(&k->slots[s], words[1], &v) < 0)
				goto bad_value;
		}
		set_attr(k, set, x->attr, v);
		set[s].forced = x->forced;
		if (x->attr2)
			set_attr(k, set, x->attr2, x->value2);
		if (x->cake_target)
			set_attr(k, set, TCA_CAKE_TARGET, v / 20 ? v / 20 : 1);
		return x->arg ? 2 : 1;
	}
	for (size_t i = 0; i < k->nslots; i++) {
		const struct slot *s = &k->slots[i];

		if (s->enc == ENC_CHOICE || s->enc == ENC_CHOICE_U8) {
			for (const struct choice *c = s->choices; c->word; c++)
				if (!strcmp(w, c->word)) {
					set[i] = (struct setting){.set = true, .v = c->value};
					return 1;
				}
			continue;
		}
		if (!s->key || strcmp(w, s->key) || s->enc == ENC_DERIVED || s->enc == ENC_FOREIGN)
			continue;
		if (left < 2 || parse_value(s, words[1], &v) < 0)
			goto bad_value;
		set[i] = (struct setting){.set = true, .v = v};
		return 2;
	}
	snprintf(err, errlen, "unknown option \"%s\" for %s", w, k->name);
	return -EINVAL;
bad_value:
	if (left < 2)
		snprintf(err, errlen, "option \"%s\" of %s needs a value", w, k->name);
	else
		snprintf(err, errlen, "bad value \"%s\" for %s %s", words[1], k->name, w);
	return -EINVAL;
}

int qdisc_opts_encode(struct nlbuf *b, const char *kind, char *const *words, int nwords, char *err,
		      size_t errlen)
{
	const struct kind *k = kind_of(kind);
	struct setting set[QDISC_OPTS_MAX] = {{0}};
	size_t nest;

	if (errlen)
		err[0] = '\0';
	if (!k) {
		snprintf(err, errlen, "unknown qdisc kind \"%s\"", kind);
		return -EINVAL;
	}
	if (k->none && nwords > 0) {
		snprintf(err, errlen, "%s takes no options (\"%s\")", kind, words[0]);
		return -EINVAL;
	}
	for (int i = 0; i < nwords;) {
		int used = apply_word(k, set, words + i, nwords - i, err, errlen);

		if (used < 0)
			return used;
		i += used;
	}
	if (k->none)
		return b->err;
	if (k->raw_fifo) {
		if (set[0].set) {
			struct tc_fifo_qopt fifo = {.limit = (uint32_t)set[0].v};

			nlbuf_attr(b, TCA_OPTIONS, &fifo, sizeof(fifo));
		}
		return b->err;
	}
	nest = nlbuf_nest(b, TCA_OPTIONS);
	for (size_t i = 0; i < k->nslots; i++) {
		if (!set[i].set ||
		    ((k->slots[i].flags & SLOT_OMIT_ZERO) && set[i].v == 0 && !set[i].forced))
			continue;
		put_slot(b, &k->slots[i], set[i].v);
	}
	nlbuf_nest_end(b, nest);
	return b->err;
}

/* ---- decoding ---- */

static int format_size(uint64_t v, char *buf, size_t len)
{
	if (v && v % (1u << 20) == 0)
		return snprintf(buf, len, "%llumb", (unsigned long long)(v >> 20));
	if (v && v % 1024 == 0)
		return snprintf(buf, len, "%llukb", (unsigned long long)(v >> 10));
	return snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* "key value" (or the choice's word) into o; -EOPNOTSUPP for a value no word gives. */
static int spell(const struct slot *s, uint64_t v, struct qdisc_opt *o)
{
	char val[32];
	int n;

	o->key = s->key;
	o->link_default = s->flags & SLOT_LINK_DEFAULT;
	switch (s->enc) {
	case ENC_CHOICE:
	case ENC_CHOICE_U8:
		for (const struct choice *c = s->choices; c->word; c++)
			if (c->value == v) {
				snprintf(o->text, sizeof(o->text), "%s", c->word);
				return 0;
			}
		return -EOPNOTSUPP;
	case ENC_SIZE:
		n = format_size(v, val, sizeof(val));
		break;
	case ENC_TIME_US:
		n = db_format_time(v * 1000, val, sizeof(val));
		break;
	case ENC_TIME_NS:
		n = db_format_time(v, val, sizeof(val));
		break;
	case ENC_RATE32:
	case ENC_RATE64:
		n = db_format_rate(v, val, sizeof(val));
		break;
	case ENC_LOG2:
		if (v > 31)
			return -EOPNOTSUPP;
		n = snprintf(val, sizeof(val), "%u", 1u << v);
		break;
	case ENC_S32:
		n = snprintf(val, sizeof(val), "%d", (int32_t)(uint32_t)v);
		break;
	default:
		n = snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(val))
		return -EOPNOTSUPP;
	snprintf(o->text, sizeof(o->text), "%s %s", s->key, val);
	return 0;
}

static int read_slot(const struct slot *s, const struct nlattr *a, uint64_t *v)
{
	uint32_t u32;
	uint8_t u8;

	if (s->enc == ENC_RATE64)
		return nl_attr_u64(a, v);
	if (s->enc == ENC_CHOICE_U8) {
		if (nl_attr_u8(a, &u8) < 0)
			return -EBADMSG;
		*v = u8;
		return 0;
	}
	if (nl_attr_u32(a, &u32) < 0)
		return -EBADMSG;
	*v = u32;
	return 0;
}

static int add_opt(struct qdisc_opts *out, const struct slot *s, uint64_t v)
{
	if (out->n == QDISC_OPTS_MAX)
		return -EOPNOTSUPP;
	return spell(s, v, &out->v[out->n++]) < 0 ? -EOPNOTSUPP : 0;
}

int qdisc_opts_decode(const char *kind, const void *opts, size_t len, struct qdisc_opts *out)
{
	const struct kind *k = kind_of(kind);
	const struct nlattr *tb[32]; /* above every attribute number in the tables */
	unsigned maxtype = 0;
	int r;

	out->n = 0;
	if (!k)
		return -EOPNOTSUPP;
	if (k->none || !opts || !len)
		return 0;
	if (k->raw_fifo) {
		struct tc_fifo_qopt fifo;

		if (len < sizeof(fifo))
			return -EBADMSG;
		memcpy(&fifo, opts, sizeof(fifo));
		return add_opt(out, &k->slots[0], fifo.limit);
	}
	for (size_t i = 0; i < k->nslots; i++)
		if (k->slots[i].attr > maxtype)
			maxtype = k->slots[i].attr;
	if (!strcmp(kind, "cake") && TCA_CAKE_RAW > maxtype)
		maxtype = TCA_CAKE_RAW;
	if (maxtype >= COUNT(tb))
		return -EOPNOTSUPP;
	r = nl_attrs(opts, len, tb, maxtype);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k->nslots; i++) {
		const struct slot *s = &k->slots[i];
		uint64_t v;

		if (!tb[s->attr] || s->enc == ENC_DERIVED)
			continue;
		/* Present at all, where the kernel reports it only when set: not ours. */
		if (s->enc == ENC_FOREIGN && !(s->flags & SLOT_DEFAULT))
			return -EOPNOTSUPP;
		if (read_slot(s, tb[s->attr], &v) < 0)
			return -EBADMSG;
		if ((s->flags & SLOT_DEFAULT) && v == s->def)
			continue;
		if (s->enc == ENC_FOREIGN)
			return -EOPNOTSUPP;
		/* cake: an overhead the kernel reports while in raw mode was never set. */
		if (s->attr == TCA_CAKE_OVERHEAD && !strcmp(kind, "cake") && tb[TCA_CAKE_RAW])
			continue;
		r = add_opt(out, s, v);
		if (r < 0)
			return r;
	}
	return 0;
}

int qdisc_opts_format(const struct qdisc_opts *o, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; i < o->n; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", o->v[i].text);

		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return (int)used;
}

static const struct qdisc_opt *find_opt(const struct qdisc_opts *o, const char *key)
{
	for (unsigned i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].key, key))
			return &o->v[i];
	return NULL;
}

static bool covered(const struct qdisc_opts *a, const struct qdisc_opts *b)
{
	for (unsigned i = 0; i < a->n; i++) {
		const struct qdisc_opt *o = find_opt(b, a->v[i].key);

		if (o ? strcmp(o->text, a->v[i].text) != 0 : !a->v[i].link_default)
			return false;
	}
	return true;
}

bool qdisc_opts_equal(const struct qdisc_opts *a, const struct qdisc_opts *b)
{
	return covered(a, b) && covered(b, a);
}

/* ---- specs ---- */

int qdisc_spec_parse(const char *text, struct qdisc_spec *out, char *err, size_t errlen)
{
	char *save = NULL, *w;
	int n = 0, first;

	if (errlen)
		err[0] = '\0';
	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(out->store)) {
		snprintf(err, errlen, "qdisc spec longer than %zu characters",
			 sizeof(out->store) - 1);
		return -EINVAL;
	}
	memcpy(out->store, text, strlen(text) + 1);
	for (w = strtok_r(out->store, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (n == QDISC_SPEC_WORDS) {
			snprintf(err, errlen, "qdisc spec has more than %d words",
				 QDISC_SPEC_WORDS);
			return -EINVAL;
		}
		out->words[n++] = w;
	}
	if (n == 0) {
		snprintf(err, errlen, "empty qdisc spec");
		return -EINVAL;
	}
	if (!strcmp(out->words[0], "default")) {
		if (n > 1) {
			snprintf(err, errlen, "\"default\" takes nothing after it");
			return -EINVAL;
		}
		out->shape = QDISC_SHAPE_DEFAULT;
		return 0;
	}
	first = 0;
	out->shape = QDISC_SHAPE_LEAF;
	if (!strcmp(out->words[0], "mq")) {
		out->shape = QDISC_SHAPE_MQ;
		first = 1;
	} else if (!strcmp(out->words[0], "htb")) {
		out->shape = QDISC_SHAPE_HTB;
		first = 2;
		if (n < 2 || db_parse_rate(out->words[1], &out->htb_rate) < 0 ||
		    out->htb_rate == 0) {
			snprintf(err, errlen,
				 "htb needs a rate (\"htb 95mbit fq_codel\"), not \"%s\"",
				 n < 2 ? "" : out->words[1]);
			return -EINVAL;
		}
	}
	if (first >= n) {
		snprintf(err, errlen, "%s needs a leaf qdisc kind after it", out->words[0]);
		return -EINVAL;
	}
	out->kind = out->words[first];
	if (!qdisc_leaf_kind(out->kind)) {
		snprintf(
		    err, errlen,
		    "unknown qdisc kind \"%s\" (fq_codel, fq, cake, pfifo, bfifo, pfifo_fast%s)",
		    out->kind, first ? "" : ", mq KIND, htb RATE KIND or default");
		return -EINVAL;
	}
	/* The leaf's option words follow its kind; shift them to the front. */
	out->nwords = n - first - 1;
	memmove(out->words, out->words + first + 1, (size_t)out->nwords * sizeof(out->words[0]));
	return 0;
}

int qdisc_spec_opts(const struct qdisc_spec *s, struct qdisc_opts *out, char *err, size_t errlen)
{
	unsigned char scratch[1024];
	struct nlbuf b;
	const struct nlattr *opts;
	int r;

	out->n = 0;
	if (s->shape == QDISC_SHAPE_DEFAULT)
		return 0;
	nlbuf_init(&b, scratch, sizeof(scratch));
	r = qdisc_opts_encode(&b, s->kind, s->words, s->nwords, err, errlen);
	if (r < 0)
		return r;
	if (b.len == 0)
		return 0; /* no TCA_OPTIONS at all */
	opts = (const struct nlattr *)(const void *)scratch;
	return qdisc_opts_decode(s->kind, nl_attr_data(opts, 0), nl_attr_len(opts), out);
}
