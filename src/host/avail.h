/* SPDX-License-Identifier: MIT */
/*
 * avail.h - which qdisc kinds the running kernel can make, read-only: nothing is
 * loaded, nothing is created. In order of authority:
 *
 *   1. /sys/module/sch_KIND exists: the module is loaded (yes);
 *   2. the kernel's own configuration, /proc/config.gz (CONFIG_IKCONFIG_PROC):
 *      CONFIG_NET_SCH_KIND=y or =m is yes, "is not set" or absent is no;
 *   3. /lib/modules/RELEASE/modules.builtin and modules.dep: listed in either is yes
 *      (built in, or a loadable module is installed); both read and neither lists it
 *      is no.
 *
 * Anything else is unknown (a container with neither /proc/config.gz nor
 * /lib/modules). pfifo_fast and pfifo live in sch_generic/sch_fifo: always built in.
 */
#ifndef DEBLOAT_HOST_AVAIL_H
#define DEBLOAT_HOST_AVAIL_H

#include <stdbool.h>
#include <stddef.h>

/* Where the host's files are; tests point these at a fake tree. */
struct host_paths {
	const char *sysfs;   /* "/sys" */
	const char *procsys; /* "/proc/sys" */
	const char *modules; /* "/lib/modules" (NULL: module lists not read) */
	const char *kconfig; /* "/proc/config.gz" (NULL: not read) */
};

/* Whether the running kernel can make a qdisc kind (module present or built in). */
enum qdisc_avail {
	QDISC_AVAIL_UNKNOWN,
	QDISC_AVAIL_NO,
	QDISC_AVAIL_YES,
};

#define HOST_NQDISC_KINDS 8 /* fq_codel, fq, cake, codel, htb, tbf, pfifo_fast, pfifo */

struct qdisc_kind_avail {
	const char *kind;
	enum qdisc_avail avail;
};

#define AVAIL_MAX_LINE	  512	     /* modules.dep lines: a module and its dependencies */
#define AVAIL_MAX_KCONFIG (4u << 20) /* /proc/config.gz inflated: ~250 KB in practice */

/* The kinds in host->qdisc_kinds order. */
extern const char *const avail_qdisc_kinds[HOST_NQDISC_KINDS];

/*
 * Fill out[] for every kind from paths->sysfs, ->kconfig and ->modules (each may be
 * NULL: not read) for kernel `release` (`uname -r`; "" or NULL: the module lists are
 * not read). Never fails: what cannot be told is QDISC_AVAIL_UNKNOWN.
 */
void avail_qdiscs(const struct host_paths *paths, const char *release,
		  struct qdisc_kind_avail out[HOST_NQDISC_KINDS]);

/*
 * After the kernel refused to make KIND (ENOENT, with the table above saying yes or
 * unknown): whether it can still make it, that is, its module is loaded now
 * (paths->sysfs/module/sch_KIND) or built in (modules.builtin of `release` lists it).
 * False means the kernel's own attempt to load it failed: the module modules.dep
 * lists is missing or refuses to load.
 */
bool avail_loaded_or_builtin(const struct host_paths *paths, const char *release, const char *kind);

/* The entry for a kind in a host's table; QDISC_AVAIL_UNKNOWN when not listed. */
enum qdisc_avail avail_of(const struct qdisc_kind_avail *kinds, size_t n, const char *kind);

#endif
