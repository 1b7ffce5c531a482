/* SPDX-License-Identifier: MIT */
/*
 * knob.c - knob.h: the registry of knob kinds (one row each, fix/knob-type.h), the
 * dispatch of knob_read, knob_write, knob_value_equal and knob_describe through it,
 * and the helpers the rows share.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/array.h"
#include "base/nl.h"
#include "fix/knob-type.h"
#include "host/link.h"
#include "host/sysfs.h"

/* ---- the registry ---- */

static const struct knob_type *const rows[] = {
#define KNOB_ROW_ENTRY(kind, row) [kind] = &row,
    KNOB_ROWS(KNOB_ROW_ENTRY)
#undef KNOB_ROW_ENTRY
};

const struct knob_type *knob_type_of(enum knob_kind kind)
{
	return (unsigned)kind < COUNT(rows) ? rows[kind] : NULL;
}

unsigned knob_flags(enum knob_kind kind)
{
	const struct knob_type *t = knob_type_of(kind);

	return t ? t->flags : 0;
}

const char *knob_kind_name(enum knob_kind kind)
{
	const struct knob_type *t = knob_type_of(kind);

	return t ? t->name : "unknown";
}

int knob_kind_from_name(const char *name)
{
	for (size_t i = 0; i < COUNT(rows); i++)
		if (!strcmp(rows[i]->name, name))
			return (int)i;
	return -EINVAL;
}

void knob_describe(const struct knob *k, char *buf, size_t len)
{
	const struct knob_type *t = knob_type_of(k->kind);
	char label[96];

	if (!t) {
		snprintf(buf, len, "unknown knob");
		return;
	}
	t->label(k, label, sizeof(label));
	if (t->flags & KNOB_HOST_WIDE)
		snprintf(buf, len, "%s", label);
	else
		snprintf(buf, len, "%s %s", k->ifname, label);
}

/* ---- dispatch ---- */

int knob_read(const struct knob *k, const struct knob_env *env, char *val, size_t len)
{
	const struct knob_type *t = knob_type_of(k->kind);

	if (!len)
		return -ENOSPC;
	if (!t)
		return -EINVAL;
	if (!(t->flags & KNOB_HOST_WIDE) && !k->ifname[0])
		return -ENODEV;
	return t->read(k, env, val, len);
}

int knob_write(const struct knob *k, const struct knob_env *env, const char *val, char *msg,
	       size_t msglen)
{
	const struct knob_type *t = knob_type_of(k->kind);

	if (msg && msglen)
		msg[0] = '\0';
	if (!t)
		return -EINVAL;
	if (!(t->flags & KNOB_HOST_WIDE) && !k->ifname[0])
		return -ENODEV;
	return t->write(k, env, val, msg, msglen);
}

int knob_value_equal(enum knob_kind kind, const char *a, const char *b)
{
	const struct knob_type *t = knob_type_of(kind);

	return t && t->equal(a, b);
}

int knob_from_host(const struct knob *k, const struct host *h, char *val, size_t len)
{
	const struct knob_type *t = knob_type_of(k->kind);

	return t && t->from_host ? t->from_host(k, h, val, len) : -ENOENT;
}

/* ---- helpers for the rows ---- */

const struct iface *knob_host_iface(const struct host *h, const char *name)
{
	for (size_t i = 0; h && i < h->n; i++)
		if (!strcmp(h->ifaces[i].name, name))
			return &h->ifaces[i];
	return NULL;
}

int knob_put_known(char *val, size_t len, int64_t v)
{
	return v < 0 ? -ENOENT : knob_put_u64(val, len, (uint64_t)v);
}

const char *knob_sysfs_root(const struct knob_env *env)
{
	return env && env->sysfs_root ? env->sysfs_root : "/sys";
}

const char *knob_proc_root(const struct knob_env *env)
{
	return env && env->proc_root ? env->proc_root : "/proc";
}

void knob_msg(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

int knob_put(char *val, size_t len, const char *s)
{
	int n = snprintf(val, len, "%s", s);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int knob_put_u64(char *val, size_t len, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	return knob_put(val, len, tmp);
}

/* A decimal number and nothing else, up to max. */
int knob_parse_number(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int knob_ifindex(const char *ifname)
{
	unsigned idx;

	if (!ifname[0] || strnlen(ifname, IF_NAMESIZE) >= IF_NAMESIZE)
		return -ENODEV;
	idx = if_nametoindex(ifname);
	return idx ? (int)idx : -ENODEV;
}

/*
 * Is SYSFS/class/net/IF this namespace's IF? Under the real /sys, sysfs shows the
 * namespace that mounted it: after setns without a remount it is another namespace's
 * device of the same name, which must not be written. A test's own tree is taken as is.
 */
int knob_sysfs_iface_check(const struct knob_env *env, const char *ifname)
{
	char path[PATH_MAX];
	struct stat st;
	int64_t idx;
	int ifindex, r;

	if (!ifname[0] || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/class/net/%s", knob_sysfs_root(env), ifname);
	if (strcmp(knob_sysfs_root(env), "/sys") != 0)
		return stat(path, &st) == 0 ? 0 : -ENODEV;
	ifindex = knob_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	snprintf(path, sizeof(path), "%s/class/net/%s/ifindex", knob_sysfs_root(env), ifname);
	r = sysfs_read_int(path, &idx);
	if (r == -ENOENT)
		return -EXDEV; /* this namespace has it; the mounted sysfs does not */
	if (r < 0)
		return r;
	return idx == ifindex ? 0 : -EXDEV;
}

int knob_send(void *buf, size_t len, size_t *done, char *msg, size_t msglen)
{
	struct nl *nl;
	int r;

	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = nl_request(nl, buf, len, done, msg, msglen);
	nl_close(nl);
	return r;
}

int knob_link_facts(int ifindex, struct knob_link_facts *out)
{
	struct iface *links = NULL;
	size_t n = 0;
	int r = link_list(NULL, &links, &n);

	if (r < 0)
		return r;
	r = -ENODEV;
	for (size_t i = 0; i < n; i++) {
		if (links[i].ifindex == ifindex) {
			out->txqueuelen = links[i].txqueuelen;
			out->tx_queues = links[i].tx_queues;
			out->gso_max_size = links[i].gso_max_size;
			r = 0;
		}
		iface_free(&links[i]);
	}
	free(links);
	return r;
}

/* Equal after collapsing runs of blanks and trimming both ends. */
bool knob_blanks_equal(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t')
			a++;
		while (*b == ' ' || *b == '\t')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		while (*a && *a != ' ' && *a != '\t' && *a == *b) {
			a++;
			b++;
		}
		bool end_a = !*a || *a == ' ' || *a == '\t';
		bool end_b = !*b || *b == ' ' || *b == '\t';
		if (!end_a || !end_b)
			return false;
	}
}

bool knob_numbers_equal(const char *a, const char *b)
{
	uint64_t x, y;

	return knob_parse_number(a, UINT64_MAX, &x) == 0 &&
	       knob_parse_number(b, UINT64_MAX, &y) == 0 && x == y;
}

bool knob_words_equal(const char *a, const char *b)
{
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		while (*a && !isspace((unsigned char)*a) && *a == *b)
			a++, b++;
		if ((*a && !isspace((unsigned char)*a)) || (*b && !isspace((unsigned char)*b)))
			return false;
	}
}

bool knob_case_equal(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}
