/* SPDX-License-Identifier: MIT */
/*
 * meter/rpm-client.h - the responsiveness test of draft-ietf-ippm-responsiveness-09 as a
 * client (`debloat test rpm URL`), over http/hclient.h (HTTP/2 or HTTP/1.1, in
 * cleartext or over TLS),
 * with the draft's arithmetic from debloat/rpm.h. docs/design/rpm.md has the method.
 *
 * A stage loads the path in one direction (download: GETs of the large object;
 * upload: endless POSTs to the upload URL) or both at once (concurrent mode), and
 * measures responsiveness while it does:
 *	- it starts with one load connection per direction and adds one per direction at
 *	  the end of every interval of ID seconds until goodput saturates (the rpm_window
 *	  rule over the bytes moved per interval) or MNP connections run;
 *	- foreign probes, each on a new connection: the TCP handshake (tcp_f), over TLS
 *	  the TLS handshake (tls_f), and a GET of the 1-byte object (http_f, request to
 *	  last byte); self probes (http_l): a GET of
 *	  the small object multiplexed on a load connection chosen at random (HTTP/2), or
 *	  over HTTP/1.1, where that is impossible, the kernel's RTT of that connection
 *	  (TCP_INFO), which the draft allows as a stand-in. One pair every 1/rate s, rate
 *	  at most MPS and reduced so the probes' estimated bytes (5000 per foreign, 1000
 *	  per self) stay within PTC of the goodput;
 *	- at the end of every interval, the trimmed means (TMP) of the samples of the last
 *	  MAD intervals give the RPM; its stability is the rpm_window rule again;
 *	- the stage ends when goodput is saturated and the RPM stable (confidence high),
 *	  or at max_s (medium with at least MAD intervals, else low), or when a load
 *	  connection fails (the draft says abort: the stage reports what it had, failed).
 * Sequential mode runs a download stage, then an upload stage; concurrent one stage
 * with both directions (the draft's default and Apple's).
 *
 * Load connections get TCP_NOTSENT_LOWAT: throughput x 5 ms, re-set each interval
 * from the connection's own rate (at least RPM_MIN_LOWAT), as the draft asks where
 * TCP_REPLENISH_TIME does not exist.
 *
 * Everything lands in a struct test_result (meter/result.h): the draft's figures in
 * r->rpm, and series on a grid of ID / 5 seconds ("TCP download", "TCP upload" in
 * Mbit/s; "Ping (ms) RPM foreign TCP", over TLS "Ping (ms) RPM foreign TLS", "Ping (ms) RPM
 * foreign HTTP", "Ping (ms) RPM
 * self HTTP" or "Ping (ms) RPM self TCP_INFO", with every sample raw) for plots.
 */
#ifndef DEBLOAT_METER_RPM_CLIENT_H
#define DEBLOAT_METER_RPM_CLIENT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "http/hclient.h"
#include "http/nqconfig.h"
#include "meter/result.h"

#define RPM_MIN_LOWAT	  4096u
#define RPM_INITIAL_LOWAT 16384u
#define RPM_MAX_FOREIGN	  32 /* foreign probes in flight; more are skipped */
#define RPM_FOREIGN_BYTES 5000
#define RPM_SELF_BYTES	  1000
#define RPM_DEFAULT_MAX_S 60.0

enum rpm_dirs {
	RPM_DOWNLOAD = 1,
	RPM_UPLOAD = 2,
	RPM_BOTH = 3,
};

/*
 * What a person watching the test sees, once a second while a stage runs (the
 * progress callback of rpm_params; networkQuality prints the same). Index 0 is the
 * download direction, 1 the upload; a direction the stage does not load has 0
 * connections and NaN goodput.
 */
struct rpm_progress {
	unsigned stage, nstages; /* 1-based: stage of nstages */
	const char *direction;	 /* "download", "upload", "both" */
	double elapsed_s;	 /* since the stage began */
	double max_s;		 /* the longest the stage may run */
	unsigned conns[2];	 /* load connections open */
	double mbps[2];		 /* goodput over the last second, Mbit/s */
	double rpm;		 /* from the probes of the last MAD intervals so far; NaN: none */
};

struct rpm_params {
	unsigned mad, tmp, mnp, mps;
	double id_s, sdt, ptc;
	double max_s;		 /* the longest a stage may run */
	enum hc_proto proto;	 /* over TLS: what ALPN must choose on every connection */
	struct tls_ctx *tls;	 /* a client context: every connection over TLS; NULL: cleartext */
	const char *server_name; /* TLS: SNI and the name the certificate must carry */
	enum rpm_dirs dirs;
	bool sequential;			/* with RPM_BOTH: one stage per direction */
	const volatile sig_atomic_t *interrupt; /* nonzero: stop now, keep what ran */
	/* NULL, or called about once a second from inside rpm_run (never after it) */
	void (*progress)(void *ctx, const struct rpm_progress *pr);
	void *progress_ctx;
};

/* Defaults: the draft's. */
void rpm_params_default(struct rpm_params *p);

/*
 * Fetch the config at url from addr (http/nqconfig.h) with the protocol, TLS context
 * and server name of p, and parse it; *proto is the protocol the connection spoke (over
 * TLS, ALPN's choice). -errno with why (for a person) in err: -ETIMEDOUT after
 * timeout_s, -EBADMSG for a status other than 200 or a bad document, the connection's
 * -errno (-EKEYREJECTED: the certificate failed verification).
 */
int rpm_fetch_config(const struct rpm_params *p, const struct sockaddr *addr, socklen_t alen,
		     const struct nq_url *url, double timeout_s, struct nq_config *out,
		     enum hc_proto *proto, char *err, size_t errlen);

/*
 * Run the test against addr (where every URL of cfg is served). r is filled (it is
 * the caller's to result_free) also on failure, with what was measured; -errno and why
 * in err when a stage could not finish (a load connection failed, nothing connected).
 */
int rpm_run(const struct rpm_params *p, const struct sockaddr *addr, socklen_t alen,
	    const struct nq_config *cfg, struct test_result *r, char *err, size_t errlen);

#endif
