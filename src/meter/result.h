/* SPDX-License-Identifier: MIT */
/*
 * result.h - what one latency-under-load test measured: the data model between the
 * engine that runs a test (engine.c), the summary (summary.c) and the writers
 * (our JSON, flent's file format).
 *
 * A test has a timeline of `nsteps` points on a grid of `step_s` seconds from T0
 * (x = i * step_s; flent's x_values). Each series (one TCP flow's goodput, one probe
 * stream's RTT, a flow's TCP RTT) holds one value per step, NAN where nothing was
 * measured, and its raw samples with wall-clock times (flent's raw_values). Series
 * names are flent's exactly ("TCP upload BE", "Ping (ms) UDP EF", "Ping (ms) ICMP",
 * sub-series "TCP upload BE::tcp_rtt") so flent's plots work on our files.
 *
 * Units: Mbit/s for throughput series, milliseconds for latency series (as flent);
 * seconds for times. The load runs from delay_s to delay_s + length_s; before and
 * after it the probes measure the idle baseline.
 */
#ifndef DEBLOAT_METER_RESULT_H
#define DEBLOAT_METER_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum series_kind {
	SERIES_UPLOAD,	 /* goodput of one upload flow, Mbit/s (from the server's REPORTs) */
	SERIES_DOWNLOAD, /* goodput of one download flow, Mbit/s (counted by the client) */
	SERIES_PROBE,	 /* RTT of a UDP or ICMP probe stream, ms */
	SERIES_TCP_RTT,	 /* a flow's smoothed RTT from TCP_INFO, ms */
};

struct raw_sample {
	double t;     /* unix time, seconds */
	double val;   /* in the series' unit; NAN for a lost probe */
	uint32_t seq; /* probe sequence number, or step index */
};

struct series {
	char name[64]; /* flent's name, e.g. "TCP download EF" */
	char unit[12]; /* "Mbits/s" or "ms", as flent's SERIES_META UNITS */
	enum series_kind kind;
	uint8_t tos;	/* marking of the flow or probe */
	double *values; /* nsteps values on the grid, NAN = no data */
	struct raw_sample *raw;
	size_t nraw, raw_cap;
	/* probes: sent, answered, lost (no answer within the timeout) */
	uint32_t sent, received, lost;
};

#define RESULT_MAX_SERIES 48

/*
 * One UDP probe's one-way delays (probe.h's up_ns and down_ns, in ms), each with the
 * clock offset between the server and this host in it: only their changes mean
 * anything. t: seconds from T0 (the probe's send time on the grid).
 */
struct owd_sample {
	double t;
	double up_ms, down_ms;
};

/*
 * The draft-ietf-ippm-responsiveness figures of `debloat test rpm` (meter/rpm-client.h), one
 * stage per direction in sequential mode, one in concurrent mode. Latencies are the
 * trimmed means over the stage's last MAD intervals, in ms; NaN when not measured.
 */
#define RESULT_RPM_MAX_STAGES 2
struct result_rpm_stage {
	char direction[12]; /* "download", "upload", "both" */
	double rpm, foreign_rpm, loaded_rpm;
	double tcp_ms, http_f_ms, http_l_ms; /* trimmed means of tcp_f, http_f, http_l */
	double tls_ms;			     /* of tls_f; NaN in cleartext */
	double goodput_mbps;		     /* the last moving average of the goodput */
	/* the same per direction, [0] download, [1] upload (concurrent mode: the
	 * capacity of each); NaN, 0 connections for a direction the stage did not load */
	double dir_mbps[2];
	unsigned dir_connections[2];
	unsigned connections, intervals;      /* load connections at the end; intervals run */
	bool saturated, stable;		      /* goodput saturated; RPM stable */
	char confidence[8];		      /* "high", "medium", "low" */
	uint32_t foreign_probes, self_probes; /* samples taken */
	double start_s, duration_s;	      /* start: seconds after the result's t0 */
	char error[128];		      /* why the stage stopped early, or "" */
};

struct result_rpm {
	bool present;	   /* a test rpm result */
	char draft[48];	   /* the draft followed (debloat/rpm.h RPM_DRAFT), or "" */
	char protocol[12]; /* "h2c", "h2" (over TLS) or "http/1.1" */
	bool tls;	   /* https: every connection ran TLS */
	bool sequential;
	char config_url[300];
	unsigned mad, tmp, mnp, mps; /* the draft's parameters as run */
	double id_s, sdt, ptc, max_s;
	double rpm; /* the stage's; sequential: the lower of the two stages' */
	size_t nstages;
	struct result_rpm_stage stages[RESULT_RPM_MAX_STAGES];
};

struct test_result {
	char test[16];			  /* "rrul", "rrul_be", "tcp_upload", ... */
	char host[256];			  /* the server as given */
	char local_host[65];		  /* gethostname() */
	char label[64];			  /* --label, or "" */
	char cc[16];			  /* --cc, or "" (the system default) */
	int ip_version;			  /* 4 or 6 */
	double length_s, delay_s, step_s; /* -l, -d, -s */
	double t0;			  /* unix time of x = 0 */
	char time_utc[32];		  /* T0 as "YYYY-MM-DDTHH:MM:SS.ffffffZ" */
	size_t nsteps;
	struct series series[RESULT_MAX_SERIES];
	size_t nseries;

	/* honesty flags: printed in the summary, stored in the JSON */
	bool server_overloaded;	   /* any REPORT said so */
	bool client_cpu_saturated; /* our own CPU use > 90% of one core during the load */
	bool interrupted;	   /* stopped early (Ctrl-C): the numbers cover what ran */
	char unavailable[128];	   /* probe kinds that could not run ("ICMP: no permission") */
	uint32_t granted_interval_us, granted_probe_len, granted_duration_ms;
	struct result_rpm rpm; /* test rpm only: the draft's figures */

	/*
	 * This host's own view of the load, which no server report enters: each direction's
	 * goodput from its flows' TCP counters (tcpi_bytes_acked of the uploads,
	 * tcpi_bytes_received of the downloads) from the load's start to the flows' last
	 * sample, summed over flows, Mbit/s; NaN without flows that way or without
	 * TCP_INFO. And every answered UDP probe's one-way delays. Neither is written
	 * to the result's files.
	 */
	double own_upload_mbps, own_download_mbps;
	struct owd_sample *owd;
	size_t nowd, owd_cap;

	/* EGRESS_INFO and SYSCTLS for flent's metadata: JSON text from an audit of the
	 * local interface the test used (may be NULL). */
	char *egress_info_json;
	char *sysctls_json;
};

/* Allocate series storage for nsteps (values filled with NAN). -ENOMEM. */
int result_init(struct test_result *r, size_t nsteps);
/* Add a series; NULL when RESULT_MAX_SERIES are in use. */
struct series *result_add_series(struct test_result *r, const char *name, const char *unit,
				 enum series_kind kind, uint8_t tos);
/* Append a probe's one-way delays (grows the array). -ENOMEM. */
int result_add_owd(struct test_result *r, double t, double up_ms, double down_ms);
/* Append a raw sample (grows the array). -ENOMEM. */
int series_add_raw(struct series *s, double t, double val, uint32_t seq);
struct series *result_find_series(struct test_result *r, const char *name);
void result_free(struct test_result *r);

#endif
