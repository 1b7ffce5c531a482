/* SPDX-License-Identifier: MIT */
/* ingress-shape.c - ingress-shape.h, and the download shaper's row of the knob registry. */
#include "fix/ingress-shape.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/nl.h"
#include "fix/knob-root.h"
#include "fix/qdisc-opts.h"
#include "fix/root-spec.h"
#include "host/iface.h"
#include "host/qdisc.h"

#define INGRESS_HANDLE 0xffff0000U

int ingress_ifb_name(const char *ifname, char *out, size_t len)
{
	if (!ifname[0] || len < IF_NAMESIZE)
		return -EINVAL;
	snprintf(out, IF_NAMESIZE, "ifb4%s", ifname);
	return 0;
}

/* ---- requests ---- */

static int finish(struct nlbuf *b)
{
	return b->err < 0 ? b->err : (int)b->len;
}

int ingress_link_add_request(const char *name, uint32_t seq, void *buf, size_t len)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nlbuf b;
	size_t info;

	nlbuf_init(&b, buf, len);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, seq, &ifi,
		  sizeof(ifi));
	nlbuf_str(&b, IFLA_IFNAME, name);
	info = nlbuf_nest(&b, IFLA_LINKINFO);
	nlbuf_attr(&b, IFLA_INFO_KIND, "ifb", 3); /* ip sends the kind without its NUL */
	nlbuf_nest_end(&b, info);
	return finish(&b);
}

/* RTM_NEWLINK (set up) or RTM_DELLINK of ifindex. */
static int link_request(uint16_t type, int ifindex, uint32_t seq, void *buf, size_t len)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nlbuf b;

	if (type == RTM_NEWLINK)
		ifi.ifi_flags = ifi.ifi_change = IFF_UP;
	nlbuf_init(&b, buf, len);
	nlbuf_msg(&b, type, NLM_F_REQUEST | NLM_F_ACK, seq, &ifi, sizeof(ifi));
	return finish(&b);
}

int ingress_link_up_request(int ifindex, uint32_t seq, void *buf, size_t len)
{
	return link_request(RTM_NEWLINK, ifindex, seq, buf, len);
}

int ingress_link_del_request(int ifindex, uint32_t seq, void *buf, size_t len)
{
	return link_request(RTM_DELLINK, ifindex, seq, buf, len);
}

/* The ingress qdisc (handle ffff:) of ifindex: added as tc adds it, or deleted. */
static int qdisc_request(uint16_t type, uint16_t flags, int ifindex, uint32_t seq, void *buf,
			 size_t len)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC,
			    .tcm_ifindex = ifindex,
			    .tcm_handle = INGRESS_HANDLE,
			    .tcm_parent = TC_H_INGRESS};
	struct nlbuf b;

	nlbuf_init(&b, buf, len);
	nlbuf_msg(&b, type, NLM_F_REQUEST | NLM_F_ACK | flags, seq, &tcm, sizeof(tcm));
	nlbuf_str(&b, TCA_KIND, "ingress");
	return finish(&b);
}

int ingress_qdisc_request(int ifindex, uint32_t seq, void *buf, size_t len)
{
	return qdisc_request(RTM_NEWQDISC, NLM_F_EXCL | NLM_F_CREATE, ifindex, seq, buf, len);
}

int ingress_qdisc_del_request(int ifindex, uint32_t seq, void *buf, size_t len)
{
	return qdisc_request(RTM_DELQDISC, 0, ifindex, seq, buf, len);
}

int ingress_filter_request(int ifindex, int ifb_index, uint32_t seq, void *buf, size_t len)
{
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC,
			    .tcm_ifindex = ifindex,
			    .tcm_parent = INGRESS_HANDLE,
			    /* priority 0 (the kernel picks), protocol ETH_P_ALL in network order */
			    .tcm_info = TC_H_MAKE(0, 0x0300)};
	struct tc_mirred mirred = {
	    .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR, .ifindex = (uint32_t)ifb_index};
	/* TCA_U32_SEL: the selector and its one key (all zero: match everything), laid
	 * out as the kernel reads them; a byte array, since tc_u32_sel ends in a flexible
	 * array that no struct may embed before another member. */
	struct tc_u32_sel sel = {.flags = TC_U32_TERMINAL, .nkeys = 1};
	unsigned char selkey[sizeof(struct tc_u32_sel) + sizeof(struct tc_u32_key)] = {0};
	struct nlbuf b;
	size_t opts, acts, act, aopts;

	nlbuf_init(&b, buf, len);
	nlbuf_msg(&b, RTM_NEWTFILTER, NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, seq,
		  &tcm, sizeof(tcm));
	nlbuf_str(&b, TCA_KIND, "u32");
	opts = nlbuf_nest(&b, TCA_OPTIONS);
	acts = nlbuf_nest(&b, TCA_U32_ACT);
	act = nlbuf_nest(&b, 1); /* the first action of the list */
	nlbuf_str(&b, TCA_ACT_KIND, "mirred");
	aopts = nlbuf_nest(&b, TCA_ACT_OPTIONS | NLA_F_NESTED);
	nlbuf_attr(&b, TCA_MIRRED_PARMS, &mirred, sizeof(mirred));
	nlbuf_nest_end(&b, aopts);
	nlbuf_nest_end(&b, act);
	nlbuf_nest_end(&b, acts);
	memcpy(selkey, &sel, sizeof(sel));
	nlbuf_attr(&b, TCA_U32_SEL, selkey, sizeof(selkey));
	nlbuf_nest_end(&b, opts);
	return finish(&b);
}

/* ---- reading ---- */

/* The kind of the qdisc at ifindex's ingress (ingress or clsact), "" when none. */
static int ingress_kind(int ifindex, char *kind, size_t len)
{
	struct qdisc *all = NULL;
	size_t n = 0;
	int r = host_qdisc_list(NULL, &all, &n);

	if (r < 0)
		return r;
	snprintf(kind, len, "%s", "");
	for (size_t i = 0; i < n; i++)
		if (all[i].ifindex == ifindex && all[i].parent == TC_H_INGRESS)
			snprintf(kind, len, "%s", all[i].kind);
	free(all);
	return 0;
}

static int index_of(const char *name)
{
	unsigned idx = name[0] ? if_nametoindex(name) : 0;

	return idx ? (int)idx : -ENODEV;
}

__attribute__((format(printf, 3, 4))) static int put(char *val, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(val, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int ingress_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	struct knob root = {.kind = KNOB_ROOT_QDISC};
	char kind[QDISC_KIND_MAX], spec[KNOB_VALUE_MAX];
	int ifindex = index_of(k->ifname), r;

	if (ifindex < 0)
		return ifindex;
	r = ingress_kind(ifindex, kind, sizeof(kind));
	if (r < 0)
		return r;
	if (!kind[0])
		return put(val, len, "default");
	if (strcmp(kind, "ingress"))
		return put(val, len, "other: %s qdisc at %s's ingress", kind, k->ifname);
	if (ingress_ifb_name(k->ifname, root.ifname, sizeof(root.ifname)) < 0 ||
	    index_of(root.ifname) < 0)
		return put(val, len, "other: %s at %s's ingress, without an ifb", kind, k->ifname);
	r = knob_read(&root, env, spec, sizeof(spec));
	if (r < 0)
		return r;
	if (!strcmp(spec, "default") || !strncmp(spec, "other:", 6))
		return put(val, len, "other: ingress to %s with %s", root.ifname, spec);
	return put(val, len, "%s", spec);
}

/* ---- writing ---- */

static int send_one(void *buf, int n, char *msg, size_t msglen)
{
	struct nl *nl;
	int r;

	if (n < 0)
		return n;
	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = nl_request(nl, buf, (size_t)n, NULL, msg, msglen);
	nl_close(nl);
	return r;
}

/* Delete IFACE's ingress qdisc and our ifb; what is not there is no error. */
static int remove_all(int ifindex, const char *ifb, char *msg, size_t msglen)
{
	unsigned char buf[256];
	int r, ifb_index = index_of(ifb);

	r = send_one(buf, ingress_qdisc_del_request(ifindex, 0, buf, sizeof(buf)), msg, msglen);
	if (r < 0 && r != -ENOENT && r != -EINVAL)
		return r;
	if (ifb_index < 0)
		return 0;
	r = send_one(buf, ingress_link_del_request(ifb_index, 0, buf, sizeof(buf)), msg, msglen);
	return r == -ENODEV ? 0 : r;
}

int ingress_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		  size_t msglen)
{
	struct knob root = {.kind = KNOB_ROOT_QDISC};
	char cur[KNOB_VALUE_MAX], canon[KNOB_VALUE_MAX], err[160] = "";
	unsigned char buf[512];
	int ifindex = index_of(k->ifname), ifb_index, r;
	bool made_ifb = false;

	if (ifindex < 0)
		return ifindex;
	if (ingress_ifb_name(k->ifname, root.ifname, sizeof(root.ifname)) < 0)
		return -EINVAL;
	if (!strcmp(val, "default"))
		return remove_all(ifindex, root.ifname, msg, msglen);
	r = knob_qdisc_canonical(val, canon, sizeof(canon), err, sizeof(err));
	if (r < 0 || !strcmp(canon, "default")) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s",
				 err[0] ? err : "an ingress shaper needs a spec");
		return -EINVAL;
	}
	r = ingress_read(k, env, cur, sizeof(cur));
	if (r < 0)
		return r;
	if (!strncmp(cur, "other:", 6)) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s: debloat did not make it", cur + 7);
		return -EBUSY;
	}
	ifb_index = index_of(root.ifname);
	if (ifb_index < 0) {
		r = send_one(buf, ingress_link_add_request(root.ifname, 0, buf, sizeof(buf)), msg,
			     msglen);
		if (r < 0)
			return r == -EOPNOTSUPP || r == -ENOENT ? -ENOENT : r; /* no ifb driver */
		made_ifb = true;
		ifb_index = index_of(root.ifname);
		if (ifb_index < 0)
			return ifb_index;
	}
	r = send_one(buf, ingress_link_up_request(ifb_index, 0, buf, sizeof(buf)), msg, msglen);
	if (r == 0)
		r = knob_write(&root, env, val, msg, msglen);
	if (r == 0 && !strcmp(cur, "default")) {
		r = send_one(buf, ingress_qdisc_request(ifindex, 0, buf, sizeof(buf)), msg, msglen);
		if (r == 0)
			r = send_one(
			    buf, ingress_filter_request(ifindex, ifb_index, 0, buf, sizeof(buf)),
			    msg, msglen);
		if (r < 0)
			remove_all(ifindex, made_ifb ? root.ifname : "", NULL, 0);
		return r;
	}
	if (r < 0 && made_ifb)
		send_one(buf, ingress_link_del_request(ifb_index, 0, buf, sizeof(buf)), NULL, 0);
	return r;
}

/* ---- the row ---- */

static void ingress_label(const struct knob *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "ingress shaper");
}

static int ingress_commands(struct knob_lines *o, const struct knob *k, const char *value,
			    unsigned ntxq)
{
	const char *dev = k->ifname;
	char ifb[IF_NAMESIZE];
	int r;

	(void)ntxq;
	if (ingress_ifb_name(dev, ifb, sizeof(ifb)) < 0)
		return -EINVAL;
	if (!strcmp(value, "default")) {
		knob_line(o, "tc qdisc del dev %s ingress", dev);
		knob_line(o, "ip link del dev %s", ifb);
		return o->err;
	}
	knob_line(o, "ip link add name %s type ifb", ifb);
	knob_line(o, "ip link set dev %s up", ifb);
	r = knob_root_lines(o, ifb, value, 1);
	knob_line(o, "tc qdisc add dev %s handle ffff: ingress", dev);
	knob_line(o,
		  "tc filter add dev %s parent ffff: protocol all u32 match u32 0 0 action "
		  "mirred egress redirect dev %s",
		  dev, ifb);
	return r < 0 ? r : o->err;
}

static void ingress_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->why = "networkd 252 cannot redirect ingress to an ifb device (no mirred filter)";
}

static void ingress_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->why = "NetworkManager has no ingress redirect: `debloat fix --persist` sets it at "
		 "boot (debloat-fix@.service)";
}

const struct knob_type knob_ingress = {
    .name = "ingress",
    .phase = 0,
    .label = ingress_label,
    .read = ingress_read,
    .write = ingress_write,
    .equal = root_spec_same,
    .commands = ingress_commands,
    .spec_value = true,
    .networkd = ingress_networkd,
    .nm = ingress_nm,
};
