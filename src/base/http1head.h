/* SPDX-License-Identifier: MIT */
/*
 * base/http1head.h - what the HTTP/1.1 response head parser (http/http1.h) and the
 * request head parser (http/http1req.h) share: finding the end of a head, walking
 * its header lines, and the fields that frame a message body (RFC 9112 sections 6
 * and 9.3), which are the same in a request and a response.
 *
 * Lines end in CRLF or a bare LF. A header line is "name: value"; the value is
 * trimmed of spaces and tabs at both ends. A line without a colon, with an empty name
 * or starting with white space (obsolete folding) is -EBADMSG. Input need not be
 * NUL-terminated: every function takes lengths and reads nothing past them.
 */
#ifndef DEBLOAT_BASE_HTTP1HEAD_H
#define DEBLOAT_BASE_HTTP1HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One header line: pointers into the caller's buffer, not NUL-terminated. */
struct http1_field {
	const char *name;
	size_t name_len;
	const char *value; /* trimmed */
	size_t value_len;
};

/* The body's framing and the connection's fate, as the header lines give them. */
struct http1_framing {
	bool has_length; /* Content-Length given */
	uint64_t content_length;
	bool chunked;	 /* Transfer-Encoding holds "chunked" */
	bool close;	 /* Connection holds "close" */
	bool keep_alive; /* Connection holds "keep-alive" */
};

/* The end of the head (just past its empty line) within buf[0..len), or 0. */
size_t http1_head_end(const char *buf, size_t len);

/* Decimal digits only (at least one), no overflow: 0, or -EBADMSG; *out on success. */
int http1_parse_u64(const char *s, size_t n, uint64_t *out);

/*
 * The header line at *pos of a head that ends at end (http1_head_end's answer): 1 and
 * *f with *pos moved past the line, 0 at the empty line that ends the head (or at
 * end), -EBADMSG for a malformed line.
 */
int http1_next_field(const char *buf, size_t end, size_t *pos, struct http1_field *f);

/* Is the field's name want (any case)? */
bool http1_field_is(const struct http1_field *f, const char *want);

/* Does the field's comma-separated value hold token (any case)? */
bool http1_value_has(const struct http1_field *f, const char *token);

/*
 * Take f into fr when it frames the body (Content-Length, Transfer-Encoding,
 * Connection): 1 when it did, 0 when f is another field, -EBADMSG for a length that
 * is not a number or differs from one given before.
 */
int http1_framing_field(struct http1_framing *fr, const struct http1_field *f);

#endif
