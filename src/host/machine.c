/* SPDX-License-Identifier: MIT */
/* machine.c - machine.h: the device-tree compatible list and a USB NIC's bus speed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/machine.h"
#include "host/sysfs.h"

/* The kernel's lists are a few dozen bytes; 1 KB holds any real one. */
#define COMPATIBLE_FILE_MAX 1024

int machine_compatible(const char *sysfs_root, char *out, size_t entry_len, size_t max, size_t *n)
{
	char path[PATH_MAX], buf[COMPATIBLE_FILE_MAX];
	ssize_t len;
	int fd, r;

	*n = 0;
	r = snprintf(path, sizeof(path), "%s/firmware/devicetree/base/compatible", sysfs_root);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	close(fd);
	buf[len] = '\0'; /* the last entry ends with a NUL of its own; a cut one with ours */
	for (size_t at = 0; at < (size_t)len && *n < max;) {
		size_t l = strlen(buf + at);

		if (l && l < entry_len) {
			memcpy(out + *n * entry_len, buf + at, l + 1);
			(*n)++;
		}
		at += l + 1;
	}
	return 0;
}

int machine_usb_speed(const char *sysfs_root, const char *ifname, uint32_t *mbps)
{
	char path[PATH_MAX], link[PATH_MAX], speed[32];
	const char *bus;
	unsigned v;
	ssize_t l;
	int r;

	r = snprintf(path, sizeof(path), "%s/class/net/%s/device/subsystem", sysfs_root, ifname);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	l = readlink(path, link, sizeof(link) - 1);
	if (l < 0)
		return errno == EINVAL ? -ENOENT : -errno;
	link[l] = '\0';
	bus = strrchr(link, '/');
	if (strcmp(bus ? bus + 1 : link, "usb"))
		return -ENOENT;
	/* The interface's parent is its USB device; ".." after the symlink is the parent
	 * of where it points. */
	snprintf(path, sizeof(path), "%s/class/net/%s/device/../speed", sysfs_root, ifname);
	r = sysfs_read_str(path, speed, sizeof(speed));
	if (r < 0)
		return r;
	if (sscanf(speed, "%u", &v) != 1)
		return -EINVAL;
	*mbps = v;
	return 0;
}
