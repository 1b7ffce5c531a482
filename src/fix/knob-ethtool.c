/* SPDX-License-Identifier: MIT */
/*
 * knob-ethtool.c - the knobs the ethtool ioctl sets (host/ethtool.h): the TX and RX
 * ring sizes (descriptors) and the offload features by the kernel's names, with the
 * words ethtool, systemd.link(5) and NetworkManager have for each feature.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fix/knob-type.h"
#include "host/ethtool.h"

static int read_ring(const struct knob *k, char *val, size_t len)
{
	int64_t tx, tx_max, rx, rx_max;
	int r;

	r = ethtool_rings(k->ifname, &tx, &tx_max, &rx, &rx_max);
	if (r < 0)
		return r;
	return knob_put_u64(val, len, (uint64_t)(k->kind == KNOB_RING_TX ? tx : rx));
}

static int write_ring(const struct knob *k, const char *val, char *msg, size_t msglen)
{
	uint64_t v;
	int64_t n;

	if (knob_parse_number(val, UINT32_MAX, &v) < 0 || v == 0) {
		knob_msg(msg, msglen, "a ring size is a number of descriptors, not \"%s\"", val);
		return -EINVAL;
	}
	n = (int64_t)v;
	return ethtool_set_rings(k->ifname, k->kind == KNOB_RING_TX ? n : -1,
				 k->kind == KNOB_RING_RX ? n : -1);
}

static int read_offload(const struct knob *k, char *val, size_t len)
{
	enum feature_state state;
	bool changeable;
	int r;

	r = ethtool_feature(k->ifname, k->name, &state, &changeable);
	if (r < 0)
		return r;
	return knob_put(val, len, state == FEATURE_ON ? "on" : "off");
}

static int write_offload(const struct knob *k, const char *val, char *msg, size_t msglen)
{
	int r;

	if (strcmp(val, "on") && strcmp(val, "off")) {
		knob_msg(msg, msglen, "an offload is \"on\" or \"off\", not \"%s\"", val);
		return -EINVAL;
	}
	r = ethtool_set_feature(k->ifname, k->name, !strcmp(val, "on"));
	if (r == -EOPNOTSUPP)
		knob_msg(msg, msglen,
			 "%s is fixed by the driver, or depends on a feature that is off", k->name);
	return r;
}

/* ---- the rings ---- */

static void ring_label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s ring", k->kind == KNOB_RING_TX ? "TX" : "RX");
}

static int ring_read_env(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	(void)env;
	return read_ring(k, val, len);
}

static int ring_write_env(const struct knob *k, const struct knob_env *env, const char *val,
			  char *msg, size_t msglen)
{
	(void)env;
	return write_ring(k, val, msg, msglen);
}

static const char *ring_dir(const struct knob *k)
{
	return k->kind == KNOB_RING_TX ? "tx" : "rx";
}

static int ring_commands(struct knob_lines *o, const struct knob *k, const char *value,
			 unsigned ntxq)
{
	(void)ntxq;
	knob_line(o, "ethtool -G %s %s %s", k->ifname, ring_dir(k), value);
	return o->err;
}

static void ring_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	w->place = KNOB_KEY;
	w->key = k->kind == KNOB_RING_TX ? "TxBufferSize" : "RxBufferSize";
	snprintf(w->value, sizeof(w->value), "%s", value);
}

static void ring_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	w->place = KNOB_KEY;
	w->key = k->kind == KNOB_RING_TX ? "ethtool.ring-tx" : "ethtool.ring-rx";
	snprintf(w->value, sizeof(w->value), "%s", value);
}

static int ring_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct iface *ifc = knob_host_iface(h, k->ifname);

	if (!ifc)
		return -ENOENT;
	return knob_put_known(val, len, k->kind == KNOB_RING_TX ? ifc->ring_tx : ifc->ring_rx);
}

const struct knob_type knob_ring_tx = {
    .name = "ring-tx",
    .phase = 3,
    .flags = KNOB_OPTIONAL,
    .label = ring_label,
    .read = ring_read_env,
    .write = ring_write_env,
    .equal = knob_numbers_equal,
    .loose_equal = knob_words_equal,
    .commands = ring_commands,
    .nd_link = true,
    .networkd = ring_networkd,
    .nm = ring_nm,
    .from_host = ring_from_host,
};

const struct knob_type knob_ring_rx = {
    .name = "ring-rx",
    .phase = 3,
    .flags = KNOB_OPTIONAL,
    .label = ring_label,
    .read = ring_read_env,
    .write = ring_write_env,
    .equal = knob_numbers_equal,
    .loose_equal = knob_words_equal,
    .commands = ring_commands,
    .nd_link = true,
    .networkd = ring_networkd,
    .nm = ring_nm,
    .from_host = ring_from_host,
};

/* ---- the offloads ---- */

/* A feature's words: ethtool -K's short name, the [Link] key, the NM property. */
struct feature_words {
	const char *feature, *ethtool, *networkd, *nm;
};

static const struct feature_words features[] = {
    {"tx-tcp-segmentation", "tso", "TCPSegmentationOffload", "ethtool.feature-tso"},
    {"tx-tcp6-segmentation", NULL, "TCP6SegmentationOffload",
     "ethtool.feature-tx-tcp6-segmentation"},
    {"tx-generic-segmentation", "gso", "GenericSegmentationOffload", "ethtool.feature-gso"},
    {"rx-gro", "gro", "GenericReceiveOffload", "ethtool.feature-gro"},
    {"rx-gro-hw", NULL, "GenericReceiveOffloadHardware", "ethtool.feature-rx-gro-hw"},
    {"rx-lro", NULL, "LargeReceiveOffload", "ethtool.feature-lro"},
    {"rx-checksum", NULL, "ReceiveChecksumOffload", NULL},
};

static const struct feature_words *feature_of(const char *name)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (!strcmp(features[i].feature, name))
			return &features[i];
	return NULL;
}

static void offload_label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "offload %s", k->name);
}

static int offload_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	(void)env;
	return read_offload(k, val, len);
}

static int offload_write(const struct knob *k, const struct knob_env *env, const char *val,
			 char *msg, size_t msglen)
{
	(void)env;
	return write_offload(k, val, msg, msglen);
}

static bool offload_equal(const char *a, const char *b)
{
	return !strcmp(a, b);
}

static int offload_commands(struct knob_lines *o, const struct knob *k, const char *value,
			    unsigned ntxq)
{
	const struct feature_words *f = feature_of(k->name);

	(void)ntxq;
	knob_line(o, "ethtool -K %s %s %s", k->ifname, f && f->ethtool ? f->ethtool : k->name,
		  value);
	return o->err;
}

static void offload_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	const struct feature_words *f = feature_of(k->name);

	if (!f || !f->networkd) {
		w->why = "systemd.link(5) has no key for this feature";
		return;
	}
	w->place = KNOB_KEY;
	w->key = f->networkd;
	snprintf(w->value, sizeof(w->value), "%s", !strcmp(value, "on") ? "yes" : "no");
}

static void offload_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	const struct feature_words *f = feature_of(k->name);

	if (!f || !f->nm)
		return; /* the emitter's "no property for it" */
	w->place = KNOB_KEY;
	w->key = f->nm;
	snprintf(w->value, sizeof(w->value), "%s", value);
}

/* What a snapshot records of the offloads: TSO, GSO, GRO and LRO. */
static int offload_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct iface *ifc = knob_host_iface(h, k->ifname);
	enum feature_state f = FEATURE_UNKNOWN;

	if (ifc && !strcmp(k->name, "tx-tcp-segmentation"))
		f = ifc->tso;
	else if (ifc && !strcmp(k->name, "tx-generic-segmentation"))
		f = ifc->gso;
	else if (ifc && !strcmp(k->name, "rx-gro"))
		f = ifc->gro;
	else if (ifc && !strcmp(k->name, "rx-lro"))
		f = ifc->lro;
	if (f == FEATURE_UNKNOWN)
		return -ENOENT;
	return snprintf(val, len, "%s", f == FEATURE_ON ? "on" : "off") < (int)len ? 0 : -ENOSPC;
}

const struct knob_type knob_offload = {
    .name = "offload",
    .phase = 4,
    .flags = KNOB_HAS_NAME | KNOB_OPTIONAL,
    .label = offload_label,
    .read = offload_read,
    .write = offload_write,
    .equal = offload_equal,
    .loose_equal = knob_case_equal,
    .commands = offload_commands,
    .nd_link = true,
    .networkd = offload_networkd,
    .nm = offload_nm,
    .from_host = offload_from_host,
};
