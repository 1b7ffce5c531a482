/* SPDX-License-Identifier: MIT */
/* http/hserver.c - http/hserver.h: the responsiveness server's connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/loop.h"
#include "base/peer.h"
#include "http/hserver.h"
#include "http/http1req.h"
#include "http/nqserve.h"
#include "http/tls.h"

#define NS_PER_MS 1000000ull
#define SWEEP_MS  1000
/* One read or write of a body; also the size of the shared zero and sink buffers. */
#define IO_LEN 65536
/* Reads or writes per event, so that one busy connection does not starve the rest. */
#define IO_ROUNDS 8
/* Heads, small bodies and the config: all fit (NQ_CONFIG_MAX + a head). */
#define OUT_LEN 4096
/* HTTP/2 flow-control windows we grant: an upload is read as fast as it comes, so a
 * large window costs no memory here and keeps the window from limiting the test. */
#define H2_STREAM_WINDOW (4 << 20)
#define H2_CONN_WINDOW	 (16 << 20)
#define H2_MAX_STREAMS	 128
/*
 * The header list a request may carry (SETTINGS_MAX_HEADER_LIST_SIZE, RFC 9113 section
 * 6.5.2: names, values and 32 bytes per field, decoded): what HTTP/1.1 heads get. HPACK
 * lets a few bytes on the wire name a 4 KB field again and again, so it is the decoded
 * size that is bounded; a block past it ends the connection (ENHANCE_YOUR_CALM): a
 * client that ignores the setting we advertised is not worth a stream reset per block.
 */
#define H2_MAX_HEADER_LIST HTTP1REQ_MAX_HEAD
/*
 * One connection's work in one wake-up of the loop, in bytes handed to nghttp2 plus
 * header bytes it decoded: the latency test's probes share this loop, and ~256 KB is
 * ~100 us of work. Input is fed to nghttp2 in pieces of H2_PIECE; what is left when
 * the budget is spent waits in the connection (its backlog) for the next turn of the
 * loop, and the socket is not read meanwhile.
 */
#define H2_WORK_BUDGET (256 << 10)
#define H2_PIECE       4096

static const char h2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
#define H2_PREFACE_LEN (sizeof(h2_preface) - 1)

enum conn_proto { PROTO_DETECT, PROTO_H1, PROTO_H2 };
enum h1_state {
	H1_HEAD,   /* waiting for a request head (or sending a response) */
	H1_BODY,   /* reading an upload's body */
	H1_STREAM, /* sending the endless body */
};

/*
 * A stream holds what its state needs and no more: a stream open with headers only
 * is this struct (~100 bytes) and nghttp2's own. The path and authority live on the
 * heap while the request's headers come in and are freed once it is routed; a body
 * is allocated when the answer is made and freed once it is sent.
 */
struct h2stream {
	struct conn *c;
	int32_t id;
	enum nq_route route;
	char method[HTTP1REQ_METHOD_MAX];
	char *path, *authority; /* until routed */
	char *body;		/* the answer's body, until sent */
	size_t bodylen, bodyoff;
	uint64_t bytes, start_ns;
	bool answered;
	struct h2stream *next, *prev;
};

struct conn {
	struct hserver *h;
	int fd;
	struct sockaddr_storage peer; /* normalized: v4-mapped made IPv4, port 0 */
	char local_auth[64];	      /* our address and port, "[::1]:4043" */
	enum conn_proto proto;
	/* the last progress: bytes of HTTP/1.1; over HTTP/2 a request or body bytes, not
	 * PINGs, SETTINGS or window updates, which keep no client's test going */
	uint64_t last_io_ns;
	uint64_t head_since_ns; /* the head being waited for began (TLS included) */
	/* TLS: none until the first byte says so (tls_checked) */
	struct tls_conn *tls;
	bool tls_checked, handshaking;
	bool alpn_h2;	     /* ALPN chose h2: the HTTP/2 preface or nothing */
	bool read_wants_out; /* a TLS read waits for the socket to take a write */
	/* input: detection and HTTP/1.1 heads */
	char in[HTTP1REQ_MAX_HEAD];
	size_t inlen;
	/* output: HTTP/1.1 heads and short bodies */
	char out[OUT_LEN];
	size_t outlen, outoff;
	/* HTTP/1.1 */
	enum h1_state state;
	bool close_after; /* close once out is sent */
	uint64_t body_left, xfer_bytes, xfer_start_ns;
	/* HTTP/2: nghttp2's output not yet written (valid until the next mem_send) */
	nghttp2_session *sess;
	const uint8_t *pend;
	size_t pendlen;
	struct h2stream *streams;
	unsigned moving;  /* streams moving a body (st_moving), kept by st_set */
	size_t hdr_list;  /* the header block being decoded, RFC 9113 section 6.5.2 bytes */
	bool calm;	  /* past H2_MAX_HEADER_LIST: GOAWAY sent, input ignored */
	size_t work;	  /* this wake-up's, against H2_WORK_BUDGET */
	uint8_t *backlog; /* input read but not yet fed for want of budget */
	size_t backlen, backoff;
	uint64_t resume_timer;
	bool dead;
	struct conn *next, *prev;
};

/*
 * A client network's connections, counted by hserver_accept when the server is full:
 * an open-addressing table of twice max_conns slots, valid where gen is the walk's
 * (so no walk clears it).
 */
struct net_count {
	uint32_t gen;
	unsigned n;		  /* its connections */
	const struct conn *first; /* one of them: the network's address */
	struct conn *oldest;	  /* its evictable one that made no progress the longest */
};

struct hserver {
	struct hserver_config cfg;
	struct loop *loop;
	struct conn *conns;
	unsigned nconns;
	struct net_count *nets; /* nets_mask + 1 slots */
	size_t nets_mask;
	uint32_t nets_gen;
	unsigned nstreams; /* HTTP/2 streams of all connections, against cfg.max_streams */
	uint64_t sweep_timer;
	uint8_t *zeros, *sink; /* IO_LEN each */
};

/* The loop's clock, which the timeouts run on (a test's may be simulated). */
static uint64_t conn_now(const struct conn *c)
{
	return loop_now(c->h->loop);
}

void hserver_config_defaults(struct hserver_config *c)
{
	*c = (struct hserver_config){
	    .max_conns = 512,
	    .max_conns_per_addr = 64,
	    .max_time_ms = 90000,
	    .idle_ms = 10000,
	    .head_ms = 5000,
	    .max_streams = 16384,
	    .v6_prefix = PEER_V6_BITS_DEFAULT,
	    .lowat = 16384,
	};
}

unsigned hserver_conns(const struct hserver *h)
{
	return h->nconns;
}

/* Our end of fd as an authority, for a request without a usable Host. */
static void local_authority(int fd, char *buf, size_t len)
{
	struct sockaddr_storage a, n;
	socklen_t alen = sizeof(a);
	char ip[INET6_ADDRSTRLEN];
	unsigned port;

	if (getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		snprintf(buf, len, "localhost");
		return;
	}
	port = ntohs(a.ss_family == AF_INET ? ((struct sockaddr_in *)(void *)&a)->sin_port
					    : ((struct sockaddr_in6 *)(void *)&a)->sin6_port);
	peer_addr(&a, &n);
	peer_text(&n, ip, sizeof(ip));
	snprintf(buf, len, n.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

/* ---- the one read and one write of a connection (where TLS would go) ---- */

/* Bytes read, 0 at the peer's end, -errno (-EAGAIN: nothing now). */
static ssize_t conn_recv(struct conn *c, void *buf, size_t len)
{
	ssize_t n;

	if (c->tls) {
		n = tls_read(c->tls, buf, len);
		c->read_wants_out = n == -EAGAIN && tls_want(c->tls) == TLS_WANT_WRITE;
		if (n > 0 && c->proto != PROTO_H2)
			c->last_io_ns = conn_now(c);
		return n;
	}
	n = read(c->fd, buf, len);
	if (n < 0)
		return -errno;
	if (n > 0 && c->proto != PROTO_H2)
		c->last_io_ns = conn_now(c);
	return n;
}

/* Bytes written, -errno (-EAGAIN: the socket is full). */
static ssize_t conn_send(struct conn *c, const void *buf, size_t len)
{
	ssize_t n;

	if (c->tls) {
		n = tls_write(c->tls, buf, len);
		if (n > 0 && c->proto != PROTO_H2)
			c->last_io_ns = conn_now(c);
		return n;
	}
	n = send(c->fd, buf, len, MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	if (n > 0 && c->proto != PROTO_H2)
		c->last_io_ns = conn_now(c);
	return n;
}

/* ---- connections ---- */

static void conn_event(struct loop *l, int fd, uint32_t events, void *ctx);

static void report(struct conn *c, const char *kind, const char *end, uint64_t bytes,
		   uint64_t start_ns)
{
	struct hserver_transfer t = {
	    .proto = c->proto != PROTO_H2 ? "http/1.1"
		     : c->tls		  ? "h2"
					  : "h2c",
	    .tls = c->tls != NULL,
	    .kind = kind,
	    .end = end,
	    .bytes = bytes,
	    .elapsed_ms = (uint32_t)((conn_now(c) - start_ns) / NS_PER_MS),
	};

	if (!c->h->cfg.on_transfer)
		return;
	peer_text(&c->peer, t.client, sizeof(t.client));
	c->h->cfg.on_transfer(c->h->cfg.ctx, &t);
}

/* A download answered, or an upload not yet: a transfer the stream is moving. */
static bool st_moving(const struct h2stream *st)
{
	return (st->route == NQ_LARGE && st->answered) || (st->route == NQ_SLURP && !st->answered);
}

/* Every change of a stream's route or answer goes here, to keep c->moving. */
static void st_set(struct h2stream *st, enum nq_route route, bool answered)
{
	st->c->moving -= st_moving(st);
	st->route = route;
	st->answered = answered;
	st->c->moving += st_moving(st);
}

static void h2stream_free(struct h2stream *st)
{
	st->c->moving -= st_moving(st);
	st->c->h->nstreams--;
	free(st->path);
	free(st->authority);
	free(st->body);
	free(st);
}

/* Free a connection; report = false while the server itself is being freed. */
static void conn_free(struct conn *c, bool reporting)
{
	struct hserver *h = c->h;

	if (reporting && c->proto == PROTO_H1 && c->state == H1_STREAM)
		report(c, "download", "closed", c->xfer_bytes, c->xfer_start_ns);
	else if (reporting && c->proto == PROTO_H1 && c->state == H1_BODY)
		report(c, "upload", "closed", c->xfer_bytes, c->xfer_start_ns);
	/* nghttp2_session_del runs no callback: the streams still open are ours to end */
	while (c->streams) {
		struct h2stream *st = c->streams;

		if (reporting && st->route == NQ_LARGE && st->answered)
			report(c, "download", "closed", st->bytes, st->start_ns);
		else if (reporting && st->route == NQ_SLURP && !st->answered)
			report(c, "upload", "closed", st->bytes, st->start_ns);
		c->streams = st->next;
		h2stream_free(st);
	}
	if (c->sess)
		nghttp2_session_del(c->sess);
	free(c->backlog);
	loop_timer_del(h->loop, c->resume_timer);
	tls_conn_free(c->tls);
	loop_del(h->loop, c->fd);
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	h->nconns--;
	free(c);
}

/* Append to the HTTP/1.1 output; false when it does not fit (never, for our heads). */
static bool out_append(struct conn *c, const char *s, size_t n)
{
	if (c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
	if (n > sizeof(c->out) - c->outlen)
		return false;
	memcpy(c->out + c->outlen, s, n);
	c->outlen += n;
	return true;
}

static const char *status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 411:
		return "Length Required";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	default:
		return "Error";
	}
}

/* A whole HTTP/1.1 response with a body of n bytes. */
static void h1_respond(struct conn *c, int status, const char *type, const char *body, size_t n,
		       const char *extra)
{
	char head[512];
	int hn = snprintf(head, sizeof(head),
			  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			  "Cache-Control: no-store\r\n%s%s\r\n",
			  status, status_text(status), type, n, extra ? extra : "",
			  c->close_after ? "Connection: close\r\n" : "");

	if (hn < 0 || (size_t)hn >= sizeof(head) || !out_append(c, head, (size_t)hn) ||
	    !out_append(c, body, n))
		c->dead = true;
}

static void h1_error(struct conn *c, int status, bool close)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, status_text(status));

	c->close_after = c->close_after || close;
	h1_respond(c, status, "text/plain", body, (size_t)n,
		   status == 405 ? "Allow: GET, POST\r\n" : NULL);
}

static void inbuf_consume(struct conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->inlen - n);
	c->inlen -= n;
}

/* The upload's body ends (whole, or cut short by the time limit). */
static void h1_upload_done(struct conn *c)
{
	report(c, "upload", "complete", c->xfer_bytes, c->xfer_start_ns);
	c->state = H1_HEAD;
	h1_respond(c, 200, "text/plain", "", 0, NULL);
}

static void h1_request(struct conn *c, const struct http1_req *r)
{
	enum nq_route route = nq_route(r->method, r->path);
	char body[NQ_CONFIG_MAX];
	int n;

	inbuf_consume(c, r->head_len);
	c->head_since_ns = conn_now(c); /* for the next head, when it begins */
	c->close_after = r->close;
	if (r->chunked)
		return h1_error(c, 501, true); /* we read no chunked bodies */
	if (route != NQ_SLURP && r->has_length && r->content_length)
		c->close_after = true; /* a body we do not want: not read, the connection ends */
	switch (route) {
	case NQ_CONFIG:
		n = nq_config_write(body, sizeof(body), c->tls ? "https" : "http",
				    nq_authority_ok(r->host) ? r->host : c->local_auth);
		if (n < 0)
			return h1_error(c, 400, true);
		return h1_respond(c, 200, "application/json", body, (size_t)n, NULL);
	case NQ_SMALL:
		return h1_respond(c, 200, "application/octet-stream", "x", 1, NULL);
	case NQ_LARGE: {
		static const char head[] =
		    "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
		    "Cache-Control: no-store\r\nConnection: close\r\n\r\n";

		c->state = H1_STREAM;
		c->xfer_bytes = 0;
		c->xfer_start_ns = conn_now(c);
		if (!out_append(c, head, sizeof(head) - 1))
			c->dead = true;
		return;
	}
	case NQ_SLURP:
		if (!r->has_length)
			return h1_error(c, 411, true);
		if (r->expect_continue && !out_append(c, "HTTP/1.1 100 Continue\r\n\r\n", 25))
			c->dead = true;
		c->state = H1_BODY;
		c->body_left = r->content_length;
		c->xfer_bytes = 0;
		c->xfer_start_ns = conn_now(c);
		{
			size_t take = c->inlen < c->body_left ? c->inlen : (size_t)c->body_left;

			inbuf_consume(c, take);
			c->body_left -= take;
			c->xfer_bytes += take;
		}
		if (!c->body_left)
			h1_upload_done(c);
		return;
	case NQ_BAD_METHOD:
		return h1_error(c, 405, false);
	case NQ_NOT_FOUND:
		return h1_error(c, 404, false);
	}
}

/* Whether the input holds a complete request not yet answered (pipelining). */
static bool h1_has_request(const struct conn *c)
{
	struct http1_req r;

	return c->inlen && http1_parse_request(c->in, c->inlen, &r) != 0;
}

/* Answer what the input holds, one request at a time: only once the last is sent. */
static void h1_process(struct conn *c)
{
	while (!c->dead && c->state == H1_HEAD && c->outoff == c->outlen && !c->close_after &&
	       c->inlen) {
		struct http1_req r;
		int n = http1_parse_request(c->in, c->inlen, &r);

		if (n == 0)
			return;
		if (n < 0) {
			c->inlen = 0;
			return h1_error(c, n == -EMSGSIZE ? 431 : 400, true);
		}
		h1_request(c, &r);
	}
}

/* ---- HTTP/2 ---- */

static ssize_t h2_read_body(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t length,
			    uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	struct h2stream *st = src->ptr;
	size_t n;

	(void)sess, (void)id, (void)ud;
	if (st->route == NQ_LARGE) {
		struct hserver *h = st->c->h;

		if (loop_now(h->loop) - st->start_ns >= (uint64_t)h->cfg.max_time_ms * NS_PER_MS) {
			*flags |= NGHTTP2_DATA_FLAG_EOF;
			report(st->c, "download", "max-time", st->bytes, st->start_ns);
			st_set(st, NQ_NOT_FOUND, st->answered); /* reported */
			return 0;
		}
		n = length < IO_LEN ? length : IO_LEN;
		memset(buf, 0, n);
		st->bytes += n;
		st->c->last_io_ns = conn_now(st->c);
		return (ssize_t)n;
	}
	n = st->bodylen - st->bodyoff;
	if (n > length)
		n = length;
	if (n)
		memcpy(buf, st->body + st->bodyoff, n);
	st->bodyoff += n;
	if (st->bodyoff == st->bodylen) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		free(st->body);
		st->body = NULL;
	}
	return (ssize_t)n;
}

static void h2_respond(struct h2stream *st, int status, const char *type, const char *body,
		       size_t n)
{
	char code[4];
	nghttp2_nv nv[] = {
	    {(uint8_t *)":status", (uint8_t *)code, 7, 3, NGHTTP2_NV_FLAG_NONE},
	    {(uint8_t *)"content-type", (uint8_t *)type, 12, strlen(type), NGHTTP2_NV_FLAG_NONE},
	    {(uint8_t *)"cache-control", (uint8_t *)"no-store", 13, 8, NGHTTP2_NV_FLAG_NONE},
	};
	nghttp2_data_provider dp = {.source.ptr = st, .read_callback = h2_read_body};

	snprintf(code, sizeof(code), "%03d", status);
	if (n && !(st->body = malloc(n))) {
		nghttp2_submit_rst_stream(st->c->sess, NGHTTP2_FLAG_NONE, st->id,
					  NGHTTP2_INTERNAL_ERROR);
		return;
	}
	if (n)
		memcpy(st->body, body, n);
	st->bodylen = n;
	st_set(st, st->route, true);
	nghttp2_submit_response(st->c->sess, st->id, nv, 3,
				(n || st->route == NQ_LARGE) ? &dp : NULL);
}

static void h2_request(struct h2stream *st)
{
	char body[NQ_CONFIG_MAX];
	int n;

	st_set(st, nq_route(st->method, st->path ? st->path : ""), false);
	st->start_ns = conn_now(st->c);
	free(st->path);
	st->path = NULL;
	switch (st->route) {
	case NQ_CONFIG:
		n = nq_config_write(body, sizeof(body), st->c->tls ? "https" : "http",
				    st->authority && nq_authority_ok(st->authority)
					? st->authority
					: st->c->local_auth);
		if (n < 0)
			return h2_respond(st, 400, "text/plain", "400 Bad Request\n", 16);
		return h2_respond(st, 200, "application/json", body, (size_t)n);
	case NQ_SMALL:
		return h2_respond(st, 200, "application/octet-stream", "x", 1);
	case NQ_LARGE:
		return h2_respond(st, 200, "application/octet-stream", "", 0);
	case NQ_SLURP:
		return; /* answered at the end of its body */
	case NQ_BAD_METHOD:
		return h2_respond(st, 405, "text/plain", "405 Method Not Allowed\n", 23);
	case NQ_NOT_FOUND:
		return h2_respond(st, 404, "text/plain", "404 Not Found\n", 14);
	}
}

static int h2_begin_headers(nghttp2_session *sess, const nghttp2_frame *f, void *ud)
{
	struct conn *c = ud;
	struct h2stream *st;

	c->hdr_list = 0;
	if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	/* the server-wide budget: past it, the stream is refused (reset), the
	 * connection goes on */
	if (c->h->nstreams >= c->h->cfg.max_streams)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	c->h->nstreams++;
	c->last_io_ns = conn_now(c);
	st->c = c;
	st->id = f->hd.stream_id;
	st->route = NQ_NOT_FOUND;
	st->next = c->streams;
	if (c->streams)
		c->streams->prev = st;
	c->streams = st;
	nghttp2_session_set_stream_user_data(sess, st->id, st);
	return 0;
}

static bool copy_field(char *dst, size_t cap, const uint8_t *v, size_t n)
{
	if (n >= cap || memchr(v, '\0', n))
		return false;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return true;
}

/* copy_field into a string of the heap (*dst replaced), at most cap - 1 bytes. */
static bool dup_field(char **dst, size_t cap, const uint8_t *v, size_t n)
{
	char *p;

	if (n >= cap || memchr(v, '\0', n) || !(p = malloc(n + 1)))
		return false;
	memcpy(p, v, n);
	p[n] = '\0';
	free(*dst);
	*dst = p;
	return true;
}

static int h2_header(nghttp2_session *sess, const nghttp2_frame *f, const uint8_t *name,
		     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
	struct h2stream *st = nghttp2_session_get_stream_user_data(sess, f->hd.stream_id);
	struct conn *c = ud;
	bool ok = true;

	(void)flags;
	c->hdr_list += namelen + valuelen + 32;
	c->work += namelen + valuelen + 32;
	if (c->hdr_list > H2_MAX_HEADER_LIST) {
		/* the GOAWAY goes out, no more input is fed (h2_feed_some), then we close */
		if (!c->calm)
			nghttp2_session_terminate_session(sess, NGHTTP2_ENHANCE_YOUR_CALM);
		c->calm = true;
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	if (!st || f->hd.type != NGHTTP2_HEADERS)
		return 0;
	if (namelen == 7 && !memcmp(name, ":method", 7))
		ok = copy_field(st->method, sizeof(st->method), value, valuelen);
	else if (namelen == 5 && !memcmp(name, ":path", 5)) {
		ok = dup_field(&st->path, HTTP1REQ_PATH_MAX, value, valuelen);
		if (ok)
			st->path[strcspn(st->path, "?")] = '\0';
	} else if (namelen == 10 && !memcmp(name, ":authority", 10))
		ok = dup_field(&st->authority, HTTP1REQ_HOST_MAX, value, valuelen);
	/* too long for its field: this stream is reset, the connection goes on */
	return ok ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
}

static void h2_upload_done(struct h2stream *st, const char *end)
{
	report(st->c, "upload", end, st->bytes, st->start_ns);
	st_set(st, NQ_NOT_FOUND, st->answered); /* reported */
	h2_respond(st, 200, "text/plain", "", 0);
}

static int h2_frame_recv(nghttp2_session *sess, const nghttp2_frame *f, void *ud)
{
	struct h2stream *st = nghttp2_session_get_stream_user_data(sess, f->hd.stream_id);

	(void)ud;
	if (!st)
		return 0;
	if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST) {
		h2_request(st);
		free(st->authority);
		st->authority = NULL;
	}
	if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
	    (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && st->route == NQ_SLURP && !st->answered)
		h2_upload_done(st, "complete");
	return 0;
}

static int h2_data_chunk(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *data,
			 size_t len, void *ud)
{
	struct h2stream *st = nghttp2_session_get_stream_user_data(sess, id);

	(void)flags, (void)data;
	if (st)
		st->bytes += len;
	((struct conn *)ud)->last_io_ns = conn_now(ud);
	return 0;
}

static int h2_stream_close(nghttp2_session *sess, int32_t id, uint32_t err, void *ud)
{
	struct h2stream *st = nghttp2_session_get_stream_user_data(sess, id);
	struct conn *c = ud;

	(void)err;
	if (!st)
		return 0;
	if (st->route == NQ_LARGE && st->answered)
		report(c, "download", "closed", st->bytes, st->start_ns);
	else if (st->route == NQ_SLURP && !st->answered)
		report(c, "upload", "closed", st->bytes, st->start_ns);
	if (st->prev)
		st->prev->next = st->next;
	else
		c->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	nghttp2_session_set_stream_user_data(sess, id, NULL);
	h2stream_free(st);
	return 0;
}

static int h2_start(struct conn *c)
{
	nghttp2_session_callbacks *cb;
	nghttp2_settings_entry iv[] = {
	    {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_MAX_STREAMS},
	    {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WINDOW},
	    {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, H2_MAX_HEADER_LIST},
	};
	int r;

	if (nghttp2_session_callbacks_new(&cb))
		return -ENOMEM;
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, h2_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, h2_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, h2_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, h2_data_chunk);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, h2_stream_close);
	r = nghttp2_session_server_new(&c->sess, cb, c);
	nghttp2_session_callbacks_del(cb);
	if (r)
		return -ENOMEM;
	if (nghttp2_submit_settings(c->sess, NGHTTP2_FLAG_NONE, iv, 3) ||
	    nghttp2_session_set_local_window_size(c->sess, NGHTTP2_FLAG_NONE, 0, H2_CONN_WINDOW))
		return -ENOMEM;
	c->proto = PROTO_H2;
	return 0;
}

/* ---- reading and writing ---- */

static void conn_resume(struct loop *l, uint64_t id, void *ctx);

/* Feed nghttp2 from buf while this wake-up's budget lasts: the bytes fed, or -errno. */
static ssize_t h2_feed_some(struct conn *c, const uint8_t *buf, size_t len)
{
	size_t off = 0;

	if (c->calm)
		return (ssize_t)len;
	while (off < len && c->work < H2_WORK_BUDGET && !c->calm) {
		size_t n = len - off < H2_PIECE ? len - off : H2_PIECE;

		if (nghttp2_session_mem_recv(c->sess, buf + off, n) < 0)
			return -EPROTO;
		off += n;
		c->work += n;
	}
	return (ssize_t)off;
}

/* A timer due at once brings the connection back after the loop's other events. */
static int resume_later(struct conn *c)
{
	if (!c->resume_timer)
		c->resume_timer = loop_timer_at(c->h->loop, conn_now(c), conn_resume, c);
	return c->resume_timer ? 0 : -ENOMEM;
}

/* Fresh input: what the budget leaves becomes the backlog. 0, or -errno (dead). */
static int h2_feed(struct conn *c, const uint8_t *buf, size_t len)
{
	ssize_t n = h2_feed_some(c, buf, len);

	if (n < 0)
		return (int)n;
	if ((size_t)n == len)
		return 0;
	c->backlog = malloc(len - (size_t)n);
	if (!c->backlog)
		return -ENOMEM;
	memcpy(c->backlog, buf + n, len - (size_t)n);
	c->backlen = len - (size_t)n;
	c->backoff = 0;
	return resume_later(c);
}

/* The backlog, under this wake-up's budget. 0, or -errno (dead). */
static int h2_feed_backlog(struct conn *c)
{
	ssize_t n = h2_feed_some(c, c->backlog + c->backoff, c->backlen - c->backoff);

	if (n < 0)
		return (int)n;
	c->backoff += (size_t)n;
	if (c->backoff < c->backlen)
		return resume_later(c);
	free(c->backlog);
	c->backlog = NULL;
	c->backlen = c->backoff = 0;
	return 0;
}

/* HTTP/2 or HTTP/1.1, from the first bytes. */
static void detect(struct conn *c)
{
	size_t n = c->inlen < H2_PREFACE_LEN ? c->inlen : H2_PREFACE_LEN;

	if (memcmp(c->in, h2_preface, n)) {
		c->proto = PROTO_H1;
		c->dead = c->alpn_h2; /* HTTP/1.1 after agreeing on h2 */
		return;
	}
	if (c->inlen < H2_PREFACE_LEN)
		return; /* a prefix of the preface: wait */
	if (h2_start(c) < 0 || h2_feed(c, (const uint8_t *)c->in, c->inlen) < 0)
		c->dead = true;
	c->inlen = 0;
}

static void conn_readable(struct conn *c)
{
	struct hserver *h = c->h;

	for (int i = 0; i < IO_ROUNDS && !c->dead; i++) {
		ssize_t n;

		if (c->proto == PROTO_H2) {
			if (c->backlog)
				return; /* the budget is spent: the rest waits its turn */
			n = conn_recv(c, h->sink, IO_LEN);
			if (n > 0 && h2_feed(c, h->sink, (size_t)n) < 0)
				c->dead = true;
		} else if (c->proto == PROTO_H1 && c->state == H1_BODY) {
			n = conn_recv(c, h->sink, c->body_left < IO_LEN ? c->body_left : IO_LEN);
			if (n > 0) {
				c->body_left -= (uint64_t)n;
				c->xfer_bytes += (uint64_t)n;
				if (!c->body_left)
					h1_upload_done(c);
			}
		} else {
			if (c->inlen == sizeof(c->in)) {
				if (c->proto == PROTO_H1 && c->state == H1_HEAD &&
				    c->outoff == c->outlen && !c->close_after)
					h1_process(c); /* -EMSGSIZE: 431 */
				return;		       /* full: read no more until it drains */
			}
			n = conn_recv(c, c->in + c->inlen, sizeof(c->in) - c->inlen);
			if (n > 0) {
				if (!c->inlen)
					c->head_since_ns = conn_now(c);
				c->inlen += (size_t)n;
				if (c->proto == PROTO_DETECT)
					detect(c);
				if (c->proto == PROTO_H1)
					h1_process(c);
			}
		}
		if (n == 0 || (n < 0 && n != -EAGAIN && n != -EINTR))
			c->dead = true;
		if (n < 0)
			return;
	}
}

/* Write what is pending; 0 when all is out, -EAGAIN when the socket is full, else dead. */
static int conn_send_all(struct conn *c, const void *buf, size_t len, size_t *done)
{
	while (*done < len) {
		ssize_t n = conn_send(c, (const char *)buf + *done, len - *done);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			return -EAGAIN;
		if (n < 0) {
			c->dead = true;
			return (int)n;
		}
		*done += (size_t)n;
	}
	return 0;
}

static void conn_writable(struct conn *c)
{
	struct hserver *h = c->h;

	if (c->outoff < c->outlen && conn_send_all(c, c->out, c->outlen, &c->outoff) < 0)
		return;
	if (c->proto == PROTO_H1 && c->state == H1_STREAM) {
		for (int i = 0; i < IO_ROUNDS; i++) {
			ssize_t n = conn_send(c, h->zeros, IO_LEN);

			if (n < 0) {
				if (n != -EAGAIN && n != -EINTR)
					c->dead = true;
				break;
			}
			c->xfer_bytes += (uint64_t)n;
		}
		return;
	}
	if (c->proto == PROTO_H1 && c->state == H1_HEAD) {
		/* pipelined requests: answer the next while the socket takes the answers */
		for (int i = 0; i < IO_ROUNDS && !c->dead && c->state == H1_HEAD; i++) {
			if (c->close_after) {
				c->dead = true; /* the response is out */
				return;
			}
			h1_process(c); /* the next request waiting in the input, if any */
			if (c->outoff == c->outlen ||
			    conn_send_all(c, c->out, c->outlen, &c->outoff) < 0)
				return;
		}
		return;
	}
	if (c->proto != PROTO_H2)
		return;
	/*
	 * nghttp2 hands out one frame at a time. Frames that fit are gathered in
	 * c->out and leave in one send(): with TCP_NODELAY each send() is a packet,
	 * and the SETTINGS, SETTINGS ack, HEADERS and DATA of a short answer sent
	 * apart are four packets where one will do, each a slot in a short FIFO and
	 * one more chance of a loss. A frame that does not fit follows what was
	 * gathered, straight from nghttp2's buffer.
	 */
	for (int i = 0; i < 4 * IO_ROUNDS; i++) {
		size_t done = 0;
		ssize_t n;

		if (!c->pendlen) {
			n = nghttp2_session_mem_send(c->sess, &c->pend);
			if (n < 0) {
				c->dead = true;
				return;
			}
			if (!n)
				break;
			if (out_append(c, (const char *)c->pend, (size_t)n))
				continue;
			c->pendlen = (size_t)n;
		}
		if (c->outoff < c->outlen && conn_send_all(c, c->out, c->outlen, &c->outoff) < 0)
			return;
		if (conn_send_all(c, c->pend, c->pendlen, &done) < 0) {
			c->pend += done;
			c->pendlen -= done;
			return;
		}
		c->pendlen = 0;
	}
	if (c->outoff < c->outlen && conn_send_all(c, c->out, c->outlen, &c->outoff) < 0)
		return;
	if (!c->pendlen && !nghttp2_session_want_read(c->sess) &&
	    !nghttp2_session_want_write(c->sess))
		c->dead = true; /* GOAWAY both ways */
}

static bool wants_write(const struct conn *c)
{
	if (c->handshaking)
		return tls_want(c->tls) == TLS_WANT_WRITE;
	if (c->outoff < c->outlen || c->read_wants_out)
		return true;
	if (c->proto == PROTO_H1)
		return c->state == H1_STREAM ||
		       (c->state == H1_HEAD && (c->close_after || h1_has_request(c)));
	if (c->proto == PROTO_H2)
		return c->pendlen || nghttp2_session_want_write(c->sess);
	return false;
}

static bool wants_read(const struct conn *c)
{
	if (c->handshaking)
		return tls_want(c->tls) == TLS_WANT_READ;
	if (c->proto == PROTO_H2)
		return !c->backlog;
	return c->inlen < sizeof(c->in) || (c->proto == PROTO_H1 && c->state == H1_BODY);
}

/*
 * TLS or not, from the first byte (peeked: it stays for whoever reads it). False
 * while the handshake goes on (or failed: c->dead).
 */
static bool tls_ready(struct conn *c)
{
	if (!c->tls_checked) {
		unsigned char b;
		ssize_t n = recv(c->fd, &b, 1, MSG_PEEK);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			c->dead = true;
			return false;
		}
		if (n < 0)
			return false;
		c->tls_checked = true;
		if (b == 0x16) { /* a TLS handshake record */
			c->tls = tls_conn_new(c->h->cfg.tls, c->fd, NULL);
			c->handshaking = c->tls != NULL;
			c->dead = !c->tls;
		}
	}
	if (c->handshaking) {
		int r = tls_handshake(c->tls, (double)conn_now(c) / 1e9);

		if (r < 0)
			c->dead = true;
		if (r != TLS_DONE)
			return false;
		c->handshaking = false;
		c->last_io_ns = c->head_since_ns = conn_now(c);
		/* the protocol is the one ALPN agreed on; none: the first bytes say */
		if (!strcmp(tls_alpn(c->tls), "http/1.1"))
			c->proto = PROTO_H1;
		c->alpn_h2 = !strcmp(tls_alpn(c->tls), "h2");
	}
	return !c->dead;
}

/* Read while the TLS layer holds decrypted bytes: epoll cannot see them. */
static void conn_readable_all(struct conn *c)
{
	conn_readable(c);
	for (int i = 0; i < IO_ROUNDS && c->tls && !c->dead && tls_pending(c->tls) && wants_read(c);
	     i++)
		conn_readable(c);
}

/* After a connection's work: free it if it died, else watch what it wants now. */
static void conn_settle(struct loop *l, struct conn *c)
{
	if (c->dead) {
		conn_free(c, true);
		return;
	}
	loop_mod(l, c->fd, (wants_read(c) ? EPOLLIN : 0) | (wants_write(c) ? EPOLLOUT : 0));
}

static void conn_event(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct conn *c = ctx;

	(void)fd;
	c->work = 0;
	if (c->h->cfg.tls && (!c->tls_checked || c->handshaking) && !tls_ready(c)) {
		if (c->dead)
			conn_free(c, true);
		else
			loop_mod(l, c->fd,
				 (wants_read(c) ? EPOLLIN : 0) | (wants_write(c) ? EPOLLOUT : 0));
		return;
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR) || c->read_wants_out ||
	    (c->tls && tls_pending(c->tls)))
		conn_readable_all(c);
	if (!c->dead)
		conn_writable(c); /* what the input asked for goes out at once if it can */
	if (!c->dead && c->tls && tls_pending(c->tls) && wants_read(c)) {
		conn_readable_all(c); /* bytes the TLS layer held while the input was full */
		if (!c->dead)
			conn_writable(c);
	}
	conn_settle(l, c);
}

/* The backlog's turn: fed under a fresh budget, then the connection's usual events. */
static void conn_resume(struct loop *l, uint64_t id, void *ctx)
{
	struct conn *c = ctx;

	(void)id;
	c->resume_timer = 0;
	c->work = 0;
	if (c->backlog && h2_feed_backlog(c) < 0)
		c->dead = true;
	if (!c->dead)
		conn_writable(c);
	conn_settle(l, c);
}

/* ---- time limits ---- */

/*
 * Waiting for a request head (or the TLS handshake before it) that has begun or is
 * due: it must be whole within head_ms, whatever the bytes trickle in at. A complete
 * head is answered as soon as it is read, so a head still in the input of a connection
 * with nothing to send is a part of one.
 */
static bool waiting_head(const struct conn *c)
{
	if (c->handshaking || c->proto == PROTO_DETECT)
		return true;
	return c->proto == PROTO_H1 && c->state == H1_HEAD && c->inlen && c->outoff == c->outlen &&
	       !c->close_after;
}

/*
 * What a full server may close to take a new connection: one waiting for a head, or
 * one between requests (HTTP/1.1 with nothing to send, HTTP/2 with no download or
 * upload going). Never a transfer in progress: a test's load connections are safe.
 */
static bool evictable(const struct conn *c)
{
	if (waiting_head(c))
		return true;
	if (c->proto == PROTO_H1)
		return c->state == H1_HEAD && c->outoff == c->outlen;
	return !c->moving;
}

static void conn_limits(struct conn *c, uint64_t now)
{
	const struct hserver_config *cfg = &c->h->cfg;
	uint64_t max = (uint64_t)cfg->max_time_ms * NS_PER_MS;

	if (now - c->last_io_ns >= (uint64_t)cfg->idle_ms * NS_PER_MS ||
	    (waiting_head(c) && now - c->head_since_ns >= (uint64_t)cfg->head_ms * NS_PER_MS)) {
		c->dead = true;
		return;
	}
	if (c->proto == PROTO_H1 && (c->state == H1_STREAM || c->state == H1_BODY) &&
	    now - c->xfer_start_ns >= max) {
		report(c, c->state == H1_STREAM ? "download" : "upload", "max-time", c->xfer_bytes,
		       c->xfer_start_ns);
		c->state = H1_HEAD; /* reported */
		c->dead = true;
		return;
	}
	if (c->tls && !c->handshaking && tls_pending(c->tls) && wants_read(c))
		conn_readable_all(c); /* bytes the TLS layer held while the input was full */
	if (c->dead || c->proto != PROTO_H2)
		return;
	for (struct h2stream *st = c->streams; st; st = st->next) {
		if (st->route == NQ_SLURP && !st->answered && now - st->start_ns >= max) {
			h2_upload_done(st, "max-time");
			nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, st->id,
						  NGHTTP2_NO_ERROR);
		}
		/* a download ends in its data provider (below), which nghttp2 calls only
		 * while the window is open: one still going a sweep past its time has a
		 * window held shut, and is reset */
		if (st->route == NQ_LARGE && st->answered &&
		    now - st->start_ns >= max + SWEEP_MS * NS_PER_MS) {
			report(c, "download", "max-time", st->bytes, st->start_ns);
			st_set(st, NQ_NOT_FOUND, st->answered); /* reported */
			nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, st->id,
						  NGHTTP2_NO_ERROR);
		}
	}
	/* a download past its time ends in its data provider, which needs a write turn */
	conn_writable(c);
}

static void sweep(struct loop *l, uint64_t id, void *ctx)
{
	struct hserver *h = ctx;
	uint64_t now = loop_now(l);
	struct conn *next;

	(void)id;
	for (struct conn *c = h->conns; c; c = next) {
		next = c->next;
		conn_limits(c, now);
		if (c->dead)
			conn_free(c, true);
		else
			loop_mod(l, c->fd,
				 (wants_read(c) ? EPOLLIN : 0) | (wants_write(c) ? EPOLLOUT : 0));
	}
	h->sweep_timer = loop_timer_at(l, now + SWEEP_MS * NS_PER_MS, sweep, h);
}

/* ---- accepting ---- */

/* A hash of a's network (peer_same_net's bits): the same for every address in it. */
static uint64_t net_hash(const struct sockaddr_storage *a, unsigned v6_bits)
{
	const uint8_t *p;
	uint64_t x = 1469598103934665603ull; /* FNV-1a */
	unsigned bits;

	if (a->ss_family == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)(const void *)a)->sin_addr;
		bits = 32;
	} else if (a->ss_family == AF_INET6) {
		p = ((const struct sockaddr_in6 *)(const void *)a)->sin6_addr.s6_addr;
		bits = v6_bits > 128 ? 128 : v6_bits;
	} else {
		return 0;
	}
	for (unsigned i = 0; i * 8 < bits; i++) {
		uint8_t b = p[i];

		if (bits - i * 8 < 8)
			b &= (uint8_t)(0xff << (8 - (bits - i * 8)));
		x = (x ^ b) * 1099511628211ull;
	}
	return x;
}

/* Count c in its network's slot of this walk (gen), keeping its oldest evictable. */
static void net_count_add(struct hserver *h, struct conn *c)
{
	size_t i = (size_t)net_hash(&c->peer, h->cfg.v6_prefix) & h->nets_mask;
	struct net_count *e;

	/* at most max_conns networks in twice as many slots: a free one is always found */
	for (;; i = (i + 1) & h->nets_mask) {
		e = &h->nets[i];
		if (e->gen != h->nets_gen) {
			*e = (struct net_count){.gen = h->nets_gen, .first = c};
			break;
		}
		if (peer_same_net(&e->first->peer, &c->peer, h->cfg.v6_prefix))
			break;
	}
	e->n++;
	if (evictable(c) && (!e->oldest || c->last_io_ns < e->oldest->last_io_ns))
		e->oldest = c;
}

/* The evictable connection that made no progress the longest in the network with the
 * most connections (among those with one), from this walk's counts; or NULL. */
static struct conn *heaviest_net_oldest(const struct hserver *h)
{
	const struct net_count *best = NULL;

	for (size_t i = 0; i <= h->nets_mask; i++) {
		const struct net_count *e = &h->nets[i];

		if (e->gen != h->nets_gen || !e->oldest)
			continue;
		if (!best || e->n > best->n ||
		    (e->n == best->n && e->oldest->last_io_ns < best->oldest->last_io_ns))
			best = e;
	}
	return best ? best->oldest : NULL;
}

void hserver_accept(struct hserver *h, int fd, const struct sockaddr_storage *peer)
{
	struct sockaddr_storage addr;
	unsigned from_net = 0;
	int lowat = (int)h->cfg.lowat, one = 1;
	bool full = h->nconns >= h->cfg.max_conns;
	struct conn *c, *oldest_net = NULL;

	peer_addr(peer, &addr);
	/*
	 * A walk of at most max_conns, only on accept: cheaper than a table to keep. At a
	 * limit, the connection that made no progress for the longest among the evictable
	 * ones makes room: the network's own at its share; when all are taken, one of the
	 * network that holds the most, so that many addresses each at their share cannot
	 * push out a client that holds a few (the walk then counts every network).
	 */
	if (full && ++h->nets_gen == 0) { /* wrapped: the stale marks could match again */
		memset(h->nets, 0, (h->nets_mask + 1) * sizeof(*h->nets));
		h->nets_gen = 1;
	}
	for (c = h->conns; c; c = c->next) {
		bool same = peer_same_net(&c->peer, &addr, h->cfg.v6_prefix);

		from_net += same;
		if (full)
			net_count_add(h, c);
		if (same && evictable(c) && (!oldest_net || c->last_io_ns < oldest_net->last_io_ns))
			oldest_net = c;
	}
	if (from_net >= h->cfg.max_conns_per_addr) {
		if (!oldest_net)
			goto refuse;
		conn_free(oldest_net, true);
	} else if (full) {
		struct conn *victim = heaviest_net_oldest(h);

		if (!victim)
			goto refuse;
		conn_free(victim, true);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto refuse;
	c->h = h;
	c->fd = fd;
	c->peer = addr;
	c->last_io_ns = c->head_since_ns = loop_now(h->loop);
	local_authority(fd, c->local_auth, sizeof(c->local_auth));
	if (lowat > 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (loop_add(h->loop, fd, EPOLLIN, conn_event, c) < 0) {
		free(c);
		goto refuse;
	}
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	h->nconns++;
	return;
refuse:
	close(fd);
}

int hserver_new(struct loop *l, const struct hserver_config *cfg, struct hserver **out)
{
	struct hserver *h;

	if (!cfg->max_conns || !cfg->max_conns_per_addr || !cfg->max_time_ms || !cfg->idle_ms ||
	    !cfg->head_ms || !cfg->max_streams)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	h->loop = l;
	for (h->nets_mask = 1; h->nets_mask + 1 < 2 * (size_t)cfg->max_conns;)
		h->nets_mask = h->nets_mask << 1 | 1;
	h->nets = calloc(h->nets_mask + 1, sizeof(*h->nets));
	h->zeros = calloc(1, IO_LEN);
	h->sink = malloc(IO_LEN);
	if (h->nets && h->zeros && h->sink)
		h->sweep_timer = loop_timer_at(l, loop_now(l) + SWEEP_MS * NS_PER_MS, sweep, h);
	if (!h->sweep_timer) {
		free(h->nets);
		free(h->zeros);
		free(h->sink);
		free(h);
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void hserver_free(struct hserver *h)
{
	if (!h)
		return;
	while (h->conns)
		conn_free(h->conns, false);
	loop_timer_del(h->loop, h->sweep_timer);
	free(h->nets);
	free(h->zeros);
	free(h->sink);
	free(h);
}
