/* SPDX-License-Identifier: MIT */
/* http/hclient.c - http/hclient.h: HTTP/2 (libnghttp2's framing) and HTTP/1.1 over epoll,
 * in cleartext or through http/tls.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"
#include "http/hclient.h"
#include "http/http1.h"

#ifndef DEBLOAT_VERSION
#define DEBLOAT_VERSION "0"
#endif
#define USER_AGENT "debloat/" DEBLOAT_VERSION
/* Receive windows: a download must never wait for a WINDOW_UPDATE on a long path. */
#define H2_WINDOW (16 << 20)
/* An endless POST announces this much over HTTP/1.1 (1 TiB: no test gets there). */
#define H1_UPLOAD_LENGTH "1099511627776"
/* Reads per connection per event, so one busy download cannot starve the probes. */
#define READS_PER_EVENT 8
/* The upload's DATA frames: nghttp2's largest payload by default. */
#define UPLOAD_CHUNK 16384

struct hc_stream {
	struct hc_stream *next;
	struct hc_conn *c;
	int32_t id;
	bool upload;
	const struct hc_stream_ops *ops;
	void *ctx;
};

struct hc_conn {
	struct hc_client *cl;
	int fd;
	enum hc_proto proto;
	bool connected, failed, closed, want_out;
	double t_connect, tcp_s;
	/* TLS (NULL in cleartext): the handshake runs between TCP's connect and
	 * "connected"; a read that needs the socket writable sets read_wants_out */
	struct tls_conn *tls;
	bool read_wants_out;
	char authority[270];
	const struct hc_conn_ops *ops;
	void *ctx;
	struct hc_stream *streams; /* h2: every open stream; h1: at most one */
	unsigned nstreams;
	nghttp2_session *h2;
	/* output not yet written to the socket */
	uint8_t out[HC_OUTBUF];
	size_t outlen, outoff;
	/* HTTP/1.1 response state */
	char head[HTTP1_MAX_HEAD];
	size_t headlen;
	bool in_body;
	struct http1_head hh;
	uint64_t body_left;
	struct hc_conn *next_zombie;
};

struct hc_client {
	int epfd;
	struct hc_conn *conns[HC_MAX_CONNS];
	size_t nconns;
	struct hc_conn *zombies; /* closed, freed when hc_poll returns */
	bool polling;
	struct tls_ctx *tls; /* NULL: cleartext */
	char server_name[256];
};

double hc_now(void)
{
	return (double)mono_ns() / 1e9;
}

struct hc_client *hc_client_new(void)
{
	struct hc_client *cl = calloc(1, sizeof(*cl));

	if (!cl)
		return NULL;
	cl->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (cl->epfd < 0) {
		free(cl);
		return NULL;
	}
	return cl;
}

int hc_client_set_tls(struct hc_client *cl, struct tls_ctx *ctx, const char *server_name)
{
	if (strlen(server_name) >= sizeof(cl->server_name))
		return -ENAMETOOLONG;
	strcpy(cl->server_name, server_name);
	cl->tls = ctx;
	return 0;
}

static void conn_free(struct hc_conn *c)
{
	while (c->streams) {
		struct hc_stream *s = c->streams;

		c->streams = s->next;
		free(s);
	}
	if (c->h2)
		nghttp2_session_del(c->h2);
	tls_conn_free(c->tls);
	free(c);
}

static void reap(struct hc_client *cl)
{
	while (cl->zombies) {
		struct hc_conn *c = cl->zombies;

		cl->zombies = c->next_zombie;
		conn_free(c);
	}
}

void hc_close(struct hc_conn *c)
{
	struct hc_client *cl;

	if (!c || c->closed)
		return;
	cl = c->cl;
	c->closed = true;
	close(c->fd); /* leaves the epoll set with it */
	for (size_t i = 0; i < cl->nconns; i++)
		if (cl->conns[i] == c) {
			cl->conns[i] = cl->conns[--cl->nconns];
			break;
		}
	c->next_zombie = cl->zombies;
	cl->zombies = c;
	if (!cl->polling)
		reap(cl);
}

void hc_client_free(struct hc_client *cl)
{
	if (!cl)
		return;
	while (cl->nconns)
		hc_close(cl->conns[cl->nconns - 1]);
	reap(cl);
	close(cl->epfd);
	free(cl);
}

static void conn_fail(struct hc_conn *c, int err)
{
	if (c->failed || c->closed)
		return;
	c->failed = true;
	epoll_ctl(c->cl->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->ops->failed(c->ctx, c, err);
}

static void watch(struct hc_conn *c, bool out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0u), .data.ptr = c};

	if (c->failed || c->closed || out == c->want_out)
		return;
	c->want_out = out;
	epoll_ctl(c->cl->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void stream_unlink(struct hc_conn *c, struct hc_stream *s)
{
	for (struct hc_stream **p = &c->streams; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			c->nstreams--;
			break;
		}
	free(s);
}

/* ---- HTTP/2 (libnghttp2 frames the bytes; the socket is ours) ---- */

static int h2_on_header(nghttp2_session *h2, const nghttp2_frame *frame, const uint8_t *name,
			size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
			void *user)
{
	struct hc_conn *c = user;
	struct hc_stream *s = nghttp2_session_get_stream_user_data(h2, frame->hd.stream_id);
	int status = 0;

	(void)flags;
	if (c->closed || !s || frame->hd.type != NGHTTP2_HEADERS || namelen != 7 ||
	    memcmp(name, ":status", 7) || valuelen != 3)
		return 0;
	for (size_t i = 0; i < 3; i++)
		status = status * 10 + (value[i] - '0');
	if (s->ops->status)
		s->ops->status(s->ctx, status);
	return 0;
}

static int h2_on_data(nghttp2_session *h2, uint8_t flags, int32_t stream_id, const uint8_t *data,
		      size_t len, void *user)
{
	struct hc_conn *c = user;
	struct hc_stream *s = nghttp2_session_get_stream_user_data(h2, stream_id);

	(void)flags;
	if (!c->closed && s && s->ops->data)
		s->ops->data(s->ctx, data, len);
	return 0;
}

static int h2_on_close(nghttp2_session *h2, int32_t stream_id, uint32_t error_code, void *user)
{
	struct hc_conn *c = user;
	struct hc_stream *s = nghttp2_session_get_stream_user_data(h2, stream_id);

	if (!s)
		return 0;
	nghttp2_session_set_stream_user_data(h2, stream_id, NULL);
	if (!c->closed && s->ops->done)
		s->ops->done(s->ctx, error_code == NGHTTP2_NO_ERROR ? 0 : -EPROTO);
	stream_unlink(c, s);
	return 0;
}

/* The endless upload body: zeros, counted as they are framed. */
static ssize_t h2_read_upload(nghttp2_session *h2, int32_t stream_id, uint8_t *buf, size_t len,
			      uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct hc_conn *c = user;
	struct hc_stream *s = src->ptr;

	(void)h2, (void)stream_id, (void)flags;
	if (len > UPLOAD_CHUNK)
		len = UPLOAD_CHUNK;
	memset(buf, 0, len);
	if (!c->closed && s->ops->data)
		s->ops->data(s->ctx, NULL, len);
	return (ssize_t)len;
}

static int h2_start(struct hc_conn *c)
{
	nghttp2_session_callbacks *cb;
	nghttp2_settings_entry iv[] = {
	    {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
	    {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 256},
	    {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW},
	};
	int r;

	if (nghttp2_session_callbacks_new(&cb))
		return -ENOMEM;
	nghttp2_session_callbacks_set_on_header_callback(cb, h2_on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, h2_on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, h2_on_close);
	r = nghttp2_session_client_new(&c->h2, cb, c);
	nghttp2_session_callbacks_del(cb);
	if (r)
		return -ENOMEM;
	if (nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, iv, COUNT(iv)) ||
	    nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, H2_WINDOW))
		return -EPROTO;
	return 0;
}

/* Move what nghttp2 has to send into c->out; -EPROTO. */
static int h2_fill(struct hc_conn *c)
{
	/* A frame is at most 16 KiB of DATA plus its header: stop while one still fits. */
	while (HC_OUTBUF - c->outlen >= 2 * UPLOAD_CHUNK) {
		const uint8_t *d;
		ssize_t n = nghttp2_session_mem_send(c->h2, &d);

		if (n < 0 || (size_t)n > HC_OUTBUF - c->outlen)
			return -EPROTO;
		if (!n)
			break;
		memcpy(c->out + c->outlen, d, (size_t)n);
		c->outlen += (size_t)n;
	}
	return 0;
}

/* ---- HTTP/1.1 ---- */

static void h1_fill(struct hc_conn *c)
{
	struct hc_stream *s = c->streams;

	if (!s || !s->upload)
		return;
	memset(c->out, 0, HC_OUTBUF);
	c->outlen = HC_OUTBUF;
	if (s->ops->data)
		s->ops->data(s->ctx, NULL, HC_OUTBUF);
}

static void h1_finish(struct hc_conn *c, int err)
{
	struct hc_stream *s = c->streams;

	c->in_body = false;
	c->headlen = 0;
	if (!s)
		return;
	c->streams = NULL;
	c->nstreams = 0;
	if (s->ops->done)
		s->ops->done(s->ctx, err);
	free(s);
}

static void h1_body(struct hc_conn *c, const char *d, size_t n)
{
	struct hc_stream *s = c->streams;

	if (c->hh.has_length && n > c->body_left) {
		h1_finish(c, -EPROTO); /* bytes past the body: we never pipeline */
		return;
	}
	if (n && s->ops->data)
		s->ops->data(s->ctx, (const uint8_t *)d, n);
	if (c->closed)
		return;
	if (c->hh.has_length && !(c->body_left -= n))
		h1_finish(c, 0);
}

static void h1_recv(struct hc_conn *c, const char *buf, size_t len)
{
	struct hc_stream *s = c->streams;
	size_t take;
	int r;

	if (!s) {
		conn_fail(c, -EPROTO); /* a response to nothing */
		return;
	}
	if (c->in_body) {
		h1_body(c, buf, len);
		return;
	}
	take = sizeof(c->head) - c->headlen < len ? sizeof(c->head) - c->headlen : len;
	memcpy(c->head + c->headlen, buf, take);
	c->headlen += take;
	r = http1_parse_head(c->head, c->headlen, &c->hh);
	if (r == 0)
		return;
	if (r < 0) {
		h1_finish(c, r);
		return;
	}
	if (c->hh.status < 200) { /* 100 Continue and friends: the real head follows */
		memmove(c->head, c->head + r, c->headlen - (size_t)r);
		c->headlen -= (size_t)r;
		h1_recv(c, buf + take, len - take);
		return;
	}
	if (s->ops->status)
		s->ops->status(s->ctx, c->hh.status);
	if (c->closed)
		return;
	if (c->hh.chunked) {
		h1_finish(c, -ENOTSUP);
		return;
	}
	if (c->hh.status == 204 || c->hh.status == 304)
		c->hh.has_length = true, c->hh.content_length = 0;
	c->in_body = true;
	c->body_left = c->hh.content_length;
	if (!c->body_left && c->hh.has_length) {
		if (c->headlen > (size_t)r || len > take)
			h1_finish(c, -EPROTO); /* bytes past an empty body */
		else
			h1_finish(c, 0);
		return;
	}
	/* the body bytes that came with the head: what the head buffer took past it */
	h1_body(c, c->head + r, c->headlen - (size_t)r);
	if (!c->closed && c->in_body && len > take)
		h1_body(c, buf + take, len - take);
}

/* ---- the socket ---- */

/* send(), or through TLS: n, or -errno (-EAGAIN: wait as send_wants_out says). */
static ssize_t conn_send(struct hc_conn *c, const void *d, size_t len)
{
	ssize_t n;

	if (!c->tls) {
		n = send(c->fd, d, len, MSG_NOSIGNAL);
		return n < 0 ? (errno == EWOULDBLOCK ? -EAGAIN : -errno) : n;
	}
	return tls_write(c->tls, d, len);
}

/* After conn_send's -EAGAIN: wait for the socket to be writable, or (a TLS write that
 * needs input first) only for input, which is always watched. */
static bool send_wants_out(const struct hc_conn *c)
{
	return !c->tls || tls_want(c->tls) == TLS_WANT_WRITE || c->read_wants_out;
}

/* recv(), or through TLS: n, 0 at the end, or -errno. */
static ssize_t conn_recv(struct hc_conn *c, void *buf, size_t len)
{
	ssize_t n;

	if (!c->tls) {
		n = recv(c->fd, buf, len, 0);
		return n < 0 ? (errno == EWOULDBLOCK ? -EAGAIN : -errno) : n;
	}
	/* A TLS record is at most 16 KiB and len is more: each read drains its record,
	 * so nothing waits inside OpenSSL where epoll cannot see it. */
	n = tls_read(c->tls, buf, len);
	c->read_wants_out = n == -EAGAIN && tls_want(c->tls) == TLS_WANT_WRITE;
	if (c->read_wants_out)
		watch(c, true);
	return n;
}

/* Write what is pending, refilling from the protocol, until the socket is full. */
static void flush(struct hc_conn *c)
{
	for (;;) {
		ssize_t n;

		if (c->closed || c->failed)
			return;
		if (c->outoff == c->outlen) {
			c->outoff = c->outlen = 0;
			if (c->h2 && h2_fill(c) < 0) {
				conn_fail(c, -EPROTO);
				return;
			}
			if (c->proto == HC_HTTP1)
				h1_fill(c);
			if (c->closed)
				return;
			if (!c->outlen) {
				watch(c, c->read_wants_out);
				return;
			}
		}
		n = conn_send(c, c->out + c->outoff, c->outlen - c->outoff);
		if (n == -EAGAIN) {
			watch(c, send_wants_out(c));
			return;
		}
		if (n == -EINTR)
			continue;
		if (n < 0) {
			conn_fail(c, (int)n);
			return;
		}
		c->outoff += (size_t)n;
	}
}

static void on_readable(struct hc_conn *c)
{
	char buf[65536];

	for (int i = 0; i < READS_PER_EVENT && !c->closed && !c->failed; i++) {
		ssize_t n = conn_recv(c, buf, sizeof(buf));

		if (n == -EAGAIN)
			return;
		if (n == -EINTR)
			continue;
		if (n < 0) {
			conn_fail(c, (int)n);
			return;
		}
		if (n == 0) { /* the server closed: a body without a length ends here */
			if (c->proto == HC_HTTP1 && c->in_body && !c->hh.has_length)
				h1_finish(c, 0);
			if (!c->closed)
				conn_fail(c, -ECONNRESET);
			return;
		}
		if (c->h2) {
			if (nghttp2_session_mem_recv(c->h2, (const uint8_t *)buf, (size_t)n) < 0)
				conn_fail(c, -EPROTO);
		} else {
			h1_recv(c, buf, (size_t)n);
		}
	}
}

/* TCP and (over TLS) the TLS handshake are done: the protocol starts. */
static void on_ready(struct hc_conn *c)
{
	int r;

	c->connected = true;
	if (c->tls) /* ALPN decides; no ALPN over TLS is HTTP/1.1 */
		c->proto = strcmp(tls_alpn(c->tls), "h2") ? HC_HTTP1 : HC_H2C;
	if (c->proto == HC_H2C && (r = h2_start(c)) < 0) {
		conn_fail(c, r);
		return;
	}
	c->ops->connected(c->ctx, c, c->tcp_s);
	flush(c);
}

static void tls_step(struct hc_conn *c)
{
	int r = tls_handshake(c->tls, hc_now());

	if (r < 0)
		conn_fail(c, r);
	else if (r == TLS_DONE)
		on_ready(c);
	else
		watch(c, r == TLS_WANT_WRITE);
}

static void on_connected(struct hc_conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->tls) {
		tls_step(c);
		return;
	}
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		conn_fail(c, -err);
		return;
	}
	c->tcp_s = hc_now() - c->t_connect;
	if (c->cl->tls) {
		c->tls = tls_conn_new(c->cl->tls, c->fd, c->cl->server_name);
		if (!c->tls) {
			conn_fail(c, -errno);
			return;
		}
		tls_step(c);
		return;
	}
	on_ready(c);
}

int hc_poll(struct hc_client *cl, double timeout_s)
{
	struct epoll_event ev[64];
	int n, ms = timeout_s <= 0 ? 0 : (int)ceil(timeout_s * 1000);

	n = epoll_wait(cl->epfd, ev, 64, ms);
	if (n < 0)
		return -errno;
	cl->polling = true;
	for (int i = 0; i < n; i++) {
		struct hc_conn *c = ev[i].data.ptr;

		if (c->closed || c->failed)
			continue;
		if (!c->connected) {
			on_connected(c);
			continue;
		}
		if ((ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) ||
		    (c->read_wants_out && (ev[i].events & EPOLLOUT)))
			on_readable(c);
		flush(c);
	}
	cl->polling = false;
	reap(cl);
	return 0;
}

struct hc_conn *hc_connect(struct hc_client *cl, const struct sockaddr *addr, socklen_t len,
			   enum hc_proto proto, const char *authority, unsigned lowat,
			   const struct hc_conn_ops *ops, void *ctx)
{
	struct epoll_event ev = {.events = EPOLLOUT};
	struct hc_conn *c;
	int one = 1, e;

	if (cl->nconns >= HC_MAX_CONNS) {
		errno = EMFILE;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cl = cl;
	c->proto = proto;
	c->ops = ops;
	c->ctx = ctx;
	snprintf(c->authority, sizeof(c->authority), "%s", authority);
	c->fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (c->fd < 0)
		goto fail;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (lowat && setsockopt(c->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat)) < 0)
		goto fail_fd;
	c->t_connect = hc_now();
	if (connect(c->fd, addr, len) < 0 && errno != EINPROGRESS)
		goto fail_fd;
	ev.data.ptr = c;
	c->want_out = true;
	if (epoll_ctl(cl->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		goto fail_fd;
	cl->conns[cl->nconns++] = c;
	return c;
fail_fd:
	e = errno;
	close(c->fd);
	errno = e;
fail:
	e = errno;
	free(c);
	errno = e;
	return NULL;
}

static int h1_request(struct hc_conn *c, const char *path, struct hc_stream *s)
{
	int n = snprintf((char *)c->out, HC_OUTBUF,
			 "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: " USER_AGENT
			 "\r\nAccept-Encoding: identity\r\n%s\r\n",
			 s->upload ? "POST" : "GET", path, c->authority,
			 s->upload ? "Content-Type: application/octet-stream\r\n"
				     "Content-Length: " H1_UPLOAD_LENGTH "\r\n"
				   : "");

	if (n < 0 || n >= HC_OUTBUF)
		return -ENAMETOOLONG;
	c->outoff = 0;
	c->outlen = (size_t)n;
	c->headlen = 0;
	c->in_body = false;
	return 0;
}

int hc_request(struct hc_conn *c, const char *path, bool upload, const struct hc_stream_ops *ops,
	       void *ctx)
{
	struct hc_stream *s;
	int r;

	if (!c->connected || c->failed || c->closed)
		return -ENOTCONN;
	if (c->proto == HC_HTTP1 && (c->streams || c->outoff != c->outlen))
		return -EBUSY;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct hc_stream){.c = c, .upload = upload, .ops = ops, .ctx = ctx};
	if (c->h2) {
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}
		nghttp2_nv hdrs[] = {
		    NV(":method", upload ? "POST" : "GET"),
		    NV(":scheme", c->tls ? "https" : "http"),
		    NV(":authority", c->authority),
		    NV(":path", path),
		    NV("user-agent", USER_AGENT),
		    NV("accept-encoding", "identity"),
		    NV("content-type", "application/octet-stream"),
		};
#undef NV
		nghttp2_data_provider prd = {.source.ptr = s, .read_callback = h2_read_upload};
		int32_t id = nghttp2_submit_request(c->h2, NULL, hdrs, COUNT(hdrs) - !upload,
						    upload ? &prd : NULL, s);

		if (id < 0) {
			free(s);
			return id == NGHTTP2_ERR_NOMEM ? -ENOMEM : -EPROTO;
		}
		s->id = id;
	} else if ((r = h1_request(c, path, s)) < 0) {
		free(s);
		return r;
	}
	s->next = c->streams;
	c->streams = s;
	c->nstreams++;
	flush(c);
	return 0;
}

enum hc_proto hc_conn_proto(const struct hc_conn *c)
{
	return c->proto;
}

double hc_tls_handshake_s(const struct hc_conn *c)
{
	return c->tls && c->connected ? tls_handshake_s(c->tls) : NAN;
}

const char *hc_conn_error(const struct hc_conn *c)
{
	return c->tls ? tls_conn_error(c->tls) : "";
}

unsigned hc_streams(const struct hc_conn *c)
{
	return c->nstreams;
}

int hc_set_lowat(struct hc_conn *c, unsigned bytes)
{
	return setsockopt(c->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &bytes, sizeof(bytes)) < 0 ? -errno
											    : 0;
}

double hc_tcp_rtt_ms(const struct hc_conn *c)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_rtt) + sizeof(ti.tcpi_rtt))
		return NAN;
	return ti.tcpi_rtt / 1000.0;
}
