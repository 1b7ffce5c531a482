/* SPDX-License-Identifier: MIT */
/*
 * meter/hserver.h - the responsiveness test's server side (draft-ietf-ippm-
 * responsiveness-09): HTTP connections handed over by `debloat server --rpm` (meter/
 * server.h opens the listener and accepts), served in the server's own event loop
 * (meter/loop.h), no threads. What is served is meter/nqserve.h's.
 *
 * Protocols. The first bytes decide: the HTTP/2 connection preface ("PRI * HTTP/2.0")
 * makes an HTTP/2 cleartext connection with prior knowledge (RFC 9113 section 3.3;
 * the framing is libnghttp2's server session, the I/O ours), anything else is
 * HTTP/1.1 (meter/http1req.h): keep-alive, one request at a time (pipelined requests
 * wait in the input buffer until the response before them is complete).
 *
 * Bodies. The large download has no end: over HTTP/1.1 a close-delimited body
 * (Connection: close, no Content-Length), over HTTP/2 DATA frames until the client
 * resets the stream; zeros from one static buffer, never read from disk. The upload
 * (POST) is read and discarded as fast as the server reads its socket, never buffered;
 * over HTTP/1.1 it needs a Content-Length (chunked: 501; neither: 411) and gets
 * 100 Continue when it asks; the 200 comes at its end. Output is produced only when
 * the socket takes it: each accepted connection gets TCP_NOTSENT_LOWAT = lowat bytes,
 * as the draft asks of load connections, so a sender's backlog stays in the network,
 * not in the server's socket.
 *
 * Limits (struct hserver_config): connections in all and per client address (beyond
 * either, an accepted connection is closed at once; counting one address walks the
 * open connections, at most max_conns); a request head of HTTP1REQ_MAX_HEAD bytes
 * (431), a malformed one 400, and over HTTP/2 a header value too long for its field
 * resets the stream; max_time_ms for any one download or upload (then the HTTP/1.1
 * connection is closed; an HTTP/2 download ends its body, an upload is answered 200
 * and reset with NO_ERROR, RFC 9113 section 8.1); idle_ms in which a connection moves no
 * byte closes it. The timers are one sweep a second.
 *
 * TLS (meter/tls.h): with a server context in the config, a connection whose first
 * byte is a TLS handshake record (0x16, which no HTTP request starts with) is TLS,
 * any other stays cleartext, so one port serves https:// and http://. After the
 * handshake the decrypted bytes go through the same detection: ALPN "h2" clients send
 * the HTTP/2 preface, "http/1.1" ones a request. The config then names https:// URLs.
 * A connection's bytes go through one read and one write function (conn_recv,
 * conn_send in hserver.c) and nothing else touches its socket.
 *
 * Library code: it never prints; each finished large download or upload is reported
 * through on_transfer.
 */
#ifndef DEBLOAT_METER_HSERVER_H
#define DEBLOAT_METER_HSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct loop;
struct tls_ctx;

#define HSERVER_DEFAULT_PORT 4043

struct hserver_transfer {
	char client[64];   /* "192.0.2.1" */
	const char *proto; /* "h2c", "http/1.1", or over TLS "h2", "http/1.1" */
	bool tls;
	const char *kind; /* "download", "upload" */
	const char *end;  /* "complete", "max-time", "closed" */
	uint64_t bytes;	  /* body bytes moved */
	uint32_t elapsed_ms;
};

struct hserver_config {
	unsigned max_conns;	     /* connections at once, in all */
	unsigned max_conns_per_addr; /* ... from one client address */
	uint32_t max_time_ms;	     /* the longest download or upload */
	uint32_t idle_ms;	     /* a connection that moves nothing this long is closed */
	unsigned lowat;		     /* TCP_NOTSENT_LOWAT of accepted connections, bytes */
	struct tls_ctx *tls;	     /* a server context (not owned), or NULL: cleartext only */
	void (*on_transfer)(void *ctx, const struct hserver_transfer *t);
	void *ctx;
};

void hserver_config_defaults(struct hserver_config *c);

struct hserver;

/* -errno (-EINVAL for a zero limit, -ENOMEM). */
int hserver_new(struct loop *l, const struct hserver_config *c, struct hserver **out);
/*
 * Take an accepted, non-blocking connection from peer (closed here when a limit is
 * reached or on any failure). The hserver owns fd from now on.
 */
void hserver_accept(struct hserver *h, int fd, const struct sockaddr_storage *peer);
unsigned hserver_conns(const struct hserver *h);
/* Closes every connection (no callbacks) and frees. */
void hserver_free(struct hserver *h);

#endif
