/* SPDX-License-Identifier: MIT */
/* http/nqconfig.c - http/nqconfig.h: URLs and the /.well-known/nq document. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/json.h"
#include "base/say.h"
#include "http/nqconfig.h"

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

int nq_url_parse(const char *s, struct nq_url *out)
{
	struct nq_url u = {0};
	const char *p, *hend, *pend;
	size_t hl;

	if (!strncasecmp(s, "http://", 7))
		p = s + 7;
	else if (!strncasecmp(s, "https://", 8))
		p = s + 8, u.tls = true;
	else
		return -EINVAL;
	if (*p == '[') { /* [v6] */
		hend = strchr(p, ']');
		if (!hend)
			return -EINVAL;
		hl = (size_t)(hend - p - 1);
		for (size_t i = 1; i <= hl; i++)
			if (!strchr("0123456789abcdefABCDEF:.", p[i]))
				return -EINVAL;
		memcpy(u.host, p + 1, hl < sizeof(u.host) ? hl : 0);
		if (!hl || hl >= sizeof(u.host))
			return -EINVAL;
		p = hend + 1;
	} else {
		hend = p;
		while (host_char(*hend))
			hend++;
		hl = (size_t)(hend - p);
		if (!hl || hl >= sizeof(u.host))
			return -EINVAL;
		memcpy(u.host, p, hl);
		p = hend;
	}
	if (*p == ':') {
		unsigned long port = 0;

		pend = ++p;
		while (*pend >= '0' && *pend <= '9' && pend - p < 6)
			port = port * 10 + (unsigned long)(*pend++ - '0');
		if (pend == p || port < 1 || port > 65535)
			return -EINVAL;
		snprintf(u.port, sizeof(u.port), "%lu", port);
		p = pend;
	} else {
		snprintf(u.port, sizeof(u.port), "%s", u.tls ? "443" : "80");
	}
	if (*p && *p != '/' && *p != '?')
		return -EINVAL;
	if (strlen(p) + 2 > sizeof(u.path) || strchr(p, '#'))
		return -EINVAL;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return -EINVAL; /* would break the request line */
	snprintf(u.path, sizeof(u.path), "%s%s", *p == '/' ? "" : "/", p);
	snprintf(u.authority, sizeof(u.authority), "%s%s%s%s%s", strchr(u.host, ':') ? "[" : "",
		 u.host, strchr(u.host, ':') ? "]" : "",
		 strcmp(u.port, u.tls ? "443" : "80") ? ":" : "",
		 strcmp(u.port, u.tls ? "443" : "80") ? u.port : "");
	*out = u;
	return 0;
}

void nq_url_format(const struct nq_url *u, char *buf, size_t len)
{
	snprintf(buf, len, "%s://%s%s", u->tls ? "https" : "http", u->authority, u->path);
}

/* urls.KEY, or urls.ALT where KEY is missing. */
static int get_url(const struct jval *urls, const char *key, const char *alt, struct nq_url *u,
		   char *err, size_t errlen)
{
	const char *s = NULL, *used = key;
	int r = json_get_string(urls, key, &s);

	if (r == -ENOENT) {
		used = alt;
		r = json_get_string(urls, alt, &s);
	}
	if (r == -ENOENT)
		return say_einval(err, errlen, "urls.%s is missing", key);
	if (r < 0)
		return say_einval(err, errlen, "urls.%s is not a string", used);
	if (nq_url_parse(s, u) < 0)
		return say_einval(err, errlen, "urls.%s: not an http:// or https:// URL", used);
	return 0;
}

int nq_config_parse(const char *buf, size_t len, struct nq_config *out, char *err, size_t errlen)
{
	struct nq_config c = {0};
	struct json_error je = {0};
	struct jval *doc = NULL, *urls;
	const char *endpoint;
	int64_t version;
	int r;

	if (len > NQ_MAX_CONFIG_BYTES)
		return say_einval(err, errlen, "over %d bytes", NQ_MAX_CONFIG_BYTES);
	r = json_parse(buf, len, &doc, &je);
	if (r < 0) {
		if (r == -ENOMEM)
			return r;
		return json_say_error(&je, err, errlen);
	}
	if (json_kind_of(doc) != JSON_KIND_OBJECT) {
		r = say_einval(err, errlen, "not a JSON object");
		goto out;
	}
	r = json_get_int(doc, "version", &version);
	if (r == -EINVAL || (r == 0 && version != 1)) {
		r = say_einval(err, errlen, "version is not 1");
		goto out;
	}
	urls = json_get(doc, "urls");
	if (!urls || json_kind_of(urls) != JSON_KIND_OBJECT) {
		r = say_einval(err, errlen, "no \"urls\" object");
		goto out;
	}
	if ((r = get_url(urls, "small_download_url", "small_https_download_url", &c.small, err,
			 errlen)) < 0 ||
	    (r = get_url(urls, "large_download_url", "large_https_download_url", &c.large, err,
			 errlen)) < 0 ||
	    (r = get_url(urls, "upload_url", "https_upload_url", &c.upload, err, errlen)) < 0)
		goto out;
	if (strcmp(c.small.authority, c.large.authority) ||
	    strcmp(c.small.authority, c.upload.authority) || c.small.tls != c.large.tls ||
	    c.small.tls != c.upload.tls) {
		r = say_einval(err, errlen, "the URLs do not share one scheme, host and port");
		goto out;
	}
	r = json_get_string(doc, "test_endpoint", &endpoint);
	if (r == 0) {
		size_t n = strlen(endpoint);

		if (!n || n >= sizeof(c.test_endpoint) ||
		    strspn(endpoint, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789-._:") != n) {
			r = say_einval(err, errlen, "test_endpoint is not a host name or address");
			goto out;
		}
		memcpy(c.test_endpoint, endpoint, n + 1);
	} else if (r == -EINVAL) {
		r = say_einval(err, errlen, "test_endpoint is not a string");
		goto out;
	}
	*out = c;
	r = 0;
out:
	json_free(doc);
	return r;
}
