/* SPDX-License-Identifier: MIT */
/* link.c - link.h: RTM_NEWLINK decoding and the sysfs device check. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "base/array.h"
#include "host/link.h"
#include "host/sysfs.h"

static const char *const operstate_names[] = {
    "unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

int link_from_msg(const struct nlmsghdr *nlh, struct iface *out)
{
	const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
	const struct ifinfomsg *ifi = nl_msg_header(nlh, sizeof(*ifi));
	const uint64_t *stats;
	struct iface ifc = {.ring_tx = -1, .ring_tx_max = -1, .ring_rx = -1, .ring_rx_max = -1};
	uint8_t oper = 0;
	int r;

	if (!ifi)
		return -EBADMSG;
	r = nl_msg_attrs(nlh, sizeof(*ifi), tb, IFLA_MAX);
	if (r < 0)
		return r;
	ifc.ifindex = ifi->ifi_index;
	ifc.loopback = ifi->ifi_flags & IFF_LOOPBACK;
	r = nl_attr_str(tb[IFLA_IFNAME], ifc.name, sizeof(ifc.name));
	if (r < 0)
		return -EBADMSG;
	/* The rest is optional (old kernels lack some); present but malformed is an error. */
	if ((tb[IFLA_MTU] && nl_attr_u32(tb[IFLA_MTU], &ifc.mtu) < 0) ||
	    (tb[IFLA_TXQLEN] && nl_attr_u32(tb[IFLA_TXQLEN], &ifc.txqueuelen) < 0) ||
	    (tb[IFLA_NUM_TX_QUEUES] && nl_attr_u32(tb[IFLA_NUM_TX_QUEUES], &ifc.tx_queues) < 0) ||
	    (tb[IFLA_GSO_MAX_SIZE] && nl_attr_u32(tb[IFLA_GSO_MAX_SIZE], &ifc.gso_max_size) < 0) ||
	    (tb[IFLA_OPERSTATE] && nl_attr_u8(tb[IFLA_OPERSTATE], &oper) < 0))
		return -EBADMSG;
	snprintf(ifc.operstate, sizeof(ifc.operstate), "%s",
		 oper < COUNT(operstate_names) ? operstate_names[oper] : "unknown");
	if (tb[IFLA_QDISC] &&
	    nl_attr_str(tb[IFLA_QDISC], ifc.root_qdisc, sizeof(ifc.root_qdisc)) < 0)
		return -EBADMSG;
	if (tb[IFLA_LINKINFO]) {
		r = nl_nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
		if (r < 0)
			return r;
		if (info[IFLA_INFO_KIND]) {
			r = nl_attr_str(info[IFLA_INFO_KIND], ifc.kind, sizeof(ifc.kind));
			if (r < 0)
				return -EBADMSG;
		}
	}
	/* rtnl_link_stats64 only grew over the years: rx/tx packets, rx/tx bytes lead it. */
	stats = nl_attr_data(tb[IFLA_STATS64], 4 * sizeof(uint64_t));
	if (tb[IFLA_STATS64] && !stats)
		return -EBADMSG;
	if (stats) {
		uint64_t s[4];

		memcpy(s, stats, sizeof(s));
		ifc.have_stats = true;
		ifc.tx_packets = s[1];
		ifc.tx_bytes = s[3];
	}
	*out = ifc;
	return 0;
}

static int decode_link(const struct nlmsghdr *nlh, void *elem)
{
	return link_from_msg(nlh, elem);
}

int link_list(struct nl *nl, struct iface **out, size_t *n)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	const struct nl_list spec = {
	    .type = RTM_GETLINK,
	    .want = RTM_NEWLINK,
	    .hdr = &ifi,
	    .hdrlen = sizeof(ifi),
	    .decode = decode_link,
	    .elem = sizeof(**out),
	    .first = 16,
	    .max = LINK_MAX_INTERFACES,
	};
	void *v;
	int r = nl_dump_list(nl, &spec, &v, n);

	if (r == 0)
		*out = v;
	return r;
}

int link_classify(struct iface *ifc, const char *sysfs_root)
{
	char path[PATH_MAX];
	struct stat st;
	int64_t ifindex;
	int r;

	if (ifc->loopback) {
		snprintf(ifc->kind, sizeof(ifc->kind), "loopback");
		return 0;
	}
	r = snprintf(path, sizeof(path), "%s/class/net/%s/ifindex", sysfs_root, ifc->name);
	r = r < 0 || (size_t)r >= sizeof(path) ? -ENAMETOOLONG : sysfs_read_int(path, &ifindex);
	if (r == 0 && ifindex != ifc->ifindex)
		r = -EXDEV;
	if (r < 0) {
		if (!ifc->kind[0])
			snprintf(ifc->kind, sizeof(ifc->kind), "unknown");
		return r;
	}
	/* The same prefix fit above, and "device" is shorter than "ifindex". */
	snprintf(path, sizeof(path), "%s/class/net/%s/device", sysfs_root, ifc->name);
	ifc->physical = stat(path, &st) == 0;
	if (!ifc->kind[0])
		snprintf(ifc->kind, sizeof(ifc->kind), "%s",
			 ifc->physical ? "physical" : "unknown");
	return 0;
}
