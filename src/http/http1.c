/* SPDX-License-Identifier: MIT */
/* http/http1.c - http/http1.h: the HTTP/1.1 response head parser. */
#include <errno.h>
#include <string.h>

#include "base/http1head.h"
#include "http/http1.h"

int http1_parse_head(const char *buf, size_t len, struct http1_head *out)
{
	struct http1_head h = {0};
	struct http1_framing fr = {0};
	struct http1_field f;
	size_t end = http1_head_end(buf, len < HTTP1_MAX_HEAD ? len : HTTP1_MAX_HEAD), pos;
	uint64_t status;
	int r;

	if (!end)
		return len >= HTTP1_MAX_HEAD ? -EMSGSIZE : 0;
	/* "HTTP/1.1 200 OK" */
	if (end < 13 || memcmp(buf, "HTTP/1.", 7) || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ')
		return -EBADMSG;
	if (http1_parse_u64(buf + 9, 3, &status) < 0 || status < 100 ||
	    (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n'))
		return -EBADMSG;
	h.status = (int)status;
	pos = (size_t)((const char *)memchr(buf, '\n', end) - buf) + 1;
	while ((r = http1_next_field(buf, end, &pos, &f)) > 0)
		if (http1_framing_field(&fr, &f) < 0)
			return -EBADMSG;
	if (r < 0)
		return r;
	h.has_length = fr.has_length;
	h.content_length = fr.content_length;
	h.chunked = fr.chunked;
	/* HTTP/1.0 closes unless asked to keep the connection */
	h.close = fr.close || (buf[7] == '0' && !fr.keep_alive);
	h.head_len = end;
	*out = h;
	return (int)end;
}
