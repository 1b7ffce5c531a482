/* SPDX-License-Identifier: MIT */
/*
 * http/nqserve.h - what the responsiveness server (http/hserver.h) serves, whatever
 * the protocol: the routes of draft-ietf-ippm-responsiveness-09's server API, with the
 * paths Apple's and goresponsiveness' servers use, and the config document.
 *
 *	GET  /.well-known/nq   the config (JSON, below)
 *	GET  /api/v1/config    the same (Apple's path)
 *	GET  /api/v1/small     a 1-byte body
 *	GET  /api/v1/large     a body without end, zeros (the server bounds it in time)
 *	POST /api/v1/slurp     the body read and discarded, 200 at its end
 *
 * A known path with another method is 405, any other path 404. HEAD is not served
 * (405): no client of the test sends it.
 *
 * The config names the URLs under the draft's keys and under the *_https_* keys of
 * Apple's config, all with the scheme and authority of the request, so it works from
 * any client whatever name or address it used:
 *
 *	{"version": 1,
 *	 "urls": {"small_download_url": "http://AUTH/api/v1/small", ...
 *	          "small_https_download_url": ..., "large_https_download_url": ...,
 *	          "https_upload_url": ...},
 *	 "test_endpoint": "HOST"}
 *
 * test_endpoint is the host part of AUTH: where to connect, as the draft lets a server
 * say.
 */
#ifndef DEBLOAT_HTTP_NQSERVE_H
#define DEBLOAT_HTTP_NQSERVE_H

#include <stdbool.h>
#include <stddef.h>

#define NQ_PATH_CONFIG "/.well-known/nq"
#define NQ_PATH_SMALL  "/api/v1/small"
#define NQ_PATH_LARGE  "/api/v1/large"
#define NQ_PATH_SLURP  "/api/v1/slurp"

/* Room for the config document nq_config_write makes with the longest authority (255
 * bytes, seven times in it: about 2.3 KB). */
#define NQ_CONFIG_MAX 4096

enum nq_route {
	NQ_CONFIG,
	NQ_SMALL,
	NQ_LARGE,
	NQ_SLURP,
	NQ_NOT_FOUND,  /* 404 */
	NQ_BAD_METHOD, /* 405 */
};

/* The route of a method and a path (without its query). */
enum nq_route nq_route(const char *method, const char *path);

/*
 * Is s a usable authority, "host[:port]", "[v6]:port": letters, digits and ".-_:[]"
 * only, 1 to 255 bytes. A Host that is not is never copied into a URL.
 */
bool nq_authority_ok(const char *s);

/*
 * The config document for URLs of scheme ("http" or "https") and authority into buf.
 * Its length, or -EINVAL (an authority nq_authority_ok refuses) or -ENOSPC.
 */
int nq_config_write(char *buf, size_t len, const char *scheme, const char *authority);

#endif
