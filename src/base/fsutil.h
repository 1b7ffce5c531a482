/* SPDX-License-Identifier: MIT */
/*
 * fsutil.h - the two file-system chores several layers share: making a directory with
 * its parents, and writing a whole buffer to a file descriptor.
 *
 * Both return 0 or -errno and never print.
 */
#ifndef DEBLOAT_FSUTIL_H
#define DEBLOAT_FSUTIL_H

#include <stddef.h>

/*
 * `mkdir -p path`, each missing directory made 0755 (less the umask); a directory
 * that is already there is fine. -ENAMETOOLONG when path has PATH_MAX bytes or more,
 * -ENOENT for an empty path (as mkdir(2)), else the first mkdir(2) error that is not
 * EEXIST. Directories made before a failure stay.
 */
int mkdir_p(const char *path);

/* write(2) until all len bytes are written, retrying after EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);

#endif
