/* SPDX-License-Identifier: MIT */
/* sysfs.c - sysfs.h: small reads, bounded by the caller's buffer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/sysfs.h"

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	char tmp[256];
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, tmp, sizeof(tmp) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	close(fd);
	tmp[n] = '\0';
	tmp[strcspn(tmp, "\n")] = '\0';
	/* One read of a sysfs attribute returns it whole (at most a page); ours are short. */
	if (strlen(tmp) >= len || (size_t)n == sizeof(tmp) - 1)
		return -EFBIG;
	memcpy(buf, tmp, strlen(tmp) + 1);
	return 0;
}

int sysfs_read_int(const char *path, int64_t *out)
{
	char buf[32], *end;
	long long v;
	int r;

	r = sysfs_read_str(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	*out = v;
	return 0;
}
