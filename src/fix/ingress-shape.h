/* SPDX-License-Identifier: MIT */
/*
 * fix/ingress-shape.h - the download shaper behind the knob KNOB_INGRESS, as sqm-scripts builds
 * it: IFACE's ingress traffic redirected to an ifb device ("ifb4" + IFACE), whose
 * root qdisc shapes it. One knob, one string, as every knob:
 *
 *	"default"   no ingress qdisc on IFACE (and no ifb device of ours)
 *	SPEC        a root-qdisc spec of knob.h ("htb 90mbit bfifo limit 196608",
 *	            "cake bandwidth 90mbit") on ifb4IFACE, with IFACE's ingress qdisc
 *	            (handle ffff:) holding one u32 filter, protocol all, matching every
 *	            packet, whose action is mirred egress redirect to ifb4IFACE
 *	"other: ..." an ingress or clsact qdisc debloat did not make (refused)
 *
 * Writing SPEC creates the ifb device when it is missing (the kernel loads the ifb
 * module), sets it up, writes SPEC at its root through the root-qdisc knob, then adds
 * the ingress qdisc and the filter when they are not there yet; a failure takes back
 * what this write created. Writing "default" deletes the ingress qdisc (its filter
 * goes with it) and the ifb device. Reading does not look inside the filter: an
 * ingress qdisc beside a live ifb4IFACE with a spec at its root reads as that spec.
 *
 * The requests are tc's and ip's, byte for byte (tests/fixtures/netlink):
 *	ip link add name ifb4v0 type ifb             ingress_link_add_request
 *	ip link set dev ifb4v0 up                    ingress_link_up_request
 *	tc qdisc add dev v0 handle ffff: ingress     ingress_qdisc_request
 *	tc filter add dev v0 parent ffff: protocol all u32 match u32 0 0
 *	    action mirred egress redirect dev ifb4v0  ingress_filter_request
 *	tc qdisc del dev v0 ingress                  ingress_qdisc_del_request
 *	ip link del dev ifb4v0                       ingress_link_del_request
 * Each returns the request's length, or -ENOSPC / -EINVAL.
 */
#ifndef DEBLOAT_FIX_INGRESS_H
#define DEBLOAT_FIX_INGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "fix/knob.h"

/* "ifb4" + ifname, cut to 15 characters. -EINVAL for an empty name. */
int ingress_ifb_name(const char *ifname, char *out, size_t len);

int ingress_read(const struct knob *k, const struct knob_env *env, char *val, size_t len);
int ingress_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		  size_t msglen);

int ingress_link_add_request(const char *name, uint32_t seq, void *buf, size_t len);
int ingress_link_up_request(int ifindex, uint32_t seq, void *buf, size_t len);
int ingress_qdisc_request(int ifindex, uint32_t seq, void *buf, size_t len);
int ingress_filter_request(int ifindex, int ifb_index, uint32_t seq, void *buf, size_t len);
int ingress_qdisc_del_request(int ifindex, uint32_t seq, void *buf, size_t len);
int ingress_link_del_request(int ifindex, uint32_t seq, void *buf, size_t len);

#endif
