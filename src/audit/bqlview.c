/* SPDX-License-Identifier: MIT */
/* bqlview.c - bqlview.h: choose the interfaces, sample their queues, lay a sample out. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bqlview.h"
#include "host/sysfs.h"

/* Plain ANSI (ECMA-48): home, clear to end of line / screen, hide and show the cursor. */
#define ANSI_HOME	 "\033[H"
#define ANSI_CLEAR_LINE	 "\033[K"
#define ANSI_CLEAR_BELOW "\033[J"
#define ANSI_CLEAR_ALL	 "\033[2J"
#define ANSI_HIDE_CURSOR "\033[?25l"
#define ANSI_SHOW_CURSOR "\033[?25h"

static void close_iface(struct bqlview_iface *ifc)
{
	bql_watch_close(&ifc->watch);
	free(ifc->queues);
}

void bqlview_close(struct bqlview *v)
{
	for (size_t i = 0; i < v->n; i++)
		close_iface(&v->ifaces[i]);
	free(v->ifaces);
	*v = (struct bqlview){0};
}

static int open_iface(struct bqlview_iface *ifc, const char *sysfs_root, const char *name)
{
	char path[PATH_MAX];
	int64_t idx = 0;
	int r;

	if (strlen(name) >= sizeof(ifc->name))
		return -ENODEV;
	*ifc = (struct bqlview_iface){.tx_bytes = -1, .tx_packets = -1};
	r = bql_watch_open(&ifc->watch, sysfs_root, name);
	if (r < 0)
		return r;
	ifc->queues = calloc(ifc->watch.n, sizeof(*ifc->queues));
	if (!ifc->queues) {
		bql_watch_close(&ifc->watch);
		return -ENOMEM;
	}
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	r = snprintf(path, sizeof(path), "%s/class/net/%s/ifindex", sysfs_root, name);
	if (r > 0 && (size_t)r < sizeof(path) && sysfs_read_int(path, &idx) == 0 && idx > 0 &&
	    idx <= INT_MAX)
		ifc->ifindex = (int)idx;
	ifc->tx_bytes_delta = ifc->tx_packets_delta = -1;
	return 0;
}

static int cmp_iface(const void *a, const void *b)
{
	const struct bqlview_iface *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every entry of class/net that has BQL; the ones without are skipped, not errors. */
static int open_all(struct bqlview *v, const char *sysfs_root)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	r = snprintf(path, sizeof(path), "%s/class/net", sysfs_root);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	r = 0;
	d = opendir(path);
	if (!d)
		return -errno;
	v->ifaces = calloc(BQLVIEW_MAX_IFACES, sizeof(*v->ifaces));
	if (!v->ifaces) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d)) && r == 0) {
		if (de->d_name[0] == '.')
			continue;
		if (v->n == BQLVIEW_MAX_IFACES) {
			r = -E2BIG;
			break;
		}
		r = open_iface(&v->ifaces[v->n], sysfs_root, de->d_name);
		if (r == 0)
			v->n++;
		else if (r == -EOPNOTSUPP || r == -ENODEV) /* no BQL, or gone since readdir */
			r = 0;
	}
	closedir(d);
	if (r == 0 && v->n == 0)
		r = -EOPNOTSUPP;
	if (r == 0)
		qsort(v->ifaces, v->n, sizeof(*v->ifaces), cmp_iface);
	return r;
}

int bqlview_open(struct bqlview *v, const char *sysfs_root, const char *ifname)
{
	struct bqlview new = {0};
	int r;

	if (ifname) {
		new.ifaces = calloc(1, sizeof(*new.ifaces));
		if (!new.ifaces)
			return -ENOMEM;
		r = open_iface(&new.ifaces[0], sysfs_root, ifname);
		if (r == 0)
			new.n = 1;
	} else {
		r = open_all(&new, sysfs_root);
	}
	if (r < 0) {
		bqlview_close(&new);
		return r;
	}
	*v = new;
	return 0;
}

/* cur - prev for a counter that only grows; -1 when either is unknown or it was reset. */
static int64_t counter_delta(int64_t prev, int64_t cur)
{
	return prev < 0 || cur < 0 || cur < prev ? -1 : cur - prev;
}

int bqlview_sample(struct bqlview *v, uint64_t mono_ns, uint64_t wall_ms, const char **gone)
{
	for (size_t i = 0; i < v->n; i++) {
		struct bqlview_iface *ifc = &v->ifaces[i];
		int64_t bytes, packets;
		int r;

		r = bql_watch_read(&ifc->watch, ifc->queues, &bytes, &packets);
		if (r < 0) {
			*gone = ifc->name;
			return r;
		}
		ifc->tx_bytes_delta = v->samples ? counter_delta(ifc->tx_bytes, bytes) : -1;
		ifc->tx_packets_delta = v->samples ? counter_delta(ifc->tx_packets, packets) : -1;
		ifc->tx_bytes = bytes;
		ifc->tx_packets = packets;
	}
	v->elapsed_us = v->samples && mono_ns > v->mono_ns ? (mono_ns - v->mono_ns) / 1000 : 0;
	v->mono_ns = mono_ns;
	v->time_ms = wall_ms;
	v->samples++;
	return 0;
}

static bool have_stall_files(const struct bqlview *v)
{
	for (size_t i = 0; i < v->n; i++)
		for (size_t j = 0; j < v->ifaces[i].watch.n; j++)
			if (v->ifaces[i].queues[j].stall_cnt >= 0)
				return true;
	return false;
}

/* JSON: the number, or null when unknown. */
static void print_known(struct printer *p, const char *key, int64_t x)
{
	if (x < 0)
		print_null(p, key, NULL, 0);
	else
		print_uint(p, key, (uint64_t)x, 0);
}

static void print_json(const struct bqlview *v, struct printer *p)
{
	print_uint(p, "sample", v->samples, 0);
	print_uint(p, "time_ms", v->time_ms, 0);
	print_uint(p, "interval_ms", v->interval_ms, 0);
	if (v->samples > 1)
		print_uint(p, "elapsed_us", v->elapsed_us, 0);
	else
		print_null(p, "elapsed_us", NULL, 0);
	print_open_array(p, "interfaces");
	for (size_t i = 0; i < v->n; i++) {
		const struct bqlview_iface *ifc = &v->ifaces[i];

		print_open_object(p, NULL);
		print_str(p, "name", ifc->name, 0);
		print_known(p, "tx_bytes", ifc->tx_bytes);
		print_known(p, "tx_packets", ifc->tx_packets);
		print_known(p, "tx_bytes_delta", ifc->tx_bytes_delta);
		print_known(p, "tx_packets_delta", ifc->tx_packets_delta);
		print_open_array(p, "queues");
		for (size_t j = 0; j < ifc->watch.n; j++) {
			const struct bql_queue *q = &ifc->queues[j];

			print_open_object(p, NULL);
			print_uint(p, "queue", q->queue, 0);
			/* Stall files exist since Linux 6.9: no keys where they do not. */
			for (size_t k = 0; k < BQL_NFIELDS; k++)
				if (!bql_fields[k].stall || q->stall_cnt >= 0)
					print_known(p, bql_fields[k].key,
						    bql_field_get(q, &bql_fields[k]));
			print_close(p);
		}
		print_close(p);
		print_close(p);
	}
	print_close(p);
}

/* A raw integer for the line format, "-" when unknown. */
static const char *raw(char *buf, size_t len, int64_t x)
{
	if (x < 0)
		return "-";
	snprintf(buf, len, "%" PRId64, x);
	return buf;
}

static void print_lines(const struct bqlview *v, struct printer *p)
{
	char a[24], b[24], c[24], d[24], e[24];

	for (size_t i = 0; i < v->n; i++) {
		const struct bqlview_iface *ifc = &v->ifaces[i];

		for (size_t j = 0; j < ifc->watch.n; j++) {
			const struct bql_queue *q = &ifc->queues[j];

			print_text(p,
				   "%" PRIu64 ".%03u %s tx-%u limit %s limit_min %s limit_max %s"
				   " inflight %s hold_time_ms %s",
				   v->time_ms / 1000, (unsigned)(v->time_ms % 1000), ifc->name,
				   q->queue, raw(a, sizeof(a), q->limit),
				   raw(b, sizeof(b), q->limit_min), raw(c, sizeof(c), q->limit_max),
				   raw(d, sizeof(d), q->inflight),
				   raw(e, sizeof(e), q->hold_time_ms));
			if (q->stall_cnt >= 0)
				print_text(p, "stall_thrs_ms %s stall_cnt %s stall_max_jiffies %s",
					   raw(a, sizeof(a), q->stall_thrs_ms),
					   raw(b, sizeof(b), q->stall_cnt),
					   raw(c, sizeof(c), q->stall_max_jiffies));
			print_text(p, "tx_bytes_delta %s tx_packets_delta %s",
				   raw(a, sizeof(a), ifc->tx_bytes_delta),
				   raw(b, sizeof(b), ifc->tx_packets_delta));
			print_nl(p);
		}
	}
}

/* A value for a person ("1514B", "1792MiB", "1000 ms"), "-" when unknown. */
static const char *human(char *buf, size_t len, int64_t x, enum unit unit)
{
	if (x < 0)
		return "-";
	print_format_unit(buf, len, (uint64_t)x, unit);
	return buf;
}

/* Per second over the last interval; "-" on the first sample. */
static const char *per_second(char *buf, size_t len, int64_t delta, uint64_t elapsed_us,
			      uint64_t scale, enum unit unit)
{
	if (delta < 0 || elapsed_us == 0)
		return "-";
	print_format_unit(buf, len,
			  (uint64_t)((long double)delta * scale * 1000000.0L / elapsed_us), unit);
	return buf;
}

static void print_table(const struct bqlview *v, struct printer *p)
{
	bool stall = have_stall_files(v);
	char a[24], b[24], c[24], d[24], e[24], f[24], g[24];

	/* The first table clears the screen; later ones overwrite it from the top left. */
	print_text(p, "%s%s%s sample %" PRIu64 ", every %u ms (Ctrl-C stops)%s",
		   v->samples <= 1 ? ANSI_HIDE_CURSOR ANSI_CLEAR_ALL : "", ANSI_HOME,
		   "debloat bql:", v->samples, v->interval_ms, ANSI_CLEAR_LINE);
	print_nl(p);
	/* 80 columns at most: limit_min, stall_thrs and stall_max are in the lines and JSON. */
	print_text(p, "%-10s %-6s %7s %9s %8s %5s", "IFACE", "QUEUE", "LIMIT", "LIMIT_MAX",
		   "INFLIGHT", "HOLD");
	if (stall)
		print_text(p, "%9s", "STALL_CNT");
	print_text(p, "%9s %7s%s", "TX_RATE", "TX_PPS", ANSI_CLEAR_LINE);
	print_nl(p);
	for (size_t i = 0; i < v->n; i++) {
		const struct bqlview_iface *ifc = &v->ifaces[i];

		for (size_t j = 0; j < ifc->watch.n; j++) {
			const struct bql_queue *q = &ifc->queues[j];

			print_text(p, "%-10s tx-%-3u %7s %9s %8s %5s", ifc->name, q->queue,
				   human(a, sizeof(a), q->limit, UNIT_BYTES),
				   human(c, sizeof(c), q->limit_max, UNIT_BYTES),
				   human(d, sizeof(d), q->inflight, UNIT_BYTES),
				   human(e, sizeof(e), q->hold_time_ms, UNIT_MS));
			if (stall)
				print_text(p, "%9s", human(b, sizeof(b), q->stall_cnt, UNIT_NONE));
			/* The interface's counters: on its first queue's row only. */
			print_text(p, "%9s %7s%s",
				   j ? ""
				     : per_second(f, sizeof(f), ifc->tx_bytes_delta, v->elapsed_us,
						  8, UNIT_BPS),
				   j ? ""
				     : per_second(g, sizeof(g), ifc->tx_packets_delta,
						  v->elapsed_us, 1, UNIT_NONE),
				   ANSI_CLEAR_LINE);
			print_nl(p);
		}
	}
	print_text(p, "%s", ANSI_CLEAR_BELOW);
}

void bqlview_print(const struct bqlview *v, struct printer *p, enum bqlview_style style)
{
	print_set_width(p, 0); /* lines are read by programs; the table places its own text */
	if (style == BQLVIEW_JSON)
		print_json(v, p);
	else if (style == BQLVIEW_LINES)
		print_lines(v, p);
	else
		print_table(v, p);
}

void bqlview_print_end(struct printer *p, enum bqlview_style style)
{
	if (style == BQLVIEW_TABLE)
		print_text(p, "%s", ANSI_SHOW_CURSOR);
}
