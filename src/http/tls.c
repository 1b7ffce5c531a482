/* SPDX-License-Identifier: MIT */
/* http/tls.c - http/tls.h over OpenSSL 3, or -ENOTSUP in builds without it. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http/tls.h"

unsigned tls_alpn_choose(const unsigned char *in, size_t inlen, unsigned accept,
			 const unsigned char **name, unsigned char *len)
{
	const unsigned char *h2 = NULL, *h1 = NULL;

	/* the whole list is checked before anything is chosen: a malformed one picks none */
	for (size_t i = 0; i < inlen;) {
		size_t n = in[i];

		if (!n || n > inlen - i - 1)
			return 0;
		if (n == 2 && !memcmp(in + i + 1, "h2", 2) && !h2)
			h2 = in + i + 1;
		else if (n == 8 && !memcmp(in + i + 1, "http/1.1", 8) && !h1)
			h1 = in + i + 1;
		i += 1 + n;
	}
	if ((accept & TLS_ALPN_H2) && h2) {
		*name = h2;
		*len = 2;
		return TLS_ALPN_H2;
	}
	if ((accept & TLS_ALPN_HTTP1) && h1) {
		*name = h1;
		*len = 8;
		return TLS_ALPN_HTTP1;
	}
	return 0;
}

#if DEBLOAT_HAVE_TLS

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct tls_ctx {
	SSL_CTX *ssl;
	BIO_METHOD *sock; /* our socket BIO: see sock_write */
	bool server;
	unsigned alpn; /* server: what it accepts */
};

struct tls_conn {
	SSL *ssl;
	enum tls_step want;
	double t_first, t_done; /* handshake: first step, finished (-1: not yet) */
	char err[TLS_ERRLEN];
};

/* ALPN wire format (RFC 7301 section 3.1): a length byte before each name. */
static size_t alpn_wire(unsigned alpn, unsigned char *out)
{
	size_t n = 0;

	if (alpn & TLS_ALPN_H2) {
		memcpy(out + n, "\x02h2", 3);
		n += 3;
	}
	if (alpn & TLS_ALPN_HTTP1) {
		memcpy(out + n, "\x08http/1.1", 9);
		n += 9;
	}
	return n;
}

/* The most recent OpenSSL reason, for people. */
static const char *ssl_reason(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "unknown TLS error";
}

/*
 * OpenSSL's own socket BIO writes with write(), which raises SIGPIPE on a connection the
 * peer reset, and library code must not change the process's signals: this one sends
 * with MSG_NOSIGNAL, as the rest of the meter does. The fd is the BIO's data.
 */
static int sock_write(BIO *b, const char *d, size_t n, size_t *done)
{
	ssize_t r = send((int)(intptr_t)BIO_get_data(b), d, n, MSG_NOSIGNAL);

	BIO_clear_retry_flags(b);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			BIO_set_retry_write(b);
		return 0;
	}
	*done = (size_t)r;
	return 1;
}

static int sock_read(BIO *b, char *d, size_t n, size_t *done)
{
	ssize_t r = recv((int)(intptr_t)BIO_get_data(b), d, n, 0);

	BIO_clear_retry_flags(b);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			BIO_set_retry_read(b);
		return 0;
	}
	if (r == 0) /* the end of the stream: OpenSSL sees no retry flag and no bytes */
		return 0;
	*done = (size_t)r;
	return 1;
}

static long sock_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b, (void)num, (void)ptr;
	return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int sock_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

static struct tls_ctx *ctx_alloc(const SSL_METHOD *method, bool server)
{
	struct tls_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ssl = SSL_CTX_new(method);
	c->sock = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "debloat-socket");
	if (!c->ssl || !c->sock || !BIO_meth_set_write_ex(c->sock, sock_write) ||
	    !BIO_meth_set_read_ex(c->sock, sock_read) || !BIO_meth_set_ctrl(c->sock, sock_ctrl) ||
	    !BIO_meth_set_create(c->sock, sock_create)) {
		SSL_CTX_free(c->ssl);
		BIO_meth_free(c->sock);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->server = server;
	/* TLS 1.2 is the oldest the draft's servers are expected to speak. */
	SSL_CTX_set_min_proto_version(c->ssl, TLS1_2_VERSION);
	/* Our output buffers are refilled between calls: let a retried write move and let
	 * writes be partial, as send() is. */
	SSL_CTX_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE |
				     SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				     SSL_MODE_RELEASE_BUFFERS);
	return c;
}

int tls_client_ctx_new(struct tls_ctx **out, const struct tls_client_opts *o, char *errbuf,
		       size_t errlen)
{
	unsigned char wire[16];
	struct tls_ctx *c;
	size_t n;

	ERR_clear_error();
	c = ctx_alloc(TLS_client_method(), false);
	if (!c) {
		snprintf(errbuf, errlen, "cannot create a TLS context: out of memory");
		return -ENOMEM;
	}
	if (!o->insecure) {
		SSL_CTX_set_verify(c->ssl, SSL_VERIFY_PEER, NULL);
		if (o->ca_file ? !SSL_CTX_load_verify_locations(c->ssl, o->ca_file, NULL)
			       : !SSL_CTX_set_default_verify_paths(c->ssl)) {
			snprintf(errbuf, errlen, "cannot load the trust store %s: %s",
				 o->ca_file ? o->ca_file : "(system default)", ssl_reason());
			tls_ctx_free(c);
			return -EBADMSG;
		}
	}
	n = alpn_wire(o->alpn, wire);
	if (n && SSL_CTX_set_alpn_protos(c->ssl, wire, (unsigned)n)) { /* 0 is success */
		snprintf(errbuf, errlen, "cannot set the ALPN protocols: %s", ssl_reason());
		tls_ctx_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned inlen, void *arg)
{
	const struct tls_ctx *c = arg;

	(void)ssl;
	return tls_alpn_choose(in, inlen, c->alpn, out, outlen) ? SSL_TLSEXT_ERR_OK
								: SSL_TLSEXT_ERR_NOACK;
}

/* The file must open for reading: its errno says more than OpenSSL's reason would. */
static int check_readable(const char *what, const char *path, char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int e;

	if (f) {
		fclose(f);
		return 0;
	}
	e = errno;
	snprintf(errbuf, errlen, "cannot open the %s %s: %s", what, path, strerror(e));
	return -e;
}

int tls_server_ctx_new(struct tls_ctx **out, const char *cert_file, const char *key_file,
		       unsigned alpn, char *errbuf, size_t errlen)
{
	struct tls_ctx *c;
	int r;

	if ((r = check_readable("certificate", cert_file, errbuf, errlen)) < 0 ||
	    (r = check_readable("key", key_file, errbuf, errlen)) < 0)
		return r;
	ERR_clear_error();
	c = ctx_alloc(TLS_server_method(), true);
	if (!c) {
		snprintf(errbuf, errlen, "cannot create a TLS context: out of memory");
		return -ENOMEM;
	}
	c->alpn = alpn;
	if (SSL_CTX_use_certificate_chain_file(c->ssl, cert_file) != 1) {
		snprintf(errbuf, errlen, "%s is not a PEM certificate: %s", cert_file,
			 ssl_reason());
		r = -EBADMSG;
	} else if (SSL_CTX_use_PrivateKey_file(c->ssl, key_file, SSL_FILETYPE_PEM) != 1) {
		unsigned long e = ERR_peek_last_error();

		/* OpenSSL checks the key against the certificate as it loads it */
		if (ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH ||
		    ERR_GET_REASON(e) == X509_R_KEY_TYPE_MISMATCH) {
			snprintf(errbuf, errlen, "the key %s does not match the certificate %s",
				 key_file, cert_file);
			r = -EKEYREJECTED;
		} else {
			snprintf(errbuf, errlen, "%s is not a PEM private key: %s", key_file,
				 ssl_reason());
			r = -EBADMSG;
		}
	} else if (SSL_CTX_check_private_key(c->ssl) != 1) {
		snprintf(errbuf, errlen, "the key %s does not match the certificate %s", key_file,
			 cert_file);
		r = -EKEYREJECTED;
	}
	if (r < 0) {
		tls_ctx_free(c);
		return r;
	}
	SSL_CTX_set_alpn_select_cb(c->ssl, alpn_select, c);
	*out = c;
	return 0;
}

void tls_ctx_free(struct tls_ctx *ctx)
{
	if (!ctx)
		return;
	SSL_CTX_free(ctx->ssl);
	BIO_meth_free(ctx->sock);
	free(ctx);
}

static bool is_ip_literal(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *server_name)
{
	struct tls_conn *t = calloc(1, sizeof(*t));
	BIO *bio;

	if (!t)
		return NULL;
	t->t_first = t->t_done = -1;
	t->ssl = SSL_new(ctx->ssl);
	bio = BIO_new(ctx->sock);
	if (!t->ssl || !bio) {
		BIO_free(bio);
		goto fail;
	}
	BIO_set_data(bio, (void *)(intptr_t)fd);
	SSL_set_bio(t->ssl, bio, bio); /* one reference, taken by the SSL */
	if (ctx->server) {
		SSL_set_accept_state(t->ssl);
		return t;
	}
	SSL_set_connect_state(t->ssl);
	if (server_name && *server_name) {
		/* SNI carries host names only (RFC 6066 section 3); the check takes both */
		if (is_ip_literal(server_name)) {
			if (!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), server_name))
				goto fail;
		} else if (!SSL_set_tlsext_host_name(t->ssl, server_name) ||
			   !SSL_set1_host(t->ssl, server_name)) {
			goto fail;
		}
	}
	return t;
fail:
	SSL_free(t->ssl);
	free(t);
	errno = ENOMEM;
	return NULL;
}

void tls_conn_free(struct tls_conn *t)
{
	if (!t)
		return;
	SSL_free(t->ssl);
	free(t);
}

/* Map the failure of an SSL_* call that returned r to -errno, or -EAGAIN with t->want. */
static int fail(struct tls_conn *t, int r)
{
	int e = SSL_get_error(t->ssl, r), saved = errno;
	unsigned long q;
	long v;

	switch (e) {
	case SSL_ERROR_WANT_READ:
		t->want = TLS_WANT_READ;
		return -EAGAIN;
	case SSL_ERROR_WANT_WRITE:
		t->want = TLS_WANT_WRITE;
		return -EAGAIN;
	case SSL_ERROR_ZERO_RETURN:
		snprintf(t->err, sizeof(t->err), "the peer closed the TLS session");
		return 0;
	case SSL_ERROR_SYSCALL:
		if (!ERR_peek_error()) {
			e = saved ? saved : ECONNRESET;
			snprintf(t->err, sizeof(t->err), "%s", strerror(e));
			return -e;
		}
		break;
	default:
		break;
	}
	v = SSL_get_verify_result(t->ssl);
	if (v != X509_V_OK) {
		snprintf(t->err, sizeof(t->err), "certificate verification failed: %s",
			 X509_verify_cert_error_string(v));
		return -EKEYREJECTED;
	}
	q = ERR_peek_last_error();
	if (ERR_GET_LIB(q) == ERR_LIB_SSL &&
	    ERR_GET_REASON(q) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
		snprintf(t->err, sizeof(t->err), "the peer closed without a TLS close_notify");
		return -ECONNRESET;
	}
	snprintf(t->err, sizeof(t->err), "TLS: %s", ssl_reason());
	return -EPROTO;
}

int tls_handshake(struct tls_conn *t, double now)
{
	int r;

	if (t->t_done >= 0)
		return TLS_DONE;
	if (t->t_first < 0)
		t->t_first = now;
	ERR_clear_error();
	r = SSL_do_handshake(t->ssl);
	if (r == 1) {
		t->t_done = now;
		return TLS_DONE;
	}
	r = fail(t, r);
	if (r == -EAGAIN)
		return (int)t->want;
	return r ? r : -ECONNRESET; /* a close_notify during the handshake */
}

double tls_handshake_s(const struct tls_conn *t)
{
	return t->t_done < 0 ? -1 : t->t_done - t->t_first;
}

ssize_t tls_read(struct tls_conn *t, void *buf, size_t len)
{
	size_t n = 0;
	int r;

	ERR_clear_error();
	r = SSL_read_ex(t->ssl, buf, len, &n);
	if (r == 1)
		return (ssize_t)n;
	return fail(t, r);
}

ssize_t tls_write(struct tls_conn *t, const void *buf, size_t len)
{
	size_t n = 0;
	int r;

	ERR_clear_error();
	r = SSL_write_ex(t->ssl, buf, len, &n);
	if (r == 1)
		return (ssize_t)n;
	r = fail(t, r);
	return r ? r : -EPIPE; /* the peer closed: nothing more can be written */
}

enum tls_step tls_want(const struct tls_conn *t)
{
	return t->want;
}

size_t tls_pending(const struct tls_conn *t)
{
	return (size_t)SSL_pending(t->ssl);
}

const char *tls_alpn(const struct tls_conn *t)
{
	const unsigned char *p = NULL;
	unsigned len = 0;

	SSL_get0_alpn_selected(t->ssl, &p, &len);
	if (!p || !len)
		return "";
	if (len == 2 && !memcmp(p, "h2", 2))
		return "h2";
	if (len == 8 && !memcmp(p, "http/1.1", 8))
		return "http/1.1";
	return "?"; /* a protocol we never offered */
}

const char *tls_version(const struct tls_conn *t)
{
	return SSL_get_version(t->ssl);
}

const char *tls_conn_error(const struct tls_conn *t)
{
	return t->err;
}

#else /* !DEBLOAT_HAVE_TLS */

int tls_client_ctx_new(struct tls_ctx **out, const struct tls_client_opts *o, char *errbuf,
		       size_t errlen)
{
	(void)out, (void)o;
	snprintf(errbuf, errlen, "this build has no TLS");
	return -ENOTSUP;
}

int tls_server_ctx_new(struct tls_ctx **out, const char *cert_file, const char *key_file,
		       unsigned alpn, char *errbuf, size_t errlen)
{
	(void)out, (void)cert_file, (void)key_file, (void)alpn;
	snprintf(errbuf, errlen, "this build has no TLS");
	return -ENOTSUP;
}

void tls_ctx_free(struct tls_ctx *ctx)
{
	(void)ctx;
}

struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *server_name)
{
	(void)ctx, (void)fd, (void)server_name;
	errno = ENOTSUP;
	return NULL;
}

void tls_conn_free(struct tls_conn *t)
{
	(void)t;
}

int tls_handshake(struct tls_conn *t, double now)
{
	(void)t, (void)now;
	return -ENOTSUP;
}

double tls_handshake_s(const struct tls_conn *t)
{
	(void)t;
	return -1;
}

ssize_t tls_read(struct tls_conn *t, void *buf, size_t len)
{
	(void)t, (void)buf, (void)len;
	return -ENOTSUP;
}

ssize_t tls_write(struct tls_conn *t, const void *buf, size_t len)
{
	(void)t, (void)buf, (void)len;
	return -ENOTSUP;
}

enum tls_step tls_want(const struct tls_conn *t)
{
	(void)t;
	return TLS_DONE;
}

size_t tls_pending(const struct tls_conn *t)
{
	(void)t;
	return 0;
}

const char *tls_alpn(const struct tls_conn *t)
{
	(void)t;
	return "";
}

const char *tls_version(const struct tls_conn *t)
{
	(void)t;
	return "";
}

const char *tls_conn_error(const struct tls_conn *t)
{
	(void)t;
	return "this build has no TLS";
}

#endif
