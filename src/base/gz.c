/* SPDX-License-Identifier: MIT */
/* gz.c - gz.h over zlib's inflate/deflate. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "gz.h"
#include "outfile.h"

#define GZIP_WINDOW (15 + 16) /* zlib's spelling of "gzip wrapper, 32 KiB window" */
#define READ_CHUNK  16384

/* Compress into memory first: a failure then costs no file system work at all. */
static int deflate_buffer(const void *buf, size_t len, unsigned char **out, size_t *out_len)
{
	z_stream zs = {0};
	unsigned char *dst;
	uLong bound;
	int zr;

	if (len > UINT_MAX)
		return -EFBIG;
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&zs, (uLong)len);
	dst = malloc(bound);
	if (!dst) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = dst;
	zs.avail_out = (uInt)bound;
	zr = deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	if (zr != Z_STREAM_END) {
		free(dst);
		return -ENOMEM;
	}
	*out = dst;
	*out_len = bound - zs.avail_out;
	return 0;
}

int gz_write_file(const char *path, const void *buf, size_t len)
{
	unsigned char *z = NULL;
	size_t zlen = 0;
	int r;

	r = deflate_buffer(buf, len, &z, &zlen);
	if (r < 0)
		return r;
	r = outfile_write(path, z, zlen);
	free(z);
	return r;
}

static int zerr(int zr)
{
	return zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
}

/* Inflate from fd, or (fd < 0) from the whole of mem. */
static int inflate_from(int fd, const void *mem, size_t memlen, size_t max_len, void **buf,
			size_t *len)
{
	unsigned char in[READ_CHUNK];
	z_stream zs = {0};
	unsigned char *out = NULL, *grown;
	size_t cap = 0, used = 0, before;
	bool ended = false, eof = false;
	int r, zr;

	if (max_len > SIZE_MAX - 2 || memlen > UINT_MAX)
		return -EINVAL;
	if (inflateInit2(&zs, GZIP_WINDOW) != Z_OK)
		return -ENOMEM;
	if (fd < 0) {
		eof = true;
		zs.next_in = (unsigned char *)mem;
		zs.avail_in = (uInt)memlen;
	}
	for (;;) {
		if (zs.avail_in == 0 && !eof) {
			ssize_t n = read(fd, in, sizeof(in));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				r = -errno;
				goto out;
			}
			eof = n == 0;
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (ended) {
			if (zs.avail_in == 0) {
				if (eof)
					break;
				continue;
			}
			/* Another member follows: gzip allows concatenation. */
			if (inflateReset(&zs) != Z_OK) {
				r = -ENOMEM;
				goto out;
			}
			ended = false;
		}
		if (used == cap) {
			/* Room for one byte beyond max_len tells "too big" from "exactly max". */
			size_t want = cap ? cap * 2 : READ_CHUNK;

			if (want > max_len + 1)
				want = max_len + 1;
			grown = realloc(out, want + 1); /* + 1 for the terminating NUL */
			if (!grown) {
				r = -ENOMEM;
				goto out;
			}
			out = grown;
			cap = want;
		}
		zs.next_out = out + used;
		zs.avail_out = (uInt)(cap - used > UINT_MAX ? UINT_MAX : cap - used);
		before = zs.avail_out;
		zr = inflate(&zs, Z_NO_FLUSH);
		used += before - zs.avail_out;
		if (used > max_len) {
			r = -EFBIG;
			goto out;
		}
		if (zr == Z_STREAM_END) {
			ended = true;
		} else if (zr == Z_BUF_ERROR || (zr == Z_OK && before == zs.avail_out)) {
			/* No progress with room to spare: more input is needed. At the end
			 * of the file that means a truncated member (an empty file too). */
			if (eof && zs.avail_in == 0) {
				r = -EBADMSG;
				goto out;
			}
		} else if (zr != Z_OK) {
			r = zerr(zr);
			goto out;
		}
	}
	out[used] = '\0';
	*buf = out;
	*len = used;
	out = NULL;
	r = 0;
out:
	inflateEnd(&zs);
	free(out);
	return r;
}

int gz_read_file(const char *path, size_t max_len, void **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = inflate_from(fd, NULL, 0, max_len, buf, len);
	close(fd);
	return r;
}

int gz_inflate(const void *in, size_t in_len, size_t max_len, void **buf, size_t *len)
{
	return inflate_from(-1, in, in_len, max_len, buf, len);
}

bool gz_is_gzip(const void *buf, size_t len)
{
	const unsigned char *b = buf;

	return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int gz_read_any(const char *path, size_t max, char **buf, size_t *len)
{
	size_t cap = max < (1 << 16) ? max + 1 : 1 << 16, n = 0;
	/* "-" is standard input; a pipe (also /dev/stdin, <(...)) is read once, never rewound. */
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	struct stat st;
	char *b = NULL;
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		if (f != stdin)
			fclose(f);
		return -EISDIR;
	}
	for (;;) {
		char *nb;
		size_t got;

		if (!b || n == cap) {
			/* cap reaches max + 1 at most: a file that fills it is too big */
			if (b && cap > max) {
				ret = -EFBIG;
				break;
			}
			if (b)
				cap = cap > max / 2 ? max + 1 : cap * 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			ret = ferror(f) ? -EIO : 0;
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!ret && gz_is_gzip(b, n)) {
		void *z = NULL;

		ret = gz_inflate(b, n, max, &z, len);
		free(b);
		b = ret ? NULL : z;
		if (!ret)
			*buf = b;
		return ret;
	}
	if (ret < 0) {
		free(b);
		return ret;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
