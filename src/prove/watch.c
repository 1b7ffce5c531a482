/* SPDX-License-Identifier: MIT */
#include "prove/watch.h"

#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "base/nl.h"
#include "host/ethtool.h"

struct stats_sum {
	int ifindex;
	uint64_t drops, root_backlog;
	bool any;
};

static int add_stats(const struct nlmsghdr *nlh, void *data)
{
	struct stats_sum *s = data;
	const struct tcmsg *tcm = nl_msg_header(nlh, sizeof(*tcm));
	const struct nlattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
	const struct gnet_stats_queue *q;

	if (nlh->nlmsg_type != RTM_NEWQDISC || !tcm || tcm->tcm_ifindex != s->ifindex)
		return 0;
	if (nl_msg_attrs(nlh, sizeof(*tcm), tb, TCA_MAX) < 0 || !tb[TCA_STATS2] ||
	    nl_nested(tb[TCA_STATS2], st, TCA_STATS_MAX) < 0 || !st[TCA_STATS_QUEUE])
		return 0;
	q = nl_attr_data(st[TCA_STATS_QUEUE], sizeof(*q));
	if (!q)
		return 0;
	s->any = true;
	s->drops += q->drops;
	if (tcm->tcm_parent == TC_H_ROOT)
		s->root_backlog = q->backlog;
	return 0;
}

int watch_open(struct prove_watch *w, const char *ifname)
{
	unsigned idx = if_nametoindex(ifname);

	memset(w, 0, sizeof(*w));
	if (!idx)
		return -ENODEV;
	w->ifindex = (int)idx;
	strncpy(w->ifname, ifname, sizeof(w->ifname) - 1);
	{
		enum duplex duplex;

		if (ethtool_link(ifname, &w->speed_mbps, &duplex) < 0)
			w->speed_mbps = 0;
	}
	w->have_bql = bql_watch_open(&w->bql, "/sys", ifname) == 0;
	if (w->have_bql && !(w->queues = calloc(w->bql.n, sizeof(*w->queues)))) {
		bql_watch_close(&w->bql);
		w->have_bql = false;
	}
	w->inflight_max = w->have_bql ? 0 : -1;
	return 0;
}

void watch_sample(struct prove_watch *w)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC, .tcm_ifindex = w->ifindex};
	struct stats_sum s = {.ifindex = w->ifindex};
	struct nl *nl;

	if (!w->ifindex)
		return;
	if (nl_open(&nl) == 0) {
		if (nl_dump(nl, RTM_GETQDISC, &tcm, sizeof(tcm), add_stats, &s) == 0 && s.any) {
			if (!w->have_start) {
				w->have_start = true;
				w->drops_start = s.drops;
			}
			w->drops_now = s.drops;
			if (s.root_backlog > w->backlog_max)
				w->backlog_max = s.root_backlog;
		}
		nl_close(nl);
	}
	if (w->have_bql) {
		int64_t bytes, packets;

		if (bql_watch_read(&w->bql, w->queues, &bytes, &packets) == 0)
			for (size_t i = 0; i < w->bql.n; i++)
				if (w->queues[i].inflight > w->inflight_max)
					w->inflight_max = w->queues[i].inflight;
	}
	w->samples++;
}

void watch_close(struct prove_watch *w)
{
	if (w->have_bql)
		bql_watch_close(&w->bql);
	free(w->queues);
	w->queues = NULL;
	w->have_bql = false;
}

uint64_t watch_drops(const struct prove_watch *w)
{
	return w->drops_now >= w->drops_start ? w->drops_now - w->drops_start : 0;
}

const char *watch_where(const struct prove_watch *w, uint32_t mtu)
{
	uint64_t frame = (uint64_t)(mtu ? mtu : 1500) + 14;

	if (!w->samples)
		return "unknown";
	if (w->backlog_max > 2 * frame || watch_drops(w) > 0)
		return "here";
	if (w->inflight_max > WATCH_DRIVER_BYTES &&
	    (!w->speed_mbps ||
	     (double)w->inflight_max * 8 / (w->speed_mbps * 1000.0) > WATCH_DRIVER_MS))
		return "driver";
	return "beyond";
}
