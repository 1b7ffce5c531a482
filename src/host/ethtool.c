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

/* *ret (may be NULL): the ioctl's own non-negative result (ETHTOOL_F_* flags for SFEATURES). */
static int ethtool_ioctl_ret(const char *ifname, void *cmd, int *ret)
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
	r = ioctl(fd, SIOCETHTOOL, &ifr);
	if (r < 0)
		r = -errno;
	else if (ret)
		*ret = r;
	close(fd);
	return r < 0 ? r : 0;
}

int ethtool_call(const char *ifname, void *cmd)
{
	return ethtool_ioctl_ret(ifname, cmd, NULL);
}

static int ethtool_ioctl(const char *ifname, void *cmd)
{
	return ethtool_call(ifname, cmd);
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

int ethtool_set_rings(const char *ifname, int64_t tx, int64_t rx)
{
	struct ethtool_ringparam ring = {.cmd = ETHTOOL_GRINGPARAM};
	int r;

	r = ethtool_ioctl(ifname, &ring);
	if (r < 0)
		return r;
	/* The kernel checks the maximum too; checking here keeps the message ours. */
	if ((tx >= 0 && (tx > UINT32_MAX || (ring.tx_max_pending && tx > ring.tx_max_pending))) ||
	    (rx >= 0 && (rx > UINT32_MAX || (ring.rx_max_pending && rx > ring.rx_max_pending))))
		return -EINVAL;
	if (tx >= 0)
		ring.tx_pending = (uint32_t)tx;
	if (rx >= 0)
		ring.rx_pending = (uint32_t)rx;
	ring.cmd = ETHTOOL_SRINGPARAM;
	return ethtool_ioctl(ifname, &ring);
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

/* The features set: names (ETHTOOL_GSTRINGS) and state (ETHTOOL_GFEATURES), same order. */
struct features {
	struct ethtool_gstrings *names;
	struct ethtool_gfeatures *feat;
	uint32_t n; /* names both hold: never index past it */
};

static void features_free(struct features *f)
{
	free(f->names);
	free(f->feat);
}

static int features_load(const char *ifname, struct features *f)
{
	uint32_t blocks;
	int n, r;

	memset(f, 0, sizeof(*f));
	n = feature_count(ifname);
	if (n < 0)
		return n;
	blocks = ((uint32_t)n + 31) / 32;
	f->names = calloc(1, sizeof(*f->names) + (size_t)n * ETH_GSTRING_LEN);
	f->feat = calloc(1, sizeof(*f->feat) + blocks * sizeof(f->feat->features[0]));
	if (!f->names || !f->feat) {
		r = -ENOMEM;
		goto fail;
	}
	f->names->cmd = ETHTOOL_GSTRINGS;
	f->names->string_set = ETH_SS_FEATURES;
	f->names->len = (uint32_t)n;
	r = ethtool_ioctl(ifname, f->names);
	if (r < 0)
		goto fail;
	f->feat->cmd = ETHTOOL_GFEATURES;
	f->feat->size = blocks;
	r = ethtool_ioctl(ifname, f->feat);
	if (r < 0)
		goto fail;
	/* The kernel may have shrunk the answer; never index past what both hold. */
	f->n = f->names->len < (uint32_t)n ? f->names->len : (uint32_t)n;
	if (f->n > f->feat->size * 32)
		f->n = f->feat->size * 32;
	return 0;
fail:
	features_free(f);
	return r;
}

/* The index of a feature name, or -ENOENT. */
static int feature_index(const struct features *f, const char *name)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (!strncmp((const char *)f->names->data + (size_t)i * ETH_GSTRING_LEN, name,
			     ETH_GSTRING_LEN))
			return (int)i;
	return -ENOENT;
}

static bool feature_bit(const struct features *f, int i, bool available)
{
	const struct ethtool_get_features_block *b = &f->feat->features[i / 32];

	return ((available ? b->available : b->active) >> (i % 32)) & 1;
}

static enum feature_state feature_of(const struct features *f, const char *name)
{
	int i = feature_index(f, name);

	if (i < 0)
		return FEATURE_UNKNOWN;
	return feature_bit(f, i, false) ? FEATURE_ON : FEATURE_OFF;
}

int ethtool_offloads(const char *ifname, enum feature_state *tso, enum feature_state *gso,
		     enum feature_state *gro, enum feature_state *lro)
{
	struct features f;
	int r;

	r = features_load(ifname, &f);
	if (r < 0)
		return r;
	*tso = feature_of(&f, ETHTOOL_FEATURE_TSO);
	*gso = feature_of(&f, ETHTOOL_FEATURE_GSO);
	*gro = feature_of(&f, ETHTOOL_FEATURE_GRO);
	*lro = feature_of(&f, ETHTOOL_FEATURE_LRO);
	features_free(&f);
	return 0;
}

int ethtool_feature(const char *ifname, const char *name, enum feature_state *state,
		    bool *changeable)
{
	struct features f;
	int i, r;

	r = features_load(ifname, &f);
	if (r < 0)
		return r;
	i = feature_index(&f, name);
	if (i >= 0) {
		*state = feature_bit(&f, i, false) ? FEATURE_ON : FEATURE_OFF;
		*changeable = feature_bit(&f, i, true);
	}
	features_free(&f);
	return i < 0 ? i : 0;
}

/* Ask for one feature's bit: the kernel changes only the bits marked valid. */
static int request_feature(const char *ifname, const struct features *f, int i, bool on, int *flags)
{
	uint32_t blocks = f->feat->size;
	struct ethtool_sfeatures *set;
	int r;

	set = calloc(1, sizeof(*set) + blocks * sizeof(set->features[0]));
	if (!set)
		return -ENOMEM;
	set->cmd = ETHTOOL_SFEATURES;
	set->size = blocks;
	set->features[i / 32].valid = 1U << (i % 32);
	set->features[i / 32].requested = on ? 1U << (i % 32) : 0;
	r = ethtool_ioctl_ret(ifname, set, flags);
	free(set);
	return r;
}

int ethtool_set_feature(const char *ifname, const char *name, bool on)
{
	struct features f, after;
	int i, r, flags = 0;
	bool was_requested;

	r = features_load(ifname, &f);
	if (r < 0)
		return r;
	i = feature_index(&f, name);
	if (i < 0) {
		r = i;
		goto out;
	}
	if (feature_bit(&f, i, false) == on)
		goto out; /* already so: nothing to ask */
	if (!feature_bit(&f, i, true)) {
		r = -EOPNOTSUPP;
		goto out;
	}
	was_requested = (f.feat->features[i / 32].requested >> (i % 32)) & 1;
	r = request_feature(ifname, &f, i, on, &flags);
	if (r < 0)
		goto out;
	if (flags & ETHTOOL_F_UNSUPPORTED) {
		r = -EOPNOTSUPP;
		goto out;
	}
	/* ETHTOOL_F_WISH: recorded but not (all) applied; look at what is active now. */
	r = features_load(ifname, &after);
	if (r < 0)
		goto out;
	if (feature_bit(&after, i, false) != on) {
		/* Withdraw the wish so that a later change elsewhere does not apply it. */
		(void)request_feature(ifname, &f, i, was_requested, NULL);
		r = -EOPNOTSUPP;
	}
	features_free(&after);
out:
	features_free(&f);
	return r;
}
