/* SPDX-License-Identifier: MIT */
/* hz.c - hz.h: CONFIG_HZ from the kernel's configuration. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gz.h"
#include "host/avail.h"
#include "host/hz.h"

int host_hz_from_config(const char *config, long *hz)
{
	static const char sym[] = "CONFIG_HZ=";

	for (const char *s = config; (s = strstr(s, sym)); s += sizeof(sym) - 1) {
		char *end;
		long v;

		if (s != config && s[-1] != '\n')
			continue;
		v = strtol(s + sizeof(sym) - 1, &end, 10);
		/* The kernel offers 100 to 1000; anything else is not a tick rate. */
		if (end == s + sizeof(sym) - 1 || (*end && *end != '\n') || v < 24 || v > 10000)
			continue;
		*hz = v;
		return 0;
	}
	return -ENOENT;
}

static int from_file(const char *path, long *hz)
{
	char *config = NULL;
	size_t len;
	int r;

	r = gz_read_any(path, AVAIL_MAX_KCONFIG, &config, &len); /* gzip or plain text */
	if (r < 0)
		return r;
	r = host_hz_from_config(config, hz);
	free(config);
	return r;
}

int host_kernel_hz(const struct host_paths *paths, const char *release, long *hz)
{
	char path[PATH_MAX];

	if (paths->kconfig && from_file(paths->kconfig, hz) == 0)
		return 0;
	if (release && *release) {
		snprintf(path, sizeof(path), "/boot/config-%s", release);
		if (from_file(path, hz) == 0)
			return 0;
	}
	return -ENOENT;
}
