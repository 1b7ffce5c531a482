/* SPDX-License-Identifier: MIT */
/* textfile.c - textfile.h: temporary file, fsync, rename, fsync of the directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "exporter/textfile.h"

int textfile_check(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE_NAME) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 0 : -EEXIST;
}

int textfile_write(const char *dir, const char *buf, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd, dfd, r;

	r = textfile_check(dir);
	if (r < 0)
		return r;
	if (snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE_NAME) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, TEXTFILE_NAME) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, len);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* Checked again just before: what is there may have changed since. */
	if (r == 0)
		r = textfile_check(dir);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd); /* the rename is done; a failed directory sync loses nothing */
		close(dfd);
	}
	return 0;
}
