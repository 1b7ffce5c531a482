/* SPDX-License-Identifier: MIT */
/*
 * cc.h - TCP congestion control names: which ones this host can use, and which ones a
 * server may set for a client.
 *
 * The kernel keeps two lists, space-separated names in /proc/sys/net/ipv4/:
 * tcp_available_congestion_control (registered: built in or already loaded) and
 * tcp_allowed_congestion_control (what an unprivileged socket may pick; a subset of
 * the available ones). Setting TCP_CONGESTION with CAP_NET_ADMIN to a name that is
 * not registered makes the kernel try to load module tcp_<name>; that is why a
 * server run as root must decide from the lists, not from setsockopt's answer.
 *
 * Library code: nothing here prints.
 */
#ifndef DEBLOAT_METER_CC_H
#define DEBLOAT_METER_CC_H

#include <stdbool.h>
#include <stddef.h>

#define CC_NAME_MAX	  15 /* TCP_CA_NAME_MAX - 1 */
#define CC_ALLOWED_PATH	  "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
#define CC_AVAILABLE_PATH "/proc/sys/net/ipv4/tcp_available_congestion_control"

/* 1 to CC_NAME_MAX of letters, digits, '_' and '-': what a module name can be. */
bool cc_name_ok(const char *name);

/* Is name a word of list (words separated by spaces, tabs, newlines or commas)? */
bool cc_list_has(const char *list, const char *name);

/*
 * One of the kernel's lists (a path above) into buf, NUL-terminated, newline
 * stripped. 0, or -errno (buf is then ""); -EMSGSIZE when it does not fit.
 */
int cc_list_read(const char *path, char *buf, size_t len);

/*
 * May a server set congestion control name for a client? allowed and available are
 * the kernel's lists (as read by cc_list_read), extra the operator's additions
 * (comma-separated, may be NULL). 0 when name is in allowed, or in extra and in
 * available (registered: setting it loads nothing); -ENOENT when it is in extra but
 * not registered; -EPERM otherwise (and for a name that is not a name).
 */
int cc_server_allows(const char *name, const char *allowed, const char *available,
		     const char *extra);

/*
 * Can this host's TCP use congestion control name? 0, or -errno of setting it on a
 * socket as every flow will: -ENOENT (no such algorithm, or its module cannot load),
 * -EPERM (not in tcp_allowed_congestion_control for this user). With CAP_NET_ADMIN
 * this may load the module: for a client's own choice, never for a peer's.
 */
int cc_usable(const char *name);

#endif
