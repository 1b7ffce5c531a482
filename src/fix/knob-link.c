/* SPDX-License-Identifier: MIT */
/*
 * knob-link.c - the link attributes rtnetlink sets (RTM_NEWLINK, as `ip link set`):
 * txqueuelen (IFLA_TXQLEN, packets) and gso_max_size (IFLA_GSO_MAX_SIZE, bytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/knob-type.h"

static int read_attr(const struct knob *k, bool gso, char *val, size_t len)
{
	struct knob_link_facts facts;
	int ifindex = knob_ifindex(k->ifname), r;

	if (ifindex < 0)
		return ifindex;
	r = knob_link_facts(ifindex, &facts);
	if (r < 0)
		return r;
	if (gso && !facts.gso_max_size)
		return -ENOENT; /* a kernel that does not report it */
	return knob_put_u64(val, len, gso ? facts.gso_max_size : facts.txqueuelen);
}

static int write_attr(const struct knob *k, bool gso, const char *val, char *msg, size_t msglen)
{
	unsigned char buf[64];
	struct knob_link_facts facts;
	uint64_t v;
	int ifindex, n, r;

	if (knob_parse_number(val, UINT32_MAX, &v) < 0 || (gso && v == 0)) {
		knob_msg(msg, msglen, "%s must be a number of %s, not \"%s\"",
			 gso ? "gso_max_size" : "txqueuelen", gso ? "bytes" : "packets", val);
		return -EINVAL;
	}
	ifindex = knob_ifindex(k->ifname);
	if (ifindex < 0)
		return ifindex;
	n = gso ? knob_gso_max_size_request(ifindex, (uint32_t)v, 0, buf, sizeof(buf))
		: knob_txqueuelen_request(ifindex, (uint32_t)v, 0, buf, sizeof(buf));
	if (n < 0)
		return n;
	r = knob_send(buf, (size_t)n, NULL, msg, msglen);
	if (r < 0 || !gso)
		return r;
	/* Older kernels take IFLA_GSO_MAX_SIZE on an existing link and ignore it. */
	r = knob_link_facts(ifindex, &facts);
	if (r < 0)
		return r;
	if (facts.gso_max_size != v) {
		knob_msg(msg, msglen,
			 "this kernel ignores a new gso_max_size on a link that exists");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* ---- txqueuelen ---- */

static void txqueuelen_label(const struct knob *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "txqueuelen");
}

static int txqueuelen_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	(void)env;
	return read_attr(k, false, val, len);
}

static int txqueuelen_write(const struct knob *k, const struct knob_env *env, const char *val,
			    char *msg, size_t msglen)
{
	(void)env;
	return write_attr(k, false, val, msg, msglen);
}

static int txqueuelen_commands(struct knob_lines *o, const struct knob *k, const char *value,
			       unsigned ntxq)
{
	(void)ntxq;
	knob_line(o, "ip link set dev %s txqueuelen %s", k->ifname, value);
	return o->err;
}

static void txqueuelen_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	w->place = KNOB_KEY;
	w->key = "TransmitQueueLength";
	snprintf(w->value, sizeof(w->value), "%s", value);
}

static void txqueuelen_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->place = KNOB_AT_LINK_UP;
	w->why = "NetworkManager has no txqueuelen property";
}

static int txqueuelen_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct iface *ifc = knob_host_iface(h, k->ifname);

	return knob_put_known(val, len, ifc ? (int64_t)ifc->txqueuelen : -1);
}

const struct knob_type knob_txqueuelen = {
    .name = "txqueuelen",
    .phase = 1,
    .label = txqueuelen_label,
    .read = txqueuelen_read,
    .write = txqueuelen_write,
    .equal = knob_numbers_equal,
    .loose_equal = knob_words_equal,
    .commands = txqueuelen_commands,
    .nd_link = true,
    .networkd = txqueuelen_networkd,
    .nm = txqueuelen_nm,
    .from_host = txqueuelen_from_host,
};

/* ---- gso_max_size ---- */

static void gso_label(const struct knob *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "gso_max_size");
}

static int gso_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	(void)env;
	return read_attr(k, true, val, len);
}

static int gso_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		     size_t msglen)
{
	(void)env;
	return write_attr(k, true, val, msg, msglen);
}

static int gso_commands(struct knob_lines *o, const struct knob *k, const char *value,
			unsigned ntxq)
{
	(void)ntxq;
	knob_line(o, "ip link set dev %s gso_max_size %s", k->ifname, value);
	return o->err;
}

static void gso_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	unsigned long long v;
	char *end;

	(void)k;
	v = strtoull(value, &end, 10);
	if (*end || v < 1 || v > 65536) {
		w->why = "GenericSegmentOffloadMaxBytes= takes 1 to 65536";
		return;
	}
	w->place = KNOB_KEY;
	w->key = "GenericSegmentOffloadMaxBytes";
	snprintf(w->value, sizeof(w->value), "%s", value);
}

static void gso_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->place = KNOB_AT_LINK_UP;
	w->why = "NetworkManager has no gso_max_size property";
}

static int gso_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct iface *ifc = knob_host_iface(h, k->ifname);

	return knob_put_known(val, len, ifc && ifc->gso_max_size ? (int64_t)ifc->gso_max_size : -1);
}

const struct knob_type knob_gso_max_size = {
    .name = "gso-max-size",
    .phase = 4,
    .flags = KNOB_OPTIONAL,
    .label = gso_label,
    .read = gso_read,
    .write = gso_write,
    .equal = knob_numbers_equal,
    .loose_equal = knob_words_equal,
    .commands = gso_commands,
    .nd_link = true,
    .networkd = gso_networkd,
    .nm = gso_nm,
    .from_host = gso_from_host,
};
