/* SPDX-License-Identifier: MIT */
/*
 * rpm.h - the arithmetic of "Responsiveness under Working Conditions"
 * (draft-ietf-ippm-responsiveness-09): goodput saturation, responsiveness stability,
 * the single-sided trimmed mean and the RPM formula. docs/design/rpm.md tells the
 * method in our words; docs/rpm.md how it differs from the RPM of the other tests.
 *
 * Model. A test stage runs in intervals of ID seconds. After each interval the caller
 * appends one number to a window: the bytes the load moved in it (saturation) or the
 * responsiveness figure computed at its end (stability). Interval p's moving average
 * is the mean of the values of p and the MAD - 1 intervals before it, so it exists
 * from the MAD-th interval on. The window is "saturated" (or "stable": the same rule)
 * once MAD moving averages exist and their population standard deviation is at most
 * SDT times the newest moving average.
 *
 * Trimmed mean. The draft trims one side only: of n samples sorted ascending, the
 * worst (largest) are dropped and the best ceil(n * TMP / 100) averaged (at least one
 * kept). Latencies are in milliseconds; an RPM is round trips per minute.
 *
 * No I/O and no clock: the caller passes the values in, so tests are exact.
 */
#ifndef DEBLOAT_RPM_H
#define DEBLOAT_RPM_H

#include <stdbool.h>
#include <stddef.h>

/* The draft these defaults and formulas follow; results name it. */
#define RPM_DRAFT "draft-ietf-ippm-responsiveness-09"

/* The draft's test parameters and defaults. */
#define RPM_DEFAULT_MAD	 4    /* moving-average distance, intervals */
#define RPM_DEFAULT_ID_S 5.0  /* interval duration (-09; 1 s before) */
#define RPM_DEFAULT_TMP	 95   /* trimmed-mean percentage kept */
#define RPM_DEFAULT_SDT	 0.05 /* standard-deviation tolerance, a fraction */
#define RPM_DEFAULT_MNP	 16   /* maximum parallel load connections */
#define RPM_DEFAULT_MPS	 100  /* maximum probes (pairs) per second */
#define RPM_DEFAULT_PTC	 0.05 /* share of the goodput probes may take */
#define RPM_MAX_MAD	 64   /* window storage; a larger MAD is refused */

/* A window of the last values, one per interval (params and state together: tiny). */
struct rpm_window {
	unsigned mad;		      /* MAD, 1..RPM_MAX_MAD */
	double sdt;		      /* SDT as a fraction (0.05) */
	double values[RPM_MAX_MAD];   /* the last up to MAD values, oldest first */
	double averages[RPM_MAX_MAD]; /* the last up to MAD moving averages */
	size_t nvalues, naverages;
	unsigned long intervals; /* every value ever appended */
};

/* An empty window; mad is clamped to 1..RPM_MAX_MAD, a negative sdt to 0. */
void rpm_window_init(struct rpm_window *w, unsigned mad, double sdt);
/* Append interval p's value; returns whether the window is now saturated (stable). */
bool rpm_window_add(struct rpm_window *w, double value);
/* The newest moving average; NaN before MAD values were appended. */
double rpm_window_average(const struct rpm_window *w);
/* The standard deviation of the last MAD moving averages; NaN before there are MAD. */
double rpm_window_stddev(const struct rpm_window *w);

/*
 * The mean of the best ceil(n * keep_pct / 100) of n values (keep_pct 1..100), which it
 * sorts ascending in place; NaN values are skipped. NaN when none is left.
 */
double rpm_trimmed_mean(double *vals, size_t n, unsigned keep_pct);

/*
 * The draft's score from trimmed means in ms. foreign = 60000 / the mean of
 * tcp_f, http_f and (when TLS was used, tls_ms finite) tls_f; loaded = 60000 / http_l;
 * RPM = (foreign + loaded) / 2. NaN when any needed input is not a positive number.
 * Without TLS tls_f is left out, never taken as 0 (the draft says so).
 */
struct rpm_score {
	double foreign_rpm, loaded_rpm, rpm;
};
void rpm_score(double tcp_ms, double tls_ms, double http_f_ms, double http_l_ms,
	       struct rpm_score *out);

/* The draft's classes: "Poor" < 300, "Fair" < 1000, "Good" < 6000, else "Excellent". */
const char *rpm_class(double rpm);

#endif
