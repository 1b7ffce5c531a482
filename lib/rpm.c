/* SPDX-License-Identifier: MIT */
/* rpm.c - rpm.h: saturation and stability windows, the trimmed mean and the score. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/rpm.h"

void rpm_window_init(struct rpm_window *w, unsigned mad, double sdt)
{
	memset(w, 0, sizeof(*w));
	w->mad = mad < 1 ? 1 : mad > RPM_MAX_MAD ? RPM_MAX_MAD : mad;
	w->sdt = sdt > 0 ? sdt : 0;
}

/* Push v at the end of a FIFO of at most cap, dropping the oldest. */
static void push(double *a, size_t *n, size_t cap, double v)
{
	if (*n == cap) {
		memmove(a, a + 1, (cap - 1) * sizeof(*a));
		(*n)--;
	}
	a[(*n)++] = v;
}

bool rpm_window_add(struct rpm_window *w, double value)
{
	double sum = 0;

	push(w->values, &w->nvalues, w->mad, value);
	w->intervals++;
	if (w->nvalues < w->mad)
		return false;
	for (size_t i = 0; i < w->nvalues; i++)
		sum += w->values[i];
	push(w->averages, &w->naverages, w->mad, sum / w->mad);
	if (w->naverages < w->mad)
		return false;
	return rpm_window_stddev(w) <= w->sdt * rpm_window_average(w);
}

double rpm_window_average(const struct rpm_window *w)
{
	return w->naverages ? w->averages[w->naverages - 1] : NAN;
}

double rpm_window_stddev(const struct rpm_window *w)
{
	double mean = 0, var = 0;

	if (w->naverages < w->mad)
		return NAN;
	for (size_t i = 0; i < w->naverages; i++)
		mean += w->averages[i];
	mean /= w->naverages;
	for (size_t i = 0; i < w->naverages; i++)
		var += (w->averages[i] - mean) * (w->averages[i] - mean);
	return sqrt(var / w->naverages);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rpm_trimmed_mean(double *vals, size_t n, unsigned keep_pct)
{
	size_t m = 0, keep;
	double sum = 0;

	for (size_t i = 0; i < n; i++) /* a NaN is no sample */
		if (!isnan(vals[i]))
			vals[m++] = vals[i];
	if (!m)
		return NAN;
	if (keep_pct < 1)
		keep_pct = 1;
	if (keep_pct > 100)
		keep_pct = 100;
	qsort(vals, m, sizeof(*vals), cmp_double);
	keep = (m * keep_pct + 99) / 100;
	for (size_t i = 0; i < keep; i++)
		sum += vals[i];
	return sum / (double)keep;
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

void rpm_score(double tcp_ms, double tls_ms, double http_f_ms, double http_l_ms,
	       struct rpm_score *out)
{
	bool tls = isfinite(tls_ms);

	out->foreign_rpm = NAN;
	out->loaded_rpm = positive(http_l_ms) ? 60000.0 / http_l_ms : NAN;
	if (positive(tcp_ms) && positive(http_f_ms) && (!tls || positive(tls_ms)))
		out->foreign_rpm = tls ? 60000.0 / ((tcp_ms + tls_ms + http_f_ms) / 3)
				       : 60000.0 / ((tcp_ms + http_f_ms) / 2);
	out->rpm = (out->foreign_rpm + out->loaded_rpm) / 2; /* NaN if either is */
}

const char *rpm_class(double rpm)
{
	if (!isfinite(rpm))
		return "";
	if (rpm < 300)
		return "Poor";
	if (rpm < 1000)
		return "Fair";
	if (rpm < 6000)
		return "Good";
	return "Excellent";
}
