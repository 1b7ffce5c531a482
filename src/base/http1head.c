/* SPDX-License-Identifier: MIT */
/* base/http1head.c - base/http1head.h: the HTTP/1.1 head scanning both parsers share. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "base/http1head.h"

size_t http1_head_end(const char *buf, size_t len)
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

int http1_parse_u64(const char *s, size_t n, uint64_t *out)
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

int http1_next_field(const char *buf, size_t end, size_t *pos, struct http1_field *f)
{
	const char *line = buf + *pos, *nl, *colon, *v;
	size_t eol, n, vn;

	if (*pos >= end)
		return 0;
	nl = memchr(line, '\n', end - *pos);
	eol = nl ? (size_t)(nl - line) : end - *pos;
	n = eol && line[eol - 1] == '\r' ? eol - 1 : eol;
	*pos += eol + 1;
	if (!n)
		return 0; /* the empty line */
	colon = memchr(line, ':', n);
	if (!colon || colon == line || line[0] == ' ' || line[0] == '\t')
		return -EBADMSG; /* no name, or an obsolete folded line */
	v = colon + 1;
	vn = n - (size_t)(v - line);
	while (vn && (*v == ' ' || *v == '\t'))
		v++, vn--;
	while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	f->name = line;
	f->name_len = (size_t)(colon - line);
	f->value = v;
	f->value_len = vn;
	return 1;
}

bool http1_field_is(const struct http1_field *f, const char *want)
{
	return f->name_len == strlen(want) && !strncasecmp(f->name, want, f->name_len);
}

bool http1_value_has(const struct http1_field *f, const char *token)
{
	const char *v = f->value;
	size_t n = f->value_len, tl = strlen(token);

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

int http1_framing_field(struct http1_framing *fr, const struct http1_field *f)
{
	if (http1_field_is(f, "content-length")) {
		uint64_t cl;

		if (http1_parse_u64(f->value, f->value_len, &cl) < 0 ||
		    (fr->has_length && cl != fr->content_length))
			return -EBADMSG;
		fr->has_length = true;
		fr->content_length = cl;
	} else if (http1_field_is(f, "transfer-encoding")) {
		fr->chunked = fr->chunked || http1_value_has(f, "chunked");
	} else if (http1_field_is(f, "connection")) {
		fr->close = fr->close || http1_value_has(f, "close");
		fr->keep_alive = fr->keep_alive || http1_value_has(f, "keep-alive");
	} else {
		return 0;
	}
	return 1;
}
