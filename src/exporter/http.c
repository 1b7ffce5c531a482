/* SPDX-License-Identifier: MIT */
/* http.c - http.h: a poll() loop over one listener and a few one-request connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/peer.h"
#include "exporter/http.h"

/* ---- the request parser ---- */

/* The end of the head: "\r\n\r\n", or "\n\n" from a client that sends bare LFs. */
static const char *head_end(const char *buf, size_t len, size_t *endlen)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n') {
			*endlen = i + 2;
			return buf + i;
		}
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n') {
			*endlen = i + 3;
			return buf + i;
		}
	}
	return NULL;
}

static bool token_char(char c)
{
	return c > ' ' && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

int http_parse_request(const char *buf, size_t len, struct http_request *out)
{
	struct http_request r = {0};
	size_t endlen, mlen, tlen, line;
	const char *sp, *target, *version;

	if (!head_end(buf, len, &endlen))
		return len >= HTTP_MAX_REQUEST ? -E2BIG : 0;
	if (endlen > HTTP_MAX_REQUEST)
		return -E2BIG;
	line = strcspn(buf, "\r\n");
	if (line >= endlen || memchr(buf, '\0', endlen))
		return -EINVAL;
	/* METHOD SP TARGET SP HTTP/1.x */
	for (mlen = 0; mlen < line && token_char(buf[mlen]); mlen++)
		;
	if (!mlen || mlen >= line || buf[mlen] != ' ')
		return -EINVAL;
	target = buf + mlen + 1;
	sp = memchr(target, ' ', line - mlen - 1);
	if (!sp)
		return -EINVAL;
	tlen = (size_t)(sp - target);
	version = sp + 1;
	if ((size_t)(buf + line - version) != 8 || strncmp(version, "HTTP/1.", 7) ||
	    (version[7] != '0' && version[7] != '1'))
		return -EINVAL;
	if (!tlen || target[0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)target[i] <= ' ' || target[i] == 127)
			return -EINVAL;
	tlen = strcspn(target, "? ");
	if (tlen >= sizeof(r.path))
		return -E2BIG;
	memcpy(r.path, target, tlen);
	if (mlen == 3 && !memcmp(buf, "GET", 3))
		r.method = HTTP_GET;
	else if (mlen == 4 && !memcmp(buf, "HEAD", 4))
		r.method = HTTP_HEAD;
	else
		r.method = HTTP_OTHER;
	*out = r;
	return (int)endlen;
}

/* ---- addresses ---- */

static bool parse_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	const char *colon;
	char host[INET6_ADDRSTRLEN + 1];
	size_t hlen;
	uint16_t p;

	if (!s)
		return -EINVAL;
	colon = strrchr(s, ':');
	if (!colon || !parse_port(colon + 1, &p))
		return -EINVAL;
	hlen = (size_t)(colon - s);
	memset(ss, 0, sizeof(*ss));
	if (hlen == 0) {
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_any;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		return 0;
	}
	if (s[0] == '[') {
		if (hlen < 3 || s[hlen - 1] != ']' || hlen - 2 > INET6_ADDRSTRLEN)
			return -EINVAL;
		memcpy(host, s + 1, hlen - 2);
		host[hlen - 2] = '\0';
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		return 0;
	}
	if (hlen > INET6_ADDRSTRLEN)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return -EINVAL; /* an IPv6 address needs its brackets: the port is ambiguous */
	in4->sin_family = AF_INET;
	in4->sin_port = htons(p);
	*len = sizeof(*in4);
	return 0;
}

int http_listen(const struct sockaddr_storage *ss, socklen_t len, int *out)
{
	struct sockaddr_storage any4;
	int fd, one = 1, zero = 0, r;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 && errno == EAFNOSUPPORT && ss->ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr)) {
		/* ":PORT" on a host without IPv6: every IPv4 address then. */
		struct sockaddr_in *in4 = (struct sockaddr_in *)&any4;

		memset(&any4, 0, sizeof(any4));
		in4->sin_family = AF_INET;
		in4->sin_addr.s_addr = htonl(INADDR_ANY);
		in4->sin_port = ((const struct sockaddr_in6 *)ss)->sin6_port;
		ss = &any4;
		len = sizeof(*in4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (const struct sockaddr *)ss, len) < 0 || listen(fd, 64) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*out = fd;
	return 0;
}

/* ---- the loop ---- */

struct conn {
	int fd;			      /* -1: free slot */
	struct sockaddr_storage peer; /* base/peer.h's */
	char in[HTTP_MAX_REQUEST];
	size_t inlen;
	char *out; /* the whole response, once the request is read */
	size_t outlen, outoff;
	int64_t since_ms, deadline_ms; /* accepted; closed at deadline_ms whatever it does */
};

static int64_t now_ms(void)
{
	return (int64_t)(mono_ns() / 1000000);
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->inlen = c->outlen = c->outoff = 0;
}

/* Headers and body in one buffer, so a response is one write when it fits. */
static int respond(struct conn *c, int status, const char *reason, const char *extra,
		   const char *type, const char *body, size_t len, bool head)
{
	char hdr[512];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		     "Connection: close\r\n\r\n",
		     status, reason, type, len, extra ? extra : "");
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return -EINVAL;
	c->out = malloc((size_t)n + (head ? 0 : len));
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, hdr, (size_t)n);
	if (!head && len)
		memcpy(c->out + n, body, len);
	c->outlen = (size_t)n + (head ? 0 : len);
	c->outoff = 0;
	return 0;
}

static int respond_text(struct conn *c, int status, const char *reason, const char *extra,
			const char *text, bool head)
{
	return respond(c, status, reason, extra, "text/plain; charset=utf-8", text, strlen(text),
		       head);
}

static int answer(const struct http_server *s, struct conn *c, int parsed,
		  const struct http_request *req)
{
	struct http_body body = {0};
	bool head = parsed > 0 && req->method == HTTP_HEAD;
	int r;

	if (parsed == -E2BIG)
		return respond_text(c, 431, "Request Header Fields Too Large", NULL,
				    "request too long\n", false);
	if (parsed < 0)
		return respond_text(c, 400, "Bad Request", NULL, "malformed request\n", false);
	if (req->method == HTTP_OTHER)
		return respond_text(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n",
				    "only GET and HEAD\n", false);
	if (strcmp(req->path, s->path)) {
		char text[128];

		snprintf(text, sizeof(text), "not found: the metrics are at %s\n", s->path);
		return respond_text(c, 404, "Not Found", NULL, text, head);
	}
	r = s->serve(s->ctx, &body);
	if (r < 0) {
		char text[160];

		snprintf(text, sizeof(text), "cannot read the host: %s\n", strerror(-r));
		return respond_text(c, 500, "Internal Server Error", NULL, text, head);
	}
	r = respond(c, 200, "OK", NULL, body.content_type, body.data, body.len, head);
	free(body.data);
	return r;
}

/* Read what the client sent; answer once the head is complete. <0: close it. */
static int conn_read(const struct http_server *s, struct conn *c)
{
	struct http_request req;
	ssize_t n;
	int parsed;

	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	c->inlen += (size_t)n;
	parsed = http_parse_request(c->in, c->inlen, &req);
	if (parsed == 0)
		return 0;
	c->deadline_ms = c->since_ms + HTTP_TIMEOUT_MS; /* the head is in: time to read on */
	return answer(s, c, parsed, &req);
}

/* Write what is left of the response; 1 when all of it is sent. */
static int conn_write(struct conn *c)
{
	ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	c->outoff += (size_t)n;
	return c->outoff == c->outlen;
}

/* A connection still sending its head (no response made): what may be evicted. */
static bool evictable(const struct conn *c)
{
	return c->fd >= 0 && !c->out;
}

/* The oldest evictable connection, from peer's network (NULL: any); how many from it. */
static struct conn *oldest_waiting(struct conn *conns, const struct sockaddr_storage *peer,
				   unsigned *from_net)
{
	struct conn *oldest = NULL;

	*from_net = 0;
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++) {
		struct conn *c = &conns[i];

		if (c->fd < 0 || (peer && !peer_same_net(&c->peer, peer, PEER_V6_BITS_DEFAULT)))
			continue;
		(*from_net)++;
		if (evictable(c) && (!oldest || c->since_ms < oldest->since_ms))
			oldest = c;
	}
	return oldest;
}

/*
 * Take one connection. At its network's share the network's oldest connection still
 * sending a head makes room (none: the new one is closed); with every slot taken, the
 * oldest such of anyone's. So one host that opens connections and sends nothing can
 * hold HTTP_MAX_PER_ADDR slots for HTTP_HEAD_MS at most, and never the rest.
 */
static void accept_one(const struct http_server *s, struct conn *conns)
{
	struct sockaddr_storage ss, peer;
	socklen_t len = sizeof(ss);
	struct conn *c = NULL, *victim;
	unsigned n;
	int fd = accept4(s->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	peer_addr(&ss, &peer);
	victim = oldest_waiting(conns, &peer, &n);
	if (n >= HTTP_MAX_PER_ADDR) {
		if (!victim) {
			close(fd);
			return;
		}
		conn_close(victim);
	}
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS && !c; i++)
		if (conns[i].fd < 0)
			c = &conns[i];
	if (!c && (c = oldest_waiting(conns, NULL, &n)))
		conn_close(c);
	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->peer = peer;
	c->since_ms = now_ms();
	c->deadline_ms = c->since_ms + HTTP_HEAD_MS;
}

static bool any_evictable(const struct conn *conns)
{
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++)
		if (evictable(&conns[i]))
			return true;
	return false;
}

int http_serve(const struct http_server *s)
{
	struct pollfd pfd[HTTP_MAX_CONNECTIONS + 1];
	struct conn *conns;
	sigset_t block, old;
	int64_t next_tick = s->tick_ms ? now_ms() : 0;
	int ret = 0;

	conns = calloc(HTTP_MAX_CONNECTIONS, sizeof(*conns));
	if (!conns)
		return -ENOMEM;
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++)
		conns[i].fd = -1;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!*s->stop) {
		int64_t now = now_ms(), wait = -1;
		struct timespec ts;
		size_t used = 0;
		int n;

		if (s->tick_ms && now >= next_tick) {
			s->tick(s->ctx);
			next_tick = now + s->tick_ms;
			now = now_ms();
		}
		if (s->tick_ms)
			wait = next_tick - now;
		for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++) {
			struct conn *c = &conns[i];

			pfd[i + 1].fd = -1;
			pfd[i + 1].events = 0;
			if (c->fd < 0)
				continue;
			if (now >= c->deadline_ms) {
				conn_close(c);
				continue;
			}
			used++;
			pfd[i + 1].fd = c->fd;
			pfd[i + 1].events = c->out ? POLLOUT : POLLIN;
			if (wait < 0 || c->deadline_ms - now < wait)
				wait = c->deadline_ms - now;
		}
		/* At the limit, with no connection to evict, the listener is not polled: new
		 * clients wait in the backlog. */
		pfd[0].fd = used < HTTP_MAX_CONNECTIONS || any_evictable(conns) ? s->fd : -1;
		pfd[0].events = POLLIN;
		if (wait >= 0) {
			ts.tv_sec = wait / 1000;
			ts.tv_nsec = (wait % 1000) * 1000000;
		}
		n = ppoll(pfd, HTTP_MAX_CONNECTIONS + 1, wait >= 0 ? &ts : NULL, &old);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++) {
			struct conn *c = &conns[i];
			short ev = pfd[i + 1].revents;
			int r = 0;

			if (c->fd < 0 || !ev)
				continue;
			if (!c->out && (ev & (POLLIN | POLLHUP | POLLERR)))
				r = conn_read(s, c);
			/* A response just made is tried at once: usually it all fits. */
			if (r >= 0 && c->out) {
				r = conn_write(c);
				if (r == 1)
					r = -1; /* done: close */
			}
			if (r < 0)
				conn_close(c);
		}
		if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN))
			accept_one(s, conns);
	}
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++)
		conn_close(&conns[i]);
	free(conns);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
