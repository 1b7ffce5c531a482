/* SPDX-License-Identifier: MIT */
/* bql.c - bql.h: one directory listing and a handful of one-number files per queue. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	q->limit = read_value(dir, "limit");
	q->limit_min = read_value(dir, "limit_min");
	q->limit_max = read_value(dir, "limit_max");
	q->inflight = read_value(dir, "inflight");
	q->hold_time_ms = read_value(dir, "hold_time");
	q->stall_thrs_ms = read_value(dir, "stall_thrs");
	q->stall_cnt = read_value(dir, "stall_cnt");
	q->stall_max_jiffies = read_value(dir, "stall_max");
}

int bql_read(const char *sysfs_root, const char *ifname, struct bql_queue **out, size_t *n)
{
	char queues[PATH_MAX];
	struct bql_queue *v = NULL, *grown;
	size_t count = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	r = snprintf(queues, sizeof(queues), "%s/class/net/%s/queues", sysfs_root, ifname);
	if (r < 0 || (size_t)r >= sizeof(queues))
		return -ENAMETOOLONG;
	r = 0;
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
			cap = cap ? cap * 2 : 8;
			if (cap > BQL_MAX_QUEUES) {
				r = -E2BIG;
				break;
			}
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				r = -ENOMEM;
				break;
			}
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
	for (size_t i = 0; i < count; i++)
		read_queue(queues, &v[i]);
	*out = v;
	*n = count;
	return 0;
}
