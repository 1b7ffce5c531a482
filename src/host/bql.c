/* SPDX-License-Identifier: MIT */
/* bql.c - bql.h: one directory listing and a handful of one-number files per queue. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "host/bql.h"
#include "host/sysfs.h"

static int cmp_queue(const void *a, const void *b)
{
	const struct bql_queue *x = a, *y = b;

	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

static int64_t read_value(const char *dir, const char *file)
{
	char path[PATH_MAX];
	int64_t v;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	return sysfs_read_int(path, &v) < 0 || v < 0 ? -1 : v;
}

static void read_queue(const char *queues, struct bql_queue *q)
{
	char dir[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(dir, sizeof(dir), "%s/tx-%u/byte_queue_limits", queues, q->queue);
	q->present = n > 0 && (size_t)n < sizeof(dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	for (size_t k = 0; k < BQL_NFIELDS; k++)
		bql_field_set(q, &bql_fields[k], read_value(dir, bql_fields[k].file));
}

/* The N of every tx-N under queues/, sorted; the entries are otherwise zero. */
static int list_queues(const char *queues, struct bql_queue **out, size_t *n)
{
	struct bql_queue *v = NULL, *grown;
	size_t count = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(queues);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		unsigned long idx;

		if (strncmp(de->d_name, "tx-", 3))
			continue;
		idx = strtoul(de->d_name + 3, &end, 10);
		if (*end || end == de->d_name + 3 || idx > UINT_MAX)
			continue;
		if (count == cap) {
			grown = array_grow(v, &cap, sizeof(*v), 8, BQL_MAX_QUEUES, &r);
			if (!grown)
				break;
			v = grown;
		}
		v[count] = (struct bql_queue){.queue = (unsigned)idx};
		count++;
	}
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	if (count)
		qsort(v, count, sizeof(*v), cmp_queue);
	*out = v;
	*n = count;
	return 0;
}

static int queues_path(char *buf, size_t len, const char *sysfs_root, const char *ifname)
{
	int r = snprintf(buf, len, "%s/class/net/%s/queues", sysfs_root, ifname);

	return r < 0 || (size_t)r >= len ? -ENAMETOOLONG : 0;
}

int bql_read(const char *sysfs_root, const char *ifname, struct bql_queue **out, size_t *n)
{
	char queues[PATH_MAX];
	struct bql_queue *v;
	size_t count;
	int r;

	r = queues_path(queues, sizeof(queues), sysfs_root, ifname);
	if (r < 0)
		return r;
	r = list_queues(queues, &v, &count);
	if (r < 0)
		return r;
	for (size_t i = 0; i < count; i++)
		read_queue(queues, &v[i]);
	*out = v;
	*n = count;
	return 0;
}

/* A one-number file under an open directory; -errno, -EINVAL when it is not a number. */
static int read_int_at(int dirfd, const char *file, int64_t *out)
{
	char buf[32], *end;
	long long v;
	ssize_t n;
	int fd, r = 0;

	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	if ((size_t)n == sizeof(buf) - 1)
		return -EFBIG;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

void bql_watch_close(struct bql_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->dirfds[i] >= 0)
			close(w->dirfds[i]);
	if (w->statsfd >= 0)
		close(w->statsfd);
	free(w->dirfds);
	free(w->queues);
	*w = (struct bql_watch){.statsfd = -1};
}

int bql_watch_open(struct bql_watch *w, const char *sysfs_root, const char *ifname)
{
	struct bql_watch new = {.statsfd = -1};
	char path[PATH_MAX];
	struct bql_queue *list = NULL;
	size_t count = 0;
	int r, ifd;

	r = snprintf(path, sizeof(path), "%s/class/net/%s", sysfs_root, ifname);
	if (r < 0 || (size_t)r >= sizeof(path) || strchr(ifname, '/') || !*ifname)
		return -ENODEV;
	ifd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ifd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	new.statsfd = openat(ifd, "statistics", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(ifd);
	r = queues_path(path, sizeof(path), sysfs_root, ifname);
	if (r == 0)
		r = list_queues(path, &list, &count);
	if (r == -ENOENT)
		r = -EOPNOTSUPP; /* a device without queues has no BQL either */
	if (r < 0)
		goto fail;
	new.dirfds = calloc(count ? count : 1, sizeof(*new.dirfds));
	new.queues = calloc(count ? count : 1, sizeof(*new.queues));
	if (!new.dirfds || !new.queues) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < count; i++) {
		char dir[PATH_MAX];
		int fd, n;

		n = snprintf(dir, sizeof(dir), "%s/tx-%u/byte_queue_limits", path, list[i].queue);
		if (n < 0 || (size_t)n >= sizeof(dir))
			continue;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			continue; /* this queue has no BQL */
		if (fd < 0) {
			r = -errno; /* EMFILE: never watch a silent subset */
			goto fail;
		}
		new.dirfds[new.n] = fd;
		new.queues[new.n] = list[i].queue;
		new.n++;
	}
	free(list);
	list = NULL;
	if (!new.n) {
		r = -EOPNOTSUPP;
		goto fail;
	}
	*w = new;
	return 0;
fail:
	free(list);
	bql_watch_close(&new);
	return r;
}

/* The value, or -1 when unreadable; counts what could be read and why not. */
static int64_t watch_value(int dirfd, const char *file, size_t *ok, int *gone)
{
	int64_t v = -1;
	int r;

	if (dirfd < 0)
		return -1;
	r = read_int_at(dirfd, file, &v);
	if (r == -ENOENT || r == -ENODEV)
		(*gone)++;
	if (r < 0 || v < 0)
		return -1;
	(*ok)++;
	return v;
}

int bql_watch_read(const struct bql_watch *w, struct bql_queue *out, int64_t *tx_bytes,
		   int64_t *tx_packets)
{
	size_t ok = 0;
	int gone = 0;

	for (size_t i = 0; i < w->n; i++) {
		int fd = w->dirfds[i];
		struct bql_queue *q = &out[i];

		q->queue = w->queues[i];
		q->present = true; /* the directory was there when the watch began */
		for (size_t k = 0; k < BQL_NFIELDS; k++)
			bql_field_set(q, &bql_fields[k],
				      watch_value(fd, bql_fields[k].file, &ok, &gone));
	}
	*tx_bytes = watch_value(w->statsfd, "tx_bytes", &ok, &gone);
	*tx_packets = watch_value(w->statsfd, "tx_packets", &ok, &gone);
	/* A vanished device makes every read fail; older kernels merely lack the stall files. */
	return ok ? 0 : gone ? -ENODEV : -EIO;
}
