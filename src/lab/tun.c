/* SPDX-License-Identifier: MIT */
/* tun.c - opening the lab's tun devices inside their namespaces (tun.h). */
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "frame.h"
#include "netns.h"

static int tun_setup(int fd, const char *name, bool tso, char *err, size_t errlen)
{
	struct ifreq ifr = {0};
	int hdrsz = LAB_VNET_HDR_LEN;
	unsigned offloads = TUN_F_CSUM;

	if (strlen(name) >= IFNAMSIZ) {
		snprintf(err, errlen, "tun device name \"%s\" is too long", name);
		return -EINVAL;
	}
	strcpy(ifr.ifr_name, name);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "cannot create tun device %s: %s", name, strerror(errno));
		return -errno;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdrsz) < 0) {
		snprintf(err, errlen, "cannot set the vnet header size of %s: %s", name,
			 strerror(errno));
		return -errno;
	}
	if (tso)
		offloads |= TUN_F_TSO4 | TUN_F_TSO6;
	if (ioctl(fd, TUNSETOFFLOAD, offloads) < 0) {
		snprintf(err, errlen, "cannot set the offloads of %s: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}

int lab_tun_open(int nsfd, const char *name, bool tso, char *err, size_t errlen)
{
	int saved, fd, r;

	r = lab_netns_enter(nsfd, &saved);
	if (r < 0) {
		snprintf(err, errlen, "cannot enter the namespace: %s", strerror(-r));
		return r;
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			snprintf(err, errlen,
				 "no /dev/net/tun (is the tun module loaded? "
				 "modprobe tun)");
		else if (r == -ENODEV || r == -ENXIO)
			snprintf(err, errlen,
				 "cannot open /dev/net/tun: this kernel has no tun "
				 "driver (modprobe tun)");
		else
			snprintf(err, errlen, "cannot open /dev/net/tun: %s", strerror(-r));
	} else {
		r = tun_setup(fd, name, tso, err, errlen);
		if (r < 0)
			close(fd);
		else
			r = fd;
	}
	/* Back home whatever happened: the caller's sockets must not land in the lab. */
	if (lab_netns_leave(saved) < 0) {
		if (r >= 0)
			close(r);
		snprintf(err, errlen, "cannot return to the lab's own namespace");
		r = -EIO;
	}
	return r;
}
