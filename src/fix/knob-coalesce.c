/* SPDX-License-Identifier: MIT */
/*
 * knob-coalesce.c - the knob "tx-usecs": how long the NIC waits after a transmitted
 * packet before it raises the TX-completion interrupt (ETHTOOL_GCOALESCE and
 * ETHTOOL_SCOALESCE's tx_coalesce_usecs, `ethtool -C DEV tx-usecs N`). Completions
 * are what BQL's limit grows from: a driver that holds them back (cpsw, stmmac) makes
 * BQL keep more bytes in the ring, so a smaller value is a latency knob. Microseconds,
 * decimal; 0 is "interrupt at once" where the driver allows it.
 *
 * Writing reads the driver's whole set first and changes only this field, so the other
 * coalescing parameters stay as they were. -EOPNOTSUPP when the driver has no
 * coalescing (veth, loopback) or not this parameter.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/ethtool.h>

#include "fix/knob-type.h"
#include "host/ethtool.h"

static int coalesce_get(const char *ifname, struct ethtool_coalesce *c)
{
	memset(c, 0, sizeof(*c));
	c->cmd = ETHTOOL_GCOALESCE;
	return ethtool_call(ifname, c);
}

static void label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "tx-usecs coalescing");
}

static int read_usecs(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	struct ethtool_coalesce c;
	int r = coalesce_get(k->ifname, &c);

	return r < 0 ? r : knob_put_u64(val, len, c.tx_coalesce_usecs);
}

static int write_usecs(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		       size_t msglen)
{
	struct ethtool_coalesce c;
	uint64_t v;
	int r;

	if (knob_parse_number(val, UINT32_MAX, &v) < 0) {
		knob_msg(msg, msglen, "tx-usecs is a number of microseconds, not \"%s\"", val);
		return -EINVAL;
	}
	r = coalesce_get(k->ifname, &c);
	if (r < 0)
		return r;
	c.cmd = ETHTOOL_SCOALESCE;
	c.tx_coalesce_usecs = (uint32_t)v;
	r = ethtool_call(k->ifname, &c);
	if (r == -EOPNOTSUPP)
		knob_msg(msg, msglen, "the driver of %s has no TX interrupt coalescing", k->ifname);
	return r;
}

static int commands(struct knob_lines *o, const struct knob *k, const char *value, unsigned ntxq)
{
	knob_line(o, "ethtool -C %s tx-usecs %s", k->ifname, value);
	return o->err;
}

/* systemd.link(5)'s TxCoalesceSec= takes a time span. */
static void networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	w->place = KNOB_KEY;
	w->key = "TxCoalesceSec";
	snprintf(w->value, sizeof(w->value), "%sus", value);
}

static void nm(const struct knob *k, const char *value, struct knob_word *w)
{
	w->place = KNOB_KEY;
	w->key = "ethtool.coalesce-tx-usecs";
	snprintf(w->value, sizeof(w->value), "%s", value);
}

const struct knob_type knob_tx_usecs = {
    .name = "tx-usecs",
    .phase = 3, /* with the rings: the driver's side of the queue */
    .flags = KNOB_OPTIONAL,
    .label = label,
    .read = read_usecs,
    .write = write_usecs,
    .equal = knob_numbers_equal,
    .loose_equal = knob_words_equal,
    .commands = commands,
    .nd_link = true,
    .networkd = networkd,
    .nm = nm,
};
