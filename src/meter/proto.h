/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the wire protocol between `debloat rrul` (client) and `debloat server`.
 *
 * One port for everything (PROTO_DEFAULT_PORT, `-p` to change), TCP and UDP:
 *
 *  1. Control: the client opens a TCP connection and sends HELLO with what it wants
 *     (duration, probe interval and size, number of flows, congestion control). The
 *     server clamps every value to its limits and answers WELCOME with a random
 *     16-byte token bound to the client's source address, the granted values and
 *     the server's limits; or ERROR (busy, bad version, bad key) and closes.
 *  2. Load: for each TCP flow the client opens another TCP connection to the same port
 *     and sends FLOW {token, flow id, direction, tos, cc} first. An upload flow then
 *     carries bulk bytes client -> server (the server sinks them and counts); a download
 *     flow carries bulk bytes server -> client (the server writes until STOP, expiry or
 *     close). The server sets IP_TOS and TCP_CONGESTION on its end of each flow.
 *  3. During the test, every step (the granted step_ms) the server sends REPORT on the
 *     control connection: its clock, the cumulative bytes received per upload flow,
 *     and flags (overloaded: its event loop ran late by more than a step, a probe of
 *     the test was held longer than the server's bound, or the kernel dropped probes
 *     on its full UDP buffer; a flow was refused). The client sends STOP at the end;
 *     the server answers FINAL with totals and closes every flow of the token.
 *  4. Probes: UDP datagrams to the same port. A request carries the token; the server
 *     answers only if the token is live and the datagram comes from the address the
 *     token was issued to, within the granted rate (token bucket, burst 5). The reply
 *     is never longer than the request (the request must be at least PROTO_PROBE_LEN;
 *     padding beyond it is not echoed) and carries the server's receive and send
 *     timestamps so the client can subtract the server's hold time. The receive time
 *     is the kernel's, when the request arrived, not when the server read it (servers
 *     before this note used the latter: the same fields, so every client works with
 *     every server; only the wait in the socket queue was not taken out then).
 *
 * Keyed mode (private servers): a challenge-response. On every connection it accepts,
 * a keyed server speaks first: CHALLENGE with a random 16-byte nonce of that
 * connection. The client's HELLO or FLOW on it carries an HMAC-SHA256 over the nonce
 * and its fields, and the WELCOME answering a HELLO one over the nonce and its fields,
 * so a message captured once is worth nothing on another connection (a replayed HELLO
 * or FLOW is refused), and every flow is bound to a key holder and to the test's token.
 * Every probe request and reply ends with a truncated 16-byte HMAC; anything that fails
 * it is dropped silently. An unkeyed server sends no CHALLENGE and ignores the macs.
 *
 * Encoding: all integers big-endian; every TCP message is framed as
 *     u16 body length | u8 type | body
 * with body length <= PROTO_MAX_BODY; strings are fixed-size, NUL-padded fields.
 * Decoders check every length before reading and return -EBADMSG (malformed),
 * -EPROTO (unknown type or version), -EMSGSIZE (too long); they never read past
 * the buffer given. Encoders return the bytes written or -ENOSPC.
 */
#ifndef DEBLOAT_METER_PROTO_H
#define DEBLOAT_METER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION	   1
#define PROTO_DEFAULT_PORT 9911
#define PROTO_MAX_BODY	   1024
#define PROTO_FRAME_HDR	   3 /* u16 length + u8 type */
#define PROTO_TOKEN_LEN	   16
#define PROTO_CC_LEN	   16 /* TCP_CA_NAME_MAX */
#define PROTO_MAX_FLOWS	   32
#define PROTO_MAC_LEN	   16 /* truncated HMAC-SHA256 on probes */
#define PROTO_NONCE_LEN	   16 /* a keyed server's CHALLENGE */

enum proto_type {
	PROTO_HELLO = 1,
	PROTO_WELCOME,
	PROTO_ERROR,
	PROTO_FLOW,
	PROTO_REPORT,
	PROTO_STOP,
	PROTO_FINAL,
	PROTO_CHALLENGE, /* keyed server -> client, first on every connection */
};

enum proto_direction {
	PROTO_UPLOAD = 0,   /* client -> server */
	PROTO_DOWNLOAD = 1, /* server -> client */
};

enum proto_error {
	PROTO_ERR_BUSY = 1, /* client limit reached */
	PROTO_ERR_VERSION,  /* unsupported protocol version */
	PROTO_ERR_AUTH,	    /* keyed server, bad or missing HMAC */
	PROTO_ERR_TOKEN,    /* FLOW with an unknown or expired token */
	PROTO_ERR_PARAMS,   /* a request the server cannot serve at all */
	PROTO_ERR_CC,	    /* the requested congestion control is not available */
};

struct proto_hello {
	uint8_t version;
	uint8_t nflows;	       /* TCP flows the client will open */
	uint32_t duration_ms;  /* whole test including idle periods */
	uint32_t interval_us;  /* probe interval per stream */
	uint16_t probe_len;    /* requested UDP probe size, bytes */
	uint32_t step_ms;      /* REPORT period */
	char cc[PROTO_CC_LEN]; /* congestion control for the server's sending side, "" = default */
	uint8_t mac[32];       /* HMAC-SHA256 over the fields above (keyed mode), else zero */
};

struct proto_welcome {
	uint8_t token[PROTO_TOKEN_LEN];
	uint32_t duration_ms;	  /* granted (clamped) */
	uint32_t interval_us;	  /* granted: never below the server's minimum */
	uint16_t probe_len;	  /* granted */
	uint32_t step_ms;	  /* granted */
	uint32_t max_duration_ms; /* the server's limits, for the client's report */
	uint32_t min_interval_us;
	uint16_t max_probe_len;
	uint64_t server_ns; /* server CLOCK_MONOTONIC at send */
	uint8_t mac[32];
};

struct proto_errmsg {
	uint16_t code;	/* enum proto_error */
	char text[128]; /* for people; NUL-terminated after decode */
};

struct proto_challenge {
	uint8_t nonce[PROTO_NONCE_LEN];
};

struct proto_flow {
	uint8_t token[PROTO_TOKEN_LEN];
	uint8_t flow_id;   /* 0 .. nflows-1 */
	uint8_t direction; /* enum proto_direction */
	uint8_t tos;	   /* IP TOS / traffic class for the server's end */
	char cc[PROTO_CC_LEN];
	uint8_t mac[32]; /* HMAC-SHA256 over the nonce and the fields above (keyed mode) */
};

#define PROTO_REPORT_OVERLOADED	  0x01 /* the server, not the path, may have shaped the test */
#define PROTO_REPORT_FLOW_REFUSED 0x02

struct proto_report {
	uint64_t server_ns;
	uint32_t flags;
	uint8_t nflows;			    /* entries in rx_bytes, by flow id */
	uint64_t rx_bytes[PROTO_MAX_FLOWS]; /* cumulative bytes received per upload flow */
};

struct proto_final {
	uint64_t server_ns;
	uint32_t flags; /* or of every REPORT's flags */
	uint8_t nflows;
	uint64_t rx_bytes[PROTO_MAX_FLOWS];
	uint64_t tx_bytes[PROTO_MAX_FLOWS]; /* bytes the server sent per download flow */
	uint32_t probes_answered;
	uint32_t probes_dropped; /* rate-limited, bad token, bad MAC */
};

/* A decoded TCP message. */
struct proto_msg {
	uint8_t type;
	union {
		struct proto_hello hello;
		struct proto_welcome welcome;
		struct proto_errmsg error;
		struct proto_flow flow;
		struct proto_report report;
		struct proto_final final;
		struct proto_challenge challenge;
	} u;
};

/* Encode msg into buf as one frame. Bytes written, or -ENOSPC / -EINVAL. */
int proto_encode(const struct proto_msg *msg, uint8_t *buf, size_t len);
/*
 * Decode one frame from the front of buf. Returns the frame's size (consume that
 * many bytes), 0 when buf does not yet hold a whole frame (read more), or -errno.
 * On error msg is untouched.
 */
int proto_decode(const uint8_t *buf, size_t len, struct proto_msg *msg);

/* UDP probes. */
#define PROTO_PROBE_MAGIC_REQ 0x44425051u /* "DBPQ" */
#define PROTO_PROBE_MAGIC_REP 0x44425052u /* "DBPR" */

struct proto_probe {
	uint32_t magic;
	uint8_t token[PROTO_TOKEN_LEN];
	uint8_t stream; /* the client's probe stream (EF, BK, BE...) */
	uint8_t flags;	/* PROTO_PROBE_KEYED when a MAC follows */
	uint32_t seq;
	uint64_t client_ns;    /* client's send time, echoed */
	uint64_t server_rx_ns; /* reply only */
	uint64_t server_tx_ns; /* reply only */
};

#define PROTO_PROBE_KEYED 0x01
#define PROTO_PROBE_LEN	  50 /* encoded header length; a MAC adds PROTO_MAC_LEN */

/* What a client accepts of a grant, whatever the server says (a hostile server granting
 * a 1 us interval would have a client send a million probes a second): */
#define PROTO_GRANT_MAX_INTERVAL_US 10000000u /* the interval: what was asked .. 10 s */
#define PROTO_GRANT_MIN_STEP_MS	    10u	      /* reports: every 10 ms .. 10 s */
#define PROTO_GRANT_MAX_STEP_MS	    10000u
#define PROTO_GRANT_MAX_PROBE_LEN   1472u /* probe size: what was asked .. one frame */
/*
 * Clamp the grant w to what the hello h asked: never a shorter probe interval, a longer
 * test or a smaller probe than asked, and within the bounds above. Returns how many
 * fields it changed (0: the grant was sane).
 */
int proto_welcome_clamp(struct proto_welcome *w, const struct proto_hello *h);

int proto_probe_encode(const struct proto_probe *p, uint8_t *buf, size_t len);
/* -EBADMSG for a short datagram or a wrong magic; the padding is ignored. */
int proto_probe_decode(const uint8_t *buf, size_t len, struct proto_probe *p);

/*
 * Keyed mode. Each tag is HMAC-SHA256 over the connection's CHALLENGE nonce followed by
 * the encoded body before the mac field: HELLO's first 32 bytes, WELCOME's first 48,
 * FLOW's first 35. A keyed probe
 * carries its 16-byte tag right after the 50-byte header (bytes 50..65), computed
 * over those 50 bytes; any padding comes after the tag and is not covered. A keyed
 * request must therefore be at least PROTO_PROBE_LEN + PROTO_MAC_LEN bytes, and the
 * reply is exactly that long.
 */
void proto_hello_sign(struct proto_hello *h, const uint8_t *nonce, const uint8_t *key,
		      size_t keylen);
int proto_hello_verify(const struct proto_hello *h, const uint8_t *nonce, const uint8_t *key,
		       size_t keylen);
void proto_welcome_sign(struct proto_welcome *w, const uint8_t *nonce, const uint8_t *key,
			size_t keylen);
int proto_welcome_verify(const struct proto_welcome *w, const uint8_t *nonce, const uint8_t *key,
			 size_t keylen);
void proto_flow_sign(struct proto_flow *f, const uint8_t *nonce, const uint8_t *key, size_t keylen);
int proto_flow_verify(const struct proto_flow *f, const uint8_t *nonce, const uint8_t *key,
		      size_t keylen);
/* Write the tag at buf + PROTO_PROBE_LEN over an encoded probe. Bytes in all, -ENOSPC. */
int proto_probe_sign(uint8_t *buf, size_t len, const uint8_t *key, size_t keylen);
/* 0 when buf holds a probe with a valid tag, else -EBADMSG (short) or -EACCES. */
int proto_probe_verify(const uint8_t *buf, size_t len, const uint8_t *key, size_t keylen);
/*
 * A key file: its bytes, trailing whitespace (newlines) removed; 1 to PROTO_MAX_KEY
 * bytes. -ENOENT etc. from open, -EINVAL when empty, -EMSGSIZE when too long.
 */
#define PROTO_MAX_KEY 1024
int proto_key_read(const char *path, uint8_t *key, size_t cap, size_t *len);

#endif
