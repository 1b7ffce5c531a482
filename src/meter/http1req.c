/* SPDX-License-Identifier: MIT */
/* meter/http1req.c - meter/http1req.h: the HTTP/1.1 request head parser. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "meter/http1req.h"

/* The end of the head (just past the empty line) within len, or 0. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Decimal digits only, no overflow. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (!n)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static bool name_is(const char *name, size_t n, const char *want)
{
	return n == strlen(want) && !strncasecmp(name, want, n);
}

/* Does a comma-separated header value hold token (any case)? */
static bool value_has(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i < n;) {
		size_t j = i, e;

		while (j < n && v[j] != ',')
			j++;
		while (i < j && (v[i] == ' ' || v[i] == '\t'))
			i++;
		e = j;
		while (e > i && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - i == tl && !strncasecmp(v + i, token, tl))
			return true;
		i = j + 1;
	}
	return false;
}

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
	size_t end = head_end(buf, len < HTTP1REQ_MAX_HEAD ? len : HTTP1REQ_MAX_HEAD), pos, eol, n;
	bool http10 = false, keep_alive = false, has_host = false;

	if (!end)
		return len >= HTTP1REQ_MAX_HEAD ? -EMSGSIZE : 0;
	eol = (size_t)((const char *)memchr(buf, '\n', end) - buf);
	n = eol && buf[eol - 1] == '\r' ? eol - 1 : eol;
	if (parse_request_line(buf, n, &r, &http10) < 0)
		return -EBADMSG;
	pos = eol + 1;
	while (pos < end) {
		const char *line = buf + pos, *colon, *v;
		size_t vn, nn;

		eol = (size_t)((const char *)memchr(line, '\n', end - pos) - line);
		n = eol && line[eol - 1] == '\r' ? eol - 1 : eol;
		pos += eol + 1;
		if (!n)
			break; /* the empty line */
		colon = memchr(line, ':', n);
		if (!colon || colon == line || line[0] == ' ' || line[0] == '\t')
			return -EBADMSG; /* no name, or an obsolete folded line */
		nn = (size_t)(colon - line);
		v = colon + 1;
		vn = n - (size_t)(v - line);
		while (vn && (*v == ' ' || *v == '\t'))
			v++, vn--;
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		if (name_is(line, nn, "content-length")) {
			uint64_t cl;

			if (parse_u64(v, vn, &cl) < 0 || (r.has_length && cl != r.content_length))
				return -EBADMSG;
			r.has_length = true;
			r.content_length = cl;
		} else if (name_is(line, nn, "transfer-encoding")) {
			r.chunked = r.chunked || value_has(v, vn, "chunked");
		} else if (name_is(line, nn, "connection")) {
			r.close = r.close || value_has(v, vn, "close");
			keep_alive = keep_alive || value_has(v, vn, "keep-alive");
		} else if (name_is(line, nn, "expect")) {
			r.expect_continue = r.expect_continue || value_has(v, vn, "100-continue");
		} else if (name_is(line, nn, "host")) {
			if (has_host || vn >= HTTP1REQ_HOST_MAX || memchr(v, '\0', vn))
				return -EBADMSG;
			has_host = true;
			memcpy(r.host, v, vn);
			r.host[vn] = '\0';
		}
	}
	if (http10 && !keep_alive)
		r.close = true;
	r.head_len = end;
	*out = r;
	return (int)end;
}
