/* SPDX-License-Identifier: MIT */
/*
 * ethtool.h - driver facts over the SIOCETHTOOL ioctl, which needs no privilege for
 * these reads: the driver's name and bus address (ETHTOOL_GDRVINFO) and the link's
 * speed and duplex (ETHTOOL_GLINKSETTINGS, or the older ETHTOOL_GSET), the ring sizes
 * (ETHTOOL_GRINGPARAM) and the offloads that make super-packets (features by name:
 * ETHTOOL_GSSET_INFO + ETHTOOL_GSTRINGS for ETH_SS_FEATURES, then ETHTOOL_GFEATURES;
 * the names are the stable interface, the bit indices change between kernels).
 *
 * -EOPNOTSUPP when the driver does not say; outputs untouched on error.
 *
 * The setters (ETHTOOL_SRINGPARAM, ETHTOOL_SFEATURES) need CAP_NET_ADMIN: -EPERM
 * without it. They are what `debloat fix` changes; nothing else here writes.
 */
#ifndef DEBLOAT_HOST_ETHTOOL_H
#define DEBLOAT_HOST_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iface.h"

/*
 * One command of the ioctl: cmd is the command's struct (struct ethtool_coalesce, ...),
 * its first u32 the ETHTOOL_* number; the kernel fills it in or reads it. For a knob
 * whose struct nothing else here needs (fix's coalescing knob). -errno.
 */
int ethtool_call(const char *ifname, void *cmd);

int ethtool_driver(const char *ifname, char *driver, size_t driver_len, char *bus, size_t bus_len);
/* speed 0 and IFACE_DUPLEX_UNKNOWN when the driver reports none (no carrier, virtio). */
int ethtool_link(const char *ifname, uint32_t *speed_mbps, enum duplex *duplex);
/* Descriptors: current and maximum TX and RX ring sizes (0 max is what the driver says). */
int ethtool_rings(const char *ifname, int64_t *tx, int64_t *tx_max, int64_t *rx, int64_t *rx_max);
/*
 * Set the TX and/or RX ring size in descriptors; a negative value keeps that ring as it
 * is. -EOPNOTSUPP when the driver cannot resize rings, -EINVAL above the driver's
 * maximum (or whatever else the driver refuses).
 */
int ethtool_set_rings(const char *ifname, int64_t tx, int64_t rx);

/* The feature names debloat reads, in struct ethtool_offloads order. */
#define ETHTOOL_FEATURE_TSO  "tx-tcp-segmentation"
#define ETHTOOL_FEATURE_GSO  "tx-generic-segmentation"
#define ETHTOOL_FEATURE_GRO  "rx-gro"
#define ETHTOOL_FEATURE_LRO  "rx-lro"
#define ETHTOOL_MAX_FEATURES 1024 /* the kernel has ~70; a bound on what we allocate */

/* Each is FEATURE_UNKNOWN when the kernel does not list that name. */
int ethtool_offloads(const char *ifname, enum feature_state *tso, enum feature_state *gso,
		     enum feature_state *gro, enum feature_state *lro);

/*
 * One feature by the kernel's name for it ("tx-tcp-segmentation", "rx-gro"): whether it
 * is active, and whether the driver lets it change at all (ethtool shows "[fixed]"
 * when not). -ENOENT when the kernel lists no feature of that name.
 */
int ethtool_feature(const char *ifname, const char *name, enum feature_state *state,
		    bool *changeable);
/*
 * Turn one feature on or off and check that it took: -ENOENT (no such name),
 * -EOPNOTSUPP when it is fixed or the kernel kept it as it was (e.g. TSO asked on while
 * scatter-gather is off: the wish is then withdrawn, so nothing changes).
 */
int ethtool_set_feature(const char *ifname, const char *name, bool on);

#endif
