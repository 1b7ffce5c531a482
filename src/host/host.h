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

#include <stdbool.h>
#include <stddef.h>

#include "avail.h"
#include "iface.h"

#define HOST_NSYSCTLS	    4
#define HOST_MAX_COMPATIBLE 8  /* the kernel's lists have 2 to 4 entries */
#define HOST_COMPATIBLE_MAX 64 /* characters per entry, with the NUL */

struct sysctl_entry {
	const char *name; /* "net.core.default_qdisc" */
	char value[64];	  /* "" when err */
	int err;
};

struct host {
	struct iface *ifaces;
	size_t n;
	struct sysctl_entry sysctls[HOST_NSYSCTLS];
	struct qdisc_kind_avail qdisc_kinds[HOST_NQDISC_KINDS];
	char kernel_release[65]; /* uname -r; "" when unknown */
	/*
	 * The device-tree machine's compatible list, most specific first (host/machine.h).
	 * compatible_known with ncompatible 0: no device tree (x86); !compatible_known:
	 * unknown (a snapshot from before debloat recorded it).
	 */
	char compatible[HOST_MAX_COMPATIBLE][HOST_COMPATIBLE_MAX];
	size_t ncompatible;
	bool compatible_known;
	char hostname[65];
	/* Snapshots: where this description came from. */
	bool from_snapshot;
	bool constructed; /* a fixture written from documentation, not captured */
	char source[256]; /* snapshot note: board, who captured it, or the fixture's basis */
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

/* The sysctls host_read reads, in the order the report lists them. */
extern const char *const host_sysctl_names[HOST_NSYSCTLS];

/* The entry for a sysctl name, or NULL. */
const struct sysctl_entry *host_sysctl(const struct host *h, const char *name);

#endif
