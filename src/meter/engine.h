/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the client side of a latency-under-load test: runs one test of load-tests.h
 * against `debloat server` and fills a struct test_result (result.h).
 *
 * Timeline (flent's): probes run from x = 0 to delay + length + delay at the granted
 * interval; the TCP flows start at x = delay and stop at x = delay + length. Every step
 * (the sampling grid, step_s) the engine records, per step index i covering
 * (x_i - step, x_i]:
 *   - each download flow's goodput: the kernel's count of bytes received
 *     (tcpi_bytes_received; the bytes this process read on kernels without it),
 *     sampled at each step and taken onto the grid on the straight line between
 *     samples, so that a step's value is what arrived in it over its length, and
 *     a sampler that ran late or not at all for several steps puts a backlog read
 *     in a burst over the time it took to arrive (docs/design/measurement.md);
 *   - each upload flow's goodput, from the server's REPORTs: each is a sample of the
 *     bytes the server received at its send time (mapped to our clock by the smallest
 *     offset seen since the handshake), not at its arrival, which lags behind a loaded
 *     download queue; taken onto the grid as the downloads' samples are;
 *   - each flow's TCP RTT from TCP_INFO ("NAME::tcp_rtt": tcpi_rtt for a flow we send,
 *     tcpi_rcv_rtt for one we receive, since a receiver's tcpi_rtt rarely updates);
 * and each probe's round trip lands in the step it was sent in (mean if several).
 * A probe unanswered after ENGINE_PROBE_TIMEOUT_S is lost: NAN raw sample, counted.
 *
 * One thread, one event loop (base/loop.h). Every wait is bounded: the whole run is
 * the test's duration plus ENGINE_GRACE_S; a server silent for engine_silence_s() of
 * the path (no REPORT and no answer to a UDP probe) ends the test with an error,
 * keeping what was measured. A live server can be that quiet on a lossy, bloated
 * path: a REPORT waits out TCP's retransmission backoff, which grows with the path's
 * round trip, while a full FIFO drops the probes.
 *
 * Nothing here prints: failures come back as -errno plus a sentence in
 * engine_run's `why`; live progress goes to a callback.
 */
#ifndef DEBLOAT_METER_ENGINE_H
#define DEBLOAT_METER_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "meter/load-tests.h"
#include "meter/result.h"

#define ENGINE_PROBE_TIMEOUT_S 2.0
#define ENGINE_SILENCE_S       5.0  /* no word from the server for this long: it is gone, */
#define ENGINE_SILENCE_RTTS    6.0  /* or for this many of the path's round trips, */
#define ENGINE_SILENCE_MAX_S   30.0 /* but never longer (the server's own stall bound) */
#define ENGINE_GRACE_S	       10.0 /* connecting, the last replies, FINAL */

/*
 * How long the server may say nothing before it counts as gone, for a path whose
 * largest round trip seen so far is path_rtt_ms (the flows' smoothed TCP RTTs and the
 * probes' round trips; NAN or 0: none yet): ENGINE_SILENCE_RTTS of them, at least
 * ENGINE_SILENCE_S and at most ENGINE_SILENCE_MAX_S. Six round trips cover a segment
 * lost twice in a row: TCP resends after one RTO (about two round trips on a queue
 * that is still growing), then after twice that.
 */
double engine_silence_s(double path_rtt_ms);

struct engine_progress {
	double elapsed_s, total_s;
	double download_mbps, upload_mbps; /* the last sample (about a step), all flows */
	double latency_ms;		   /* the last probe answered, any stream; NAN */
	bool loaded;			   /* the flows are running */
};

struct engine_opts {
	const char *test; /* a name of load-tests.h */
	const char *host;
	uint16_t port; /* 0: PROTO_DEFAULT_PORT */
	int family;    /* AF_UNSPEC, AF_INET (-4), AF_INET6 (-6) */
	double length_s, delay_s, step_s;
	unsigned streams;   /* tcp_nup / tcp_ndown; 0 = default */
	const char *label;  /* may be NULL */
	const char *cc;	    /* congestion control for every flow, NULL = default */
	const char *local;  /* source address of every socket (numeric), NULL = any */
	const uint8_t *key; /* shared key of a private server, NULL = none */
	size_t keylen;
	void (*progress)(void *ctx, const struct engine_progress *p); /* per step; NULL */
	void *progress_ctx;
	/*
	 * Set (by a signal handler) to end the test now: what was measured is kept, the
	 * result is marked interrupted and engine_run returns -EINTR. NULL: never.
	 */
	volatile sig_atomic_t *interrupt;
};

/* What the engine wants the user to know besides the numbers (server clamping...). */
struct engine_notes {
	char text[4][160];
	size_t n;
};

/*
 * The source address local (numeric IPv4 or IPv6, "fe80::1%eth0" too) as a socket
 * address with port 0 in *out, *len, after checking that a socket can bind to it:
 * 0; -EINVAL (not an IP address), -EADDRNOTAVAIL (no interface of this host has it),
 * or another -errno of bind(). Outputs untouched on failure.
 */
int engine_local_addr(const char *local, struct sockaddr_storage *out, socklen_t *len);

/*
 * Run the test. r must be zeroed; it is filled (result_init and series) as soon as
 * the server accepted the test, and keeps what was measured even when the run fails
 * midway (r->nsteps > 0 then): the caller can still write it. Returns 0, or -errno with
 * a sentence in why (e.g. "connection refused", "the server stopped answering after
 * 12.4 s"). -ENOENT: unknown test; -EINVAL: options out of range.
 */
int engine_run(const struct engine_opts *o, struct test_result *r, struct engine_notes *notes,
	       char *why, size_t whylen);

#endif
