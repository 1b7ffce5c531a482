/* SPDX-License-Identifier: MIT */
/*
 * http/hclient.h - a small HTTP client on our own non-blocking sockets and epoll,
 * for the responsiveness test (meter/rpm-client.h): HTTP/2 (the framing is libnghttp2's, the
 * I/O ours) and HTTP/1.1 (http/http1.h), over cleartext or TLS (http/tls.h). In
 * cleartext HTTP/2 is h2c with prior knowledge (RFC 9113 section 3.3); over TLS the
 * server's ALPN choice decides: "h2" is HTTP/2, "http/1.1" or none is HTTP/1.1, whatever
 * protocol hc_connect asked for (the client context's ALPN list is what limits it).
 *
 * Model. One struct hc_client owns an epoll set and every connection in it. A
 * connection (hc_connect) is a TCP connection in one protocol; on it the caller opens
 * streams: a GET whose body is counted, or a POST whose body is endless zeros (the
 * upload load). HTTP/2 multiplexes any number of streams on a connection; HTTP/1.1
 * carries one at a time (a second is -EBUSY). hc_poll waits for events for at most a
 * timeout and runs the callbacks.
 *
 * Callbacks. A connection reports once that it is connected (with the TCP handshake's
 * duration; over TLS only once the TLS handshake is done too, whose duration is
 * hc_tls_handshake_s) or failed; a stream reports its status code, its body bytes and its end
 * (0 when the response is complete, else -errno: -ECONNRESET, -EPROTO for a protocol
 * error or a refused stream, -EBADMSG for a malformed response). A callback may close
 * any connection (hc_close), including the one it is called for: connections are
 * freed only when hc_poll returns, and hc_close never runs a callback.
 *
 * Limits: HC_MAX_CONNS connections; a connection buffers at most HC_OUTBUF bytes of
 * its own output (the kernel's socket buffer, bounded by TCP_NOTSENT_LOWAT on load
 * connections, holds the rest), and an HTTP/1.1 head of at most HTTP1_MAX_HEAD.
 * Time is CLOCK_MONOTONIC seconds (hc_now).
 */
#ifndef DEBLOAT_HTTP_HCLIENT_H
#define DEBLOAT_HTTP_HCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/tls.h"

#define HC_MAX_CONNS 256
#define HC_OUTBUF    65536

enum hc_proto {
	HC_H2C,	  /* HTTP/2: cleartext with prior knowledge, or ALPN "h2" over TLS */
	HC_HTTP1, /* HTTP/1.1 */
};

struct hc_client;
struct hc_conn;

struct hc_conn_ops {
	/* The TCP handshake took connect_s seconds. */
	void (*connected)(void *ctx, struct hc_conn *c, double connect_s);
	/* The connection failed or the server closed it (err -errno); streams get no
	 * callback after this: the caller closes the connection. */
	void (*failed)(void *ctx, struct hc_conn *c, int err);
};

struct hc_stream_ops {
	void (*status)(void *ctx, int status);
	/* n bytes of the body received (d), or of the upload sent (d NULL) */
	void (*data)(void *ctx, const uint8_t *d, size_t n);
	void (*done)(void *ctx, int err); /* the end; 0 for a complete response */
};

/* NULL with errno set. */
struct hc_client *hc_client_new(void);
/* Closes every connection (no callbacks) and frees. */
void hc_client_free(struct hc_client *cl);
/*
 * Run every connection opened after this over TLS with ctx (a client context, the
 * caller's: it must outlive cl), sending server_name as SNI and verifying the
 * certificate against it (http/tls.h). -ENAMETOOLONG.
 */
int hc_client_set_tls(struct hc_client *cl, struct tls_ctx *ctx, const char *server_name);

/*
 * Start a non-blocking connection to addr. authority is the Host (":authority") of
 * every request on it. A load connection gets TCP_NOTSENT_LOWAT = lowat bytes (0: left
 * alone). NULL with errno set (EMFILE when HC_MAX_CONNS are open).
 */
struct hc_conn *hc_connect(struct hc_client *cl, const struct sockaddr *addr, socklen_t len,
			   enum hc_proto proto, const char *authority, unsigned lowat,
			   const struct hc_conn_ops *ops, void *ctx);
void hc_close(struct hc_conn *c);

/*
 * Open a stream once the connection is connected: GET path, or (upload) POST path
 * with an endless body. "accept-encoding: identity", never a priority. -EBUSY on an
 * HTTP/1.1 connection that still has a stream, -ENOTCONN before connected, -ENOMEM,
 * -EPROTO (nghttp2 refused it).
 */
int hc_request(struct hc_conn *c, const char *path, bool upload, const struct hc_stream_ops *ops,
	       void *ctx);

/* The protocol of a connected connection (over TLS: what ALPN chose). */
enum hc_proto hc_conn_proto(const struct hc_conn *c);
/* The TLS handshake of a connected connection, seconds; NaN in cleartext. */
double hc_tls_handshake_s(const struct hc_conn *c);
/* Why the connection failed, for a person, when TLS says more than the -errno ("" else);
 * valid in the failed callback. */
const char *hc_conn_error(const struct hc_conn *c);

/* Streams open on the connection now. */
unsigned hc_streams(const struct hc_conn *c);
/* TCP_NOTSENT_LOWAT on the connection; -errno. */
int hc_set_lowat(struct hc_conn *c, unsigned bytes);
/* The kernel's smoothed RTT of the connection (TCP_INFO tcpi_rtt), ms; NaN on failure. */
double hc_tcp_rtt_ms(const struct hc_conn *c);

/* Wait at most timeout_s for events and run their callbacks. -errno of epoll_wait
 * (-EINTR when a signal came). */
int hc_poll(struct hc_client *cl, double timeout_s);

double hc_now(void);

#endif
