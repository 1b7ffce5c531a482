// SPDX-License-Identifier: MIT
/* outfile.c - writing output files without replacing what is not a regular file. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary ".NAME.XXXXXX" in path's directory, so the rename cannot cross filesystems. */
static int open_tmp(struct outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	int fd, r;

	if (slash)
		r = asprintf(&o->tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
	else
		r = asprintf(&o->tmp, ".%s.XXXXXX", path);
	if (r < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	o->f = fdopen(fd, "w");
	if (o->f)
		return 0;
	close(fd);
	unlink(o->tmp);
fail:
	r = -errno;
	free(o->tmp);
	o->tmp = NULL;
	return r;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		return open_tmp(o, path);
	}
	if (S_ISREG(st.st_mode))
		return open_tmp(o, path);
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	/* In place: a symlink is followed, a device or FIFO keeps its inode. */
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int r = -errno;

		close(fd);
		return r;
	}
	return 0;
}

int outfile_close(struct outfile *o, int failed)
{
	int r = failed < 0 ? failed : failed ? -EIO : 0;

	if (o->is_stdout)
		return fflush(stdout) == EOF && !r ? -errno : r;
	if (!r && fflush(o->f) == EOF)
		r = -errno;
	if (!r && o->tmp && (fsync(fileno(o->f)) < 0 || fchmod(fileno(o->f), 0644) < 0))
		r = -errno;
	if (fclose(o->f) == EOF && !r)
		r = -errno;
	o->f = NULL;
	if (o->tmp) {
		if (!r && rename(o->tmp, o->path) < 0)
			r = -errno;
		if (r)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return r;
}

int outfile_write(const char *path, const void *buf, size_t len)
{
	struct outfile o;
	int r = outfile_open(&o, path);

	if (r < 0)
		return r;
	r = len && fwrite(buf, 1, len, o.f) != len ? -EIO : 0;
	return outfile_close(&o, r);
}
