/* SPDX-License-Identifier: MIT */
/*
 * knob-sysfs.c - the knobs that are files: a TX queue's BQL limit_max in sysfs and the
 * sysctls in /proc/sys, both under the roots a knob_env names (a test's own tree).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fix/knob-type.h"
#include "host/sysfs.h"

/* DQL's own maximum (UINT_MAX / 2 - UINT_MAX / 16): what limit_max "max" means. */
#define BQL_LIMIT_MAX 1879048192ULL

static int bql_path(const struct knob *k, const struct knob_env *env, char *path, size_t len)
{
	int n, r;

	if (k->queue < 0)
		return -ENOENT;
	r = knob_sysfs_iface_check(env, k->ifname);
	if (r < 0)
		return r;
	n = snprintf(path, len, "%s/class/net/%s/queues/tx-%d/byte_queue_limits/limit_max",
		     knob_sysfs_root(env), k->ifname, k->queue);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Write a short value to a sysfs or procfs file in one write(2). */
static int write_file(const char *path, const char *val)
{
	size_t n = strlen(val);
	ssize_t w;
	int fd, r = 0;

	/* O_TRUNC as a shell redirection does: sysfs and procfs ignore it, a plain file
	 * (a test's tree) would otherwise keep the tail of a longer old value. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		w = write(fd, val, n);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != n)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static int read_bql(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	char path[PATH_MAX];
	int64_t v;
	int r;

	r = bql_path(k, env, path, sizeof(path));
	if (r < 0)
		return r;
	r = sysfs_read_int(path, &v);
	if (r < 0)
		return r;
	return v < 0 ? -EINVAL : knob_put_u64(val, len, (uint64_t)v);
}

static int write_bql(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
		     size_t msglen)
{
	char path[PATH_MAX];
	uint64_t v;
	int r;

	if (strcmp(val, "max") && knob_parse_number(val, BQL_LIMIT_MAX, &v) < 0) {
		knob_msg(msg, msglen,
			 "BQL limit_max must be bytes up to 1879048192 or \"max\", not \"%s\"",
			 val);
		return -EINVAL;
	}
	r = bql_path(k, env, path, sizeof(path));
	if (r < 0)
		return r;
	return write_file(path, val);
}

static int sysctl_path(const struct knob *k, const struct knob_env *env, char *path, size_t len)
{
	size_t base;
	int n;

	if (!k->name[0] || strchr(k->name, '/') || strstr(k->name, ".."))
		return -EINVAL;
	n = snprintf(path, len, "%s/sys/", knob_proc_root(env));
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	base = (size_t)n;
	n = snprintf(path + base, len - base, "%s", k->name);
	if (n < 0 || (size_t)n >= len - base)
		return -ENAMETOOLONG;
	for (char *p = path + base; *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

static int read_sysctl(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	char path[PATH_MAX];
	int r;

	r = sysctl_path(k, env, path, sizeof(path));
	if (r < 0)
		return r;
	r = sysfs_read_str(path, val, len);
	return r == -EFBIG ? -ENOSPC : r;
}

static int write_sysctl(const struct knob *k, const struct knob_env *env, const char *val,
			char *msg, size_t msglen)
{
	char path[PATH_MAX];
	int r;

	if (strchr(val, '\n')) {
		knob_msg(msg, msglen, "%s", "a sysctl value is one line");
		return -EINVAL;
	}
	r = sysctl_path(k, env, path, sizeof(path));
	if (r < 0)
		return r;
	return write_file(path, val);
}

/* ---- BQL limit_max ---- */

static void bql_label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "tx-%d BQL limit_max", k->queue);
}

static bool bql_equal(const char *a, const char *b)
{
	if (!strcmp(a, "max"))
		a = "1879048192";
	if (!strcmp(b, "max"))
		b = "1879048192";
	return knob_numbers_equal(a, b);
}

static int bql_commands(struct knob_lines *o, const struct knob *k, const char *value,
			unsigned ntxq)
{
	(void)ntxq;
	knob_line(o, "echo %s > /sys/class/net/%s/queues/tx-%d/byte_queue_limits/limit_max", value,
		  k->ifname, k->queue);
	return o->err;
}

static void bql_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->why = "networkd has no BQL key: use `debloat fix --emit udev`";
}

static void bql_nm(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->why = "NetworkManager has no BQL property: use `debloat fix --emit udev`";
}

static int bql_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct iface *ifc = knob_host_iface(h, k->ifname);
	int64_t v = -1;

	for (size_t i = 0; ifc && i < ifc->nbql; i++)
		if ((int)ifc->bql[i].queue == k->queue && ifc->bql[i].present)
			v = ifc->bql[i].limit_max;
	return knob_put_known(val, len, v);
}

const struct knob_type knob_bql_limit_max = {
    .name = "bql-limit-max",
    .phase = 2,
    .flags = KNOB_HAS_QUEUE,
    .label = bql_label,
    .read = read_bql,
    .write = write_bql,
    .equal = bql_equal,
    .loose_equal = knob_words_equal,
    .commands = bql_commands,
    .networkd = bql_networkd,
    .nm = bql_nm,
    .from_host = bql_from_host,
};

/* ---- sysctls ---- */

static void sysctl_label(const struct knob *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s", k->name);
}

static int sysctl_commands(struct knob_lines *o, const struct knob *k, const char *value,
			   unsigned ntxq)
{
	(void)ntxq;
	if (!knob_word_ok(k->name))
		return -EINVAL;
	knob_line(o, "sysctl -w %s=%s", k->name, value);
	return o->err;
}

static void sysctl_networkd(const struct knob *k, const char *value, struct knob_word *w)
{
	(void)k;
	(void)value;
	w->place = KNOB_SYSCTL_LINE;
}

static int sysctl_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct sysctl_entry *e = host_sysctl(h, k->name);

	if (!e || e->err)
		return -ENOENT;
	return snprintf(val, len, "%s", e->value) < (int)len ? 0 : -ENOSPC;
}

const struct knob_type knob_sysctl = {
    .name = "sysctl",
    .phase = 5,
    .flags = KNOB_HOST_WIDE | KNOB_HAS_NAME,
    .label = sysctl_label,
    .read = read_sysctl,
    .write = write_sysctl,
    .equal = knob_blanks_equal,
    .loose_equal = knob_words_equal,
    .commands = sysctl_commands,
    .networkd = sysctl_networkd,
    .from_host = sysctl_from_host,
};
