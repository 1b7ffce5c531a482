/* SPDX-License-Identifier: MIT */
/* http/nqserve.c - http/nqserve.h: the responsiveness server's routes and config. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "http/nqserve.h"

enum nq_route nq_route(const char *method, const char *path)
{
	static const struct {
		const char *path, *method;
		enum nq_route route;
	} routes[] = {
	    {NQ_PATH_CONFIG, "GET", NQ_CONFIG}, {"/api/v1/config", "GET", NQ_CONFIG},
	    {NQ_PATH_SMALL, "GET", NQ_SMALL},	{NQ_PATH_LARGE, "GET", NQ_LARGE},
	    {NQ_PATH_SLURP, "POST", NQ_SLURP},
	};

	for (size_t i = 0; i < COUNT(routes); i++)
		if (!strcmp(path, routes[i].path))
			return strcmp(method, routes[i].method) ? NQ_BAD_METHOD : routes[i].route;
	return NQ_NOT_FOUND;
}

bool nq_authority_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 255)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(".-_:[]", c)))
			return false;
	}
	return true;
}

/* The host part of an authority: "[::1]:4043" -> "::1", "h:80" -> "h". */
static void authority_host(const char *auth, char *host, size_t len)
{
	size_t n;

	if (auth[0] == '[') {
		n = strcspn(auth + 1, "]");
		snprintf(host, len, "%.*s", (int)n, auth + 1);
		return;
	}
	n = strcspn(auth, ":");
	snprintf(host, len, "%.*s", (int)n, auth);
}

int nq_config_write(char *buf, size_t len, const char *scheme, const char *authority)
{
	char host[256];
	int n;

	if (!nq_authority_ok(authority) || (strcmp(scheme, "http") && strcmp(scheme, "https")))
		return -EINVAL;
	authority_host(authority, host, sizeof(host));
#define URL(p) scheme, authority, p
	n = snprintf(buf, len,
		     "{\"version\": 1,\n"
		     " \"urls\": {\"small_download_url\": \"%s://%s%s\",\n"
		     "          \"large_download_url\": \"%s://%s%s\",\n"
		     "          \"upload_url\": \"%s://%s%s\",\n"
		     "          \"small_https_download_url\": \"%s://%s%s\",\n"
		     "          \"large_https_download_url\": \"%s://%s%s\",\n"
		     "          \"https_upload_url\": \"%s://%s%s\"},\n"
		     " \"test_endpoint\": \"%s\"}\n",
		     URL(NQ_PATH_SMALL), URL(NQ_PATH_LARGE), URL(NQ_PATH_SLURP), URL(NQ_PATH_SMALL),
		     URL(NQ_PATH_LARGE), URL(NQ_PATH_SLURP), host);
#undef URL
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}
