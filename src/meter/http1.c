/* SPDX-License-Identifier: MIT */
/* meter/http1.c - meter/http1.h: the HTTP/1.1 response head parser. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "meter/http1.h"

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

int http1_parse_head(const char *buf, size_t len, struct http1_head *out)
{
	struct http1_head h = {0};
	size_t end = head_end(buf, len < HTTP1_MAX_HEAD ? len : HTTP1_MAX_HEAD), pos, eol;
	bool http10, keep_alive = false;
	uint64_t status;

	if (!end)
		return len >= HTTP1_MAX_HEAD ? -EMSGSIZE : 0;
	/* "HTTP/1.1 200 OK" */
	if (end < 13 || memcmp(buf, "HTTP/1.", 7) || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ')
		return -EBADMSG;
	http10 = buf[7] == '0';
	if (parse_u64(buf + 9, 3, &status) < 0 || status < 100 ||
	    (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n'))
		return -EBADMSG;
	h.status = (int)status;
	pos = (size_t)((const char *)memchr(buf, '\n', end) - buf) + 1;
	while (pos < end) {
		const char *line = buf + pos, *colon, *v;
		size_t n, vn;

		eol = (size_t)((const char *)memchr(line, '\n', end - pos) - line);
		n = eol && line[eol - 1] == '\r' ? eol - 1 : eol;
		pos += eol + 1;
		if (!n)
			break; /* the empty line */
		colon = memchr(line, ':', n);
		if (!colon || colon == line || line[0] == ' ' || line[0] == '\t')
			return -EBADMSG; /* no name, or an obsolete folded line */
		v = colon + 1;
		vn = n - (size_t)(v - line);
		while (vn && (*v == ' ' || *v == '\t'))
			v++, vn--;
		while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
		if (name_is(line, (size_t)(colon - line), "content-length")) {
			uint64_t cl;

			if (parse_u64(v, vn, &cl) < 0 || (h.has_length && cl != h.content_length))
				return -EBADMSG;
			h.has_length = true;
			h.content_length = cl;
		} else if (name_is(line, (size_t)(colon - line), "transfer-encoding")) {
			h.chunked = h.chunked || value_has(v, vn, "chunked");
		} else if (name_is(line, (size_t)(colon - line), "connection")) {
			h.close = h.close || value_has(v, vn, "close");
			keep_alive = keep_alive || value_has(v, vn, "keep-alive");
		}
	}
	if (http10 && !keep_alive)
		h.close = true;
	h.head_len = end;
	*out = h;
	return (int)end;
}
