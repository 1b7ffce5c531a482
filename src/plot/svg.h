/* SPDX-License-Identifier: MIT */
/*
 * plot/svg.h - an SVG document built in memory, then written whole.
 *
 * Errors (out of memory, a document over SVG_MAX_BYTES) are sticky: the drawing code
 * goes on without checking each call, and svg_finish() reports the first one.
 */
#ifndef DEBLOAT_PLOT_SVG_H
#define DEBLOAT_PLOT_SVG_H

#include <stddef.h>

/* No plot of ours needs more; beyond it something is drawing far too many points. */
#define SVG_MAX_BYTES (16u << 20)

struct svg {
	char *buf;
	size_t len, cap;
	int err; /* first -errno, sticky */
};

void svg_printf(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text content or an attribute value, with &, <, >, " escaped and control bytes dropped. */
void svg_escaped(struct svg *s, const char *text);
/* 0, or the first error; the buffer stays the caller's to free either way. */
int svg_finish(struct svg *s);
void svg_free(struct svg *s);

/*
 * Write len bytes to path without ever leaving a half-written file (path.XXXXXX
 * beside it, synced, renamed over path; mode 0644). -errno.
 */
int svg_write_file(const char *path, const char *buf, size_t len);

#endif
