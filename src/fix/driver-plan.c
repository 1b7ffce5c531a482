/* SPDX-License-Identifier: MIT */
/* driver-plan.c - driver.h's planning half: `debloat fix --driver IFACE`, or why not. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit/policy.h"
#include "base/say.h"
#include "fix/driver.h"
#include "fix/link-keep.h"
#include "fix/plan.h"
#include "host/kmod.h"

#define SESSION_ADDRS 32

bool driver_session_over(const char *ssh_connection, const char *const *addrs, size_t naddrs,
			 bool has_default)
{
	char server[INET6_ADDRSTRLEN + 8] = ""; /* 54: %53s and its NUL */
	const char *s;

	if (!ssh_connection || !ssh_connection[0])
		return false;
	if (sscanf(ssh_connection, "%*s %*s %53s", server) != 1)
		return has_default;
	s = !strncmp(server, "::ffff:", 7) && strchr(server + 7, '.') ? server + 7 : server;
	for (size_t i = 0; i < naddrs; i++)
		if (!strcmp(addrs[i], s))
			return true;
	/* The server address is elsewhere (or a NAT's): the default route is how the
	 * session's packets may leave, whichever address it came to. */
	return has_default;
}

/* ifname's addresses as text (both families, every scope). */
static size_t iface_addresses(const char *ifname, char (*out)[INET6_ADDRSTRLEN], size_t max)
{
	struct ifaddrs *all, *a;
	size_t n = 0;

	if (getifaddrs(&all) < 0)
		return 0;
	for (a = all; a && n < max; a = a->ifa_next) {
		const void *bin;

		if (!a->ifa_addr || strcmp(a->ifa_name, ifname))
			continue;
		if (a->ifa_addr->sa_family == AF_INET)
			bin = &((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr;
		else if (a->ifa_addr->sa_family == AF_INET6)
			bin = &((struct sockaddr_in6 *)(void *)a->ifa_addr)->sin6_addr;
		else
			continue;
		if (inet_ntop(a->ifa_addr->sa_family, bin, out[n], INET6_ADDRSTRLEN))
			n++;
	}
	freeifaddrs(all);
	return n;
}

__attribute__((format(printf, 3, 4))) static int refuse(struct plan *p, int ti, const char *fmt,
							...)
{
	struct plan_target *t = &p->targets[ti];
	va_list ap;

	t->refused = true;
	va_start(ap, fmt);
	vsnprintf(t->refused_why, sizeof(t->refused_why), fmt, ap);
	va_end(ap);
	return ti;
}

int driver_plan(struct plan *p, const struct iface *ifc, const struct knob_env *env,
		const struct driver_plan_options *o)
{
	char rel[128], file[PATH_MAX], addrs[SESSION_ADDRS][INET6_ADDRSTRLEN],
	    after[KNOB_VALUE_MAX];
	const char *ptrs[SESSION_ADDRS], *release = driver_release(env, rel, sizeof(rel));
	const char *why = NULL;
	struct driver_value v;
	struct link_keep keep;
	struct knob k = {.kind = KNOB_DRIVER};
	const char *mods = env && env->modules_root ? env->modules_root : "/lib/modules";
	bool at_boot;
	size_t naddrs;
	int ti, r;

	ti = plan_add_target(p, ifc->name);
	if (ti < 0)
		return ti;
	p->targets[ti].ifc = ifc;
	p->targets[ti].speed_mbps = ifc->speed_mbps;
	p->targets[ti].bql_in_use = policy_bql_in_use(ifc, &why);
	r = driver_read(env, ifc->name, &v);
	if (r == -EOPNOTSUPP || (r == 0 && v.which == DRIVER_NONE))
		return refuse(p, ti,
			      "%s has no driver module to swap (a virtual link, or a driver "
			      "built into the kernel)",
			      ifc->name);
	if (r < 0)
		return r;
	if (!driver_patched(v.module))
		return refuse(p, ti, "%s's driver is %s, not one debloat has a BQL module for (%s)",
			      ifc->name, v.module, driver_patched_list());
	if (!release[0] || kmod_installed_file(mods, release, v.module, file, sizeof(file)) < 0)
		return refuse(p, ti,
			      "no %s module with BQL is installed for this kernel (%s): build and "
			      "install it on this machine with `make -C kmod install` "
			      "(docs/drivers.md)",
			      v.module, release[0] ? release : "release unknown");
	at_boot = kmod_store_file(mods, release, v.module, file, sizeof(file)) < 0;
	if (at_boot && o->persist)
		return refuse(
		    p, ti,
		    "ours is installed under updates/ (%s), which depmod prefers: it "
		    "loads at every boot already, and undo could not stop that; run `make "
		    "-C kmod install` again to move it to the store (DKMS cannot: Debian's "
		    "dkms puts modules under updates/dkms whatever dkms.conf says)",
		    file);
	r = link_keep_read((int)if_nametoindex(ifc->name), &keep);
	if (r < 0 && r != -E2BIG)
		return r;
	naddrs = iface_addresses(ifc->name, addrs, SESSION_ADDRS);
	for (size_t i = 0; i < naddrs; i++)
		ptrs[i] = addrs[i];
	if (driver_session_over(o->ssh_connection, ptrs, naddrs, link_keep_has_default(&keep))) {
		if (!o->force)
			return refuse(
			    p, ti,
			    "you are logged in over %s (SSH_CONNECTION): unloading its "
			    "driver cuts the session, and nothing could answer if the new "
			    "one failed; run it from a console, or give --force",
			    ifc->name);
		say(p->targets[ti].notes[p->targets[ti].nnotes++], PLAN_NOTE_MAX,
		    "--force: swapping the driver of %s, which the SSH session may come in over",
		    ifc->name);
	}
	v.which = DRIVER_BQL;
	if (o->peer)
		say(v.peer, sizeof(v.peer), "%s", o->peer);
	else if (link_keep_gateway(&keep, v.peer, sizeof(v.peer)) < 0)
		return refuse(p, ti,
			      "%s has no gateway to ask after the swap: name a host on its link "
			      "that answers pings with --peer ADDR",
			      ifc->name);
	if (at_boot)
		say(p->targets[ti].notes[p->targets[ti].nnotes++], PLAN_NOTE_MAX,
		    "ours is installed under updates/ (%s), which depmod prefers: it is the one "
		    "loaded at boot, and undo lasts until the next boot; `make -C kmod install` "
		    "again moves it to the store",
		    file);
	r = driver_value_format(&v, after, sizeof(after));
	if (r < 0)
		return r;
	say(k.ifname, sizeof(k.ifname), "%s", ifc->name);
	if (o->persist) {
		struct knob boot = {.kind = KNOB_DRIVER_BOOT};

		say(boot.ifname, sizeof(boot.ifname), "%s", ifc->name);
		say(boot.name, sizeof(boot.name), "%s", v.module);
		r = plan_add_step(p, ti, &boot, "bql", false,
				  "--persist: a depmod.d override, so that modprobe loads ours at "
				  "boot");
		if (r < 0)
			return r;
	}
	r = plan_add_step(p, ti, &k, after, false,
			  "the driver has no BQL: ours counts bytes in the ring, so fq_codel "
			  "sees the queue");
	return r < 0 ? r : ti;
}
