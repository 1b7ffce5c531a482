/* SPDX-License-Identifier: MIT */
/*
 * cc.c - congestion control names and the kernel's lists of them (cc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "meter/cc.h"

#define SEPARATORS " \t\n,"

bool cc_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > CC_NAME_MAX)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
	       n;
}

bool cc_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!list || !n)
		return false;
	for (const char *p = list; *p;) {
		size_t w;

		p += strspn(p, SEPARATORS);
		w = strcspn(p, SEPARATORS);
		if (w == n && !memcmp(p, name, n))
			return true;
		p += w;
	}
	return false;
}

int cc_list_read(const char *path, char *buf, size_t len)
{
	int fd, r = 0;
	ssize_t n;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n == len)
		r = -EMSGSIZE;
	close(fd);
	if (r < 0) {
		buf[0] = '\0';
		return r;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int cc_server_allows(const char *name, const char *allowed, const char *available,
		     const char *extra)
{
	if (!cc_name_ok(name))
		return -EPERM;
	if (cc_list_has(allowed, name))
		return 0;
	if (!cc_list_has(extra, name))
		return -EPERM;
	return cc_list_has(available, name) ? 0 : -ENOENT;
}

int cc_usable(const char *name)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r = 0;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name)))
		r = -errno;
	close(fd);
	return r;
}
