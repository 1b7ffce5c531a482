/* SPDX-License-Identifier: MIT */
/* link-keep.c - link-keep.h: an interface's addresses and routes, kept and put back. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "base/nl.h"
#include "fix/link-keep.h"

struct keep_ctx {
	int ifindex;
	struct link_keep *k;
};

static size_t alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

static void copy_attr(const struct nlattr *a, uint8_t *out, size_t len, bool *have)
{
	const void *d = a ? nl_attr_data(a, len) : NULL;

	if (d) {
		memcpy(out, d, len);
		*have = true;
	}
}

static int on_link(const struct nlmsghdr *nlh, void *data)
{
	struct keep_ctx *c = data;
	const struct ifinfomsg *ifi = nl_msg_header(nlh, sizeof(*ifi));

	if (nlh->nlmsg_type == RTM_NEWLINK && ifi && ifi->ifi_index == c->ifindex)
		c->k->up = (ifi->ifi_flags & IFF_UP) != 0;
	return 0;
}

static int on_addr(const struct nlmsghdr *nlh, void *data)
{
	struct keep_ctx *c = data;
	const struct ifaddrmsg *ifa = nl_msg_header(nlh, sizeof(*ifa));
	const struct nlattr *tb[IFA_MAX + 1];
	struct link_addr a = {0};
	uint32_t flags;

	if (nlh->nlmsg_type != RTM_NEWADDR || !ifa || (int)ifa->ifa_index != c->ifindex ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	if (nl_msg_attrs(nlh, sizeof(*ifa), tb, IFA_MAX) < 0)
		return -EBADMSG;
	flags = ifa->ifa_flags;
	if (tb[IFA_FLAGS])
		nl_attr_u32(tb[IFA_FLAGS], &flags);
	/* IPv6: only what someone set; link-local and autoconfigured ones come back. */
	if (ifa->ifa_family == AF_INET6 &&
	    (ifa->ifa_scope == RT_SCOPE_LINK || !(flags & IFA_F_PERMANENT)))
		return 0;
	if (c->k->naddrs == LINK_KEEP_MAX) {
		c->k->lost++;
		return 0;
	}
	a.family = ifa->ifa_family;
	a.prefixlen = ifa->ifa_prefixlen;
	a.scope = ifa->ifa_scope;
	a.flags = flags & (IFA_F_NODAD | IFA_F_NOPREFIXROUTE | IFA_F_HOMEADDRESS);
	copy_attr(tb[IFA_LOCAL], a.local, alen(a.family), &a.has_local);
	copy_attr(tb[IFA_ADDRESS], a.address, alen(a.family), &a.has_address);
	if (a.family == AF_INET)
		copy_attr(tb[IFA_BROADCAST], a.broadcast, 4, &a.has_broadcast);
	c->k->addrs[c->k->naddrs++] = a;
	return 0;
}

static int on_route(const struct nlmsghdr *nlh, void *data)
{
	struct keep_ctx *c = data;
	const struct rtmsg *rtm = nl_msg_header(nlh, sizeof(*rtm));
	const struct nlattr *tb[RTA_MAX + 1];
	struct link_route r = {0};
	uint32_t oif = 0, table;

	if (nlh->nlmsg_type != RTM_NEWROUTE || !rtm ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6))
		return 0;
	if (nl_msg_attrs(nlh, sizeof(*rtm), tb, RTA_MAX) < 0)
		return -EBADMSG;
	table = rtm->rtm_table;
	if (tb[RTA_TABLE])
		nl_attr_u32(tb[RTA_TABLE], &table);
	if (tb[RTA_OIF])
		nl_attr_u32(tb[RTA_OIF], &oif);
	if ((int)oif != c->ifindex || table != RT_TABLE_MAIN || rtm->rtm_type != RTN_UNICAST ||
	    rtm->rtm_protocol == RTPROT_KERNEL || rtm->rtm_protocol == RTPROT_RA)
		return 0;
	if (c->k->nroutes == LINK_KEEP_MAX) {
		c->k->lost++;
		return 0;
	}
	r.family = rtm->rtm_family;
	r.dst_len = rtm->rtm_dst_len;
	r.scope = rtm->rtm_scope;
	r.protocol = rtm->rtm_protocol;
	r.type = rtm->rtm_type;
	if (tb[RTA_PRIORITY])
		nl_attr_u32(tb[RTA_PRIORITY], &r.priority);
	copy_attr(tb[RTA_DST], r.dst, alen(r.family), &r.has_dst);
	copy_attr(tb[RTA_GATEWAY], r.gateway, alen(r.family), &r.has_gateway);
	copy_attr(tb[RTA_PREFSRC], r.prefsrc, alen(r.family), &r.has_prefsrc);
	c->k->routes[c->k->nroutes++] = r;
	return 0;
}

int link_keep_read(int ifindex, struct link_keep *out)
{
	struct keep_ctx c = {.ifindex = ifindex, .k = out};
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct ifaddrmsg ifa = {.ifa_family = AF_UNSPEC};
	struct rtmsg rtm = {.rtm_family = AF_UNSPEC};
	struct nl *nl;
	int r;

	memset(out, 0, sizeof(*out));
	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = nl_dump(nl, RTM_GETLINK, &ifi, sizeof(ifi), on_link, &c);
	if (!r)
		r = nl_dump(nl, RTM_GETADDR, &ifa, sizeof(ifa), on_addr, &c);
	if (!r)
		r = nl_dump(nl, RTM_GETROUTE, &rtm, sizeof(rtm), on_route, &c);
	nl_close(nl);
	return r < 0 ? r : out->lost ? -E2BIG : 0;
}

/* One request; EEXIST (a manager put it back first) is success. */
static int request(struct nl *nl, struct nlbuf *b, char *why, size_t whylen)
{
	int r;

	if (b->err)
		return b->err;
	r = nl_request(nl, b->buf, b->len, NULL, why, whylen);
	return r == -EEXIST ? 0 : r;
}

static void say_failure(char *msg, size_t len, const char *what, int err, const char *why)
{
	if (msg && !msg[0])
		snprintf(msg, len, "cannot put back %s: %s", what, why[0] ? why : strerror(-err));
}

static int set_up(struct nl *nl, int ifindex, char *msg, size_t msglen)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC,
				.ifi_index = ifindex,
				.ifi_flags = IFF_UP,
				.ifi_change = IFF_UP};
	unsigned char buf[64] __attribute__((aligned(4)));
	char why[256] = "";
	struct nlbuf b;
	int r;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 0, &ifi, sizeof(ifi));
	r = request(nl, &b, why, sizeof(why));
	if (r < 0)
		say_failure(msg, msglen, "the link up", r, why);
	return r;
}

static int add_addr(struct nl *nl, int ifindex, const struct link_addr *a, char *msg, size_t msglen)
{
	struct ifaddrmsg ifa = {.ifa_family = a->family,
				.ifa_prefixlen = a->prefixlen,
				.ifa_scope = a->scope,
				.ifa_index = (uint32_t)ifindex};
	unsigned char buf[256] __attribute__((aligned(4)));
	char why[256] = "", what[INET6_ADDRSTRLEN + 16], text[INET6_ADDRSTRLEN] = "?";
	struct nlbuf b;
	int r;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0, &ifa,
		  sizeof(ifa));
	if (a->has_local)
		nlbuf_attr(&b, IFA_LOCAL, a->local, alen(a->family));
	if (a->has_address)
		nlbuf_attr(&b, IFA_ADDRESS, a->address, alen(a->family));
	if (a->has_broadcast)
		nlbuf_attr(&b, IFA_BROADCAST, a->broadcast, 4);
	if (a->flags)
		nlbuf_u32(&b, IFA_FLAGS, a->flags);
	r = request(nl, &b, why, sizeof(why));
	if (r < 0) {
		inet_ntop(a->family, a->has_local ? a->local : a->address, text, sizeof(text));
		snprintf(what, sizeof(what), "address %s/%u", text, a->prefixlen);
		say_failure(msg, msglen, what, r, why);
	}
	return r;
}

static void route_text(const struct link_route *rt, char *buf, size_t len)
{
	char dst[INET6_ADDRSTRLEN] = "default", gw[INET6_ADDRSTRLEN] = "";

	if (rt->has_dst || rt->dst_len)
		inet_ntop(rt->family, rt->dst, dst, sizeof(dst));
	if (rt->has_gateway)
		inet_ntop(rt->family, rt->gateway, gw, sizeof(gw));
	if (rt->has_dst || rt->dst_len)
		snprintf(buf, len, "route %s/%u%s%s", dst, rt->dst_len, gw[0] ? " via " : "", gw);
	else
		snprintf(buf, len, "route default%s%s", gw[0] ? " via " : "", gw);
}

static int add_route(struct nl *nl, int ifindex, const struct link_route *rt, char *msg,
		     size_t msglen)
{
	struct rtmsg rtm = {.rtm_family = rt->family,
			    .rtm_dst_len = rt->dst_len,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_protocol = rt->protocol,
			    .rtm_scope = rt->scope,
			    .rtm_type = rt->type};
	unsigned char buf[256] __attribute__((aligned(4)));
	char why[256] = "", what[2 * INET6_ADDRSTRLEN + 32];
	struct nlbuf b;
	int r;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWROUTE, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0, &rtm,
		  sizeof(rtm));
	if (rt->has_dst)
		nlbuf_attr(&b, RTA_DST, rt->dst, alen(rt->family));
	if (rt->has_gateway)
		nlbuf_attr(&b, RTA_GATEWAY, rt->gateway, alen(rt->family));
	if (rt->has_prefsrc)
		nlbuf_attr(&b, RTA_PREFSRC, rt->prefsrc, alen(rt->family));
	if (rt->priority)
		nlbuf_u32(&b, RTA_PRIORITY, rt->priority);
	nlbuf_u32(&b, RTA_OIF, (uint32_t)ifindex);
	r = request(nl, &b, why, sizeof(why));
	if (r < 0) {
		route_text(rt, what, sizeof(what));
		say_failure(msg, msglen, what, r, why);
	}
	return r;
}

int link_keep_restore(int ifindex, const struct link_keep *k, char *msg, size_t msglen)
{
	struct nl *nl;
	int r, first = 0;

	if (msg && msglen)
		msg[0] = '\0';
	r = nl_open(&nl);
	if (r < 0)
		return r;
	if (k->up)
		first = set_up(nl, ifindex, msg, msglen);
	for (unsigned i = 0; i < k->naddrs; i++) {
		r = add_addr(nl, ifindex, &k->addrs[i], msg, msglen);
		first = first ? first : r;
	}
	/* Routes through a gateway need the prefix routes of the addresses: they are there
	 * now. Those of a link that stays down cannot be added: the first error says so. */
	for (unsigned i = 0; i < k->nroutes && k->up; i++) {
		r = add_route(nl, ifindex, &k->routes[i], msg, msglen);
		first = first ? first : r;
	}
	nl_close(nl);
	return first;
}

static const struct link_route *default_route(const struct link_keep *k, int family)
{
	for (unsigned i = 0; i < k->nroutes; i++)
		if (k->routes[i].family == family && k->routes[i].dst_len == 0 &&
		    k->routes[i].has_gateway)
			return &k->routes[i];
	return NULL;
}

int link_keep_gateway(const struct link_keep *k, char *addr, size_t len)
{
	const struct link_route *rt = default_route(k, AF_INET);

	if (!rt)
		rt = default_route(k, AF_INET6);
	if (!rt)
		return -ENOENT;
	return inet_ntop(rt->family, rt->gateway, addr, (socklen_t)len) ? 0 : -ENOSPC;
}

bool link_keep_has_default(const struct link_keep *k)
{
	for (unsigned i = 0; i < k->nroutes; i++)
		if (k->routes[i].dst_len == 0)
			return true;
	return false;
}

bool link_keep_has_address(const struct link_keep *k, const char *addr)
{
	uint8_t bin[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	if (inet_pton(family, addr, bin) != 1)
		return false;
	for (unsigned i = 0; i < k->naddrs; i++) {
		const struct link_addr *a = &k->addrs[i];
		const uint8_t *mine = a->has_local ? a->local : a->address;

		if (a->family == family && !memcmp(mine, bin, alen(family)))
			return true;
	}
	return false;
}
