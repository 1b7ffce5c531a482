/* SPDX-License-Identifier: MIT */
/* http.c - http.h: one listener and a few one-request connections on base/loop.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "base/http1head.h"
#include "base/loop.h"
#include "base/peer.h"
#include "exporter/http.h"

/* ---- the request parser ---- */

static bool token_char(char c)
{
	return c > ' ' && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

int http_parse_request(const char *buf, size_t len, struct http_request *out)
{
	struct http_request r = {0};
	struct http1_field f;
	size_t end, mlen, tlen, line, pos;
	const char *sp, *target, *version;
	int more;

	/* base/http1head.h finds the end; a head ending past the limit is never looked at */
	end = http1_head_end(buf, len < HTTP_MAX_REQUEST ? len : HTTP_MAX_REQUEST);
	if (!end)
		return len >= HTTP_MAX_REQUEST ? -E2BIG : 0;
	line = strcspn(buf, "\r\n");
	if (line >= end || memchr(buf, '\0', end))
		return -EINVAL;
	/* the request line ends in CRLF or a bare LF; a lone CR is no line end */
	pos = line + (buf[line] == '\r') + 1;
	if (buf[pos - 1] != '\n')
		return -EINVAL;
	/* the header lines, each "name: value" (base/http1head.h), up to the empty line */
	while ((more = http1_next_field(buf, end, &pos, &f)) > 0)
		;
	if (more < 0)
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
	return (int)end;
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

struct server_state;

struct conn {
	struct server_state *srv;
	int fd;			      /* -1: free slot */
	struct sockaddr_storage peer; /* base/peer.h's */
	char in[HTTP_MAX_REQUEST];
	size_t inlen;
	char *out; /* the whole response, once the request is read */
	size_t outlen, outoff;
	uint64_t since_ns; /* accepted, on the loop's clock */
	uint64_t timer;	   /* closes it at its deadline, whatever it does */
};

struct server_state {
	const struct http_server *s;
	struct loop *loop;
	bool listening; /* the listener is in the loop */
	int ret;	/* a failure that ends the loop */
	struct conn conns[HTTP_MAX_CONNECTIONS];
};

#define MS_NS 1000000ull

static void conn_close(struct conn *c)
{
	if (c->fd >= 0) {
		loop_del(c->srv->loop, c->fd);
		close(c->fd);
	}
	if (c->timer)
		loop_timer_del(c->srv->loop, c->timer);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->timer = 0;
	c->inlen = c->outlen = c->outoff = 0;
}

static void conn_expired(struct loop *l, uint64_t id, void *ctx)
{
	struct conn *c = ctx;

	(void)l;
	(void)id;
	c->timer = 0;
	conn_close(c);
}

/* Close c at since + ms (in place of the deadline it had). -ENOMEM. */
static int conn_deadline(struct conn *c, unsigned ms)
{
	loop_timer_del(c->srv->loop, c->timer);
	c->timer = loop_timer_at(c->srv->loop, c->since_ns + ms * MS_NS, conn_expired, c);
	return c->timer ? 0 : -ENOMEM;
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
static int conn_read(struct conn *c)
{
	struct http_request req;
	ssize_t n;
	int parsed, r;

	n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	c->inlen += (size_t)n;
	parsed = http_parse_request(c->in, c->inlen, &req);
	if (parsed == 0)
		return 0;
	/* the head is in: time to read on */
	r = conn_deadline(c, HTTP_TIMEOUT_MS);
	if (r < 0)
		return r;
	r = answer(c->srv->s, c, parsed, &req);
	if (r < 0)
		return r;
	return loop_mod(c->srv->loop, c->fd, EPOLLOUT);
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
		if (evictable(c) && (!oldest || c->since_ns < oldest->since_ns))
			oldest = c;
	}
	return oldest;
}

static void on_accept(struct loop *l, int fd, uint32_t events, void *ctx);

/*
 * The listener is in the loop while a new client can be taken: a slot is free, or one
 * holds a connection still sending its head. Otherwise it is left out, so new clients
 * wait in the listen backlog rather than wake the loop for nothing.
 */
static void watch_listener(struct server_state *srv)
{
	bool want = false;
	int r;

	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS && !want; i++)
		want = srv->conns[i].fd < 0 || evictable(&srv->conns[i]);
	if (srv->s->fd < 0 || want == srv->listening)
		return;
	if (!want) {
		loop_del(srv->loop, srv->s->fd);
		srv->listening = false;
		return;
	}
	r = loop_add(srv->loop, srv->s->fd, EPOLLIN, on_accept, srv);
	if (r < 0)
		srv->ret = r;
	srv->listening = r == 0;
}

static void on_conn(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct conn *c = ctx;
	int r = 0;

	(void)l;
	(void)fd;
	if (!c->out && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		r = conn_read(c);
	/* A response just made is tried at once: usually it all fits. */
	if (r >= 0 && c->out) {
		r = conn_write(c);
		if (r == 1)
			r = -1; /* done: close */
	}
	if (r < 0)
		conn_close(c);
	watch_listener(c->srv);
}

/*
 * Take one connection. At its network's share the network's oldest connection still
 * sending a head makes room (none: the new one is closed); with every slot taken, the
 * oldest such of anyone's. So one host that opens connections and sends nothing can
 * hold HTTP_MAX_PER_ADDR slots for HTTP_HEAD_MS at most, and never the rest.
 */
static void accept_one(struct server_state *srv)
{
	struct sockaddr_storage ss, peer;
	socklen_t len = sizeof(ss);
	struct conn *conns = srv->conns, *c = NULL, *victim;
	unsigned n;
	int fd = accept4(srv->s->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

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
	c->peer = peer;
	c->since_ns = loop_now(srv->loop);
	if (loop_add(srv->loop, fd, EPOLLIN, on_conn, c) < 0) {
		close(fd);
		return;
	}
	c->fd = fd;
	if (conn_deadline(c, HTTP_HEAD_MS) < 0)
		conn_close(c);
}

static void on_accept(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server_state *srv = ctx;

	(void)l;
	(void)fd;
	(void)events;
	accept_one(srv);
	watch_listener(srv);
}

/* tick every tick_ms, from the start of one to the start of the next */
static void on_tick(struct loop *l, uint64_t id, void *ctx)
{
	struct server_state *srv = ctx;
	uint64_t now = loop_now(l);

	(void)id;
	srv->s->tick(srv->s->ctx);
	if (!loop_timer_at(l, now + srv->s->tick_ms * MS_NS, on_tick, srv))
		srv->ret = -ENOMEM;
}

/* SIGINT or SIGTERM, read from the signalfd: stop. */
static void on_signal(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct server_state *srv = ctx;
	struct signalfd_siginfo si;

	(void)l;
	(void)events;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		*srv->s->stop = 1;
}

int http_serve(const struct http_server *s)
{
	struct server_state *srv;
	sigset_t block, old;
	int sfd = -1, ret;

	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->s = s;
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++) {
		srv->conns[i].srv = srv;
		srv->conns[i].fd = -1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	srv->loop = loop_new();
	sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (!srv->loop || sfd < 0) {
		ret = srv->loop ? -errno : -ENOMEM;
		goto out;
	}
	ret = loop_add(srv->loop, sfd, EPOLLIN, on_signal, srv);
	if (ret < 0)
		goto out;
	if (s->tick_ms && !loop_timer_at(srv->loop, loop_now(srv->loop), on_tick, srv)) {
		ret = -ENOMEM;
		goto out;
	}
	watch_listener(srv);
	while (!*s->stop && !srv->ret) {
		ret = loop_once(srv->loop, -1);
		if (ret < 0)
			goto out;
	}
	ret = srv->ret;
out:
	for (size_t i = 0; i < HTTP_MAX_CONNECTIONS; i++)
		conn_close(&srv->conns[i]);
	if (sfd >= 0)
		close(sfd);
	loop_free(srv->loop);
	free(srv);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
