/* SPDX-License-Identifier: MIT */
/*
 * gz.h - whole gzip files in and out. The only file that knows zlib.
 *
 * gz_write_file() never leaves a half-written PATH: it writes PATH.XXXXXX in the
 * same directory, fsyncs it and renames it over PATH. On any failure the temporary
 * file is removed and PATH is as it was.
 *
 * gz_read_file() inflates one gzip file (concatenated members allowed) into a new
 * buffer of at most max_len bytes, NUL-terminated one byte past *len for the
 * convenience of text readers. A truncated or corrupt file is -EBADMSG, a bigger one
 * -EFBIG; *buf and *len are untouched on failure. gz_inflate() does the same from a
 * buffer already read (a pipe cannot be read twice); gz_is_gzip() tells by the magic.
 */
#ifndef DEBLOAT_GZ_H
#define DEBLOAT_GZ_H

#include <stdbool.h>
#include <stddef.h>

int gz_write_file(const char *path, const void *buf, size_t len);
int gz_read_file(const char *path, size_t max_len, void **buf, size_t *len);
int gz_inflate(const void *in, size_t in_len, size_t max_len, void **buf, size_t *len);
bool gz_is_gzip(const void *buf, size_t len);
/*
 * A file that may be gzipped, told by its first bytes: inflated when it is, as it is when
 * not, at most max bytes either way (-EFBIG beyond), NUL-terminated. "-" is standard
 * input; pipes (/dev/stdin, <(...)) are read once, never rewound.
 */
int gz_read_any(const char *path, size_t max, char **buf, size_t *len);

#endif
