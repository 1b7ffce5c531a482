/* SPDX-License-Identifier: MIT */
/*
 * test-tls.c - http/tls.h: a client and a server over a non-blocking socketpair, from a
 * self-signed certificate made here (OpenSSL's API: test code may use it directly) for
 * "localhost" and 127.0.0.1: the handshake, ALPN's choice, data both ways, verification
 * (a certificate nobody trusts, a name it does not carry, and --insecure), and the
 * errors of bad certificate and key files.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "http/tls.h"
#include "tls-fixture.h"

/* The server's ALPN choice, a pure function in every build. */
TEST(alpn_choice_prefers_h2_and_refuses_malformed_lists)
{
	const unsigned char *name = NULL;
	unsigned char len = 0;
	const unsigned char both[] = "\x08http/1.1\x02h2", bad[] = "\x02h2\x09http/1.1";

	CHECK_EQ(tls_alpn_choose(both, sizeof(both) - 1, TLS_ALPN_H2 | TLS_ALPN_HTTP1, &name, &len),
		 TLS_ALPN_H2);
	CHECK(len == 2 && name == both + 10);
	CHECK_EQ(tls_alpn_choose(both, sizeof(both) - 1, TLS_ALPN_HTTP1, &name, &len),
		 TLS_ALPN_HTTP1);
	CHECK(len == 8 && name == both + 1);
	name = NULL;
	CHECK_EQ(tls_alpn_choose(both + 9, 3, TLS_ALPN_HTTP1, &name, &len), 0);
	CHECK_EQ(tls_alpn_choose(bad, sizeof(bad) - 1, TLS_ALPN_H2, &name, &len), 0);
	CHECK(name == NULL); /* untouched */
	CHECK_EQ(tls_alpn_choose((const unsigned char *)"\0", 1, TLS_ALPN_H2, &name, &len), 0);
}

#if DEBLOAT_HAVE_TLS

static const struct tls_fixture *fx;

static void make_files(void)
{
	if (!fx)
		fx = tls_fixture();
}

struct pair {
	int fd[2];
	struct tls_ctx *cctx, *sctx;
	struct tls_conn *c, *s;
	int cr, sr; /* last handshake results */
};

static int pair_open(struct pair *p, const struct tls_client_opts *co, unsigned server_alpn,
		     const char *name)
{
	char err[TLS_ERRLEN];
	int r;

	make_files();
	memset(p, 0, sizeof(*p));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p->fd) < 0)
		return -errno;
	if ((r = tls_client_ctx_new(&p->cctx, co, err, sizeof(err))) < 0 ||
	    (r = tls_server_ctx_new(&p->sctx, fx->cert, fx->key, server_alpn, err, sizeof(err))) <
		0)
		return r;
	p->c = tls_conn_new(p->cctx, p->fd[0], name);
	p->s = tls_conn_new(p->sctx, p->fd[1], NULL);
	return p->c && p->s ? 0 : -ENOMEM;
}

static void pair_close(struct pair *p)
{
	tls_conn_free(p->c);
	tls_conn_free(p->s);
	tls_ctx_free(p->cctx);
	tls_ctx_free(p->sctx);
	close(p->fd[0]);
	close(p->fd[1]);
}

/* Step both ends until both are done or one failed; each waits as tls_want says. */
static void handshake(struct pair *p)
{
	double now = 0;

	p->cr = p->sr = TLS_WANT_READ;
	for (int i = 0; i < 100 && (p->cr > 0 || p->sr > 0); i++) {
		if (p->cr > 0)
			p->cr = tls_handshake(p->c, now);
		if (p->sr > 0)
			p->sr = tls_handshake(p->s, now);
		if (p->cr < 0 || p->sr < 0)
			return;
		now += 0.001;
	}
}

TEST(handshake_chooses_h2_and_times_itself)
{
	struct tls_client_opts co = {.ca_file = NULL, .alpn = TLS_ALPN_H2 | TLS_ALPN_HTTP1};
	struct pair p;

	make_files();
	co.ca_file = fx->cert;
	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2 | TLS_ALPN_HTTP1, "localhost"), 0);
	CHECK_EQ(tls_handshake_s(p.c) < 0, 1);
	handshake(&p);
	CHECK_EQ(p.cr, TLS_DONE);
	CHECK_EQ(p.sr, TLS_DONE);
	CHECK_STR(tls_alpn(p.c), "h2");
	CHECK_STR(tls_alpn(p.s), "h2");
	CHECK_STR(tls_version(p.c), "TLSv1.3");
	/* the client needs two flights: a step at t=0 and the last at 0.001 or later */
	CHECK(tls_handshake_s(p.c) > 0.0005 && tls_handshake_s(p.c) < 0.1);
	pair_close(&p);
}

TEST(server_falls_back_to_http1_and_client_may_offer_nothing)
{
	struct tls_client_opts co = {.insecure = true, .alpn = TLS_ALPN_HTTP1};
	struct pair p;

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2 | TLS_ALPN_HTTP1, "localhost"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, TLS_DONE);
	CHECK_STR(tls_alpn(p.c), "http/1.1");
	pair_close(&p);

	co.alpn = TLS_ALPN_H2;
	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_HTTP1, "localhost"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, TLS_DONE);
	CHECK_STR(tls_alpn(p.c), ""); /* the server accepts no h2: no ALPN at all */
	pair_close(&p);
}

TEST(data_both_ways_and_eagain_when_empty)
{
	struct tls_client_opts co = {.insecure = true, .alpn = TLS_ALPN_H2};
	static char big[200000], got[200000];
	size_t sent = 0, recvd = 0;
	char buf[64];
	struct pair p;
	ssize_t n;

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, "localhost"), 0);
	handshake(&p);
	REQUIRE_EQ(p.cr, TLS_DONE);
	REQUIRE_EQ(p.sr, TLS_DONE);
	CHECK_EQ(tls_read(p.s, buf, sizeof(buf)), -EAGAIN);
	CHECK_EQ(tls_want(p.s), TLS_WANT_READ);
	REQUIRE_EQ(tls_write(p.c, "hello", 5), 5);
	n = tls_read(p.s, buf, sizeof(buf));
	REQUIRE_EQ(n, 5);
	CHECK(!memcmp(buf, "hello", 5));
	/* more than the socket holds: the writer sees -EAGAIN, the reader drains */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	for (int i = 0; i < 10000 && recvd < sizeof(big); i++) {
		if (sent < sizeof(big)) {
			n = tls_write(p.s, big + sent, sizeof(big) - sent);
			if (n > 0)
				sent += (size_t)n;
			else
				CHECK_EQ(n, -EAGAIN);
		}
		n = tls_read(p.c, got + recvd, sizeof(got) - recvd);
		if (n > 0)
			recvd += (size_t)n;
		else
			CHECK_EQ(n, -EAGAIN);
	}
	CHECK_EQ(recvd, sizeof(big));
	CHECK(!memcmp(big, got, sizeof(big)));
	pair_close(&p);
}

TEST(peer_close_without_close_notify_is_a_reset)
{
	struct tls_client_opts co = {.insecure = true};
	struct pair p;
	char buf[16];

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, NULL), 0);
	handshake(&p);
	REQUIRE_EQ(p.cr, TLS_DONE);
	close(p.fd[1]);
	p.fd[1] = -1;
	CHECK_EQ(tls_read(p.c, buf, sizeof(buf)), -ECONNRESET);
	pair_close(&p);
}

TEST(untrusted_certificate_fails_verification)
{
	struct tls_client_opts co = {.alpn = TLS_ALPN_H2}; /* the system store */
	struct pair p;

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, "localhost"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, -EKEYREJECTED);
	CHECK(strstr(tls_conn_error(p.c), "certificate verification failed") != NULL);
	CHECK(strstr(tls_conn_error(p.c), "self-signed") != NULL);
	pair_close(&p);
}

TEST(verification_checks_the_name_and_the_address)
{
	struct tls_client_opts co = {.alpn = TLS_ALPN_H2};
	struct pair p;

	make_files();
	co.ca_file = fx->cert;
	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, "example.org"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, -EKEYREJECTED);
	CHECK(strstr(tls_conn_error(p.c), "mismatch") != NULL);
	pair_close(&p);

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, "127.0.0.1"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, TLS_DONE);
	pair_close(&p);

	REQUIRE_EQ(pair_open(&p, &co, TLS_ALPN_H2, "127.0.0.2"), 0);
	handshake(&p);
	CHECK_EQ(p.cr, -EKEYREJECTED);
	pair_close(&p);
}

TEST(bad_server_files_are_clear_errors)
{
	struct tls_ctx *ctx = (struct tls_ctx *)&ctx; /* must stay untouched */
	char err[TLS_ERRLEN];
	char missing[128];

	make_files();
	snprintf(missing, sizeof(missing), "%s/missing.pem", fx->dir);
	CHECK_EQ(tls_server_ctx_new(&ctx, missing, fx->key, TLS_ALPN_H2, err, sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "cannot open the certificate") && strstr(err, missing));
	CHECK_EQ(tls_server_ctx_new(&ctx, fx->cert, missing, TLS_ALPN_H2, err, sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "cannot open the key") != NULL);
	CHECK_EQ(tls_server_ctx_new(&ctx, fx->junk, fx->key, TLS_ALPN_H2, err, sizeof(err)),
		 -EBADMSG);
	CHECK(strstr(err, "is not a PEM certificate") && strstr(err, fx->junk));
	CHECK_EQ(tls_server_ctx_new(&ctx, fx->cert, fx->junk, TLS_ALPN_H2, err, sizeof(err)),
		 -EBADMSG);
	CHECK(strstr(err, "is not a PEM private key") != NULL);
	CHECK_EQ(tls_server_ctx_new(&ctx, fx->cert, fx->other_key, TLS_ALPN_H2, err, sizeof(err)),
		 -EKEYREJECTED);
	CHECK(strstr(err, "does not match") != NULL);
	CHECK(ctx == (struct tls_ctx *)&ctx);
}

#else

TEST(without_openssl_everything_is_enotsup)
{
	struct tls_client_opts co = {0};
	struct tls_ctx *ctx = NULL;
	char err[TLS_ERRLEN];

	CHECK_EQ(tls_client_ctx_new(&ctx, &co, err, sizeof(err)), -ENOTSUP);
	CHECK_STR(err, "this build has no TLS");
	CHECK_EQ(tls_server_ctx_new(&ctx, "c", "k", TLS_ALPN_H2, err, sizeof(err)), -ENOTSUP);
	CHECK(ctx == NULL);
}

#endif
