/* SPDX-License-Identifier: MIT */
/*
 * persist.h - `debloat fix --persist`: the plan's "after" values kept on disk and put
 * back at boot, and `debloat undo --persist` taking them away again. Under a prefix
 * ROOT ("/" normally; `--root DIR` writes there instead, so tests and packagers can
 * inspect the files):
 *
 *	ROOT/etc/debloat/IFACE.conf                   the values (format below)
 *	ROOT/etc/systemd/system/debloat-fix@.service  a unit bound to the device: started
 *	                                              when it appears, stopped when it goes
 *	ROOT/etc/systemd/system/sys-subsystem-net-devices-IFACE.device.wants/
 *	    debloat-fix@IFACE.service                 the instance, enabled (a symlink, as
 *	                                              `systemctl enable` makes it)
 *	ROOT/etc/network/if-up.d/debloat              an ifupdown hook, only where that
 *	                                              directory exists (Debian's ifupdown)
 *
 * Both run `debloat fix --apply-persisted IFACE`, which applies IFACE.conf's values
 * through the same journal as any fix (so `debloat undo` works after boot too). The
 * unit and hook texts are systemd/debloat-fix@.service and scripts/if-up.d/debloat with
 * the binary's path put in (tests/test-fix.sh compares them).
 *
 * IFACE.conf uses journal.h's line syntax:
 *
 *	debloat-persist 1
 *	iface eth0
 *	set root-qdisc eth0 - - "htb 95mbit pfifo limit 100"
 *	set sysctl - - net.ipv4.tcp_ecn "1"
 *	end
 *
 * `set KIND IFNAME QUEUE NAME VALUE`; IFNAME is the file's interface, or "-" for a
 * sysctl. Parsing is as strict as the journal's ("FILE:LINE: what").
 */
#ifndef DEBLOAT_FIX_PERSIST_H
#define DEBLOAT_FIX_PERSIST_H

#include <stddef.h>

#include "fix/knob.h"
#include "fix/plan.h"

#define PERSIST_VERSION	  1
#define PERSIST_MAX_BYTES (1u << 20)
#define PERSIST_MAX_SETS  4096
#define PERSIST_MAX_FILES 8

struct persist_set {
	struct knob knob;
	char value[KNOB_VALUE_MAX];
};

struct persist {
	char ifname[IF_NAMESIZE];
	struct persist_set *sets;
	size_t n, cap;
};

void persist_free(struct persist *ps);

/* -EINVAL (message "FILE:LINE: what" in err), -EPROTONOSUPPORT, -EFBIG, -ENOMEM. */
int persist_parse(const char *buf, size_t len, const char *file, struct persist *out, char *err,
		  size_t errlen);
/* Read ROOT/etc/debloat/IFNAME.conf; -ENOENT when there is none. */
int persist_read(const char *root, const char *ifname, struct persist *out, char *err,
		 size_t errlen);

/*
 * The text of target's file: its steps and the host-wide ones that are part of the
 * setup (planned, same or applied; not unsupported, refused or failed). *out malloc'ed.
 */
int persist_format(const struct plan *p, int target, char **out, size_t *len);

/* What persist_install wrote or persist_uninstall removed, for the report. */
struct persist_files {
	char path[PERSIST_MAX_FILES][4096];
	unsigned n;
};

/*
 * Write target's file, the unit, its enabling symlink and (where ROOT/etc/network/
 * if-up.d exists) the hook, each atomically. exe is the absolute path of the debloat
 * binary the unit and hook run. -errno with the failing path in err.
 */
int persist_install(const char *root, const struct plan *p, int target, const char *exe,
		    struct persist_files *written, char *err, size_t errlen);

/*
 * Remove the files of the named interfaces (all persisted ones when nnames is 0); the
 * unit and the hook go when no interface's file remains. -errno with the path in err.
 */
int persist_uninstall(const char *root, char *const names[], size_t nnames,
		      struct persist_files *removed, char *err, size_t errlen);

/* The unit and hook texts for a binary at exe. -ENOSPC. */
int persist_unit_text(const char *exe, char *buf, size_t len);
int persist_hook_text(const char *exe, char *buf, size_t len);

/* systemd's escaping of a unit-name instance ("br-lan" -> "br\x2dlan"). -ENOSPC. */
int persist_escape_instance(const char *ifname, char *buf, size_t len);

#endif
