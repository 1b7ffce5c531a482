/* SPDX-License-Identifier: MIT */
/*
 * http.h - the smallest HTTP/1.1 server a Prometheus scrape needs, and its request parser.
 *
 * One thread, one event loop (base/loop.h): a listening socket and at most
 * HTTP_MAX_CONNECTIONS clients, each with a timer for its deadline. Each client sends
 * one request of at most HTTP_MAX_REQUEST bytes (request line and headers; a body is
 * not read) and gets one response, then the connection is closed ("Connection:
 * close"): a scrape every 15 s gains nothing from keep-alive, and one request per
 * connection keeps the state to a buffer.
 *
 * Limits, so that no client keeps a scrape out: a client has HTTP_HEAD_MS from its
 * connect to the end of its request head and HTTP_TIMEOUT_MS to the end of its
 * response, whatever it does. One client network (base/peer.h: an IPv4 address, an
 * IPv6 /64) holds at most HTTP_MAX_PER_ADDR connections. At either limit the oldest
 * connection still sending its head (of the network, or of anyone when every slot is
 * taken) is closed for the new one; a response being sent is never cut. Only when
 * every slot is sending a response do new clients wait in the listen backlog.
 *
 * Answers: GET or HEAD of the one path served (query strings ignored) gets 200 and
 * whatever serve() produced (HEAD: headers only), or 500 when serve() fails; another
 * path 404; another method 405 with "Allow: GET, HEAD"; a malformed request 400; one
 * too long 431. Every response has Content-Length.
 *
 * Nothing here prints. http_serve returns when *stop becomes non-zero or on a failure
 * of the loop that is not about one client. While it serves, SIGINT and SIGTERM are
 * blocked and read from a signalfd in the loop, which sets *stop: a stop is never
 * missed between a check and the wait, and the loop wakes for nothing else. A signal
 * handler the caller installed (setting *stop too) covers the time before and after.
 */
#ifndef DEBLOAT_EXPORTER_HTTP_H
#define DEBLOAT_EXPORTER_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>

#define HTTP_MAX_REQUEST     8192
#define HTTP_MAX_CONNECTIONS 16
#define HTTP_TIMEOUT_MS	     10000
#define HTTP_HEAD_MS	     2000
#define HTTP_MAX_PER_ADDR    4
#define HTTP_PATH_MAX	     1024

enum http_method {
	HTTP_GET,
	HTTP_HEAD,
	HTTP_OTHER, /* POST, PUT...: 405 */
};

struct http_request {
	enum http_method method;
	char path[HTTP_PATH_MAX]; /* without the query string */
};

/*
 * Parse a request head from the first len bytes a client sent: the request line
 * ("GET /metrics HTTP/1.1"; HTTP/1.0 and 1.1 only) and header lines, up to the blank
 * line, found and walked by base/http1head.h (lines end in CRLF or LF; a header line
 * is "name: value", never folded; the values are not looked at). Returns the bytes
 * of the head (> 0) when complete, 0 when more is needed, -EINVAL when malformed,
 * -E2BIG when no end is found within HTTP_MAX_REQUEST bytes.
 * *out is written only on success.
 */
int http_parse_request(const char *buf, size_t len, struct http_request *out);

/*
 * "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (every address, IPv6 and IPv4 where the host
 * has IPv6) into *ss. Numeric addresses only; port 1 to 65535. -EINVAL.
 */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/* A listening TCP socket on *ss (SO_REUSEADDR, non-blocking, close-on-exec). -errno. */
int http_listen(const struct sockaddr_storage *ss, socklen_t len, int *fd);

struct http_body {
	char *data; /* malloc'ed; the server frees it */
	size_t len;
	const char *content_type;
};

struct http_server {
	int fd;		  /* from http_listen */
	const char *path; /* the one path served: "/metrics" */
	/* The body for a GET or HEAD of path; -errno makes a 500. */
	int (*serve)(void *ctx, struct http_body *body);
	/* Called every tick_ms (0: never), between requests; its errors are its own. */
	void (*tick)(void *ctx);
	unsigned tick_ms;
	void *ctx;
	volatile sig_atomic_t *stop;
};

int http_serve(const struct http_server *s);

#endif
