/* SPDX-License-Identifier: MIT */
/* avail.c - avail.h: /sys/module and the module lists of the running kernel. */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/gz.h"
#include "host/avail.h"
#include "qkind/qkind.h"

const char *const avail_qdisc_kinds[HOST_NQDISC_KINDS] = {
    "fq_codel", "fq", "cake", "codel", "htb", "tbf", "pfifo_fast", "pfifo",
};

/* Does a modules.builtin / modules.dep line name .../sch_KIND.ko[.xz|.zst|...]? */
static bool line_names(const char *line, const char *kind)
{
	const char *colon = strchr(line, ':');
	size_t end = colon ? (size_t)(colon - line) : strcspn(line, "\n");
	const char *base = line;
	char want[64];
	size_t n;

	for (size_t i = 0; i < end; i++)
		if (line[i] == '/')
			base = line + i + 1;
	/* The ".ko" keeps sch_fq from matching sch_fq_codel; .xz, .zst may follow it. */
	n = (size_t)snprintf(want, sizeof(want), "sch_%s.ko", kind);
	return n < sizeof(want) && (size_t)(line + end - base) >= n && !memcmp(base, want, n);
}

/* Fills found[] for the kinds a list names; -1 when the list cannot be opened. */
static int scan_list(const char *path, bool found[HOST_NQDISC_KINDS])
{
	char line[AVAIL_MAX_LINE];
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		bool whole = strchr(line, '\n') != NULL;

		for (size_t k = 0; k < HOST_NQDISC_KINDS; k++)
			found[k] |= line_names(line, avail_qdisc_kinds[k]);
		/* A line longer than the buffer: skip its tail, which is dependencies. */
		while (!whole && fgets(line, sizeof(line), f))
			whole = strchr(line, '\n') != NULL;
	}
	fclose(f);
	return 0;
}

/* CONFIG_NET_SCH_FQ_CODEL for "fq_codel". */
static void kconfig_symbol(const char *kind, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "CONFIG_NET_SCH_");

	for (; *kind && n + 1 < len; kind++)
		buf[n++] = (char)toupper((unsigned char)*kind);
	buf[n] = '\0';
}

/* What a kernel configuration says of one kind: a whole line "SYM=y" or "SYM=m". */
static enum qdisc_avail kconfig_says(const char *config, const char *kind)
{
	char sym[48];
	size_t n;

	kconfig_symbol(kind, sym, sizeof(sym));
	n = strlen(sym);
	for (const char *s = config; (s = strstr(s, sym)); s += n) {
		bool line_start = s == config || s[-1] == '\n';

		if (line_start && s[n] == '=' && (s[n + 1] == 'y' || s[n + 1] == 'm'))
			return QDISC_AVAIL_YES;
	}
	/* "# SYM is not set", or absent: the kind did not exist when it was built. */
	return QDISC_AVAIL_NO;
}

void avail_qdiscs(const struct host_paths *paths, const char *release,
		  struct qdisc_kind_avail out[HOST_NQDISC_KINDS])
{
	bool listed[HOST_NQDISC_KINDS] = {false};
	char path[PATH_MAX], *config = NULL;
	size_t config_len;
	int lists_read = 0;
	struct stat st;

	if (paths->kconfig &&
	    gz_read_file(paths->kconfig, AVAIL_MAX_KCONFIG, (void **)&config, &config_len) < 0)
		config = NULL;
	if (paths->modules && release && *release) {
		static const char *const lists[] = {"modules.builtin", "modules.dep"};

		for (size_t i = 0; i < 2; i++) {
			int r = snprintf(path, sizeof(path), "%s/%s/%s", paths->modules, release,
					 lists[i]);

			if (r > 0 && (size_t)r < sizeof(path) && scan_list(path, listed) == 0)
				lists_read++;
		}
	}
	for (size_t k = 0; k < HOST_NQDISC_KINDS; k++) {
		const char *kind = avail_qdisc_kinds[k];
		int r = snprintf(path, sizeof(path), "%s/module/sch_%s",
				 paths->sysfs ? paths->sysfs : "", kind);

		out[k].kind = kind;
		if (qkind_is_builtin(kind) ||
		    (paths->sysfs && r > 0 && (size_t)r < sizeof(path) && stat(path, &st) == 0))
			out[k].avail = QDISC_AVAIL_YES;
		else if (config)
			out[k].avail = kconfig_says(config, kind);
		else if (listed[k])
			out[k].avail = QDISC_AVAIL_YES;
		else if (lists_read == 2)
			out[k].avail = QDISC_AVAIL_NO;
		else
			out[k].avail = QDISC_AVAIL_UNKNOWN;
	}
	free(config);
}

bool avail_loaded_or_builtin(const struct host_paths *paths, const char *release, const char *kind)
{
	bool listed[HOST_NQDISC_KINDS] = {false};
	char path[PATH_MAX];
	struct stat st;
	int r;

	if (qkind_is_builtin(kind))
		return true;
	r = snprintf(path, sizeof(path), "%s/module/sch_%s", paths->sysfs ? paths->sysfs : "",
		     kind);
	if (paths->sysfs && r > 0 && (size_t)r < sizeof(path) && stat(path, &st) == 0)
		return true;
	if (!paths->modules || !release || !*release)
		return false;
	r = snprintf(path, sizeof(path), "%s/%s/modules.builtin", paths->modules, release);
	if (r <= 0 || (size_t)r >= sizeof(path) || scan_list(path, listed) < 0)
		return false;
	for (size_t k = 0; k < HOST_NQDISC_KINDS; k++)
		if (!strcmp(avail_qdisc_kinds[k], kind))
			return listed[k];
	return false;
}

enum qdisc_avail avail_of(const struct qdisc_kind_avail *kinds, size_t n, const char *kind)
{
	for (size_t i = 0; i < n; i++)
		if (kinds[i].kind && !strcmp(kinds[i].kind, kind))
			return kinds[i].avail;
	return QDISC_AVAIL_UNKNOWN;
}
