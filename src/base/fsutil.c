/* SPDX-License-Identifier: MIT */
/* fsutil.c - fsutil.h: mkdir -p, a whole write, a whole read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"

int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	/* From buf + 1: a leading '/' is the root, which is there. */
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read fd to its end into a new buffer of at most max bytes (and a NUL). */
static int read_to_end(int fd, size_t max, size_t hint, char **buf_out, size_t *len_out)
{
	size_t cap = hint && hint <= max ? hint + 1 : 4096, len = 0;
	char *buf = malloc(cap), *grown;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	if (len == cap) {
		grown = realloc(buf, cap + 1);
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
	}
	buf[len] = '\0';
	*buf_out = buf;
	*len_out = len;
	return 0;
}

int read_file_capped(const char *path, size_t max, unsigned flags, char **buf, size_t *len)
{
	int oflags = O_RDONLY | O_CLOEXEC, fd, r;
	struct stat st;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
	if (flags & READ_REGULAR)
		oflags |= O_NONBLOCK;
	if (flags & READ_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if ((flags & READ_REGULAR) && !S_ISREG(st.st_mode))
		r = -EINVAL;
	/* the stat size of a regular file is a hint; read_to_end enforces the limit */
	else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		r = -EFBIG;
	else
		r = read_to_end(fd, max, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, buf, len);
	close(fd);
	return r;
}
