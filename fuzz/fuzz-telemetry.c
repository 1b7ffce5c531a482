/* SPDX-License-Identifier: MIT */
/*
 * fuzz-telemetry.c - the lab telemetry reader (plot/telemetry-file.h) on arbitrary bytes.
 * A document that fails must say why and leave its output untouched; one that reads
 * must hold what the header promises (t_s finite and never decreasing, gauges NaN or
 * >= 0, at least one sample), go with a run it overlaps, and draw under that run's
 * latency (kinds all and latency) without crashing and within the SVG size limit.
 * Everything is freed (LeakSanitizer).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"
#include "plot/run-file.h"
#include "plot/telemetry-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A short run to draw the telemetry under: 2 s, a probe and a flow. */
static const char run_doc[] =
    "{\"test\": \"rrul\", \"host\": \"fuzz\", \"step_s\": 0.2, \"length_s\": 1, "
    "\"delay_s\": 0.5, \"t0\": 1700000000, \"series\": {"
    "\"Ping (ms) UDP EF\": {\"kind\": \"probe\", \"unit\": \"ms\", "
    "\"values\": [null, 1, 1, 1, 90, 95, 99, 90, 1, 1, 1]}, "
    "\"TCP upload BE\": {\"kind\": \"upload\", \"unit\": \"Mbits/s\", "
    "\"values\": [null, null, null, 5, 9, 9, 9, 9, null, null, null]}}}";

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-telemetry: %s\n", what);
		abort();
	}
}

static void draw(struct run *run, const struct telemetry *t)
{
	char err[512];
	int m;

	/* put the run where the telemetry is, so that they overlap */
	run->r.t0 = t->start_unix_s + t->t_s[0] - 0.5;
	run->telemetry = NULL;
	m = telemetry_match(t, run, 1, err, sizeof(err));
	check(m == 0 || (m == -ENOENT && err[0]), "no match and no reason");
	if (m == 0)
		run->telemetry = t;
	for (int k = PLOT_ALL; k <= PLOT_LATENCY; k++) {
		struct plot_options o = {(enum plot_kind)k, NULL};
		char *svg = NULL;
		size_t len = 0;

		if (plot_render(run, 1, &o, &svg, &len) == 0)
			check(svg && strlen(svg) == len && len <= 16u << 20,
			      "a document of the wrong length");
		free(svg);
	}
	for (size_t i = 0; i < t->ncounters; i++) {
		double s = telemetry_counter_sum(t, &t->counters[i], 0, 1e12);

		check(isnan(s) || s >= 0, "a negative count");
	}
	run->telemetry = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run run;
	static int have_run;
	struct telemetry t;
	char err[256];
	int r;

	if (!have_run) {
		r = run_parse(run_doc, strlen(run_doc), "fuzz.json", &run, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "fuzz-telemetry: the run does not read: %s\n", err);
			abort();
		}
		have_run = 1;
	}
	memset(&t, 0xa5, sizeof(t));
	err[0] = '\0';
	r = telemetry_parse((const char *)data, size, &t, err, sizeof(err));
	if (r < 0) {
		check(r == -EINVAL || r == -ENOMEM, "an unexpected error");
		check(err[0] != '\0', "failed without a reason");
		check(((unsigned char *)&t)[0] == 0xa5, "output touched on failure");
		return 0;
	}
	check(t.n >= 1 && t.n <= TELEMETRY_MAX_SAMPLES, "sample count out of bounds");
	check(isfinite(t.start_unix_s) && t.start_unix_s > 0, "no start");
	for (size_t i = 0; i < t.n; i++) {
		check(isfinite(t.t_s[i]) && t.t_s[i] >= 0 && (!i || t.t_s[i] >= t.t_s[i - 1]),
		      "t_s not finite, negative or decreasing");
		for (size_t g = 0; g < TELEMETRY_NGAUGES; g++)
			check(isnan(t.gauge[g][i]) || t.gauge[g][i] >= 0, "a negative gauge");
	}
	check(t.ncounters <= TELEMETRY_MAX_STAGES, "too many stages");
	draw(&run, &t);
	telemetry_free(&t);
	return 0;
}
