/* SPDX-License-Identifier: MIT */
/*
 * http/http1req.h - the head of an HTTP/1.1 request, parsed from bytes off the wire
 * (the responsiveness server's HTTP/1.1 side, http/hserver.h). Only what that server
 * needs: the method, the path (the request target without its query), the Host, the
 * body's framing and whether the client wants the connection closed or a 100 Continue.
 *
 * The head is the request line and header lines up to the empty line; lines end in
 * CRLF (a bare LF is accepted, as RFC 9112 allows). At most HTTP1REQ_MAX_HEAD bytes:
 * a longer head is -EMSGSIZE (the server answers 431), so no client makes the server
 * buffer without bound. Malformed input is -EBADMSG (answered 400): a request line
 * that is not "METHOD SP /target SP HTTP/1.x" (origin form only), a method longer than
 * HTTP1REQ_METHOD_MAX - 1 or not all letters, a target longer than HTTP1REQ_PATH_MAX - 1,
 * a header line without a colon or folded, two different Content-Lengths, a number
 * that is not one, a Host longer than HTTP1REQ_HOST_MAX - 1 or given twice. Input
 * need not be NUL-terminated. *out is written only on success.
 */
#ifndef DEBLOAT_HTTP_HTTP1REQ_H
#define DEBLOAT_HTTP_HTTP1REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP1REQ_MAX_HEAD   8192
#define HTTP1REQ_METHOD_MAX 16
#define HTTP1REQ_PATH_MAX   1024
#define HTTP1REQ_HOST_MAX   256

struct http1_req {
	char method[HTTP1REQ_METHOD_MAX]; /* "GET", as sent (methods are case-sensitive) */
	char path[HTTP1REQ_PATH_MAX];	  /* "/api/v1/large", the query cut off */
	char host[HTTP1REQ_HOST_MAX];	  /* the Host header, "" when absent */
	bool has_length;		  /* Content-Length given */
	uint64_t content_length;
	bool chunked;	      /* Transfer-Encoding: chunked */
	bool close;	      /* Connection: close, or HTTP/1.0 without keep-alive */
	bool expect_continue; /* Expect: 100-continue */
	size_t head_len;      /* bytes of the head, the empty line included */
};

/*
 * Parse the head at the start of buf. The head's length (> 0) when complete, 0 when
 * more bytes are needed, -EBADMSG or -EMSGSIZE.
 */
int http1_parse_request(const char *buf, size_t len, struct http1_req *out);

#endif
