/* SPDX-License-Identifier: MIT */
/* plot/svg.c - plot/svg.h: a growing text buffer and an atomic file write. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "plot/svg.h"

static int reserve(struct svg *s, size_t more)
{
	size_t cap = s->cap ? s->cap : 4096;
	char *nb;

	if (s->err)
		return s->err;
	if (s->len + more + 1 <= s->cap)
		return 0;
	if (s->len + more + 1 > SVG_MAX_BYTES)
		return s->err = -EFBIG;
	while (cap < s->len + more + 1)
		cap *= 2;
	nb = realloc(s->buf, cap);
	if (!nb)
		return s->err = -ENOMEM;
	s->buf = nb;
	s->cap = cap;
	return 0;
}

void svg_printf(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(s, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

void svg_escaped(struct svg *s, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		switch (*c) {
		case '&':
			svg_printf(s, "&amp;");
			break;
		case '<':
			svg_printf(s, "&lt;");
			break;
		case '>':
			svg_printf(s, "&gt;");
			break;
		case '"':
			svg_printf(s, "&quot;");
			break;
		default:
			/* XML 1.0 forbids most control characters, even escaped. */
			if (*c >= 0x20 && *c != 0x7f)
				svg_printf(s, "%c", *c);
		}
	}
}

int svg_finish(struct svg *s)
{
	if (!s->err && !s->buf)
		reserve(s, 0);
	return s->err;
}

void svg_free(struct svg *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

int svg_write_file(const char *path, const char *buf, size_t len)
{
	return outfile_write(path, buf, len);
}
