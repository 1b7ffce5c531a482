/* SPDX-License-Identifier: MIT */
/*
 * ethtool.h - driver facts over the SIOCETHTOOL ioctl, which needs no privilege for
 * these reads: the driver's name and bus address (ETHTOOL_GDRVINFO) and the link's
 * speed and duplex (ETHTOOL_GLINKSETTINGS, or the older ETHTOOL_GSET).
 *
 * -EOPNOTSUPP when the driver does not say; outputs untouched on error.
 */
#ifndef DEBLOAT_HOST_ETHTOOL_H
#define DEBLOAT_HOST_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#include "iface.h"

int ethtool_driver(const char *ifname, char *driver, size_t driver_len, char *bus, size_t bus_len);
/* speed 0 and IFACE_DUPLEX_UNKNOWN when the driver reports none (no carrier, virtio). */
int ethtool_link(const char *ifname, uint32_t *speed_mbps, enum duplex *duplex);

#endif
