/* SPDX-License-Identifier: MIT */
/*
 * test-hclient.c - the HTTP client's HTTP/1.1 side (http/hclient.h) against a server
 * played by the test on a loopback socket: responses cut anywhere, bodies framed by
 * Content-Length or by the close, 1xx heads, bytes past the body, chunked bodies
 * (refused), and the endless POST; then HTTP/1.1 over TLS, chosen by the server's ALPN
 * (the test's server is http/tls.h's server role), and a certificate that fails
 * verification. h2c and h2 are tested against nghttpd by tests/test-rpm-nghttpd.sh and
 * tests/test-rpm-tls.sh.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "http/hclient.h"
#include "tls-fixture.h"

struct outcome {
	bool connected, failed, done;
	int status, err, conn_err;
	size_t body;
	char data[256];
};

static void on_connected(void *ctx, struct hc_conn *c, double s)
{
	(void)c, (void)s;
	((struct outcome *)ctx)->connected = true;
}

static void on_failed(void *ctx, struct hc_conn *c, int err)
{
	struct outcome *o = ctx;

	(void)c;
	o->failed = true;
	o->conn_err = err;
}

static void on_status(void *ctx, int status)
{
	((struct outcome *)ctx)->status = status;
}

static void on_data(void *ctx, const uint8_t *d, size_t n)
{
	struct outcome *o = ctx;

	if (d && o->body + n < sizeof(o->data))
		memcpy(o->data + o->body, d, n);
	o->body += n;
}

static void on_done(void *ctx, int err)
{
	struct outcome *o = ctx;

	o->done = true;
	o->err = err;
}

static const struct hc_conn_ops conn_ops = {on_connected, on_failed};
static const struct hc_stream_ops stream_ops = {on_status, on_data, on_done};

struct peer {
	int lfd, fd;
	struct sockaddr_in addr;
	struct hc_client *cl;
	struct hc_conn *c;
	struct outcome o;
};

/* A listener on 127.0.0.1, a connection to it, accepted. false when loopback fails. */
static bool peer_open(struct peer *p, bool upload)
{
	socklen_t len = sizeof(p->addr);
	char req[1024];

	memset(p, 0, sizeof(*p));
	p->addr.sin_family = AF_INET;
	p->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&p->addr, sizeof(p->addr)) < 0 ||
	    listen(p->lfd, 4) < 0 || getsockname(p->lfd, (struct sockaddr *)&p->addr, &len) < 0)
		return false;
	p->cl = hc_client_new();
	p->c = hc_connect(p->cl, (struct sockaddr *)&p->addr, sizeof(p->addr), HC_HTTP1,
			  "127.0.0.1", upload ? 4096 : 0, &conn_ops, &p->o);
	if (!p->c)
		return false;
	for (int i = 0; i < 100 && !p->o.connected; i++)
		hc_poll(p->cl, 0.01);
	p->fd = accept(p->lfd, NULL, NULL);
	if (!p->o.connected || p->fd < 0 ||
	    hc_request(p->c, upload ? "/slurp" : "/small", upload, &stream_ops, &p->o) < 0)
		return false;
	hc_poll(p->cl, 0.01);
	return recv(p->fd, req, sizeof(req), 0) > 0;
}

static void peer_send(struct peer *p, const char *s)
{
	if (send(p->fd, s, strlen(s), 0) < 0)
		return;
	for (int i = 0; i < 10; i++)
		hc_poll(p->cl, 0.005);
}

static void peer_close(struct peer *p)
{
	hc_client_free(p->cl);
	close(p->fd);
	close(p->lfd);
}

TEST(response_cut_anywhere)
{
	static const char *const parts[] = {"HTTP/1.", "1 200 OK\r\nContent-Le", "ngth: 3\r",
					    "\n\r\nab", "c"};
	struct peer p;

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	for (size_t i = 0; i < 5; i++) {
		CHECK(!p.o.done);
		peer_send(&p, parts[i]);
	}
	CHECK(p.o.done);
	CHECK_EQ(p.o.err, 0);
	CHECK_EQ(p.o.status, 200);
	CHECK_EQ(p.o.body, 3);
	CHECK(!memcmp(p.o.data, "abc", 3));
	/* keep-alive: a second request on the same connection */
	CHECK_EQ(hc_request(p.c, "/small", false, &stream_ops, &p.o), 0);
	peer_close(&p);
}

TEST(continue_head_then_body_until_close)
{
	struct peer p;

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	peer_send(&p, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nxy");
	CHECK_EQ(p.o.status, 200);
	CHECK(!p.o.done); /* no length: the body runs to the close */
	shutdown(p.fd, SHUT_WR);
	for (int i = 0; i < 10 && !p.o.done; i++)
		hc_poll(p.cl, 0.01);
	CHECK(p.o.done);
	CHECK_EQ(p.o.err, 0);
	CHECK_EQ(p.o.body, 2);
	peer_close(&p);
}

TEST(bytes_past_the_body_and_chunked_are_errors)
{
	struct peer p;

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	peer_send(&p, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA");
	CHECK(p.o.done);
	CHECK_EQ(p.o.err, -EPROTO);
	peer_close(&p);

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	peer_send(&p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n");
	CHECK(p.o.done);
	CHECK_EQ(p.o.err, -ENOTSUP);
	peer_close(&p);

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	peer_send(&p, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
	CHECK(p.o.done);
	CHECK_EQ(p.o.err, -EBADMSG);
	peer_close(&p);
}

TEST(server_closing_midway_fails_the_connection)
{
	struct peer p;

	if (!peer_open(&p, false))
		SKIP("no loopback TCP here");
	peer_send(&p, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
	close(p.fd);
	p.fd = -1;
	for (int i = 0; i < 10 && !p.o.failed; i++)
		hc_poll(p.cl, 0.01);
	CHECK(p.o.failed);
	CHECK_EQ(p.o.conn_err, -ECONNRESET);
	CHECK(!p.o.done); /* no stream callback after the connection's failure */
	peer_close(&p);
}

/* The endless POST: the head, then zeros, counted as they are written. */
TEST(endless_upload)
{
	struct peer p;
	char buf[65536];
	size_t got = 0;
	ssize_t n;

	if (!peer_open(&p, true))
		SKIP("no loopback TCP here");
	for (int i = 0; i < 50 && got < 200000; i++) {
		hc_poll(p.cl, 0.005);
		while ((n = recv(p.fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			got += (size_t)n;
	}
	CHECK(got >= 200000);
	CHECK(p.o.body >= 200000); /* counted as sent */
	CHECK(!p.o.done);
	CHECK_EQ(hc_request(p.c, "/small", false, &stream_ops, &p.o), -EBUSY);
	peer_close(&p);
}

#if DEBLOAT_HAVE_TLS

/* The same peer over TLS: our server role (http/tls.h) accepting http/1.1 alone. */
struct tls_peer {
	struct peer p;
	struct tls_ctx *cctx, *sctx;
	struct tls_conn *t;
	int step;
};

/* Connect and handshake both ends. false when loopback or the fixture fails. */
static bool tls_peer_open(struct tls_peer *tp, bool verify_with_fixture)
{
	const struct tls_fixture *fx = tls_fixture();
	struct tls_client_opts co = {.alpn = TLS_ALPN_H2 | TLS_ALPN_HTTP1};
	struct peer *p = &tp->p;
	socklen_t len = sizeof(p->addr);
	char err[TLS_ERRLEN];

	memset(tp, 0, sizeof(*tp));
	co.ca_file = verify_with_fixture ? fx->cert : NULL;
	if (tls_client_ctx_new(&tp->cctx, &co, err, sizeof(err)) < 0 ||
	    tls_server_ctx_new(&tp->sctx, fx->cert, fx->key, TLS_ALPN_HTTP1, err, sizeof(err)) < 0)
		return false;
	p->addr.sin_family = AF_INET;
	p->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&p->addr, sizeof(p->addr)) < 0 ||
	    listen(p->lfd, 4) < 0 || getsockname(p->lfd, (struct sockaddr *)&p->addr, &len) < 0)
		return false;
	p->cl = hc_client_new();
	if (!p->cl || hc_client_set_tls(p->cl, tp->cctx, "127.0.0.1") < 0)
		return false;
	/* asks for HTTP/2; the server's ALPN says http/1.1 and that is what runs */
	p->c = hc_connect(p->cl, (struct sockaddr *)&p->addr, sizeof(p->addr), HC_H2C, "127.0.0.1",
			  0, &conn_ops, &p->o);
	if (!p->c)
		return false;
	p->fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK);
	if (p->fd < 0 || !(tp->t = tls_conn_new(tp->sctx, p->fd, NULL)))
		return false;
	tp->step = TLS_WANT_READ;
	for (int i = 0; i < 200 && !p->o.connected && !p->o.failed; i++) {
		hc_poll(p->cl, 0.005);
		if (tp->step > 0)
			tp->step = tls_handshake(tp->t, 0);
	}
	return true;
}

static void tls_peer_close(struct tls_peer *tp)
{
	tls_conn_free(tp->t);
	peer_close(&tp->p);
	tls_ctx_free(tp->cctx);
	tls_ctx_free(tp->sctx);
}

TEST(http1_over_tls_by_alpn)
{
	static char body[100000];
	char head[128], req[1024] = "";
	struct tls_peer tp;
	struct peer *p = &tp.p;
	size_t sent = 0, reqlen = 0;
	ssize_t n;
	int hl;

	if (!tls_peer_open(&tp, true))
		SKIP("no loopback TCP here");
	REQUIRE(p->o.connected);
	CHECK_EQ(tp.step, TLS_DONE);
	CHECK_EQ(hc_conn_proto(p->c), HC_HTTP1);
	CHECK(hc_tls_handshake_s(p->c) >= 0);
	REQUIRE_EQ(hc_request(p->c, "/small", false, &stream_ops, &p->o), 0);
	for (int i = 0; i < 100 && !strstr(req, "\r\n\r\n"); i++) {
		hc_poll(p->cl, 0.005);
		n = tls_read(tp.t, req + reqlen, sizeof(req) - 1 - reqlen);
		if (n > 0)
			reqlen += (size_t)n;
		req[reqlen] = '\0';
	}
	CHECK(!strncmp(req, "GET /small HTTP/1.1\r\n", 21));
	/* a body larger than the sockets hold, through TLS records both ends re-frame */
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)('a' + i % 26);
	hl = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n",
		      sizeof(body));
	REQUIRE_EQ(tls_write(tp.t, head, (size_t)hl), hl);
	for (int i = 0; i < 1000 && !p->o.done; i++) {
		if (sent < sizeof(body) &&
		    (n = tls_write(tp.t, body + sent, sizeof(body) - sent)) > 0)
			sent += (size_t)n;
		hc_poll(p->cl, 0.002);
	}
	CHECK(p->o.done);
	CHECK_EQ(p->o.err, 0);
	CHECK_EQ(p->o.status, 200);
	CHECK_EQ(p->o.body, sizeof(body));
	tls_peer_close(&tp);
}

TEST(tls_verification_failure_says_why)
{
	struct tls_peer tp;

	if (!tls_peer_open(&tp, false)) /* the system's store: nobody trusts the fixture */
		SKIP("no loopback TCP here");
	CHECK(!tp.p.o.connected);
	CHECK(tp.p.o.failed);
	CHECK_EQ(tp.p.o.conn_err, -EKEYREJECTED);
	CHECK(strstr(hc_conn_error(tp.p.c), "self-signed") != NULL);
	tls_peer_close(&tp);
}

#endif
