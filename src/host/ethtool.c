/* SPDX-License-Identifier: MIT */
/* ethtool.c - ethtool.h: the legacy ioctl, which every kernel we care about has. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "host/ethtool.h"

static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct ifreq ifr = {0};
	int fd, r = 0;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	/* Any socket reaches the device ioctls; AF_UNIX works with IPv4 compiled out. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		r = -errno;
	close(fd);
	return r;
}

int ethtool_driver(const char *ifname, char *driver, size_t driver_len, char *bus, size_t bus_len)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	int r;

	r = ethtool_ioctl(ifname, &info);
	if (r < 0)
		return r;
	info.driver[sizeof(info.driver) - 1] = '\0';
	info.bus_info[sizeof(info.bus_info) - 1] = '\0';
	if (!info.driver[0])
		return -EOPNOTSUPP;
	snprintf(driver, driver_len, "%s", info.driver);
	/* Virtual devices report "" or "N/A"; both mean no bus. */
	snprintf(bus, bus_len, "%s", strcmp(info.bus_info, "N/A") ? info.bus_info : "");
	return 0;
}

static void set_link(uint32_t speed, uint8_t dplx, uint32_t *speed_mbps, enum duplex *duplex)
{
	*speed_mbps = speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
	*duplex = dplx == DUPLEX_FULL	? IFACE_DUPLEX_FULL
		  : dplx == DUPLEX_HALF ? IFACE_DUPLEX_HALF
					: IFACE_DUPLEX_UNKNOWN;
}

int ethtool_link(const char *ifname, uint32_t *speed_mbps, enum duplex *duplex)
{
	/* GLINKSETTINGS is a handshake: ask with nwords 0, the kernel answers with
	 * -nwords, ask again with room for three masks of that many words. */
	union {
		struct ethtool_link_settings req; /* ends in a flexible array of the masks */
		uint8_t room[sizeof(struct ethtool_link_settings) + 3 * 127 * sizeof(uint32_t)];
	} ls = {.req = {.cmd = ETHTOOL_GLINKSETTINGS}};
	struct ethtool_cmd legacy = {.cmd = ETHTOOL_GSET};
	int r;

	r = ethtool_ioctl(ifname, &ls);
	if (r == 0 && ls.req.link_mode_masks_nwords < 0) {
		int8_t nwords = (int8_t)-ls.req.link_mode_masks_nwords;

		memset(&ls, 0, sizeof(ls));
		ls.req.cmd = ETHTOOL_GLINKSETTINGS;
		ls.req.link_mode_masks_nwords = nwords;
		r = ethtool_ioctl(ifname, &ls);
		if (r == 0 && ls.req.link_mode_masks_nwords > 0) {
			set_link(ls.req.speed, ls.req.duplex, speed_mbps, duplex);
			return 0;
		}
	}
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	r = ethtool_ioctl(ifname, &legacy);
	if (r < 0)
		return r;
	set_link(ethtool_cmd_speed(&legacy), legacy.duplex, speed_mbps, duplex);
	return 0;
}
