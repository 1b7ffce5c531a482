/* SPDX-License-Identifier: MIT */
/*
 * server.h - `debloat server`: one process, one epoll loop (and the rpm port's, on a
 * thread of its own: http/hthread.h), many tests at once, with
 * the protections of docs/design/measurement.md section 3. Library code: it never prints; the
 * command gets one summary per finished test through a callback.
 *
 * How to talk to it (what proto.h leaves open):
 *  - Every connection must send its first frame (HELLO or FLOW) within
 *    hello_timeout_ms (3 s), or it is closed. Any other first frame closes it.
 *  - HELLO with nflows > PROTO_MAX_FLOWS or version != PROTO_VERSION: ERROR and close.
 *    Zero values ask for defaults: duration 1 s minimum, step 200 ms (clamped to
 *    50 .. 10000 ms), interval = the server's minimum, probe_len = PROTO_PROBE_LEN
 *    (+ PROTO_MAC_LEN when keyed). WELCOME reports what was granted.
 *  - FLOW: the server does not acknowledge it. Upload: send the FLOW frame, then raw
 *    bulk bytes on the same connection (they are counted from the byte after the
 *    frame). Download: the server writes raw bytes (zeros) after reading FLOW. A FLOW
 *    must come from the same IP address as the HELLO, name a flow_id < nflows that is
 *    not in use yet; else ERROR (token, params) and close. A download flow whose cc
 *    (FLOW's cc, else HELLO's) is not allowed or cannot be set gets ERROR cc and is
 *    closed; REPORT and FINAL then carry PROTO_REPORT_FLOW_REFUSED.
 *  - Congestion control: a HELLO or FLOW may name one only if it is in the kernel's
 *    tcp_allowed_congestion_control (read again for every request) or in the
 *    operator's allow_cc and registered (cc.h); else ERROR cc (a HELLO's closes the
 *    test before it starts). The name is checked before any setsockopt, so no client
 *    makes a root server load a kernel module.
 *  - The test lives while the control connection is open, until STOP (answered by
 *    FINAL), granted duration + 5 s (FINAL, then close), or 10 s in which nothing
 *    moves (no control frame, no upload byte, no download byte taken, no valid probe).
 *    Closing the control connection ends the test and closes its flows. When the
 *    server closes an upload flow the client may see ECONNRESET/EPIPE: expected.
 *  - Probes: the token bucket (rate 1/interval, burst 5) is kept per value of the
 *    probe's `stream` byte, for up to SERVER_MAX_STREAMS distinct values per test
 *    (any byte value works, e.g. the TOS); probes of a further stream are dropped.
 *    Requests longer than max_probe_len (or shorter than the header) are dropped;
 *    the reply is PROTO_PROBE_LEN bytes (+ PROTO_MAC_LEN keyed) with magic
 *    PROTO_PROBE_MAGIC_REP, the request's token, stream, seq and client_ns echoed.
 *    Keyed: see proto.h for where the tag sits.
 *  - Server timestamps are CLOCK_MONOTONIC ns of this host: compare them only with
 *    each other (server_tx_ns - server_rx_ns is the time spent in the server).
 *  - Hold time: server_rx_ns is the kernel's receive timestamp of the request
 *    (SO_TIMESTAMPNS, mapped onto the monotonic clock), not the moment the server read
 *    it, so server_tx_ns - server_rx_ns holds the time the request waited in the
 *    socket's queue as well as its processing; every client version subtracts it from
 *    the round trip. A test any of whose probes was held longer than hold_max_us
 *    (SERVER_HOLD_MAX_US), or whose reply left more than that after its stamp (the
 *    server lost its CPU while sending), or that ran while the kernel dropped datagrams
 *    on the full UDP buffer, is flagged PROTO_REPORT_OVERLOADED in its next REPORT and
 *    its FINAL:
 *    the result then says the server, not the path, may have shaped it.
 *  - Each answered probe's hold and processing time (server_probe_stats) is kept in two
 *    histograms per window and two for the whole run (base/hist.h: O(1) per probe,
 *    fixed memory, ~140 KB in all); a test's longest of each is in its summary.
 *  - Probes come first: the UDP socket is read between any two bulk sends or reads
 *    (BULK_LEN each), so a request waits behind at most one of them; between due
 *    timers and within the sweep's walks it is looked at every 50 us (loop.h's urgent
 *    fd), so thousands of REPORTs due together do not hold it either
 *    (docs/design/server-scale.md).
 */
#ifndef DEBLOAT_METER_SERVER_H
#define DEBLOAT_METER_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/loop.h"
#include "http/hserver.h"
#include "meter/proto.h"

#define SERVER_MAX_STREAMS 8
/* A probe held longer than this flags its test overloaded. See server-scale.md. */
#define SERVER_HOLD_MAX_US 2000
/* The UDP receive buffer asked for: ~0.4 s of 20000 probes a second on loopback, where
 * a small datagram costs ~1 KB of buffer; the kernel may grant less (rmem_max). */
#define SERVER_UDP_RCVBUF (8 * 1024 * 1024)
/* The most tests at once a configuration may ask for (see server_new). */
#define SERVER_MAX_CLIENTS 65536

/* One finished test, for the log line. */
struct server_test_summary {
	char client[64];      /* "192.0.2.1" or "2001:db8::1" */
	const char *reason;   /* "stop", "expired", "idle", "closed", "protocol", "shutdown" */
	uint32_t duration_ms; /* granted */
	uint32_t elapsed_ms;
	uint32_t interval_us;
	uint16_t probe_len;
	uint8_t nflows;
	char cc[PROTO_CC_LEN];
	uint64_t rx_bytes, tx_bytes;
	uint32_t probes_answered, probes_dropped;
	uint32_t probes_held; /* answered, but held longer than hold_max_us */
	uint32_t hold_max_us; /* the longest hold of an answered probe */
	uint32_t proc_max_us; /* the longest processing time of an answered probe */
	uint32_t flags;	      /* PROTO_REPORT_* */
};

/*
 * Every answered probe's two times, over all tests, in nanoseconds:
 *  - hold: from the kernel's receive timestamp of the request (its arrival, as the
 *    reply's server_rx_ns) to the moment the sendmmsg that carried the reply returned:
 *    the socket's queue, the server's wake-up and its work;
 *  - processing: the server's own work on the request: from the moment it turned to
 *    it (the return of the recvmmsg that read it, for the first of a batch; the end
 *    of the previous request's work, for the others) to the moment its reply was
 *    decided (decoded, its test found, its rate checked). That is what irtt's server
 *    reports as its time, which reads one request at a time and stamps its reply
 *    before sending it. The wait behind the batch's other requests, the batch's one
 *    stamp (server_tx_ns, taken just before the send), its signing and its send are
 *    in the hold only.
 * So 0 <= processing <= hold for every probe. Quantiles are nearest-rank, to a histogram
 * bucket's precision (within 1 %), clamped to the exact minimum and maximum.
 */
struct server_probe_stats {
	bool final;	    /* the whole run (the server is stopping); else one window */
	uint64_t window_ns; /* the time the figures cover */
	uint64_t probes;    /* answered in it */
	uint64_t hold_p50_ns, hold_p99_ns, hold_max_ns;
	uint64_t proc_p50_ns, proc_p99_ns, proc_max_ns;
};

struct server_config {
	int family;	      /* AF_INET, AF_INET6, or AF_UNSPEC (IPv6 socket taking both) */
	const char *bind;     /* an address, NULL for any */
	uint16_t port;	      /* 0: an ephemeral port (tests), see server_port() */
	unsigned max_clients; /* tests at once, 1 .. SERVER_MAX_CLIENTS */
	unsigned max_pending; /* connections that have not sent HELLO/FLOW yet */
	/* One address may hold at most this many tests and pending connections, so that it
	 * cannot lock everyone else out; a full pending table evicts its oldest. */
	unsigned max_tests_per_addr, max_pending_per_addr;
	/* ... where an IPv6 "address" is its first v6_prefix bits (base/peer.h: one host
	 * holds a whole /64), here and in the rpm server's limits; IPv4 is per address. */
	unsigned v6_prefix;
	uint32_t max_duration_ms;
	uint32_t min_interval_us;
	uint16_t max_probe_len;
	const uint8_t *key; /* keyed mode when keylen > 0 */
	size_t keylen;
	uint32_t grace_ms, idle_ms, hello_timeout_ms;
	/* A flow that moves no byte for this long is closed (a client that stops reading
	 * would otherwise pin the flow's send buffer while its probes keep the test alive).
	 * 30 s by default: TCP backs off on a bloated link, its retransmission timeout 3 s
	 * or more behind a 3 s queue and doubled at each loss, and a flow of a live client
	 * moves nothing for that long (5 s closed such flows mid-test behind a 4 Mbit/s
	 * link); what a stalled download holds meanwhile is bounded by TCP_NOTSENT_LOWAT. */
	uint32_t flow_stall_ms;
	/* Congestion controls a client may ask for besides the kernel's allowed list:
	 * comma-separated names, NULL for none. The lists' paths are cc.h's; tests point
	 * them elsewhere. */
	const char *allow_cc;
	int udp_rcvbuf;	      /* UDP receive buffer to ask for, bytes; 0: the kernel's default */
	uint32_t hold_max_us; /* a longer hold flags the test overloaded */
	const char *allowed_cc_path, *available_cc_path;
	void (*on_test_end)(void *ctx, const struct server_test_summary *t);
	/* Every stats_ms (0: never) the probes of that window, if any were answered; and
	 * once, from server_run as it returns, those of the whole run (final). */
	uint32_t stats_ms;
	void (*on_stats)(void *ctx, const struct server_probe_stats *st);
	void *ctx;
	/* The responsiveness test's HTTP server (http/hserver.h) on a TCP port of its
	 * own, rpm_port (0: an ephemeral one, see server_rpm_port), in the same loop:
	 * this server only listens and accepts, and hands each connection over. */
	bool rpm;
	uint16_t rpm_port;
	struct hserver_config rpm_cfg;
	/* The clock of the server's loop: NULL for CLOCK_MONOTONIC. Tests pass a simulated
	 * one (base/loop.h) to run the timeouts above without waiting for them; the
	 * kernel's receive stamps of probes are mapped onto it. The rpm port's loop, on its
	 * own thread, runs on CLOCK_MONOTONIC whatever this is (hserver reads that clock). */
	const struct loop_clock *clock;
};

void server_config_defaults(struct server_config *c);

struct server;

/* Sockets bound and listening. -errno (-EADDRINUSE, -EINVAL for a bad config...). */
int server_new(const struct server_config *c, struct server **out);
uint16_t server_port(const struct server *s);
/* The responsiveness test's TCP port, 0 without cfg.rpm. */
uint16_t server_rpm_port(const struct server *s);
/* The UDP receive buffer the kernel granted, bytes (what SO_RCVBUF reads back). */
int server_udp_rcvbuf(const struct server *s);
/*
 * Serve until *stop becomes non-zero (checked at least every 100 ms; a signal also
 * wakes it). Running tests end with reason "shutdown", then on_stats gets the whole
 * run's probe statistics. 0, or -errno from epoll.
 */
int server_run(struct server *s, const volatile sig_atomic_t *stop);
void server_free(struct server *s);

#endif
