/* SPDX-License-Identifier: MIT */
/*
 * reach.h - does a peer answer through this interface? After a driver swap the link
 * may come up and still pass nothing (a driver that never completes a transmit, a
 * PHY that did not come back): fix asks a named peer, by default the gateway, to
 * answer before it keeps the new driver.
 *
 * The question is an ICMP echo (ICMPv6 for an IPv6 peer) on a raw socket bound to the
 * interface (SO_BINDTODEVICE), sent every REACH_INTERVAL_MS until a reply from that
 * peer with our identifier arrives or the time is up. Why ICMP and not ARP or neighbour
 * discovery: a raw socket is all it needs (fix runs as root anyway), the kernel
 * resolves the neighbour on the way, and an answer proves a whole round trip through
 * the driver, both directions; a busybox system has the same kernel support, no tool
 * is needed. A host that drops echo requests (a firewall) is a peer that does not
 * answer: name another with --peer.
 */
#ifndef DEBLOAT_FIX_REACH_H
#define DEBLOAT_FIX_REACH_H

#define REACH_INTERVAL_MS 200

/*
 * Wait up to timeout_ms for peer (an IPv4 or IPv6 address, text) to answer an echo
 * sent through ifname. 0 answered; -ETIMEDOUT not in time; -EINVAL not an address;
 * -EPERM without CAP_NET_RAW; other -errno from the sockets.
 */
int reach_peer(const char *ifname, const char *peer, unsigned timeout_ms);

#endif
