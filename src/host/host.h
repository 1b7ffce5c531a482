/* SPDX-License-Identifier: MIT */
/*
 * host.h - everything `debloat audit` reads from the running host, in one call:
 * interfaces and their qdisc trees over rtnetlink, driver facts over ethtool, BQL
 * from sysfs, and the queueing sysctls from /proc/sys. Read-only.
 *
 * What cannot be read for one interface (no permission, a driver that does not say)
 * is noted in that interface's `unreadable` list and the read goes on; only a failure
 * that leaves nothing to report (no rtnetlink, an unknown interface name) fails.
 */
#ifndef DEBLOAT_HOST_HOST_H
#define DEBLOAT_HOST_HOST_H

#include <stddef.h>

#include "iface.h"

#define HOST_NSYSCTLS 4

struct sysctl_entry {
	const char *name; /* "net.core.default_qdisc" */
	char value[64];	  /* "" when err */
	int err;
};

struct host {
	struct iface *ifaces;
	size_t n;
	struct sysctl_entry sysctls[HOST_NSYSCTLS];
};

/* Where the host's files are; tests point these at a fake tree. */
struct host_paths {
	const char *sysfs;   /* "/sys" */
	const char *procsys; /* "/proc/sys" */
};

extern const struct host_paths host_default_paths;

/*
 * Read the named interfaces (all when nnames is 0), in the order named. -ENODEV with
 * *bad_name set to the index of a name the kernel does not know. On failure *h is
 * left empty.
 */
int host_read(struct host *h, const struct host_paths *paths, char *const names[], size_t nnames,
	      size_t *bad_name);
void host_free(struct host *h);

/* The entry for a sysctl name, or NULL. */
const struct sysctl_entry *host_sysctl(const struct host *h, const char *name);

#endif
