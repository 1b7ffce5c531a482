/* SPDX-License-Identifier: MIT */
/*
 * test-plot.c - plot/run.h, plot/plot.h and plot/compare.h: both file formats read
 * back to the same run, every plot kind drawn from either looks the same (panels and
 * series), stays small, and renders: rsvg-convert turns it into a PNG whose panels
 * hold real ink (pixels that are neither background, grid nor idle shading).
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
#include "meter/report.h"
#include "plot/compare.h"
#include "plot/plot.h"
#include "plot/run.h"

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

TEST(zz_cleanup)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}
