/* SPDX-License-Identifier: MIT */
/*
 * link-keep.h - what an interface loses when its driver module is unloaded, kept to
 * be put back once the driver is loaded again. Unregistering a network device makes
 * the kernel drop everything configured on it: the link goes, and with it its
 * addresses and every route through it. A network manager (systemd-networkd,
 * NetworkManager, ifupdown's allow-hotplug) configures the new device again when it
 * appears; addresses and routes set by hand, or by a manager that does not watch for
 * devices, are gone for good. So before the unload this keeps:
 *	up        whether the link was administratively up
 *	addresses the IPv4 ones, and the IPv6 ones of global or site scope that are
 *	          permanent (not SLAAC's or DHCPv6's, which come back on their own)
 *	routes    those of the main table through the interface that the kernel did not
 *	          make itself (not proto kernel, not IPv6 router advertisements)
 * and link_keep_restore puts them back on the new device, each one that is already
 * there (the manager was faster) counting as put back.
 *
 * All of it is rtnetlink (base/nl.h) in the caller's network namespace; -errno,
 * nothing printed.
 */
#ifndef DEBLOAT_FIX_LINK_KEEP_H
#define DEBLOAT_FIX_LINK_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINK_KEEP_MAX 32 /* of each: a board's NIC has a handful */

struct link_addr {
	uint8_t family, prefixlen, scope;
	uint32_t flags;
	uint8_t local[16], address[16], broadcast[4];
	bool has_local, has_address, has_broadcast;
};

struct link_route {
	uint8_t family, dst_len, scope, protocol, type;
	uint32_t priority;
	uint8_t dst[16], gateway[16], prefsrc[16];
	bool has_dst, has_gateway, has_prefsrc;
};

struct link_keep {
	bool up;
	unsigned naddrs, nroutes;
	unsigned lost; /* more than LINK_KEEP_MAX: not kept (link_keep_read says -E2BIG) */
	struct link_addr addrs[LINK_KEEP_MAX];
	struct link_route routes[LINK_KEEP_MAX];
};

/* Read ifindex's link flag, addresses and routes. -E2BIG when some did not fit (out
 * is then complete up to LINK_KEEP_MAX of each); -errno. */
int link_keep_read(int ifindex, struct link_keep *out);

/*
 * Put k back on ifindex: the link up (when it was), then the addresses, then the
 * routes. Each is tried; the first failure is returned with its words in msg ("cannot
 * add route default via 10.0.2.2: Network is unreachable"), the others still tried.
 */
int link_keep_restore(int ifindex, const struct link_keep *k, char *msg, size_t msglen);

/* The gateway of k's default route (IPv4 first, then IPv6) as text; -ENOENT. */
int link_keep_gateway(const struct link_keep *k, char *addr, size_t len);

/* Is addr (text, either family) one of k's addresses? */
bool link_keep_has_address(const struct link_keep *k, const char *addr);

/* Does k hold a default route (either family)? */
bool link_keep_has_default(const struct link_keep *k);

#endif
