/* SPDX-License-Identifier: MIT */
/*
 * textfile.h - the exposition as DIR/debloat.prom for node_exporter's textfile
 * collector, which reads every *.prom of its directory at each of its scrapes.
 *
 * The collector must never see half a file, so each write goes to a temporary file in
 * the same directory (".debloat.prom.XXXXXX": a name the collector skips, on the same
 * file system so the rename is atomic), is fsynced, made 0644 and renamed over
 * debloat.prom; the directory is fsynced after. A failure removes the temporary file
 * and leaves the previous debloat.prom as it was.
 *
 * Odd targets are refused, not written through: DIR must exist and be a directory
 * (-ENOENT, -ENOTDIR), and DIR/debloat.prom, when it exists, must be a regular file
 * (-EEXIST for a symlink, device, FIFO, socket or directory there: renaming over it
 * would replace what the administrator put there).
 */
#ifndef DEBLOAT_EXPORTER_TEXTFILE_H
#define DEBLOAT_EXPORTER_TEXTFILE_H

#include <stddef.h>

#define TEXTFILE_NAME "debloat.prom"

/* The checks above, without writing. */
int textfile_check(const char *dir);
int textfile_write(const char *dir, const char *buf, size_t len);

#endif
