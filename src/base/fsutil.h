/* SPDX-License-Identifier: MIT */
/*
 * fsutil.h - the file-system chores several layers share: making a directory with its
 * parents, writing a whole buffer to a file descriptor, and reading a whole file of
 * bounded size.
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

/* read_file_capped's flags */
#define READ_REGULAR  1u /* regular files only: a FIFO or device could block or never end */
#define READ_NOFOLLOW 2u /* a symbolic link as the last component is -ELOOP */

/*
 * The whole of path into a new buffer (*buf, NUL-terminated, *len bytes; free it), read
 * to the end of the file, not to its stat size (it may be growing, or be a pipe or a
 * /proc file). -EFBIG when it holds more than max bytes, -EISDIR for a directory, with
 * READ_REGULAR -EINVAL for anything else that is not a regular file, else -errno.
 * *buf and *len are written only on success.
 */
int read_file_capped(const char *path, size_t max, unsigned flags, char **buf, size_t *len);

#endif
