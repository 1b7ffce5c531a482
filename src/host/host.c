/* SPDX-License-Identifier: MIT */
/* host.c - host.h: one rtnetlink socket, two dumps, then per-interface files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/nl.h"
#include "host/avail.h"
#include "host/bql.h"
#include "host/ethtool.h"
#include "host/host.h"
#include "host/kmod.h"
#include "host/link.h"
#include "host/machine.h"
#include "host/qdisc.h"
#include "host/sysctl.h"

const struct host_paths host_default_paths = {
    .sysfs = "/sys",
    .procsys = "/proc/sys",
    .modules = "/lib/modules",
    .kconfig = "/proc/config.gz",
};

const char *const host_sysctl_names[HOST_NSYSCTLS] = {
    "net.core.default_qdisc",
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_limit_output_bytes",
};

/* "Not supported" is the driver's answer, not a failure to read: no note for it. */
static bool worth_noting(int err)
{
	return err != -EOPNOTSUPP && err != -ENOTSUP;
}

static void read_driver_facts(struct iface *ifc, const struct host_paths *paths)
{
	int r;

	r = link_classify(ifc, paths->sysfs);
	if (r < 0)
		iface_note_unreadable(ifc, "sysfs", r);
	r = ethtool_driver(ifc->name, ifc->driver, sizeof(ifc->driver), ifc->bus, sizeof(ifc->bus));
	if (r < 0 && worth_noting(r))
		iface_note_unreadable(ifc, "driver", r);
	r = ethtool_link(ifc->name, &ifc->speed_mbps, &ifc->duplex);
	if (r < 0 && worth_noting(r))
		iface_note_unreadable(ifc, "speed", r);
	/* Not on USB (or unreadable): usb_speed_mbps stays 0, unknown. */
	if (ifc->physical)
		(void)machine_usb_speed(paths->sysfs, ifc->name, &ifc->usb_speed_mbps);
	r = ethtool_rings(ifc->name, &ifc->ring_tx, &ifc->ring_tx_max, &ifc->ring_rx,
			  &ifc->ring_rx_max);
	if (r < 0 && worth_noting(r))
		iface_note_unreadable(ifc, "rings", r);
	r = ethtool_offloads(ifc->name, &ifc->tso, &ifc->gso, &ifc->gro, &ifc->lro);
	if (r < 0 && worth_noting(r))
		iface_note_unreadable(ifc, "offloads", r);
	/* sysfs of another namespace would show another device's queues. */
	if (ifc->nunreadable && ifc->unreadable[0].err == -EXDEV)
		return;
	r = bql_read(paths->sysfs, ifc->name, &ifc->bql, &ifc->nbql);
	if (r < 0)
		iface_note_unreadable(ifc, "bql", r);
	else
		ifc->bql_read = true;
}

/*
 * The kernel's dump skips built-in qdiscs (noop on a device that is down), but the
 * link message names the root's kind: make a root of it, with no options.
 */
static int qdisc_builtin_root(struct iface *ifc)
{
	if (!ifc->root_qdisc[0])
		return -ENOENT;
	ifc->qdisc = calloc(1, sizeof(*ifc->qdisc));
	if (!ifc->qdisc)
		return -ENOMEM;
	memcpy(ifc->qdisc->kind, ifc->root_qdisc, sizeof(ifc->qdisc->kind));
	ifc->qdisc->parent = 0xFFFFFFFFU; /* TC_H_ROOT */
	ifc->qdisc->ifindex = ifc->ifindex;
	return 0;
}

/* The kernel's release and the qdisc kinds it can make; the host's name. */
static void read_kernel(struct host *h, const struct host_paths *paths)
{
	struct utsname u;
	int r;

	if (uname(&u) == 0) {
		snprintf(h->kernel_release, sizeof(h->kernel_release), "%s", u.release);
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
	}
	avail_qdiscs(paths, h->kernel_release, h->qdisc_kinds);
	r = machine_compatible(paths->sysfs, &h->compatible[0][0], HOST_COMPATIBLE_MAX,
			       HOST_MAX_COMPATIBLE, &h->ncompatible);
	h->compatible_known = r == 0 || r == -ENOENT; /* no file: not a device-tree machine */
}

/* Keep the named interfaces, in the order named; free the rest. */
static int select_named(struct iface **all, size_t *n, char *const names[], size_t nnames,
			size_t *bad_name)
{
	struct iface *picked = calloc(nnames, sizeof(*picked));
	size_t count = 0;

	if (!picked)
		return -ENOMEM;
	for (size_t i = 0; i < nnames; i++) {
		bool found = false, dup = false;

		for (size_t j = 0; j < count; j++)
			dup |= !strcmp(picked[j].name, names[i]);
		for (size_t j = 0; j < *n && !found; j++) {
			if (!strcmp((*all)[j].name, names[i])) {
				found = true;
				if (!dup)
					picked[count++] = (*all)[j];
			}
		}
		if (!found) {
			*bad_name = i;
			free(picked);
			return -ENODEV;
		}
	}
	free(*all);
	*all = picked;
	*n = count;
	return 0;
}

int host_read(struct host *h, const struct host_paths *paths, char *const names[], size_t nnames,
	      size_t *bad_name)
{
	struct host out = {0};
	struct qdisc *qdiscs = NULL;
	size_t nqdiscs = 0;
	struct nl *nl = NULL;
	int r, qr;

	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = link_list(nl, &out.ifaces, &out.n);
	if (r < 0)
		goto fail;
	if (nnames) {
		r = select_named(&out.ifaces, &out.n, names, nnames, bad_name);
		if (r < 0)
			goto fail;
	}
	qr = host_qdisc_list(nl, &qdiscs, &nqdiscs);
	for (size_t i = 0; i < out.n; i++) {
		struct iface *ifc = &out.ifaces[i];

		if (qr < 0) {
			iface_note_unreadable(ifc, "qdiscs", qr);
		} else {
			r = host_qdisc_tree(qdiscs, nqdiscs, ifc->ifindex, &ifc->qdisc);
			if (r == -ENOENT)
				r = qdisc_builtin_root(ifc);
			if (r == -ENOMEM)
				goto fail;
			/* Without its classes a FIFO under htb is ungraded, not wrong. */
			if (r == 0 && ifc->qdisc &&
			    (r = host_qdisc_class_rates(nl, ifc->qdisc)) < 0)
				iface_note_unreadable(ifc, "qdiscs", r);
		}
		read_driver_facts(ifc, paths);
	}
	for (size_t i = 0; i < HOST_NSYSCTLS; i++) {
		struct sysctl_entry *s = &out.sysctls[i];

		s->name = host_sysctl_names[i];
		s->err = sysctl_read(paths->procsys, s->name, s->value, sizeof(s->value));
		if (s->err < 0)
			s->value[0] = '\0';
	}
	read_kernel(&out, paths);
	for (size_t i = 0; i < out.n && paths->modules && out.kernel_release[0]; i++) {
		struct iface *ifc = &out.ifaces[i];

		if (ifc->physical &&
		    kmod_bql_module(paths->sysfs, paths->modules, out.kernel_release, ifc->name,
				    ifc->bql_module, sizeof(ifc->bql_module), ifc->bql_module_path,
				    sizeof(ifc->bql_module_path)) == 0)
			ifc->bql_module_loaded =
			    kmod_loaded_out_of_tree(paths->sysfs, ifc->bql_module) == 1;
	}
	free(qdiscs);
	nl_close(nl);
	*h = out;
	return 0;
fail:
	free(qdiscs);
	nl_close(nl);
	host_free(&out);
	return r;
}

void host_free(struct host *h)
{
	for (size_t i = 0; i < h->n; i++)
		iface_free(&h->ifaces[i]);
	free(h->ifaces);
	h->ifaces = NULL;
	h->n = 0;
}

const struct sysctl_entry *host_sysctl(const struct host *h, const char *name)
{
	for (size_t i = 0; i < HOST_NSYSCTLS; i++)
		if (h->sysctls[i].name && !strcmp(h->sysctls[i].name, name))
			return &h->sysctls[i];
	return NULL;
}
