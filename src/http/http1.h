/* SPDX-License-Identifier: MIT */
/*
 * http/http1.h - the head of an HTTP/1.1 response, parsed from bytes off the wire (the
 * RPM client's HTTP/1.1 mode). Only what a client of the responsiveness test needs:
 * the status code, the body's framing (Content-Length, or read to the end, or chunked,
 * which the client refuses), and whether the server closes the connection after it.
 *
 * The head is the status line and header lines up to the empty line; lines end in
 * CRLF (a bare LF is accepted, as RFC 9112 allows). At most HTTP1_MAX_HEAD bytes: a
 * longer head is -EMSGSIZE, so a hostile server cannot make the client buffer
 * without bound. Anything malformed (no "HTTP/1.x", a status outside 100..999, a
 * header line without a colon, two different Content-Lengths, a number that is not
 * one) is -EBADMSG. Input need not be NUL-terminated. *out is written only on success.
 */
#ifndef DEBLOAT_HTTP_HTTP1_H
#define DEBLOAT_HTTP_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP1_MAX_HEAD 16384

struct http1_head {
	int status;	 /* 200 */
	bool has_length; /* Content-Length given */
	uint64_t content_length;
	bool chunked;	 /* Transfer-Encoding: chunked */
	bool close;	 /* Connection: close, or HTTP/1.0 without keep-alive */
	size_t head_len; /* bytes of the head, the empty line included */
};

/*
 * Parse the head at the start of buf. The head's length (> 0) when complete, 0 when
 * more bytes are needed, -EBADMSG or -EMSGSIZE.
 */
int http1_parse_head(const char *buf, size_t len, struct http1_head *out);

#endif
