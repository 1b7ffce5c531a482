/* SPDX-License-Identifier: MIT */
#include "fix/commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <debloat/units.h>

#include "fix/ingress-shape.h"
#include "fix/qdisc-opts.h"
#include "host/iface.h"

struct out {
	char *buf;
	size_t len, used;
	int err;
};

__attribute__((format(printf, 2, 3))) static void line(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= o->len - o->used) {
		o->err = -ENOSPC;
		return;
	}
	o->used += (size_t)n;
	o->buf[o->used++] = '\n';
	o->buf[o->used] = '\0';
}

/* The leaf's kind and option words, as the spec wrote them. */
static void leaf_text(const struct qdisc_spec *s, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", s->kind);

	for (int i = 0; i < s->nwords && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", s->words[i]);
}

static int qdisc_lines(struct out *o, const char *ifname, const char *value, unsigned ntxq)
{
	struct qdisc_spec s;
	char err[160], leaf[KNOB_VALUE_MAX], rate[32];

	struct qdisc_opts opts;

	/* The grammar, words and values too (as knob_write would send them): nothing
	 * else reaches a command line. */
	if (qdisc_spec_parse(value, &s, err, sizeof(err)) < 0 ||
	    (s.shape != QDISC_SHAPE_DEFAULT && qdisc_spec_opts(&s, &opts, err, sizeof(err)) < 0))
		return -EINVAL;
	leaf_text(&s, leaf, sizeof(leaf));
	switch (s.shape) {
	case QDISC_SHAPE_DEFAULT:
		line(o, "tc qdisc del dev %s root", ifname);
		break;
	case QDISC_SHAPE_LEAF:
		line(o, "tc qdisc replace dev %s root handle 1: %s", ifname, leaf);
		break;
	case QDISC_SHAPE_MQ:
		if (!ntxq)
			return -EINVAL;
		line(o, "tc qdisc replace dev %s root handle 1: mq", ifname);
		for (unsigned q = 1; q <= ntxq; q++)
			line(o, "tc qdisc replace dev %s parent 1:%x handle %x: %s", ifname, q, q + 1,
			     leaf);
		break;
	case QDISC_SHAPE_HTB:
		if (db_format_rate(s.htb_rate, rate, sizeof(rate)) < 0)
			return -EINVAL;
		line(o, "tc qdisc replace dev %s root handle 1: htb default 1", ifname);
		line(o, "tc class replace dev %s parent 1: classid 1:1 htb rate %s ceil %s", ifname,
		     rate, rate);
		line(o, "tc qdisc replace dev %s parent 1:1 handle 10: %s", ifname, leaf);
		break;
	}
	return o->err;
}

/* ethtool's short names for the features fix turns off. */
static const char *feature_word(const char *name)
{
	if (!strcmp(name, "tx-tcp-segmentation"))
		return "tso";
	if (!strcmp(name, "tx-generic-segmentation"))
		return "gso";
	if (!strcmp(name, "rx-gro"))
		return "gro";
	return name;
}

static bool word_ok(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (!(*v == '.' || *v == '_' || *v == '-' || (*v >= '0' && *v <= '9') ||
		      (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z')))
			return false;
	return true;
}

int knob_commands(const struct knob *k, const char *value, unsigned ntxq, char *buf, size_t len)
{
	struct out o = {buf, len, 0, 0};
	char ifb[IF_NAMESIZE];
	const char *dev = k->ifname;
	int r = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (k->kind != KNOB_SYSCTL && iface_name_invalid(dev))
		return -EINVAL;
	if (k->kind != KNOB_ROOT_QDISC && k->kind != KNOB_INGRESS && !word_ok(value))
		return -EINVAL;
	switch (k->kind) {
	case KNOB_ROOT_QDISC:
		r = qdisc_lines(&o, dev, value, ntxq);
		break;
	case KNOB_TXQUEUELEN:
		line(&o, "ip link set dev %s txqueuelen %s", dev, value);
		break;
	case KNOB_GSO_MAX_SIZE:
		line(&o, "ip link set dev %s gso_max_size %s", dev, value);
		break;
	case KNOB_BQL_LIMIT_MAX:
		line(&o, "echo %s > /sys/class/net/%s/queues/tx-%d/byte_queue_limits/limit_max",
		     value, dev, k->queue);
		break;
	case KNOB_RING_TX:
	case KNOB_RING_RX:
		line(&o, "ethtool -G %s %s %s", dev, k->kind == KNOB_RING_TX ? "tx" : "rx", value);
		break;
	case KNOB_OFFLOAD:
		line(&o, "ethtool -K %s %s %s", dev, feature_word(k->name), value);
		break;
	case KNOB_SYSCTL:
		if (!word_ok(k->name))
			return -EINVAL;
		line(&o, "sysctl -w %s=%s", k->name, value);
		break;
	case KNOB_INGRESS:
		if (ingress_ifb_name(dev, ifb, sizeof(ifb)) < 0)
			return -EINVAL;
		if (!strcmp(value, "default")) {
			line(&o, "tc qdisc del dev %s ingress", dev);
			line(&o, "ip link del dev %s", ifb);
			break;
		}
		line(&o, "ip link add name %s type ifb", ifb);
		line(&o, "ip link set dev %s up", ifb);
		r = qdisc_lines(&o, ifb, value, 1);
		line(&o, "tc qdisc add dev %s handle ffff: ingress", dev);
		line(&o, "tc filter add dev %s parent ffff: protocol all u32 match u32 0 0 action "
			 "mirred egress redirect dev %s",
		     dev, ifb);
		break;
	default:
		return -EINVAL;
	}
	if (r < 0)
		return r;
	return o.err < 0 ? o.err : (int)o.used;
}
