/* SPDX-License-Identifier: MIT */
/*
 * test-plot.c - plot/run-file.h, plot/plot.h and plot/compare-runs.h: both file formats read
 * back to the same run, every plot kind drawn from either looks the same (panels and
 * series), stays small, and renders: rsvg-convert turns it into a PNG whose panels
 * hold real ink (pixels that are neither background, grid nor idle shading). The lab's
 * telemetry (plot/telemetry-file.h): read with clear errors, matched to its run by wall
 * clock, drawn at the right time under the latency, small for 70 s of 10 ms samples.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "meter/flent.h"
#include "meter/result-print.h"
#include "plot/compare-runs.h"
#include "plot/plot.h"
#include "plot/run-file.h"
#include "plot/telemetry-file.h"

static char dir[] = "/tmp/test-plot-XXXXXX";

static const char *path_in_dir(const char *name)
{
	static char buf[4][256];
	static int k;

	static bool made;

	if (!made && mkdtemp(dir))
		made = true;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* A deterministic 70 s rrul at 0.2 s steps: idle ~1 ms, loaded ~100 ms, some loss. */
static int make_rrul(struct test_result *r, size_t nsteps, double step)
{
	static const char *const marks[] = {"BE", "BK", "CS5", "EF"};
	static const char *const probes[] = {"Ping (ms) UDP EF", "Ping (ms) UDP BK",
					     "Ping (ms) UDP BE", "Ping (ms) ICMP"};
	unsigned seed = 12345;
	char name[64];

	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "rrul");
	snprintf(r->host, sizeof(r->host), "192.0.2.1");
	snprintf(r->local_host, sizeof(r->local_host), "bbb");
	snprintf(r->label, sizeof(r->label), "synthetic");
	r->ip_version = 4;
	r->step_s = step;
	r->delay_s = 5;
	r->length_s = (double)(nsteps - 1) * step - 10;
	r->t0 = 1700000000.0;
	snprintf(r->time_utc, sizeof(r->time_utc), "2023-11-22T22:13:20.000000Z");
	result_init(r, nsteps);
	for (int d = 0; d < 2; d++)
		for (int m = 0; m < 4; m++) {
			struct series *s;

			snprintf(name, sizeof(name), "TCP %s %s", d ? "download" : "upload",
				 marks[m]);
			s = result_add_series(r, name, "Mbits/s",
					      d ? SERIES_DOWNLOAD : SERIES_UPLOAD, 0);
			if (!s)
				return -ENOMEM;
			for (size_t i = 0; i < nsteps; i++) {
				double t = (double)i * step;

				seed = seed * 1103515245 + 12345;
				if (t > r->delay_s && t <= r->delay_s + r->length_s)
					s->values[i] =
					    20 + 5 * m + (double)(seed >> 16 & 1023) / 100;
			}
		}
	for (int k = 0; k < 4; k++) {
		struct series *s = result_add_series(r, probes[k], "ms", SERIES_PROBE, 0);

		if (!s)
			return -ENOMEM;
		for (size_t i = 1; i < nsteps; i++) {
			double t = ((double)i - 0.5) * step, v;
			bool load = t > r->delay_s && t < r->delay_s + r->length_s;

			seed = seed * 1103515245 + 12345;
			v = (load ? 100 : 1) + (double)(seed >> 16 & 1023) / (load ? 20 : 1000);
			if (i % 50 == 7)
				v = NAN;
			if (series_add_raw(s, r->t0 + t, v, (uint32_t)i) < 0)
				return -ENOMEM;
			s->values[i] = v;
		}
	}
	return 0;
}

/* Both files of one result. */
static int write_both(struct test_result *r, const char *json, const char *flent)
{
	struct summary s;
	int ret = summary_compute(r, &s);

	if (!ret)
		ret = result_write_json(json, r, &s);
	if (!ret)
		ret = flent_write(flent, r);
	return ret;
}

/* rrul.json and rrul.flent.gz of a 70 s rrul in the test directory, written once. */
static int rrul_files(void)
{
	static int done;
	struct test_result r;
	int ret;

	if (done)
		return 0;
	ret = make_rrul(&r, 351, 0.2);
	if (!ret)
		ret = write_both(&r, path_in_dir("rrul.json"), path_in_dir("rrul.flent.gz"));
	result_free(&r);
	done = !ret;
	return ret;
}

/* The panel ids and series titles of a document, in order, as one string. */
static char *outline(const char *svg)
{
	size_t cap = strlen(svg) + 1, n = 0;
	char *o = malloc(cap);
	const char *p = svg;

	o[0] = '\0';
	while ((p = strchr(p, '<'))) {
		const char *end;

		if (!strncmp(p, "<g class=\"panel\" id=\"", 21)) {
			p += 21;
			end = strchr(p, '"');
		} else if (!strncmp(p, "<title>", 7)) {
			p += 7;
			end = strchr(p, '<');
		} else {
			p++;
			continue;
		}
		n += (size_t)snprintf(o + n, cap - n, "%.*s|", (int)(end - p), p);
		p = end;
	}
	return o;
}

TEST(nice_ticks)
{
	double first, step;
	unsigned count;
	int dec;

	plot_nice_ticks(0, 10, 6, &first, &step, &count, &dec);
	CHECK(first == 0 && step == 2 && count == 6 && dec == 0);
	plot_nice_ticks(0, 70, 14, &first, &step, &count, &dec);
	CHECK(first == 0 && step == 10 && count == 8);
	plot_nice_ticks(0, 0.37, 5, &first, &step, &count, &dec);
	CHECK(fabs(step - 0.1) < 1e-12 && count == 5 && dec == 1);
	plot_nice_ticks(3, 3, 5, &first, &step, &count, &dec); /* empty range: still an axis */
	CHECK(count >= 2 && first <= 3 && first + step * (count - 1) >= 3);
	for (unsigned max = 2; max < 20; max++) {
		plot_nice_ticks(0.3, 417.5, max, &first, &step, &count, &dec);
		CHECK(count <= max && first <= 0.3 && first + step * (count - 1) >= 417.5);
	}
}

TEST(both_formats_read_the_same)
{
	struct test_result r;
	struct run a, b;
	char err[256];
	struct summary s;

	REQUIRE(rrul_files() == 0);
	REQUIRE(make_rrul(&r, 351, 0.2) == 0);
	REQUIRE(summary_compute(&r, &s) == 0);
	REQUIRE(run_read(path_in_dir("rrul.json"), &a, err, sizeof(err)) == 0);
	if (!CHECK(run_read(path_in_dir("rrul.flent.gz"), &b, err, sizeof(err)) == 0)) {
		fprintf(stderr, "%s\n", err);
		run_free(&a);
		result_free(&r);
		return;
	}
	CHECK_EQ(a.format, RUN_FORMAT_DEBLOAT);
	CHECK_EQ(b.format, RUN_FORMAT_FLENT);
	CHECK_STR(a.name, "synthetic");
	CHECK_STR(b.name, "synthetic");
	CHECK_EQ(a.r.nsteps, 351);
	CHECK_EQ(b.r.nsteps, 351);
	CHECK_EQ(a.r.nseries, 12);
	CHECK_EQ(b.r.nseries, 12);
	for (size_t i = 0; i < a.r.nseries && i < b.r.nseries; i++) {
		CHECK_STR(a.r.series[i].name, b.r.series[i].name);
		CHECK_EQ(a.r.series[i].kind, b.r.series[i].kind);
		for (size_t k = 0; k < a.r.nsteps; k++) {
			double x = a.r.series[i].values[k], y = b.r.series[i].values[k];

			if (!CHECK((isnan(x) && isnan(y)) || fabs(x - y) < 1e-3))
				break;
		}
	}
	CHECK(fabs(a.r.delay_s - 5) < 1e-9 && fabs(b.r.delay_s - 5) < 1e-9);
	CHECK(fabs(b.r.t0 - r.t0) < 1e-6);
	/* our JSON's headline numbers, and flent's recomputed from its raw samples */
	CHECK(fabs(a.s.loaded.p50 - s.loaded.p50) < 1e-3);
	CHECK(fabs(b.s.loaded.p50 - s.loaded.p50) < 1e-9);
	CHECK(fabs(b.s.idle.p99 - s.idle.p99) < 1e-9);
	CHECK(fabs(a.s.download.sum_mbps - s.download.sum_mbps) < 1e-2);
	CHECK(fabs(b.s.download.sum_mbps - s.download.sum_mbps) < 1e-6);
	CHECK(fabs(b.s.loss_pct - s.loss_pct) < 1e-9);
	CHECK_STR(a.s.grade, s.grade);
	CHECK_STR(b.s.grade, s.grade);
	run_free(&a);
	run_free(&b);
	result_free(&r);
}

TEST(malformed_inputs_fail_with_a_reason)
{
	static const char *const bad[] = {
	    "",
	    "[1,2]",
	    "{\"x\": 1}",
	    "{\"series\": 3}",
	    "not json",
	    "{\"series\": {\"a\": {\"kind\": \"probe\", \"unit\": \"ms\", \"values\": [1]},"
	    " \"b\": {\"kind\": \"probe\", \"unit\": \"ms\", \"values\": [1, 2]}}, \"step_s\": 1}",
	    "{\"series\": {\"a\": {\"kind\": \"nosuch\", \"unit\": \"ms\", \"values\": []}}}",
	    "{\"version\": 4, \"x_values\": [0, 0.2], \"results\": {\"Ping (ms) ICMP\": [1]},"
	    " \"metadata\": {}}",
	    "{\"version\": 9, \"x_values\": [], \"results\": {}, \"metadata\": {}}",
	};
	struct run out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";

		memset(&out, 0xa5, sizeof(out));
		CHECK(run_parse(bad[i], strlen(bad[i]), "x.json", &out, err, sizeof(err)) ==
		      -EINVAL);
		CHECK(err[0] != '\0');
		CHECK(((unsigned char *)&out)[0] == 0xa5); /* untouched */
	}
}

/* ---- PNG: just enough of it to count the pixels rsvg-convert drew ---- */

struct image {
	unsigned w, h;
	unsigned char *rgb; /* w * h * 3 */
};

static unsigned be32(const unsigned char *p)
{
	return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* 8-bit RGB or RGBA, not interlaced: what rsvg-convert writes. */
static int png_read(const char *path, struct image *img)
{
	FILE *f = fopen(path, "rb");
	unsigned char *file = NULL, *idat = NULL, *raw = NULL;
	size_t len = 0, nidat = 0;
	unsigned bpp = 0;
	uLongf rawlen;
	int ret = -EINVAL;

	if (!f)
		return -errno;
	file = malloc(64 << 20);
	if (file)
		len = fread(file, 1, 64 << 20, f);
	fclose(f);
	if (!file || len < 8 || memcmp(file, "\x89PNG\r\n\x1a\n", 8))
		goto out;
	idat = malloc(len);
	for (size_t off = 8; idat && off + 12 <= len;) {
		unsigned n = be32(file + off);
		const unsigned char *type = file + off + 4, *data = file + off + 8;

		if (off + 12 + n > len)
			goto out;
		if (!memcmp(type, "IHDR", 4)) {
			img->w = be32(data);
			img->h = be32(data + 4);
			if (data[8] != 8 || data[12] != 0 || (data[9] != 6 && data[9] != 2))
				goto out;
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(idat + nidat, data, n);
			nidat += n;
		}
		off += 12 + n;
	}
	if (!bpp || !img->w || !img->h || img->w > 8000 || img->h > 8000)
		goto out;
	rawlen = (uLongf)img->h * (1 + img->w * bpp);
	raw = malloc(rawlen);
	img->rgb = malloc((size_t)img->w * img->h * 3);
	if (!raw || !img->rgb || uncompress(raw, &rawlen, idat, nidat) != Z_OK)
		goto out;
	for (unsigned y = 0; y < img->h; y++) {
		unsigned char *row = raw + (size_t)y * (1 + img->w * bpp), *cur = row + 1;
		unsigned char *up = y ? raw + (size_t)(y - 1) * (1 + img->w * bpp) + 1 : NULL;

		for (unsigned i = 0; i < img->w * bpp; i++) {
			int a = i >= bpp ? cur[i - bpp] : 0, b = up ? up[i] : 0,
			    c = up && i >= bpp ? up[i - bpp] : 0;

			switch (row[0]) {
			case 1:
				cur[i] += a;
				break;
			case 2:
				cur[i] += b;
				break;
			case 3:
				cur[i] += (a + b) / 2;
				break;
			case 4:
				cur[i] += paeth(a, b, c);
				break;
			}
		}
		for (unsigned x = 0; x < img->w; x++) {
			/* composite over white, as a viewer shows it */
			unsigned alpha = bpp == 4 ? cur[x * 4 + 3] : 255;

			for (int ch = 0; ch < 3; ch++)
				img->rgb[((size_t)y * img->w + x) * 3 + ch] =
				    (unsigned char)((cur[x * bpp + ch] * alpha +
						     255 * (255 - alpha)) /
						    255);
		}
	}
	ret = 0;
out:
	free(file);
	free(idat);
	free(raw);
	return ret;
}

/* Pixels in the rectangle that are data: not white, not the grid, not the idle shade. */
static size_t ink(const struct image *img, double x, double y, double w, double h)
{
	size_t n = 0;

	for (unsigned py = (unsigned)y + 2; py + 2 < y + h && py < img->h; py++)
		for (unsigned px = (unsigned)x + 2; px + 2 < x + w && px < img->w; px++) {
			const unsigned char *c = img->rgb + ((size_t)py * img->w + px) * 3;
			int lo =
			    c[0] < c[1] ? (c[0] < c[2] ? c[0] : c[2]) : (c[1] < c[2] ? c[1] : c[2]);
			int hi =
			    c[0] > c[1] ? (c[0] > c[2] ? c[0] : c[2]) : (c[1] > c[2] ? c[1] : c[2]);

			n += lo < 200 || hi - lo > 30;
		}
	return n;
}

/* Render svg with rsvg-convert and check every panel frame holds enough ink. */
static void check_renders(const char *svg, size_t len, const char *name, unsigned panels)
{
	char cmd[768], svgpath[256], pngpath[256];
	const char *p = svg;
	struct image img = {0};
	unsigned seen = 0;
	FILE *f;

	snprintf(svgpath, sizeof(svgpath), "%s", path_in_dir(name));
	snprintf(pngpath, sizeof(pngpath), "%s.png", svgpath);
	f = fopen(svgpath, "w");
	REQUIRE(f && fwrite(svg, 1, len, f) == len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -f png -o %s %s", pngpath, svgpath);
	REQUIRE(system(cmd) == 0);
	REQUIRE(png_read(pngpath, &img) == 0);
	CHECK_EQ(img.w, 1000);
	while ((p = strstr(p, "<rect class=\"frame\""))) {
		double x, y, w, h;
		size_t got;

		REQUIRE(sscanf(p,
			       "<rect class=\"frame\" x=\"%lf\" y=\"%lf\" width=\"%lf\" "
			       "height=\"%lf\"",
			       &x, &y, &w, &h) == 4);
		got = ink(&img, x, y, w, h);
		if (!CHECK(got > 400))
			fprintf(stderr, "%s: panel %u has %zu pixels of ink\n", name, seen, got);
		seen++;
		p++;
	}
	CHECK_EQ(seen, panels);
	free(img.rgb);
}

static bool have_rsvg(void)
{
	return system("command -v rsvg-convert >/dev/null 2>&1") == 0;
}

TEST(every_kind_the_same_from_both_formats_and_renders)
{
	static const struct {
		enum plot_kind kind;
		unsigned panels;
	} kinds[] = {{PLOT_ALL, 3}, {PLOT_LATENCY, 1}, {PLOT_THROUGHPUT, 2},
		     {PLOT_CDF, 1}, {PLOT_BOX, 1},     {PLOT_COMPARE, 2}};
	struct run runs[2];
	char err[256];

	REQUIRE(rrul_files() == 0);
	REQUIRE(run_read(path_in_dir("rrul.json"), &runs[0], err, sizeof(err)) == 0);
	REQUIRE(run_read(path_in_dir("rrul.flent.gz"), &runs[1], err, sizeof(err)) == 0);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct plot_options o = {kinds[k].kind, NULL};
		char *svg[2] = {NULL, NULL}, *o0, *o1, name[32];
		size_t len[2];

		REQUIRE(plot_render(&runs[0], 1, &o, &svg[0], &len[0]) == 0);
		REQUIRE(plot_render(&runs[1], 1, &o, &svg[1], &len[1]) == 0);
		o0 = outline(svg[0]);
		o1 = outline(svg[1]);
		CHECK_STR(o0, o1);
		CHECK(strlen(o0) > 10);
		/* a 70 s rrul stays small */
		CHECK(len[0] < 300 * 1024);
		snprintf(name, sizeof(name), "kind%zu.svg", k);
		if (have_rsvg())
			check_renders(svg[0], len[0], name, kinds[k].panels);
		free(o0);
		free(o1);
		free(svg[0]);
		free(svg[1]);
	}
	if (!have_rsvg()) {
		run_free(&runs[0]);
		run_free(&runs[1]);
		SKIP("no rsvg-convert (Debian librsvg2-bin): not rendered");
	}
	run_free(&runs[0]);
	run_free(&runs[1]);
}

TEST(long_series_are_thinned)
{
	struct test_result r;
	struct summary s;
	struct run run = {0};
	struct plot_options o = {PLOT_ALL, "long"};
	char *svg = NULL;
	size_t len = 0;

	/* an hour at 0.05 s: 72000 steps per series */
	REQUIRE(make_rrul(&r, 72001, 0.05) == 0);
	REQUIRE(summary_compute(&r, &s) == 0);
	run.r = r;
	run.s = s;
	snprintf(run.name, sizeof(run.name), "long");
	REQUIRE(plot_render(&run, 1, &o, &svg, &len) == 0);
	CHECK(len < 400 * 1024);
	free(svg);
	result_free(&r);
}

TEST(compare_ratios)
{
	struct test_result r;
	struct run runs[2];
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct printer *p;

	REQUIRE(make_rrul(&r, 351, 0.2) == 0);
	REQUIRE(write_both(&r, path_in_dir("c.json"), path_in_dir("c.flent.gz")) == 0);
	result_free(&r);
	REQUIRE(run_read(path_in_dir("c.json"), &runs[0], err, sizeof(err)) == 0);
	REQUIRE(run_read(path_in_dir("c.flent.gz"), &runs[1], err, sizeof(err)) == 0);
	runs[1].s.download.sum_mbps = runs[0].s.download.sum_mbps * 2;
	f = open_memstream(&buf, &len);
	p = print_new(f, PRINT_MODE_JSON);
	compare_print(p, runs, (const char *const[]){"c.json", "c.flent.gz"}, 2);
	CHECK(print_finish(p) == 0);
	print_free(p);
	fclose(f);
	CHECK(strstr(buf, "\"download_mbps\": 2,") || strstr(buf, "\"download_mbps\": 2\n") ||
	      strstr(buf, "\"download_mbps\":2"));
	CHECK(strstr(buf, "\"format\": \"flent\"") != NULL);
	free(buf);
	run_free(&runs[0]);
	run_free(&runs[1]);
}

/* ---- the lab's telemetry ---- */

/*
 * A telemetry document in a new buffer: n samples interval_s apart from start_unix_s,
 * noisy gauges (the worst case for the drawing's size) and, at wall-clock time
 * spike_unix_s, a qdisc backlog of 900 KB, far above the rest (< 400 KB).
 */
static char *telemetry_doc(double start_unix_s, size_t n, double interval_s, double spike_unix_s)
{
	size_t cap = 512 + n * 400, off;
	char *buf = malloc(cap);
	unsigned seed = 777;

	if (!buf)
		return NULL;
	off = (size_t)snprintf(buf, cap,
			       "{\"profile\": \"synthetic\", \"describe\": \"test\", "
			       "\"interval_ms\": %g, \"start_unix_s\": %.6f, \"samples\": [",
			       interval_s * 1000, start_unix_s);
	for (size_t i = 0; i < n; i++) {
		double t = (double)i * interval_s;
		unsigned backlog;

		seed = seed * 1103515245 + 12345;
		backlog = 100000 + (seed >> 8) % 300000;
		if (fabs(start_unix_s + t - spike_unix_s) < interval_s / 2)
			backlog = 900000;
		off += (size_t)snprintf(
		    buf + off, cap - off,
		    "%s{\"t_s\": %.3f, \"qdisc_backlog_bytes\": %u, \"qdisc_backlog_pkts\": %u, "
		    "\"ring_descs\": %u, \"ring_bytes\": %u, \"bql_limit_bytes\": %u, "
		    "\"bql_inflight_bytes\": %u, \"switch_backlog_bytes\": %u, "
		    "\"board_port_backlog_bytes\": 0, \"client_qdisc_backlog_bytes\": %u, "
		    "\"wire_util\": 0.97, \"drops\": {\"qdisc\": %u, \"switch\": 0}, "
		    "\"marks\": {\"qdisc\": 0}}",
		    i ? "," : "", t, backlog, backlog / 1514, 3 + (seed >> 12) % 60,
		    ((seed >> 12) % 60) * 1514, 3028 + 1514 * ((seed >> 20) % 8),
		    1514 * ((seed >> 16) % 8), 1514 * ((seed >> 24) % 3), (seed >> 6) % 200000,
		    (seed >> 4) % 3 == 0);
	}
	snprintf(buf + off, cap - off, "]}");
	return buf;
}

TEST(telemetry_reads_every_field)
{
	static const char doc[] =
	    "{\"profile\": \"bbb\", \"describe\": \"BeagleBone\", \"interval_ms\": 10,"
	    " \"start_unix_s\": 1700000000.5, \"future_key\": [1], \"samples\": ["
	    "{\"t_s\": 0, \"qdisc_backlog_bytes\": 1514, \"ring_descs\": 3,"
	    " \"bql_limit_bytes\": null, \"drops\": {\"qdisc\": 5}, \"marks\": {\"qdisc\": 1}},"
	    "{\"t_s\": 0.01, \"qdisc_backlog_bytes\": 3028,"
	    " \"drops\": {\"qdisc\": 9, \"switch\": 2}},"
	    "{\"t_s\": 0.01, \"qdisc_backlog_bytes\": 0, \"drops\": {\"qdisc\": 1, \"switch\": 2}},"
	    "{\"t_s\": 0.03, \"drops\": {\"qdisc\": 4}}]}";
	struct telemetry t;
	char err[256];
	const struct telemetry_counter *q = NULL, *sw = NULL, *m = NULL;

	REQUIRE(telemetry_parse(doc, strlen(doc), &t, err, sizeof(err)) == 0);
	CHECK_STR(t.profile, "bbb");
	CHECK_STR(t.describe, "BeagleBone");
	CHECK(t.interval_ms == 10 && t.start_unix_s == 1700000000.5);
	CHECK_EQ(t.n, 4);
	CHECK(t.t_s[1] == 0.01 && t.t_s[3] == 0.03);
	CHECK(t.gauge[TELEMETRY_QDISC_BACKLOG_BYTES][1] == 3028);
	CHECK(isnan(t.gauge[TELEMETRY_QDISC_BACKLOG_BYTES][3])); /* absent: unknown */
	CHECK(isnan(t.gauge[TELEMETRY_BQL_LIMIT_BYTES][0]));	 /* null: unknown */
	CHECK(t.has_gauge[TELEMETRY_RING_DESCS] && !t.has_gauge[TELEMETRY_BQL_LIMIT_BYTES]);
	CHECK_STR(telemetry_gauge_key(TELEMETRY_BQL_INFLIGHT_BYTES), "bql_inflight_bytes");
	CHECK_EQ(t.ncounters, 3);
	for (size_t i = 0; i < t.ncounters; i++) {
		if (!strcmp(t.counters[i].stage, "qdisc"))
			*(t.counters[i].marks ? &m : &q) = &t.counters[i];
		else if (!strcmp(t.counters[i].stage, "switch"))
			sw = &t.counters[i];
	}
	REQUIRE(q && sw && m);
	CHECK(isnan(sw->values[0]) && sw->values[1] == 2);
	/* each sample counts since the one before: 5 + 9 + 1 + 4 */
	CHECK(telemetry_counter_sum(&t, q, 0, 2e9) == 19);
	/* (from, to]: the first sample (at from) is before the window, the last in it */
	CHECK(telemetry_counter_sum(&t, q, 1700000000.5, 1700000000.53) == 14);
	CHECK(telemetry_counter_sum(&t, sw, 0, 2e9) == 4);
	CHECK(telemetry_counter_sum(&t, m, 0, 2e9) == 1);
	CHECK(isnan(telemetry_counter_sum(&t, m, 1700000000.5, 2e9))); /* not named there */
	CHECK(!t.truncated);
	telemetry_free(&t);
}

TEST(telemetry_cut_short_reads_to_its_last_sample)
{
	/* as the lab writes it, a sample a line, killed in the middle of the third */
	static const char doc[] =
	    "{\"profile\": \"p\", \"describe\": \"d\", \"interval_ms\": 10, "
	    "\"start_unix_s\": 1700000000.000000, \"samples\": [\n"
	    "{\"t_s\": 0.0100, \"qdisc_backlog_bytes\": 1, \"drops\": {\"qdisc\": 0}},\n"
	    "{\"t_s\": 0.0200, \"qdisc_backlog_bytes\": 2, \"drops\": {\"qdisc\": 1}},\n"
	    "{\"t_s\": 0.0300, \"qdisc_backl";
	struct telemetry t;
	char err[256];

	REQUIRE(telemetry_parse(doc, strlen(doc), &t, err, sizeof(err)) == 0);
	CHECK(t.truncated);
	CHECK_EQ(t.n, 2);
	CHECK(t.gauge[TELEMETRY_QDISC_BACKLOG_BYTES][1] == 2);
	telemetry_free(&t);
	/* cut before any sample: nothing to read, and the reason is JSON's */
	CHECK(telemetry_parse(doc, 100, &t, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "not JSON") != NULL);
}

TEST(malformed_telemetry_fails_with_a_reason)
{
	static const struct {
		const char *doc, *why;
	} bad[] = {
	    {"", "not JSON"},
	    {"[1]", "not a JSON object"},
	    {"{\"start_unix_s\": 1}", "no \"samples\""},
	    {"{\"start_unix_s\": 1, \"samples\": {}}", "\"samples\" is not an array"},
	    {"{\"samples\": [{\"t_s\": 0}]}", "no \"start_unix_s\""},
	    {"{\"start_unix_s\": \"now\", \"samples\": [{\"t_s\": 0}]}", "not a unix time"},
	    {"{\"start_unix_s\": 1e9, \"samples\": []}", "no samples"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [3]}", "sample 0 is not an object"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"ring_descs\": 1}]}",
	     "sample 0 has no \"t_s\""},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": -1}]}", "sample 0: \"t_s\""},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 2}, {\"t_s\": 1}]}",
	     "sample 1: \"t_s\" 1 is before the previous sample's 2"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"ring_bytes\": \"9\"}]}",
	     "sample 0: \"ring_bytes\" is not a number >= 0"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"bql_limit_bytes\": -5}]}",
	     "\"bql_limit_bytes\""},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"drops\": 3}]}",
	     "\"drops\" is not an object"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"marks\": {\"q\": true}}]}",
	     "\"marks\" of stage \"q\" is not a count"},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"drops\": {\"\": 1}}]}",
	     "a stage name of 0 bytes"},
	    {"{\"start_unix_s\": 1e9, \"interval_ms\": 0, \"samples\": [{\"t_s\": 0}]}",
	     "\"interval_ms\""},
	    {"{\"start_unix_s\": 1e9, \"samples\": [{\"t_s\": 0, \"drops\": {"
	     "\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,"
	     "\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,\"q\":1}}]}",
	     "more than 16 stages"},
	};
	struct telemetry out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";

		memset(&out, 0xa5, sizeof(out));
		CHECK(telemetry_parse(bad[i].doc, strlen(bad[i].doc), &out, err, sizeof(err)) ==
		      -EINVAL);
		if (!CHECK(strstr(err, bad[i].why) != NULL))
			fprintf(stderr, "doc %zu: \"%s\" does not say \"%s\"\n", i, err,
				bad[i].why);
		CHECK(((unsigned char *)&out)[0] == 0xa5); /* untouched */
	}
}

/* Unreadable files, run or telemetry: the same reason for people from both readers. */
TEST(unreadable_files_fail_with_a_reason)
{
	static const unsigned char bad_gzip[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff};
	const char *gz = path_in_dir("bad.json.gz");
	const char *missing = path_in_dir("missing.json");
	FILE *f = fopen(gz, "wb");
	struct run run;
	struct telemetry t;
	char err[256];

	REQUIRE(f);
	REQUIRE(fwrite(bad_gzip, 1, sizeof(bad_gzip), f) == sizeof(bad_gzip));
	REQUIRE(fclose(f) == 0);
	err[0] = 'x';
	CHECK_EQ(run_read(gz, &run, err, sizeof(err)), -EBADMSG);
	CHECK(!strcmp(err, "corrupt or truncated gzip data"));
	err[0] = 'x';
	CHECK_EQ(telemetry_read(gz, &t, err, sizeof(err)), -EBADMSG);
	CHECK(!strcmp(err, "corrupt or truncated gzip data"));
	CHECK_EQ(run_read(missing, &run, err, sizeof(err)), -ENOENT);
	CHECK(!strcmp(err, strerror(ENOENT)));
	CHECK_EQ(telemetry_read(missing, &t, err, sizeof(err)), -ENOENT);
	CHECK(!strcmp(err, strerror(ENOENT)));
	unlink(gz);
}

TEST(telemetry_goes_with_the_run_it_overlaps)
{
	struct test_result r;
	struct run runs[2];
	struct telemetry t;
	char err[512], *doc;

	memset(runs, 0, sizeof(runs));
	REQUIRE(make_rrul(&runs[0].r, 351, 0.2) == 0);
	REQUIRE(make_rrul(&runs[1].r, 351, 0.2) == 0);
	runs[1].r.t0 += 3600; /* an hour later */
	snprintf(runs[0].name, sizeof(runs[0].name), "first");
	snprintf(runs[1].name, sizeof(runs[1].name), "second");
	/* starts 10 s before the second run, covers 20 s of it */
	doc = telemetry_doc(runs[1].r.t0 - 10, 3001, 0.01, 0);
	REQUIRE(doc && telemetry_parse(doc, strlen(doc), &t, err, sizeof(err)) == 0);
	free(doc);
	CHECK(fabs(telemetry_overlap_s(&t, &runs[1]) - 20) < 1e-6);
	CHECK(telemetry_overlap_s(&t, &runs[0]) == 0);
	CHECK_EQ(telemetry_match(&t, runs, 2, err, sizeof(err)), 1);
	runs[1].telemetry = &t;
	CHECK_EQ(telemetry_match(&t, runs, 2, err, sizeof(err)), -EBUSY);
	CHECK(strstr(err, "already has telemetry") != NULL);
	runs[1].telemetry = NULL;
	runs[1].r.t0 = NAN; /* a flent file without TIME: nothing to align with */
	CHECK_EQ(telemetry_match(&t, runs, 2, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "second has no start time") != NULL);
	CHECK(strstr(err, "first: 2023-11-14 22:13:20 to 2023-11-14 22:14:30") != NULL);
	telemetry_free(&t);
	r = runs[0].r;
	result_free(&r);
	result_free(&runs[1].r);
}

/* The x of the highest point (lowest y) of the series titled `title`; NAN if none. */
static double peak_x(const char *svg, const char *title)
{
	char key[96];
	const char *p;
	double best_y = INFINITY, best_x = NAN;

	snprintf(key, sizeof(key), "<title>%s</title>", title);
	p = strstr(svg, key);
	if (!p || !(p = strstr(p, "<path d=\"")))
		return NAN;
	p += 9;
	while (*p && *p != '"') {
		char *end;
		double x, y;

		if (*p == 'M' || *p == ' ') {
			p++;
			continue;
		}
		if (*p == 'h') { /* a lone column's dash: skip its length */
			strtod(p + 1, &end);
			p = end;
			continue;
		}
		x = strtod(p, &end);
		if (end == p)
			return NAN;
		y = strtod(end, &end);
		p = end;
		if (y < best_y) {
			best_y = y;
			best_x = x;
		}
	}
	return best_x;
}

TEST(telemetry_is_drawn_under_the_latency_at_its_time)
{
	struct run runs[2];
	struct telemetry t, late;
	char err[512], *doc;
	/* 72 s at 10 ms from 1 s before the run; the spike at the run's x = 30 s */
	double start = 1700000000.0 - 1;

	REQUIRE(rrul_files() == 0);
	REQUIRE(run_read(path_in_dir("rrul.json"), &runs[0], err, sizeof(err)) == 0);
	REQUIRE(run_read(path_in_dir("rrul.flent.gz"), &runs[1], err, sizeof(err)) == 0);
	doc = telemetry_doc(start, 7201, 0.01, 1700000000.0 + 30);
	REQUIRE(doc && telemetry_parse(doc, strlen(doc), &t, err, sizeof(err)) == 0);
	free(doc);
	/* the same moments from a lab started 20 s earlier: t_s differs, wall clock not */
	doc = telemetry_doc(start - 20, 9201, 0.01, 1700000000.0 + 30);
	REQUIRE(doc && telemetry_parse(doc, strlen(doc), &late, err, sizeof(err)) == 0);
	free(doc);
	for (int kind = PLOT_ALL; kind <= PLOT_LATENCY; kind++) {
		struct plot_options o = {(enum plot_kind)kind, NULL};
		char *svg[3] = {NULL, NULL, NULL}, *o0, *o1, name[32];
		size_t len[3];

		runs[0].telemetry = runs[1].telemetry = &t;
		REQUIRE(plot_render(&runs[0], 1, &o, &svg[0], &len[0]) == 0);
		REQUIRE(plot_render(&runs[1], 1, &o, &svg[1], &len[1]) == 0);
		runs[0].telemetry = &late;
		REQUIRE(plot_render(&runs[0], 1, &o, &svg[2], &len[2]) == 0);
		o0 = outline(svg[0]);
		o1 = outline(svg[1]);
		CHECK_STR(o0, o1); /* JSON or flent: the same */
		CHECK(strstr(o0, "panel-latency-1|") != NULL);
		CHECK(strstr(o0, "panel-latency-1|Ping (ms) UDP EF|Ping (ms) UDP BK|Ping (ms) UDP "
				 "BE|Ping (ms) ICMP|panel-backlog-1|qdisc_backlog_bytes|"
				 "switch_backlog_bytes|client_qdisc_backlog_bytes|"
				 "board_port_backlog_bytes|panel-ring-1|ring_descs|panel-bql-1|"
				 "bql_limit_bytes|bql_inflight_bytes|ring_bytes|") != NULL);
		CHECK(strstr(svg[0], "qdisc: ") && strstr(svg[0], " drops</text>"));
		CHECK(strstr(svg[0], "lab profile: synthetic") != NULL);
		/* the time axis' title moves to the last panel */
		CHECK(strstr(svg[0], ">Time (s)</text>") > strstr(svg[0], "panel-bql-1"));
		/* 7200 samples of noise: still a small file */
		CHECK(len[0] < 300 * 1024);
		if (kind == PLOT_ALL)
			fprintf(stderr, "     70 s rrul + 72 s of 10 ms telemetry: %zu bytes\n",
				len[0]);
		/* x = 30 s on a 0..70 s axis of 700 px from x = 82: 382 (its column's middle) */
		CHECK(fabs(peak_x(svg[0], "qdisc_backlog_bytes") - 382.5) <= 1.01);
		CHECK(fabs(peak_x(svg[2], "qdisc_backlog_bytes") - 382.5) <= 1.01);
		snprintf(name, sizeof(name), "telemetry%d.svg", kind);
		if (have_rsvg())
			check_renders(svg[0], len[0], name, kind == PLOT_ALL ? 6 : 4);
		free(o0);
		free(o1);
		for (int i = 0; i < 3; i++)
			free(svg[i]);
	}
	/* kinds that do not draw latency over time leave it out */
	{
		struct plot_options o = {PLOT_CDF, NULL};
		char *svg = NULL;
		size_t len;

		runs[0].telemetry = &t;
		REQUIRE(plot_render(&runs[0], 1, &o, &svg, &len) == 0);
		CHECK(strstr(svg, "panel-backlog") == NULL);
		free(svg);
	}
	telemetry_free(&t);
	telemetry_free(&late);
	run_free(&runs[0]);
	run_free(&runs[1]);
}

TEST(zz_cleanup)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}
