/* SPDX-License-Identifier: MIT */
/*
 * driver.h - the knob "driver" (knob-driver.c): which module drives a NIC, the
 * kernel's own ("stock") or debloat's with byte queue limits ("bql", built from kmod/
 * and installed for the running kernel under MODULES/RELEASE/updates/, as host/kmod.h
 * finds it), and swapping one for the other.
 *
 * Value spelling: "WHICH MODULE DEVICE [peer ADDR]", WHICH stock or bql, MODULE the
 * module's name (fec), DEVICE the bus and device the NIC is
 * ("platform/2188000.ethernet", "usb/1-1.1:1.0"), so the value alone finds the
 * device again when its interface is gone. Read says "none" when the interface does
 * not exist (its driver unloaded, or loaded and not bound). "peer ADDR" is written,
 * never read: the address that must answer (reach.h) before a swap to bql is kept.
 * Two values are the same setting when their first three words are.
 *
 * Ours or the kernel's: the loaded module's build-id note
 * (SYSFS/module/NAME/notes/.note.gnu.build-id) is in the installed file; without
 * one, its srcversion equals the file's; where neither can be compared (a .ko.xz, a
 * module with neither), the module's taint has O (out of tree), as ours have.
 *
 * A swap, in order (docs/design/driver-swap.md says why):
 *	1. keep what unloading loses: link up, hand-set addresses and routes (link-keep.h)
 *	2. unload the module (delete_module, not forced: -EBUSY when something holds it)
 *	3. load the wanted file (finit_module; the kernel's own file from modules.dep)
 *	4. wait for the device to be bound and its interface to appear under the same
 *	   name, up to DRIVER_BIND_MS; then put back step 1's link, addresses, routes
 *	5. wait for the carrier, up to DRIVER_LINK_MS (when the link was up)
 *	6. to bql with a peer: wait for it to answer, up to DRIVER_PEER_MS
 * When 3 to 6 fail on the way to bql, the kernel's module is put back the same way
 * (steps 2 to 5 with the first keep) and the error says what failed and that it was
 * put back. On the way to stock (undo, rollback) only 2 to 4 must succeed; a link that
 * stays down is said in msg but is no error (the cable may be out).
 *
 * Nothing prints; -errno with words in msg.
 */
#ifndef DEBLOAT_FIX_DRIVER_H
#define DEBLOAT_FIX_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "fix/knob.h"

#define DRIVER_BIND_MS 10000
#define DRIVER_LINK_MS 20000
#define DRIVER_PEER_MS 10000

enum driver_which {
	DRIVER_NONE,
	DRIVER_STOCK,
	DRIVER_BQL,
};

struct driver_value {
	enum driver_which which;
	char module[56];
	char device[96]; /* "BUS/DEVICE" */
	char peer[64];	 /* "" none */
};

/* Parse a value; -EINVAL with a reason in msg. */
int driver_value_parse(const char *s, struct driver_value *out, char *msg, size_t msglen);
/* Spell v (peer included when set); -ENOSPC. */
int driver_value_format(const struct driver_value *v, char *buf, size_t len);

/* Is module one of the drivers kmod/ patches? */
bool driver_patched(const char *module);
/* Their names, ", "-separated, for messages. */
const char *driver_patched_list(void);

/* The kernel release the env's module files are for (env->release, else uname's). */
const char *driver_release(const struct knob_env *env, char *buf, size_t len);

/*
 * What drives ifname now (out->peer ""). -EOPNOTSUPP when it has no device (a
 * virtual link) or its driver is not a module (built in); -errno.
 */
int driver_read(const struct knob_env *env, const char *ifname, struct driver_value *out);

/* Make ifname's device driven by want (above); 0 at once when it already is. */
int driver_swap(const struct knob_env *env, const char *ifname, const struct driver_value *want,
		char *msg, size_t msglen);

/*
 * ---- at boot: the knob "driver-boot" (knob-driver-boot.c) ----
 *
 * `make -C kmod install` keeps ours in the store (host/kmod.h), which depmod does not
 * read: the kernel's own module stays the one modprobe loads at boot. `fix --driver
 * IFACE --persist` sets MODULE's boot driver to "bql" before the swap: a symbolic link
 * MODULES/RELEASE/debloat/MODULE.ko to the store's file, the depmod.d file
 * ETC/depmod.d/debloat-MODULE.conf ("override MODULE RELEASE debloat", which depmod
 * follows whichever folder it meets first) and `depmod -a RELEASE`. Undo sets "stock":
 * both removed, depmod again.
 */

/* The depmod.d file's text for module on release, said to be for ifname. -ENOSPC. */
int driver_boot_conf_text(const char *module, const char *release, const char *ifname, char *buf,
			  size_t len);

/* ---- planning `debloat fix --driver IFACE` (driver-plan.c) ---- */

struct plan;
struct iface;
struct host;

struct driver_plan_options {
	const char *peer;	    /* --peer, or NULL: the gateway of IFACE */
	const char *ssh_connection; /* $SSH_CONNECTION, or NULL */
	bool force;		    /* swap even under the session we are logged in over */
	bool persist;		    /* and make ours the module loaded at boot */
};

/*
 * Plan the swap of ifc's driver to ours: one target, one driver step (its before is
 * read later, as every step's), after a driver-boot step to "bql" with persist. A swap
 * fix will not do refuses the target, saying why: no device or no module, a driver
 * kmod/ does not patch, ours not installed for this kernel (how to build it), the
 * session we are logged in over (unless force), no peer to ask (no gateway and no
 * --peer), persist with ours installed under updates/ (an older install.sh, or DKMS:
 * it loads at boot already, and undo could not stop that). Ours under updates/ without
 * persist is a note: undo lasts until the next boot. The target's index, or -errno.
 */
int driver_plan(struct plan *p, const struct iface *ifc, const struct knob_env *env,
		const struct driver_plan_options *o);

/*
 * Does the SSH session (SSH_CONNECTION "CLIENT CPORT SERVER SPORT") come in over ifname:
 * its server address is one of ifname's, or (when that address is on none) ifname
 * carries a default route? addrs: ifname's addresses, text; has_default likewise.
 */
bool driver_session_over(const char *ssh_connection, const char *const *addrs, size_t naddrs,
			 bool has_default);

#endif
