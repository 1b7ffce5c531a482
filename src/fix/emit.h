/* SPDX-License-Identifier: MIT */
/*
 * emit.h - a plan (plan.h) as the configuration files fleets keep, instead of applied:
 * `debloat fix --emit networkd|udev|nm`. Pure: the plan in, file texts and warnings
 * out; nothing is read from or written to the host here except by emit_write_dir.
 *
 * Which steps: those of every target neither skipped nor refused whose status is
 * STEP_PLANNED or STEP_SAME (a setting already in place is still part of the setup a
 * boot must rebuild), and the host-wide ones. Each format carries what its tool can
 * express; every other step becomes a comment in the file ("# debloat: cannot ...")
 * AND a warning in emit.warnings, never dropped in silence.
 *
 *	networkd  10-debloat-IFACE.link         [Match] OriginalName=IFACE, [Link]:
 *	                                        txqueuelen, rings, offloads, gso_max_size
 *	          90-debloat-IFACE.network.conf a .network drop-in: the root qdisc
 *	                                        (fq_codel, fq, cake, pfifo, bfifo,
 *	                                        pfifo_fast; htb with its class and leaf)
 *	          90-debloat.sysctl.conf        the host-wide sysctls, for sysctl.d
 *	udev      90-debloat-IFACE.rules        BQL limit_max per TX queue, on the device
 *	                                        (by its kernel name, and by NAME== after a
 *	                                        rename)
 *	nm        debloat-IFACE.nmcli           nmcli connection modify: ethtool.*
 *	                                        offloads and rings, tc.qdiscs
 *
 * Keys are those of systemd 252's systemd.link(5) and systemd.network(5) (Debian 12;
 * tests/test-fix-emit.sh checks every one against the installed man pages), and
 * NetworkManager 1.42's nm-settings-nmcli(5). docs/design/fleet-config.md says why each
 * file has its shape:
 * the drop-in, the naming policy in the .link file, the udev rules on the device.
 */
#ifndef DEBLOAT_FIX_EMIT_H
#define DEBLOAT_FIX_EMIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "fix/plan.h"

enum emit_format {
	EMIT_NETWORKD,
	EMIT_UDEV,
	EMIT_NM,
};

#define EMIT_MAX_FILES	  512 /* two per interface, one per host: 255 interfaces */
#define EMIT_NAME_MAX	  64
#define EMIT_MAX_WARNINGS 64
#define EMIT_WARNING_MAX  320
#define EMIT_FILE_MAX	  (256u << 10) /* one file's text: far above any plan's */

struct emit_file {
	char name[EMIT_NAME_MAX]; /* a plain file name: no '/', not "." or ".." */
	char *text;
	size_t len, cap;
};

struct emit {
	enum emit_format format;
	struct emit_file files[EMIT_MAX_FILES];
	unsigned nfiles;
	char warnings[EMIT_MAX_WARNINGS][EMIT_WARNING_MAX];
	unsigned nwarnings, lost_warnings; /* lost: beyond EMIT_MAX_WARNINGS */
	int err;			   /* the first -errno of a builder; sticky */
};

/* "networkd", "udev", "nm"; -EINVAL for another name. */
int emit_format_from_name(const char *name);
const char *emit_format_name(enum emit_format f);

/* Fill out (zeroed here) from the plan. 0, or -ENOMEM, -E2BIG (too many files or too
 * long a file), -EINVAL (a name or value the formats cannot carry safely). */
int emit_plan(const struct plan *p, enum emit_format f, struct emit *out);
void emit_free(struct emit *e);

/*
 * Write every file into the directory dir, all or nothing: none may exist already
 * (files are never replaced: -EEXIST, *bad its index), each is written to a temporary
 * file in dir (O_EXCL, O_NOFOLLOW), fsynced, then linked to its name, which fails
 * rather than replace anything; on any error the files made so far are removed.
 * -ENOTDIR, -ENOENT, -EACCES... from dir; *bad is SIZE_MAX for errors of dir itself.
 */
int emit_write_dir(const char *dir, const struct emit *e, size_t *bad);

/* ---- for the emitters (emit-*.c) ---- */

/* A new file named by fmt; NULL (e->err set) when there are too many. */
struct emit_file *emit_file_new(struct emit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append one line (a newline is added). */
void emit_line(struct emit *e, struct emit_file *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A step the format cannot express: "# debloat: cannot set WHAT to VALUE here: WHY" in
 * f (may be NULL: a warning only), and the same as a warning naming the format. */
void emit_cannot(struct emit *e, struct emit_file *f, const struct plan_step *s, const char *why,
		 ...) __attribute__((format(printf, 4, 5)));
/* A warning only ("FORMAT: ..." is prefixed). */
void emit_warn(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Is this step part of the setup to emit (see above)? */
bool emit_step_wanted(const struct plan *p, const struct plan_step *s);
/* Warn about every wanted host-wide step (sysctls): a per-link format cannot hold them,
 * and `--emit networkd` writes them for sysctl.d. */
void emit_cannot_host_wide(const struct plan *p, struct emit *e);
/* The second of the pair in pairs[0..n) whose first is key; NULL when none is. */
const char *emit_lookup(const char *const (*pairs)[2], size_t n, const char *key);
/* Is this target to be emitted at all? */
bool emit_target_wanted(const struct plan_target *t);

int emit_networkd(const struct plan *p, struct emit *e);
int emit_udev(const struct plan *p, struct emit *e);
int emit_nm(const struct plan *p, struct emit *e);

#endif
