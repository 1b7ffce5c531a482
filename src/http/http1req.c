/* SPDX-License-Identifier: MIT */
/* http/http1req.c - http/http1req.h: the HTTP/1.1 request head parser. */
#include <errno.h>
#include <string.h>

#include "base/http1head.h"
#include "http/http1req.h"

/* "GET /path?q HTTP/1.1" into r; the line's length without its end. http10 set. */
static int parse_request_line(const char *line, size_t n, struct http1_req *r, bool *http10)
{
	const char *sp1 = memchr(line, ' ', n), *sp2, *target, *q;
	size_t mlen, tlen;

	if (!sp1)
		return -EBADMSG;
	mlen = (size_t)(sp1 - line);
	if (!mlen || mlen >= HTTP1REQ_METHOD_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < mlen; i++)
		if ((line[i] < 'A' || line[i] > 'Z') && (line[i] < 'a' || line[i] > 'z'))
			return -EBADMSG;
	target = sp1 + 1;
	sp2 = memchr(target, ' ', n - (size_t)(target - line));
	if (!sp2)
		return -EBADMSG;
	tlen = (size_t)(sp2 - target);
	if (!tlen || target[0] != '/' || tlen >= HTTP1REQ_PATH_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)target[i] <= ' ' || (unsigned char)target[i] >= 0x7f)
			return -EBADMSG;
	/* "HTTP/1.x" and nothing after it */
	if (n - (size_t)(sp2 + 1 - line) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return -EBADMSG;
	*http10 = sp2[8] == '0';
	memcpy(r->method, line, mlen);
	r->method[mlen] = '\0';
	q = memchr(target, '?', tlen);
	if (q)
		tlen = (size_t)(q - target);
	memcpy(r->path, target, tlen);
	r->path[tlen] = '\0';
	return 0;
}

int http1_parse_request(const char *buf, size_t len, struct http1_req *out)
{
	struct http1_req r = {0};
	struct http1_framing fr = {0};
	struct http1_field f;
	size_t end = http1_head_end(buf, len < HTTP1REQ_MAX_HEAD ? len : HTTP1REQ_MAX_HEAD), pos,
	       eol;
	bool http10 = false, has_host = false;
	int ret;

	if (!end)
		return len >= HTTP1REQ_MAX_HEAD ? -EMSGSIZE : 0;
	eol = (size_t)((const char *)memchr(buf, '\n', end) - buf);
	if (parse_request_line(buf, eol && buf[eol - 1] == '\r' ? eol - 1 : eol, &r, &http10) < 0)
		return -EBADMSG;
	pos = eol + 1;
	while ((ret = http1_next_field(buf, end, &pos, &f)) > 0) {
		ret = http1_framing_field(&fr, &f);
		if (ret < 0)
			return ret;
		if (ret > 0)
			continue;
		if (http1_field_is(&f, "expect")) {
			r.expect_continue =
			    r.expect_continue || http1_value_has(&f, "100-continue");
		} else if (http1_field_is(&f, "host")) {
			if (has_host || f.value_len >= HTTP1REQ_HOST_MAX ||
			    memchr(f.value, '\0', f.value_len))
				return -EBADMSG;
			has_host = true;
			memcpy(r.host, f.value, f.value_len);
			r.host[f.value_len] = '\0';
		}
	}
	if (ret < 0)
		return ret;
	r.has_length = fr.has_length;
	r.content_length = fr.content_length;
	r.chunked = fr.chunked;
	/* HTTP/1.0 closes unless asked to keep the connection */
	r.close = fr.close || (http10 && !fr.keep_alive);
	r.head_len = end;
	*out = r;
	return (int)end;
}
