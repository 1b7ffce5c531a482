/* SPDX-License-Identifier: MIT */
/*
 * link.h - interfaces as rtnetlink lists them (RTM_GETLINK), plus the one fact only
 * sysfs has: whether a device backs the interface.
 */
#ifndef DEBLOAT_HOST_LINK_H
#define DEBLOAT_HOST_LINK_H

#include <stddef.h>

#include "base/nl.h"
#include "iface.h"

#define LINK_MAX_INTERFACES 65536

/* Fill name, ifindex, kind (IFLA_INFO_KIND or ""), operstate, MTU, txqueuelen, TX
 * queues, loopback and TX counters from one RTM_NEWLINK message. -EBADMSG if malformed. */
int link_from_msg(const struct nlmsghdr *nlh, struct iface *out);

/* Every interface, in the kernel's order; *out is a new array. nl NULL: a socket of its own. */
int link_list(struct nl *nl, struct iface **out, size_t *n);

/*
 * Settle kind when the kernel gave none: "loopback", "physical" when
 * SYSFS/class/net/IF/device exists, else "unknown". -EXDEV when sysfs shows another
 * network namespace's interface of that name (a /sys not remounted after setns),
 * -ENOENT when sysfs has no such interface; kind is then "unknown".
 */
int link_classify(struct iface *ifc, const char *sysfs_root);

#endif
