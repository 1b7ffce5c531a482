/* SPDX-License-Identifier: MIT */
/*
 * http/nqconfig.h - the responsiveness test's URLs and its configuration document
 * (draft-ietf-ippm-responsiveness-09, "Responsiveness Test Server API"): the JSON a
 * server publishes at /.well-known/nq (or Apple's /api/v1/config):
 *
 *	{"version": 1,
 *	 "urls": {"small_download_url": "http://h:4080/small",   1 byte
 *	          "large_download_url": "http://h:4080/large",   endless (>= 8 GB)
 *	          "upload_url":         "http://h:4080/slurp"},  POST sink
 *	 "test_endpoint": "h.example"}                            optional
 *
 * Servers that follow Apple's and goserver's configs also name the same URLs under
 * small_https_download_url, large_https_download_url and https_upload_url; a key of
 * the draft's own three wins, the duplicate stands in where it is missing. Unknown keys
 * are ignored, as the draft says. "version", when present, must be 1. The three URLs
 * must share one host and port (the draft's MUST); test_endpoint, when given, is the
 * name or address to connect to in place of that host (the Host stays the URLs').
 *
 * URLs: "http://HOST[:PORT][/PATH]" or "https://..." with HOST a name, an IPv4
 * address or a bracketed IPv6 address; no user info, no fragment. The scheme decides
 * tls and the default port (80 or 443). Errors are -EINVAL with err saying why, for
 * a person: "urls.upload_url: not an http:// or https:// URL". *out is written only
 * on success.
 */
#ifndef DEBLOAT_HTTP_NQCONFIG_H
#define DEBLOAT_HTTP_NQCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define NQ_MAX_CONFIG_BYTES 65536 /* a config is a few hundred bytes */

struct nq_url {
	bool tls;	     /* https */
	char host[256];	     /* without brackets: "::1" */
	char port[6];	     /* "4080" */
	char authority[270]; /* host[:port] as sent in Host / :authority ("[::1]:4080") */
	char path[1024];     /* "/large", with any query; "/" when empty */
};

struct nq_config {
	struct nq_url small, large, upload;
	char test_endpoint[256]; /* "" when not given */
};

int nq_url_parse(const char *s, struct nq_url *out);
/* The whole URL back, "http://[::1]:4080/large". */
void nq_url_format(const struct nq_url *u, char *buf, size_t len);
int nq_config_parse(const char *buf, size_t len, struct nq_config *out, char *err, size_t errlen);

#endif
