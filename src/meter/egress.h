/* SPDX-License-Identifier: MIT */
/*
 * egress.h - the local interface a test's traffic leaves by, audited read-only, in
 * the shape of flent's metadata:
 *
 *	EGRESS_INFO {"iface": "eth0", "driver": "e1000e",
 *	             "qdiscs": [{"name": "fq_codel", "id": "0:", "parent": "root",
 *	                         "params": {"limit_packets": 10240, ...}}, ...],
 *	             "bql": {"tx-0": {"limit": 3028, "limit_max": ..., "limit_min": 0}},
 *	             "offloads": {"tcp-segmentation-offload": true, ...},
 *	             "link_params": {"qlen": 1000, "speed": "1000Mb/s", "duplex": "Full"}}
 *	SYSCTLS     {"net.core.default_qdisc": "fq_codel", "net.ipv4.tcp_ecn": 2, ...}
 *
 * "qdiscs" is a list, as flent writes it (one entry per qdisc of the egress tree,
 * root first); option values are our raw integers in the unit their key names.
 * "bql" holds every limit of each TX queue (flent writes limit_max only); members
 * that could not be read are left out.
 *
 * The interface is found the way the kernel routes: a UDP socket connected to the
 * server (no packet is sent) has the source address the route picks, and the
 * interface holding that address is the egress.
 */
#ifndef DEBLOAT_METER_EGRESS_H
#define DEBLOAT_METER_EGRESS_H

/*
 * Compact JSON texts in new strings (free()). -ENOENT when server_host does not
 * resolve, -ENETUNREACH when no route, -ENODEV when no interface holds the source
 * address; host_read()'s errors otherwise. Outputs untouched on failure.
 */
int egress_info(const char *server_host, char **egress_json, char **sysctls_json);

/* Only the interface's name, found as above; the same errors. */
int egress_iface(const char *server_host, char *name, size_t len);
/* The same for a known interface name (tests; the loopback "lo"). */
int egress_info_iface(const char *iface, char **egress_json, char **sysctls_json);

#endif
