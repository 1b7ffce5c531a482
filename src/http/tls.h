/* SPDX-License-Identifier: MIT */
/*
 * http/tls.h - TLS on our own non-blocking sockets: a thin layer over OpenSSL 3 (libssl)
 * for the responsiveness client (http/hclient.h, https:// URLs) and server, so nothing
 * else includes an OpenSSL header.
 *
 * Model. A struct tls_ctx is the configuration shared by many connections: a client's
 * (peer verification against the system's trust store unless told not to, the ALPN
 * protocols it offers) or a server's (a certificate chain and its key, read from PEM
 * files; it selects "h2" when the client offers it, else "http/1.1"). A struct tls_conn
 * wraps one connected, non-blocking TCP socket; the caller owns the socket and its epoll
 * registration, and drives the connection: tls_handshake until it returns TLS_DONE, then
 * tls_read / tls_write. When one of them cannot go on, it returns TLS_WANT_READ or
 * TLS_WANT_WRITE (handshake) or -EAGAIN (read, write) and tls_want says which readiness
 * of the socket to wait for: a read may need to write (a key update) and a write may need
 * to read, so the caller waits for the direction given, not the one it called.
 *
 * Timing. The responsiveness test reports the TLS handshake as its own component of a
 * foreign probe (docs/design/rpm.md): tls_handshake takes the time now (CLOCK_MONOTONIC
 * seconds, passed in) and the connection keeps the time of its first step and of the
 * step that finished it; tls_handshake_s is their difference. It starts when the TCP
 * connection is up, so it holds TLS alone.
 *
 * Errors are -errno, and a message for people is kept beside them (tls_ctx_new's errbuf,
 * tls_conn_error): -ENOENT/-EACCES (a PEM file that cannot be opened), -EBADMSG (a file
 * that is not a PEM certificate or key), -EKEYREJECTED (a key that does not match the
 * certificate; a peer whose certificate failed verification), -EPROTO (any other failure
 * of the TLS protocol), -ECONNRESET (the peer closed without a close_notify), -ENOMEM.
 *
 * Builds without OpenSSL (the static builds for the boards: libssl would more than
 * double the binary) have DEBLOAT_HAVE_TLS 0: every function then fails with -ENOTSUP
 * (NULL with errno ENOTSUP) and callers say that this build has no TLS.
 *
 * Library code: nothing here prints. Not thread-safe per object; separate objects may
 * be used from separate threads.
 */
#ifndef DEBLOAT_HTTP_TLS_H
#define DEBLOAT_HTTP_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef DEBLOAT_HAVE_TLS
#define DEBLOAT_HAVE_TLS 0
#endif

/* ALPN protocols, a bit set: what a client offers, what a server accepts. */
#define TLS_ALPN_H2    1u /* "h2" */
#define TLS_ALPN_HTTP1 2u /* "http/1.1" */

struct tls_client_opts {
	bool insecure;	     /* do not verify the server's certificate or name (-k) */
	const char *ca_file; /* PEM trust anchors; NULL: the system's default store */
	unsigned alpn;	     /* TLS_ALPN_*; 0 offers none */
};

struct tls_ctx;
struct tls_conn;

enum tls_step {
	TLS_DONE = 0,
	TLS_WANT_READ = 1,
	TLS_WANT_WRITE = 2,
};

/* The longest message kept for people (tls_ctx_new's errbuf, tls_conn_error). */
#define TLS_ERRLEN 200

/* A client context. -errno; *out untouched on failure, errbuf says why. */
int tls_client_ctx_new(struct tls_ctx **out, const struct tls_client_opts *o, char *errbuf,
		       size_t errlen);
/*
 * A server context from a PEM certificate (chain) file and a PEM private key file,
 * accepting the ALPN protocols in alpn (h2 preferred). -errno; *out untouched on
 * failure, errbuf names the file and says why.
 */
int tls_server_ctx_new(struct tls_ctx **out, const char *cert_file, const char *key_file,
		       unsigned alpn, char *errbuf, size_t errlen);
void tls_ctx_free(struct tls_ctx *ctx);

/*
 * Wrap a connected non-blocking socket fd (not taken: the caller closes it after
 * tls_conn_free). server_name (client only; may be NULL) is sent as SNI when it is a
 * host name and is what the certificate must match when verifying (a host name or an
 * IP address literal). NULL with errno set.
 */
struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *server_name);
/* Frees without a close_notify (the socket is closed by the caller anyway). */
void tls_conn_free(struct tls_conn *t);

/* One handshake step at time now: TLS_DONE, TLS_WANT_READ, TLS_WANT_WRITE, or -errno. */
int tls_handshake(struct tls_conn *t, double now);
/* Seconds from the first handshake step to the one that finished it; -1 before. */
double tls_handshake_s(const struct tls_conn *t);

/*
 * Up to len bytes of application data: n > 0, 0 when the peer closed cleanly
 * (close_notify), -EAGAIN (wait for tls_want's direction), or -errno.
 */
ssize_t tls_read(struct tls_conn *t, void *buf, size_t len);
/* Write up to len bytes (len > 0): n > 0, -EAGAIN (wait for tls_want), or -errno. After
 * -EAGAIN the next call must pass the same bytes again (at least as many). */
ssize_t tls_write(struct tls_conn *t, const void *buf, size_t len);
/* After TLS_WANT_* or -EAGAIN: which readiness to wait for (TLS_WANT_READ/_WRITE). */
enum tls_step tls_want(const struct tls_conn *t);
/* Bytes decrypted and buffered inside the TLS layer, readable without the socket. */
size_t tls_pending(const struct tls_conn *t);

/*
 * The server's choice from a client's ALPN list in wire format (RFC 7301 section 3.1: a
 * length byte before each name), among the protocols in accept: "h2" when offered,
 * else "http/1.1". TLS_ALPN_H2 or TLS_ALPN_HTTP1, with *name and *len pointing into in;
 * 0 when nothing offered is accepted, or the list is malformed (a name running past
 * inlen, an empty name), and then *name and *len are untouched. Pure: also in builds
 * without TLS (fuzz/fuzz-alpn.c).
 */
unsigned tls_alpn_choose(const unsigned char *in, size_t inlen, unsigned accept,
			 const unsigned char **name, unsigned char *len);

/* The protocol ALPN chose after the handshake: "h2", "http/1.1", or "" for none. */
const char *tls_alpn(const struct tls_conn *t);
/* "TLSv1.3" and the like, after the handshake. */
const char *tls_version(const struct tls_conn *t);
/* The message of the last failure on this connection ("" when none). */
const char *tls_conn_error(const struct tls_conn *t);

#endif
