/* SPDX-License-Identifier: MIT */
/*
 * http/hserver.h - the responsiveness test's server side (draft-ietf-ippm-
 * responsiveness-09): HTTP connections handed over by `debloat server --rpm` (meter/
 * server.h opens the listener, http/hthread.h accepts on a thread of its own), served
 * in the event loop given (base/loop.h), single-threaded. What is served is http/
 * nqserve.h's.
 *
 * Protocols. In cleartext the first bytes decide: the HTTP/2 connection preface ("PRI
 * * HTTP/2.0") makes an HTTP/2 cleartext connection with prior knowledge (RFC 9113
 * section 3.3; the framing is libnghttp2's server session, the I/O ours), anything else
 * is HTTP/1.1 (http/http1req.h): keep-alive, one request at a time (pipelined requests
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
 * Limits (struct hserver_config). Every one holds against a client that sends slowly,
 * opens many connections, or keeps what it opened idle:
 *  - connections in all and per client network (base/peer.h: an IPv4 address, an
 *    IPv6 /v6_prefix). At either limit the connection that made no progress for the
 *    longest among those waiting for a head or between requests (never one moving a
 *    body) is closed to make room: the network's own at its share; when all are taken,
 *    one of the network that holds the most (a head dripped a byte at a time looks
 *    fresh, so many networks each at their share would otherwise push out a client
 *    holding a few); when there is none, the new connection is closed. Counting walks
 *    the open connections (<= max_conns), with a table of 2 x max_conns networks;
 *  - head_ms for the TLS handshake and then for each request head, from its first
 *    byte (the first request's from the connection): a head sent a byte at a time
 *    does not hold a connection past it;
 *  - a request head of HTTP1REQ_MAX_HEAD bytes (431), a malformed one 400; over
 *    HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE of the same size is advertised and enforced
 *    on the decoded list (past it, the connection ends with ENHANCE_YOUR_CALM: HPACK
 *    names a large field again with a byte), a header value too long for its field
 *    resets the stream, and max_streams streams in all (past it, new streams are
 *    reset; a stream open with headers only costs ~100 bytes here besides nghttp2's);
 *  - one connection's work in one wake-up of the loop is bounded (bytes fed to
 *    nghttp2 and header bytes decoded), so that no connection keeps the others (or
 *    whatever else shares the loop) waiting; the rest waits for the next turn;
 *  - max_time_ms for any one download or upload (then the HTTP/1.1 connection is
 *    closed; an HTTP/2 download ends its body, or is reset when its window is held shut,
 *    an upload is answered 200 and reset with NO_ERROR, RFC 9113 section 8.1);
 *  - idle_ms without progress closes a connection: bytes over HTTP/1.1; over HTTP/2 a
 *    request or body bytes (PINGs and SETTINGS keep nothing alive).
 * The timers are one sweep a second, on the loop's clock (loop_now(): a test may run
 * the loop on a simulated one).
 *
 * TLS (http/tls.h): with a server context in the config, a connection whose first
 * byte is a TLS handshake record (0x16, which no HTTP request starts with) is TLS,
 * any other stays cleartext, so one port serves https:// and http://. After the
 * handshake the protocol is the one ALPN chose: "h2" must send the HTTP/2 preface
 * (anything else closes the connection), "http/1.1" is HTTP/1.1 whatever its first
 * bytes; a client that offered no ALPN goes through the cleartext detection. The
 * config then names https:// URLs.
 * A connection's bytes go through one read and one write function (conn_recv,
 * conn_send in hserver.c) and nothing else touches its socket.
 *
 * Library code: it never prints; each finished large download or upload is reported
 * through on_transfer.
 */
#ifndef DEBLOAT_HTTP_HSERVER_H
#define DEBLOAT_HTTP_HSERVER_H

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
	unsigned max_conns_per_addr; /* ... from one client network (see v6_prefix) */
	unsigned v6_prefix;	     /* IPv6 clients counted per /v6_prefix (base/peer.h) */
	unsigned max_streams;	     /* HTTP/2 streams open at once, all connections */
	uint32_t max_time_ms;	     /* the longest download or upload */
	uint32_t idle_ms;	     /* a connection that makes no progress this long is closed */
	uint32_t head_ms;	     /* the longest TLS handshake, and request head */
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
