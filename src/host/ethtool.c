/* SPDX-License-Identifier: MIT */
/* ethtool.c - ethtool.h: the legacy ioctl, which every kernel we care about has. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
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

int ethtool_rings(const char *ifname, int64_t *tx, int64_t *tx_max, int64_t *rx, int64_t *rx_max)
{
	struct ethtool_ringparam ring = {.cmd = ETHTOOL_GRINGPARAM};
	int r;

	r = ethtool_ioctl(ifname, &ring);
	if (r < 0)
		return r;
	*tx = ring.tx_pending;
	*tx_max = ring.tx_max_pending;
	*rx = ring.rx_pending;
	*rx_max = ring.rx_max_pending;
	return 0;
}

/* How many strings the kernel has in the features set; -errno when it will not say. */
static int feature_count(const char *ifname)
{
	union {
		struct ethtool_sset_info info; /* ends in one u32 per set asked for */
		uint8_t room[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} s = {.info = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_FEATURES}};
	uint32_t n;
	int r;

	r = ethtool_ioctl(ifname, &s);
	if (r < 0)
		return r;
	if (!(s.info.sset_mask & (1ULL << ETH_SS_FEATURES)))
		return -EOPNOTSUPP;
	memcpy(&n, s.room + sizeof(struct ethtool_sset_info), sizeof(n));
	return n > ETHTOOL_MAX_FEATURES ? -E2BIG : (int)n;
}

static enum feature_state feature_of(const struct ethtool_gstrings *names,
				     const struct ethtool_gfeatures *feat, const char *name)
{
	for (uint32_t i = 0; i < names->len; i++) {
		const char *s = (const char *)names->data + (size_t)i * ETH_GSTRING_LEN;

		if (!strncmp(s, name, ETH_GSTRING_LEN)) {
			uint32_t active = feat->features[i / 32].active;

			return active & (1U << (i % 32)) ? FEATURE_ON : FEATURE_OFF;
		}
	}
	return FEATURE_UNKNOWN;
}

int ethtool_offloads(const char *ifname, enum feature_state *tso, enum feature_state *gso,
		     enum feature_state *gro, enum feature_state *lro)
{
	struct ethtool_gstrings *names = NULL;
	struct ethtool_gfeatures *feat = NULL;
	uint32_t blocks;
	int n, r;

	n = feature_count(ifname);
	if (n < 0)
		return n;
	blocks = ((uint32_t)n + 31) / 32;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	feat = calloc(1, sizeof(*feat) + blocks * sizeof(feat->features[0]));
	if (!names || !feat) {
		r = -ENOMEM;
		goto out;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_FEATURES;
	names->len = (uint32_t)n;
	r = ethtool_ioctl(ifname, names);
	if (r < 0)
		goto out;
	feat->cmd = ETHTOOL_GFEATURES;
	feat->size = blocks;
	r = ethtool_ioctl(ifname, feat);
	if (r < 0)
		goto out;
	/* The kernel may have shrunk the answer; never index past what both hold. */
	if (names->len > (uint32_t)n)
		names->len = (uint32_t)n;
	if (names->len > feat->size * 32)
		names->len = feat->size * 32;
	*tso = feature_of(names, feat, ETHTOOL_FEATURE_TSO);
	*gso = feature_of(names, feat, ETHTOOL_FEATURE_GSO);
	*gro = feature_of(names, feat, ETHTOOL_FEATURE_GRO);
	*lro = feature_of(names, feat, ETHTOOL_FEATURE_LRO);
out:
	free(names);
	free(feat);
	return r;
}
