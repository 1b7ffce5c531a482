/* SPDX-License-Identifier: MIT */
/* plot/plot.c - plot/plot.h: layout, axes, legends and the plot kinds. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "plot/plot.h"
#include "plot/svg.h"
#include "plot/telemetry-file.h"

/*
 * The page: y tick labels and the y title on the left, the legend on the right. The
 * legend is as wide as its widest label (plot_render draws twice when the first
 * drawing finds one wider than LEGEND_W), up to LEGEND_MAX_W; the page grows with it.
 */
#define LEFT	     82.0
#define LEGEND_W     200.0
#define LEGEND_MAX_W 600.0
#define PLOT_W	     700.0
#define PAGE_W(c)    (LEFT + PLOT_W + (c)->legend_w + 18.0)
#define LABEL_MAX_W  320.0 /* a run's name under a panel, slanted when it does not fit */
#define PANEL_H	     180.0
#define LEGEND_ROW   17.0
#define TICK_FONT    11.0
#define TEXT_FONT    12.0

/*
 * Eight styles: lightness steps apart in each group of four (42, 120, 163, 99 in
 * luma for the first four), and a dash pattern per style, so lines stay apart in
 * grayscale and for colour-blind readers.
 */
static const char *const colours[] = {"#08306b", "#e6550d", "#74c476", "#6a51a3",
				      "#41b6c4", "#a50f15", "#fdae6b", "#252525"};
static const char *const dashes[] = {"none", "7 3", "2 2.5", "9 3 2 3"};
#define NSTYLES 8

/* A style is a colour and a dash pattern; style i alone is colour i, dash i mod 4. */
static unsigned style_of(unsigned colour, unsigned dash)
{
	return 1000 + colour % NSTYLES + NSTYLES * (dash % 4);
}

static void style_attrs(struct svg *s, unsigned style, double width)
{
	unsigned colour = style >= 1000 ? (style - 1000) % NSTYLES : style % NSTYLES;
	unsigned dash = style >= 1000 ? (style - 1000) / NSTYLES : style % 4;

	svg_printf(s,
		   " fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-dasharray=\"%s\" "
		   "stroke-linejoin=\"round\"",
		   colours[colour], width, dashes[dash]);
}

struct axis {
	double lo, hi, step; /* lo and hi are the first and last ticks */
	unsigned count;
	int decimals;
};

struct panel {
	double x, y, w, h;
	struct axis xa, ya;
	unsigned nlegend;
};

struct canvas {
	struct svg body;
	double y; /* where the next block goes */
	unsigned nclip;
	double legend_w;    /* the legend's width on this drawing */
	double legend_need; /* the widest legend label met, with its swatch */
};

/* ---- ticks ---- */

void plot_nice_ticks(double lo, double hi, unsigned max_ticks, double *first, double *step,
		     unsigned *count, int *decimals)
{
	static const double mult[] = {1, 2, 5};
	double base, s = 1, f = 0, l = 1;
	unsigned n = 2;

	if (!isfinite(lo))
		lo = 0;
	if (!isfinite(hi) || hi <= lo)
		hi = lo + 1;
	if (max_ticks < 2)
		max_ticks = 2;
	/* The smallest 1-2-5 step whose ticks number at most max_ticks. */
	base = pow(10, floor(log10((hi - lo) / max_ticks)));
	for (unsigned k = 0; k < 30; k++) {
		s = mult[k % 3] * base * pow(10, k / 3);
		f = floor(lo / s + 1e-9) * s;
		l = ceil(hi / s - 1e-9) * s;
		n = (unsigned)llround((l - f) / s) + 1;
		if (n <= max_ticks)
			break;
	}
	*first = f;
	*step = s;
	*count = n;
	*decimals = s >= 1 ? 0 : (int)ceil(-log10(s) - 1e-9);
}

/* A guess at a label's width in a sans-serif font: wide enough that labels never touch. */
static double text_width(const char *s, double font)
{
	size_t chars = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		chars += (*c & 0xc0) != 0x80;
	return 0.62 * font * (double)chars;
}

static void axis_fit(struct axis *a, double lo, double hi, double pixels, bool horizontal)
{
	unsigned max = horizontal ? 14 : (unsigned)(pixels / 26);
	char label[32];
	double f, s;

	for (;; max--) {
		plot_nice_ticks(lo, hi, max, &f, &s, &a->count, &a->decimals);
		snprintf(label, sizeof(label), "%.*f", a->decimals, f + s * (a->count - 1));
		/* horizontal labels need their width plus a gap; vertical ones a line */
		if (max <= 2 || !horizontal ||
		    (text_width(label, TICK_FONT) + 14) * a->count <= pixels)
			break;
	}
	a->lo = f;
	a->step = s;
	a->hi = f + s * (a->count - 1);
}

/* Far outside the page is clipped anyway; the bound keeps absurd values short in text. */
static double clamp(double v)
{
	return isnan(v) ? 0 : fmax(-1e5, fmin(1e5, v));
}

static double px(const struct panel *p, double x)
{
	return clamp(p->x + (x - p->xa.lo) / (p->xa.hi - p->xa.lo) * p->w);
}

static double py(const struct panel *p, double y)
{
	return clamp(p->y + p->h - (y - p->ya.lo) / (p->ya.hi - p->ya.lo) * p->h);
}

/* ---- text ---- */

static void text(struct canvas *c, double x, double y, const char *cls, const char *anchor,
		 const char *s)
{
	svg_printf(&c->body, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\"", x, y, cls);
	if (anchor)
		svg_printf(&c->body, " text-anchor=\"%s\"", anchor);
	svg_printf(&c->body, ">");
	svg_escaped(&c->body, s);
	svg_printf(&c->body, "</text>\n");
}

/* s cut to fit width pixels, with "..." where it was cut. */
static void fit_text(char *buf, size_t len, const char *s, double font, double width)
{
	size_t n;

	snprintf(buf, len, "%s", s);
	n = strlen(buf);
	while (n > 3 && text_width(buf, font) > width) {
		n--;
		while (n > 3 && ((unsigned char)buf[n - 3] & 0xc0) == 0x80)
			n--; /* never split a UTF-8 sequence */
		memcpy(buf + n - 3, "...", 4);
	}
}

/*
 * s in lines of at most width pixels, broken at blanks (a word wider than a line is
 * cut with "..."), the first at baseline y, each next one 1.3 fonts lower. Returns the
 * number of lines (at least 1; at most 8, the last cut with "...").
 */
static unsigned wrap_text(struct canvas *c, double x, double y, const char *cls, double font,
			  double width, const char *s)
{
	char line[1024], fitted[1024];
	unsigned n = 0;

	while (n < 8) {
		size_t len = strlen(s), take = len, fit = 0;

		/* the longest prefix ending at a blank (or the end) that fits */
		for (size_t i = 0; i <= len && i < sizeof(line); i++) {
			if (i < len && s[i] != ' ')
				continue;
			snprintf(line, sizeof(line), "%.*s", (int)i, s);
			if (text_width(line, font) > width)
				break;
			fit = i;
		}
		if (fit)
			take = fit;
		if (n == 7 && take < len)
			take = len; /* the last line: the rest, cut */
		snprintf(line, sizeof(line), "%.*s",
			 (int)(take < sizeof(line) ? take : sizeof(line) - 1), s);
		fit_text(fitted, sizeof(fitted), line, font, width);
		text(c, x, y + 1.3 * font * n++, cls, NULL, fitted);
		s += take;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
	}
	return n ? n : 1;
}

/* ---- panels ---- */

static void panel_open(struct canvas *c, struct panel *p, const char *id, double h)
{
	p->x = LEFT;
	p->y = c->y;
	p->w = PLOT_W;
	p->h = h;
	p->nlegend = 0;
	svg_printf(&c->body, "<g class=\"panel\" id=\"");
	svg_escaped(&c->body, id);
	svg_printf(&c->body, "\">\n");
}

/* Grid, frame, tick labels and axis titles (x_title NULL: no x title). */
static void panel_axes(struct canvas *c, const struct panel *p, const char *x_title,
		       const char *y_title)
{
	char label[32];

	svg_printf(&c->body,
		   "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%.1f\"/>\n",
		   p->x, p->y, p->w, p->h);
	for (unsigned i = 0; i < p->ya.count; i++) {
		double v = p->ya.lo + p->ya.step * i, y = py(p, v);

		if (i && i + 1 < p->ya.count)
			svg_printf(&c->body, "<path class=\"grid\" d=\"M%.1f %.1fH%.1f\"/>\n", p->x,
				   y, p->x + p->w);
		snprintf(label, sizeof(label), "%.*f", p->ya.decimals, v);
		text(c, p->x - 6, y + 4, "tick", "end", label);
	}
	for (unsigned i = 0; i < p->xa.count; i++) {
		double v = p->xa.lo + p->xa.step * i, x = px(p, v);

		if (i && i + 1 < p->xa.count)
			svg_printf(&c->body, "<path class=\"grid\" d=\"M%.1f %.1fV%.1f\"/>\n", x,
				   p->y, p->y + p->h);
		snprintf(label, sizeof(label), "%.*f", p->xa.decimals, v);
		text(c, x, p->y + p->h + 15, "tick", "middle", label);
	}
	svg_printf(&c->body,
		   "<text class=\"axis\" text-anchor=\"middle\" "
		   "transform=\"translate(%.1f %.1f) rotate(-90)\">",
		   p->x - 60, p->y + p->h / 2);
	svg_escaped(&c->body, y_title);
	svg_printf(&c->body, "</text>\n");
	if (x_title)
		text(c, p->x + p->w / 2, p->y + p->h + 33, "axis", "middle", x_title);
}

/* Clip what follows to the panel's frame (a spike above the axis stays inside). */
static void panel_clip(struct canvas *c, const struct panel *p)
{
	c->nclip++;
	svg_printf(&c->body,
		   "<clipPath id=\"clip%u\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		   "height=\"%.1f\"/></clipPath>\n",
		   c->nclip, p->x, p->y - 1, p->w, p->h + 2);
}

/* A legend row: swatch "line" (the style's line) or a CSS class for a filled box. */
static void legend_entry(struct canvas *c, struct panel *p, const char *swatch, unsigned style,
			 const char *label)
{
	double x = p->x + p->w + 16, y = p->y + 10 + LEGEND_ROW * p->nlegend;
	char fitted[96];

	if (!strcmp(swatch, "line")) {
		svg_printf(&c->body, "<path");
		style_attrs(&c->body, style, 2.2);
		svg_printf(&c->body, " d=\"M%.1f %.1fh26\"/>\n", x, y);
	} else
		svg_printf(&c->body,
			   "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"26\" "
			   "height=\"10\"/>\n",
			   swatch, x, y - 5);
	c->legend_need = fmax(c->legend_need, text_width(label, TEXT_FONT) + 50);
	fit_text(fitted, sizeof(fitted), label, TEXT_FONT, c->legend_w - 50);
	text(c, x + 32, y + 4, "legend", NULL, fitted);
	p->nlegend++;
}

static void panel_close(struct canvas *c, const struct panel *p, bool x_title)
{
	svg_printf(&c->body, "</g>\n");
	c->y = p->y + p->h + (x_title ? 58 : 34);
}

/*
 * One line through the points that have data (NaN breaks it). Beyond PLOT_MAX_POINTS
 * points: the min and max of each bucket, so spikes survive the thinning.
 */
static void line(struct canvas *c, const struct panel *p, const double *xs, const double *ys,
		 size_t n)
{
	size_t bucket =
	    n <= PLOT_MAX_POINTS ? 1 : (n + PLOT_MAX_POINTS / 2 - 1) / (PLOT_MAX_POINTS / 2);
	bool pen = false;

	svg_printf(&c->body, "<path d=\"");
	for (size_t i = 0; i < n; i += bucket) {
		size_t end = i + bucket < n ? i + bucket : n, lo = SIZE_MAX, hi = SIZE_MAX;

		for (size_t k = i; k < end; k++) {
			if (isnan(ys[k]))
				continue;
			if (lo == SIZE_MAX || ys[k] < ys[lo])
				lo = k;
			if (hi == SIZE_MAX || ys[k] > ys[hi])
				hi = k;
		}
		if (lo == SIZE_MAX) {
			pen = false;
			continue;
		}
		/* A lone point between gaps would draw nothing: give it a short dash. */
		if (!pen && lo == hi && (end >= n || isnan(ys[end]))) {
			svg_printf(&c->body, "M%.1f %.1fh3", px(p, xs[lo]) - 1.5, py(p, ys[lo]));
			continue;
		}
		for (int twice = 0; twice < (lo == hi ? 1 : 2); twice++) {
			size_t k = (lo < hi) == !twice ? lo : hi;

			svg_printf(&c->body, "%s%.1f %.1f", pen ? " " : "M", px(p, xs[k]),
				   py(p, ys[k]));
			pen = true;
		}
	}
	svg_printf(&c->body, "\"/>\n");
}

static void series_open(struct canvas *c, unsigned style, const char *name)
{
	svg_printf(&c->body, "<g class=\"series\" clip-path=\"url(#clip%u)\"", c->nclip);
	style_attrs(&c->body, style, 1.7);
	svg_printf(&c->body, "><title>");
	svg_escaped(&c->body, name);
	svg_printf(&c->body, "</title>\n");
}

/*
 * "TCP download EF" -> "EF", "TCP upload::3" -> "flow 3", "Ping (ms) UDP EF" -> "UDP EF";
 * test rpm's probe series (meter/rpm-client.h) by what each times: they are latencies, not RPM.
 */
static void short_name(char *buf, size_t len, const char *name)
{
	static const char *const prefixes[] = {"TCP download ", "TCP upload ", "Ping (ms) "};
	static const char *const rpm_probes[][2] = {
	    {"Ping (ms) RPM foreign TCP", "TCP handshake (foreign)"},
	    {"Ping (ms) RPM foreign TLS", "TLS handshake (foreign)"},
	    {"Ping (ms) RPM foreign HTTP", "HTTP GET (foreign)"},
	    {"Ping (ms) RPM self HTTP", "HTTP GET on the load (self)"},
	    {"Ping (ms) RPM self TCP_INFO", "TCP RTT of the load (self)"},
	};
	const char *sep = strstr(name, "::");

	for (size_t i = 0; i < COUNT(rpm_probes); i++)
		if (!strcmp(name, rpm_probes[i][0])) {
			snprintf(buf, len, "%s", rpm_probes[i][1]);
			return;
		}

	if (sep) {
		snprintf(buf, len, "flow %s", sep + 2);
		return;
	}
	for (size_t i = 0; i < COUNT(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) {
			snprintf(buf, len, "%s", name + strlen(prefixes[i]));
			return;
		}
	snprintf(buf, len, "%s", name);
}

/* "2023-11-14 22:13:20 UTC" from the run's T0, or "" when it has none. */
static void run_date(char *buf, size_t len, const struct test_result *r)
{
	if (strlen(r->time_utc) < 19) {
		snprintf(buf, len, "%s", r->time_utc);
		return;
	}
	snprintf(buf, len, "%.10s %.8s UTC", r->time_utc, r->time_utc + 11);
}

/* "rrul from bbb to 192.0.2.1 (IPv4), 2023-11-14 22:13:20 UTC" */
static void run_caption(char *buf, size_t len, const struct run *run)
{
	const struct test_result *r = &run->r;
	char date[40];

	run_date(date, sizeof(date), r);
	snprintf(buf, len, "%s%s%s to %s (IPv%d)%s%s", r->test[0] ? r->test : "test",
		 r->local_host[0] ? " from " : "", r->local_host, r->host[0] ? r->host : "?",
		 r->ip_version, date[0] ? ", " : "", date);
}

/* ---- time plots ---- */

static size_t count_kind(const struct test_result *r, enum series_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nseries; i++)
		n += r->series[i].kind == k;
	return n;
}

/* Whether a probe series misses steps between its first and last answer. */
static bool has_gaps(const struct test_result *r)
{
	for (size_t i = 0; i < r->nseries; i++) {
		const double *v = r->series[i].values;
		size_t a = 0, b = r->nsteps;

		if (r->series[i].kind != SERIES_PROBE)
			continue;
		while (a < b && isnan(v[a]))
			a++;
		while (b > a && isnan(v[b - 1]))
			b--;
		for (size_t k = a; k < b; k++)
			if (isnan(v[k]))
				return true;
	}
	return false;
}

/* One shaded span [t0, t1) of a panel, labelled when it is wide enough. */
static void shade_span(struct canvas *c, const struct panel *p, double t0, double t1,
		       const char *cls, const char *label)
{
	double x0 = px(p, fmax(t0, p->xa.lo)), x1 = px(p, fmin(t1, p->xa.hi));

	if (x1 - x0 < 0.5)
		return;
	svg_printf(&c->body,
		   "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		   cls, x0, p->y, x1 - x0, p->h);
	if (label && x1 - x0 > text_width(label, TICK_FONT) + 6)
		text(c, (x0 + x1) / 2, p->y + 13, "note", "middle", label);
}

/*
 * The idle periods before and after the load, and between them and the load's end the
 * drain (the queue the load left still emptying, summary.h), shaded apart: what the
 * summary counts as idle is what is shaded idle.
 */
static void shade_idle(struct canvas *c, const struct panel *p, const struct run *run, bool label)
{
	const struct test_result *r = &run->r;
	double end = r->delay_s + r->length_s, idle_from = end;

	if (!(r->delay_s > 0) || count_kind(r, SERIES_UPLOAD) + count_kind(r, SERIES_DOWNLOAD) == 0)
		return;
	if (run->s.drain == DRAIN_DONE)
		idle_from = end + run->s.drain_s;
	else if (run->s.drain == DRAIN_NEVER)
		idle_from = p->xa.hi;
	shade_span(c, p, 0, r->delay_s, "idle", label ? "idle" : NULL);
	shade_span(c, p, end, idle_from, "drain", label ? "drain" : NULL);
	shade_span(c, p, idle_from, p->xa.hi, "idle", label ? "idle" : NULL);
}

/* Does the run have a drain to show (a legend entry for it)? */
static bool has_drain(const struct run *run)
{
	return run->s.drain == DRAIN_NEVER || (run->s.drain == DRAIN_DONE && run->s.drain_s > 0);
}

/* The time axis of every time panel: the longest run, so runs line up. */
static double time_xmax(const struct run *runs, size_t nruns)
{
	double xmax = 0;

	for (size_t j = 0; j < nruns; j++) {
		const struct test_result *o = &runs[j].r;

		xmax = fmax(xmax, fmax((double)(o->nsteps ? o->nsteps - 1 : 1) * o->step_s,
				       2 * o->delay_s + o->length_s));
	}
	return xmax;
}

/*
 * One panel of run `index`. Its axes span every run's data of that kind, so panels of
 * several runs compare at a glance (the same height means the same Mbit/s or ms).
 */
static void time_panel(struct canvas *c, const struct run *runs, size_t nruns, size_t index,
		       enum series_kind kind, bool first, bool last)
{
	const struct test_result *r = &runs[index].r;
	static const char *const ids[] = {"upload", "download", "latency"};
	static const char *const titles[] = {"Upload (Mbit/s)", "Download (Mbit/s)",
					     "Latency (ms)"};
	size_t n = count_kind(r, kind), ki = kind == SERIES_PROBE ? 2 : (size_t)kind;
	double *xs, ymax = 0, xmax = time_xmax(runs, nruns);
	unsigned style = 0;
	struct panel p;
	char id[48];

	if (!n)
		return;
	xs = malloc((r->nsteps ? r->nsteps : 1) * sizeof(*xs));
	if (!xs) {
		c->body.err = c->body.err ? c->body.err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < r->nsteps; i++)
		xs[i] = (double)i * r->step_s;
	for (size_t j = 0; j < nruns; j++) {
		const struct test_result *o = &runs[j].r;

		for (size_t i = 0; i < o->nseries; i++)
			for (size_t k = 0; o->series[i].kind == kind && k < o->nsteps; k++)
				if (o->series[i].values[k] > ymax)
					ymax = o->series[i].values[k];
	}
	snprintf(id, sizeof(id), "panel-%s-%zu", ids[ki], index + 1);
	panel_open(c, &p, id, fmax(PANEL_H, LEGEND_ROW * (double)(n + 1) + 8));
	axis_fit(&p.xa, 0, xmax, p.w, true);
	axis_fit(&p.ya, 0, ymax > 0 ? ymax * 1.04 : 1, p.h, false);
	shade_idle(c, &p, &runs[index], first);
	panel_axes(c, &p, last ? "Time (s)" : NULL, titles[ki]);
	panel_clip(c, &p);
	for (size_t i = 0; i < r->nseries; i++) {
		const struct series *s = &r->series[i];
		char label[64];

		if (s->kind != kind)
			continue;
		series_open(c, style, s->name);
		line(c, &p, xs, s->values, r->nsteps);
		svg_printf(&c->body, "</g>\n");
		short_name(label, sizeof(label), s->name);
		legend_entry(c, &p, "line", style++, label);
	}
	if (first && r->delay_s > 0 &&
	    count_kind(r, SERIES_UPLOAD) + count_kind(r, SERIES_DOWNLOAD))
		legend_entry(c, &p, "idle", 0, "idle (no load)");
	if (first && r->delay_s > 0 && has_drain(&runs[index]))
		legend_entry(c, &p, "drain", 0, "queue draining");
	if (kind == SERIES_PROBE && has_gaps(r))
		text(c, p.x + p.w + 16, p.y + 14 + LEGEND_ROW * p.nlegend++, "note", NULL,
		     "gaps: no answer (lost)");
	panel_close(c, &p, last);
	free(xs);
}

/* ---- the lab's telemetry, under the latency of its run ---- */

/*
 * A polyline aggregated per pixel column: a column's samples become its lowest and
 * highest value (in time order), so a 70 s file of 10 ms samples (7000) draws at most
 * two points per column and every spike stays. Runs of points at one height merge
 * into their ends, which keeps flat stretches (an empty queue, a steady limit) short.
 */
struct pen {
	struct canvas *c;
	bool down, pending;
	unsigned points;       /* since the last move */
	double lx, ly, px, py; /* the last point written, the one held back */
};

static void pen_write(struct pen *p, double x, double y)
{
	svg_printf(&p->c->body, p->points ? " %.1f %.1f" : "M%.1f %.1f", x, y);
	p->points++;
	p->lx = x;
	p->ly = y;
}

static void pen_point(struct pen *p, double x, double y)
{
	x = round(x * 10) / 10;
	y = round(y * 10) / 10;
	if (!p->down) {
		p->down = true;
		p->points = 0;
		pen_write(p, x, y);
		return;
	}
	if (p->pending) {
		if (p->py == y && p->ly == y) { /* still level: move the held point on */
			p->px = x;
			return;
		}
		pen_write(p, p->px, p->py);
	}
	p->px = x;
	p->py = y;
	p->pending = true;
}

static void pen_up(struct pen *p)
{
	if (p->pending)
		pen_write(p, p->px, p->py);
	else if (p->down && p->points == 1)
		svg_printf(&p->c->body, "h1.5"); /* a lone column: a dash, not nothing */
	p->down = p->pending = false;
}

static void column_line(struct canvas *c, const struct panel *pn, double x_offset,
			const double *t_s, const double *ys, size_t n, double scale)
{
	struct pen pen = {.c = c};
	long col = LONG_MIN;
	size_t lo = 0, hi = 0;
	bool any = false;

	svg_printf(&c->body, "<path d=\"");
	for (size_t i = 0; i <= n; i++) {
		long k = LONG_MAX;
		double x;

		if (i < n) {
			x = px(pn, x_offset + t_s[i]) - pn->x;
			k = x >= 0 && x < pn->w ? (long)x : LONG_MIN;
		}
		if (any && (i == n || k != col || isnan(ys[i]))) {
			double xc = pn->x + (double)col + 0.5;

			pen_point(&pen, xc, py(pn, scale * ys[lo < hi ? lo : hi]));
			if (lo != hi)
				pen_point(&pen, xc, py(pn, scale * ys[lo < hi ? hi : lo]));
			any = false;
		}
		if (i == n)
			break;
		if (k == LONG_MIN || isnan(ys[i])) {
			if (isnan(ys[i]))
				pen_up(&pen);
			continue;
		}
		if (!any) {
			col = k;
			lo = hi = i;
			any = true;
		} else {
			lo = ys[i] < ys[lo] ? i : lo;
			hi = ys[i] > ys[hi] ? i : hi;
		}
	}
	pen_up(&pen);
	svg_printf(&c->body, "\"/>\n");
}

struct telemetry_line {
	enum telemetry_gauge gauge;
	const char *label;
	double scale; /* from the file's unit to the panel's */
};

static const struct telemetry_panel {
	const char *id, *title;
	struct telemetry_line lines[5];
	size_t nlines;
} telemetry_panel_defs[] = {
    {"backlog",
     "Backlog (KB)",
     {{TELEMETRY_QDISC_BACKLOG_BYTES, "board qdisc", 1e-3},
      {TELEMETRY_SWITCH_BACKLOG_BYTES, "switch to client", 1e-3},
      {TELEMETRY_CLIENT_QDISC_BACKLOG_BYTES, "client qdisc", 1e-3},
      {TELEMETRY_BOARD_PORT_BACKLOG_BYTES, "switch to board", 1e-3},
      {TELEMETRY_TSQ_HELD_BYTES, "held by TSQ", 1e-3}},
     5},
    {"ring", "TX ring (descriptors)", {{TELEMETRY_RING_DESCS, "descriptors in use", 1}}, 1},
    {"bql",
     "TX ring and BQL (KB)",
     {{TELEMETRY_BQL_LIMIT_BYTES, "BQL limit", 1e-3},
      {TELEMETRY_BQL_INFLIGHT_BYTES, "BQL inflight", 1e-3},
      {TELEMETRY_RING_BYTES, "bytes in the ring", 1e-3}},
     3},
};
#define NTELEMETRY_PANELS (COUNT(telemetry_panel_defs))

/* The largest value of a gauge on the run's time axis [0, xmax]; NaN when none is there. */
static double gauge_max(const struct telemetry *t, enum telemetry_gauge g, double x_offset,
			double xmax)
{
	double m = NAN;

	if (!t->has_gauge[g])
		return NAN;
	for (size_t i = 0; i < t->n; i++) {
		double x = x_offset + t->t_s[i];

		if (x >= 0 && x <= xmax && !isnan(t->gauge[g][i]) && !(t->gauge[g][i] <= m))
			m = t->gauge[g][i];
	}
	return m;
}

static bool telemetry_drawn(const struct run *runs, size_t nruns, size_t index)
{
	const struct telemetry *t = runs[index].telemetry;
	double xmax = time_xmax(runs, nruns);

	if (!t || !isfinite(runs[index].r.t0))
		return false;
	for (size_t k = 0; k < NTELEMETRY_PANELS; k++)
		for (size_t l = 0; l < telemetry_panel_defs[k].nlines; l++)
			if (!isnan(gauge_max(t, telemetry_panel_defs[k].lines[l].gauge,
					     t->start_unix_s - runs[index].r.t0, xmax)))
				return true;
	return false;
}

/* A note under the legend, while the panel has room for it. */
static void legend_note(struct canvas *c, struct panel *p, const char *s)
{
	char fitted[96];

	if (LEGEND_ROW * (p->nlegend + 1) > p->h - 4)
		return;
	c->legend_need = fmax(c->legend_need, text_width(s, TICK_FONT) + 20);
	fit_text(fitted, sizeof(fitted), s, TICK_FONT, c->legend_w - 20);
	text(c, p->x + p->w + 16, p->y + 14 + LEGEND_ROW * p->nlegend++, "note", NULL, fitted);
}

/* Legend notes: what each stage dropped and marked over the panel's span. */
static void counter_notes(struct canvas *c, struct panel *p, const struct telemetry *t,
			  double from_unix_s, double to_unix_s)
{
	bool any = false, none = true;
	char note[96];

	for (size_t i = 0; i < t->ncounters; i++) {
		const struct telemetry_counter *tc = &t->counters[i];
		double d = telemetry_counter_sum(t, tc, from_unix_s, to_unix_s);

		if (isnan(d))
			continue;
		any = true;
		if (d <= 0)
			continue;
		none = false;
		snprintf(note, sizeof(note), "%s: %.0f %s", tc->stage, d,
			 tc->marks ? "CE marks" : "drops");
		legend_note(c, p, note);
	}
	if (any && none)
		legend_note(c, p, "no drops, no marks");
}

/*
 * The panels of run `index`'s telemetry, on the run's time axis: a sample at wall-clock
 * time start_unix_s + t_s is drawn at x = that - the run's t0.
 */
static void telemetry_panels(struct canvas *c, const struct run *runs, size_t nruns, size_t index)
{
	const struct run *run = &runs[index];
	const struct telemetry *t = run->telemetry;
	double xmax = time_xmax(runs, nruns), off = t->start_unix_s - run->r.t0;
	size_t last = NTELEMETRY_PANELS;

	/* the last panel that draws anything gets the time axis' title */
	for (size_t k = 0; k < NTELEMETRY_PANELS; k++)
		for (size_t l = 0; l < telemetry_panel_defs[k].nlines; l++)
			if (!isnan(gauge_max(t, telemetry_panel_defs[k].lines[l].gauge, off, xmax)))
				last = k;
	for (size_t k = 0; k < NTELEMETRY_PANELS; k++) {
		const struct telemetry_panel *def = &telemetry_panel_defs[k];
		double ymax = 0, m[5];
		unsigned style = 0;
		size_t nlines = 0;
		struct panel p;
		char id[48];

		for (size_t l = 0; l < def->nlines; l++) {
			m[l] = gauge_max(t, def->lines[l].gauge, off, xmax);
			if (!isnan(m[l])) {
				ymax = fmax(ymax, m[l] * def->lines[l].scale);
				nlines++;
			}
		}
		if (!nlines)
			continue;
		snprintf(id, sizeof(id), "panel-%s-%zu", def->id, index + 1);
		panel_open(c, &p, id, fmax(PANEL_H, LEGEND_ROW * (double)(nlines + 3) + 8));
		axis_fit(&p.xa, 0, xmax, p.w, true);
		axis_fit(&p.ya, 0, ymax > 0 ? ymax * 1.04 : 1, p.h, false);
		shade_idle(c, &p, run, false);
		panel_axes(c, &p, k == last ? "Time (s)" : NULL, def->title);
		panel_clip(c, &p);
		for (size_t l = 0; l < def->nlines; l++) {
			if (isnan(m[l]))
				continue;
			series_open(c, style, telemetry_gauge_key(def->lines[l].gauge));
			column_line(c, &p, off, t->t_s, t->gauge[def->lines[l].gauge], t->n,
				    def->lines[l].scale);
			svg_printf(&c->body, "</g>\n");
			legend_entry(c, &p, "line", style++, def->lines[l].label);
		}
		if (k == 0 && t->profile[0]) {
			char note[96];

			snprintf(note, sizeof(note), "lab profile: %s", t->profile);
			legend_note(c, &p, note);
		}
		if (k == 0)
			counter_notes(c, &p, t, run->r.t0, run->r.t0 + xmax);
		if (k == 2 && !isnan(m[0]) && m[0] == 0)
			legend_note(c, &p, "BQL off (limit 0)");
		panel_close(c, &p, k == last);
	}
}

static void time_plots(struct canvas *c, const struct run *runs, size_t nruns, enum plot_kind kind)
{
	for (size_t i = 0; i < nruns; i++) {
		const struct test_result *r = &runs[i].r;
		bool down = kind != PLOT_LATENCY && count_kind(r, SERIES_DOWNLOAD),
		     up = kind != PLOT_LATENCY && count_kind(r, SERIES_UPLOAD),
		     lat = kind != PLOT_THROUGHPUT && count_kind(r, SERIES_PROBE),
		     tele = kind != PLOT_THROUGHPUT && telemetry_drawn(runs, nruns, i);
		char caption[512], head[640];

		if (nruns > 1) {
			run_caption(caption, sizeof(caption), &runs[i]);
			snprintf(head, sizeof(head), "%s: %s", runs[i].name, caption);
			c->y += 16 * (double)wrap_text(c, 16, c->y + 2, "run", 14,
						       PAGE_W(c) - 2 * LEFT, head);
		}
		if (down)
			time_panel(c, runs, nruns, i, SERIES_DOWNLOAD, true, !up && !lat);
		if (up)
			time_panel(c, runs, nruns, i, SERIES_UPLOAD, !down, !lat);
		if (lat)
			time_panel(c, runs, nruns, i, SERIES_PROBE, !down && !up, !tele);
		if (tele)
			telemetry_panels(c, runs, nruns, i);
		if (!down && !up && !lat && !tele) {
			text(c, LEFT, c->y + 20, "note", NULL, "nothing to draw in this run");
			c->y += 40;
		}
	}
}

/* ---- distributions ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The finite per-step values of one series (s) or of every probe (s NULL), sorted. */
static double *sorted_values(const struct test_result *r, const struct series *s, size_t *n)
{
	double *v = malloc((r->nsteps ? r->nsteps : 1) * (s ? 1 : count_kind(r, SERIES_PROBE) + 1) *
			   sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->nseries; i++) {
		const struct series *t = &r->series[i];

		if (s ? t != s : t->kind != SERIES_PROBE)
			continue;
		for (size_t k = 0; k < r->nsteps; k++)
			if (isfinite(t->values[k]))
				v[(*n)++] = t->values[k];
	}
	qsort(v, *n, sizeof(*v), cmp_double);
	return v;
}

static void cdf_line(struct canvas *c, const struct panel *p, const double *v, size_t n)
{
	size_t keep = n > PLOT_MAX_POINTS ? PLOT_MAX_POINTS : n;

	svg_printf(&c->body, "<path d=\"");
	for (size_t j = 0; j < keep; j++) {
		size_t k =
		    keep == n ? j : (size_t)((double)j * (double)(n - 1) / (double)(keep - 1));

		svg_printf(&c->body, "%s%.1f %.1f", j ? " " : "M", px(p, v[k]),
			   py(p, 100.0 * (double)(k + 1) / (double)n));
	}
	svg_printf(&c->body, "\"/>\n");
}

/* CDFs of each probe of each run (pooled: one per run, all probes together). */
static void cdf_panel(struct canvas *c, const struct run *runs, size_t nruns, bool pooled,
		      const char *id)
{
	double xmax = 0;
	size_t ncurves = 0;
	unsigned style = 0;
	struct panel p;

	for (size_t i = 0; i < nruns; i++) {
		const struct test_result *r = &runs[i].r;

		ncurves += pooled ? 1 : count_kind(r, SERIES_PROBE);
		for (size_t k = 0; k < r->nseries; k++)
			for (size_t j = 0; r->series[k].kind == SERIES_PROBE && j < r->nsteps; j++)
				if (r->series[k].values[j] > xmax)
					xmax = r->series[k].values[j];
	}
	panel_open(c, &p, id, fmax(PANEL_H * 1.4, LEGEND_ROW * (double)ncurves + 12));
	axis_fit(&p.xa, 0, xmax > 0 ? xmax : 1, p.w, true);
	axis_fit(&p.ya, 0, 100, p.h, false);
	panel_axes(c, &p, "Latency (ms)", "Cumulative probability (%)");
	panel_clip(c, &p);
	for (size_t i = 0; i < nruns; i++) {
		const struct test_result *r = &runs[i].r;
		unsigned nth = 0;

		for (size_t k = 0; k <= r->nseries; k++) {
			const struct series *s = k < r->nseries ? &r->series[k] : NULL;
			char label[200], name[64];
			double *v;
			size_t n;

			if (pooled ? s != NULL : (!s || s->kind != SERIES_PROBE))
				continue;
			v = sorted_values(r, s, &n);
			if (!v) {
				c->body.err = c->body.err ? c->body.err : -ENOMEM;
				return;
			}
			short_name(name, sizeof(name), s ? s->name : "all probes");
			if (pooled)
				snprintf(label, sizeof(label), "%s", runs[i].name);
			else if (nruns > 1)
				snprintf(label, sizeof(label), "%s: %s", runs[i].name, name);
			else
				snprintf(label, sizeof(label), "%s", name);
			/* several runs: the colour tells the run, the dash the probe */
			style = nruns > 1 && !pooled ? style_of((unsigned)i, nth++) : style;
			series_open(c, style, pooled ? label : s->name);
			if (n)
				cdf_line(c, &p, v, n);
			svg_printf(&c->body, "</g>\n");
			legend_entry(c, &p, "line", style++, label);
			free(v);
		}
	}
	panel_close(c, &p, true);
}

/*
 * Per-step probe values in the idle (loaded = false) or loaded window, as summary.h's
 * (idle after the load only once the queue drained).
 */
static double *window_values(const struct run *run, bool loaded, size_t *n)
{
	const struct test_result *r = &run->r;
	double *v =
	    malloc((r->nsteps ? r->nsteps : 1) * (count_kind(r, SERIES_PROBE) + 1) * sizeof(*v));
	double end = r->delay_s + r->length_s, ramp = r->length_s > 2 ? 1.0 : 0.0;
	double idle_from = run->s.drain == DRAIN_DONE	 ? end + run->s.drain_s
			   : run->s.drain == DRAIN_NEVER ? INFINITY
							 : end;
	bool has_load = count_kind(r, SERIES_UPLOAD) + count_kind(r, SERIES_DOWNLOAD) > 0;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->nseries; i++) {
		if (r->series[i].kind != SERIES_PROBE)
			continue;
		for (size_t k = 0; k < r->nsteps; k++) {
			double t = ((double)k - 0.5) * r->step_s, val = r->series[i].values[k];
			bool in_load = has_load && t >= r->delay_s + ramp && t < end - ramp;
			bool idle = !has_load || t < r->delay_s || t >= idle_from;

			if (isfinite(val) && (loaded ? in_load : idle))
				v[(*n)++] = val;
		}
	}
	return v;
}

struct box {
	double p5, p25, p50, p75, p95;
	size_t n;
};

static struct box box_of(double *v, size_t n)
{
	struct box b = {NAN, NAN, NAN, NAN, NAN, n};

	if (!n)
		return b;
	b.p5 = summary_percentile(v, n, 5);
	b.p25 = summary_percentile(v, n, 25);
	b.p50 = summary_percentile(v, n, 50);
	b.p75 = summary_percentile(v, n, 75);
	b.p95 = summary_percentile(v, n, 95);
	return b;
}

static void draw_box(struct canvas *c, const struct panel *p, const struct box *b, double xc,
		     double w, const char *cls, const char *title)
{
	svg_printf(&c->body, "<g class=\"series\"><title>");
	svg_escaped(&c->body, title);
	svg_printf(&c->body, "</title>\n");
	if (b->n) {
		svg_printf(&c->body,
			   "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fV%.1f"
			   "M%.1f %.1fh%.1fM%.1f %.1fh%.1f\"/>\n",
			   xc, py(p, b->p95), py(p, b->p75), xc, py(p, b->p25), py(p, b->p5),
			   xc - w / 4, py(p, b->p95), w / 2, xc - w / 4, py(p, b->p5), w / 2);
		svg_printf(&c->body,
			   "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			   "height=\"%.1f\"/>\n",
			   cls, xc - w / 2, py(p, b->p75), w,
			   fmax(py(p, b->p25) - py(p, b->p75), 1));
		svg_printf(&c->body, "<path class=\"median\" d=\"M%.1f %.1fh%.1f\"/>\n", xc - w / 2,
			   py(p, b->p50), w);
	}
	svg_printf(&c->body, "</g>\n");
}

/*
 * Category labels under a panel of runs: each run's name under its slot, or, when one
 * is wider than its slot, every name slanted down to the right (30 degrees, so that
 * the last one still ends on the page) and none cut short of LABEL_MAX_W. Returns
 * the height the slanted names take beyond the usual x title's.
 */
static double run_labels(struct canvas *c, const struct panel *p, const struct run *runs,
			 size_t nruns)
{
	double slot = p->w / (double)nruns, widest = 0;
	char name[128];

	for (size_t i = 0; i < nruns; i++)
		widest = fmax(widest, text_width(runs[i].name, TEXT_FONT));
	for (size_t i = 0; i < nruns; i++) {
		double x = p->x + slot * ((double)i + 0.5), y = p->y + p->h + 16;

		if (widest <= slot - 8) {
			text(c, x, y, "legend", "middle", runs[i].name);
			continue;
		}
		fit_text(name, sizeof(name), runs[i].name, TEXT_FONT, LABEL_MAX_W);
		svg_printf(&c->body,
			   "<text class=\"legend\" "
			   "transform=\"translate(%.1f %.1f) rotate(30)\">",
			   x - 4, y);
		svg_escaped(&c->body, name);
		svg_printf(&c->body, "</text>\n");
	}
	if (widest <= slot - 8)
		return 0;
	return fmax(0, 0.5 * fmin(widest, LABEL_MAX_W) + 8 - 40);
}

static void box_panel(struct canvas *c, const struct run *runs, size_t nruns)
{
	struct box *boxes = calloc(2 * nruns, sizeof(*boxes));
	double ymax = 0, slot = PLOT_W / (double)nruns, w, below;
	struct panel p;

	if (!boxes) {
		c->body.err = c->body.err ? c->body.err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < 2 * nruns; i++) {
		size_t n;
		double *v = window_values(&runs[i / 2], i % 2, &n);

		if (!v) {
			c->body.err = c->body.err ? c->body.err : -ENOMEM;
			free(boxes);
			return;
		}
		boxes[i] = box_of(v, n);
		if (n && boxes[i].p95 > ymax)
			ymax = boxes[i].p95;
		free(v);
	}
	w = fmin(56, slot * 0.3);
	panel_open(c, &p, "panel-box", PANEL_H * 1.5);
	p.xa = (struct axis){0, 1, 1, 0, 0}; /* no x ticks: the categories are the runs */
	axis_fit(&p.ya, 0, ymax > 0 ? ymax * 1.05 : 1, p.h, false);
	panel_axes(c, &p, NULL, "Latency (ms)");
	for (size_t i = 0; i < nruns; i++) {
		double xc = p.x + slot * ((double)i + 0.5);
		char title[192];

		snprintf(title, sizeof(title), "%s: idle", runs[i].name);
		draw_box(c, &p, &boxes[2 * i], xc - w * 0.6, w, "box-idle", title);
		snprintf(title, sizeof(title), "%s: under load", runs[i].name);
		draw_box(c, &p, &boxes[2 * i + 1], xc + w * 0.6, w, "box-load", title);
	}
	below = run_labels(c, &p, runs, nruns);
	legend_entry(c, &p, "box-idle", 0, "idle");
	legend_entry(c, &p, "box-load", 0, "under load");
	p.nlegend++;
	text(c, p.x + p.w + 16, p.y + 14 + LEGEND_ROW * p.nlegend++, "note", NULL,
	     "box: 25th-75th percentile");
	text(c, p.x + p.w + 16, p.y + 14 + LEGEND_ROW * p.nlegend++, "note", NULL, "line: median");
	text(c, p.x + p.w + 16, p.y + 14 + LEGEND_ROW * p.nlegend++, "note", NULL,
	     "whiskers: 5th-95th");
	panel_close(c, &p, true);
	c->y += below;
	free(boxes);
}

/* Download and upload of each run (the summary's sums), side by side. */
static void bar_panel(struct canvas *c, const struct run *runs, size_t nruns)
{
	double ymax = 0, slot = PLOT_W / (double)nruns, w = fmin(60, slot * 0.32), below;
	struct panel p;

	for (size_t i = 0; i < nruns; i++)
		ymax = fmax(
		    ymax,
		    fmax(isfinite(runs[i].s.download.sum_mbps) ? runs[i].s.download.sum_mbps : 0,
			 isfinite(runs[i].s.upload.sum_mbps) ? runs[i].s.upload.sum_mbps : 0));
	panel_open(c, &p, "panel-bars", PANEL_H * 1.2);
	p.xa = (struct axis){0, 1, 1, 0, 0};
	axis_fit(&p.ya, 0, ymax > 0 ? ymax * 1.12 : 1, p.h, false);
	panel_axes(c, &p, NULL, "Throughput (Mbit/s)");
	for (size_t i = 0; i < nruns; i++) {
		const double vals[2] = {runs[i].s.download.sum_mbps, runs[i].s.upload.sum_mbps};
		double xc = p.x + slot * ((double)i + 0.5);

		for (int d = 0; d < 2; d++) {
			double x = xc + (d ? 0.1 * w : -1.1 * w),
			       v = isfinite(vals[d]) ? vals[d] : 0;
			char title[192], num[32];

			snprintf(title, sizeof(title), "%s: %s", runs[i].name,
				 d ? "upload" : "download");
			svg_printf(&c->body, "<g class=\"series\"><title>");
			svg_escaped(&c->body, title);
			svg_printf(&c->body,
				   "</title>\n<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
				   "width=\"%.1f\" height=\"%.1f\"/></g>\n",
				   d ? "bar-up" : "bar-down", x, py(&p, v), w,
				   fmax(py(&p, 0) - py(&p, v), 0.5));
			if (isfinite(vals[d]))
				snprintf(num, sizeof(num), "%.1f", vals[d]);
			else
				snprintf(num, sizeof(num), "n/a");
			/* with many runs the bars get narrow: a value that would touch goes */
			if (text_width(num, TICK_FONT) <= 1.2 * w + 4)
				text(c, x + w / 2, py(&p, v) - 4, "tick", "middle", num);
		}
	}
	below = run_labels(c, &p, runs, nruns);
	legend_entry(c, &p, "bar-down", 0, "download");
	legend_entry(c, &p, "bar-up", 0, "upload");
	panel_close(c, &p, true);
	c->y += below;
}

/* ---- the document ---- */

static const char style_sheet[] =
    "text{font-family:'DejaVu Sans','Liberation Sans',Arial,Helvetica,sans-serif;fill:#222}\n"
    ".title{font-size:18px;font-weight:bold}\n"
    ".sub{font-size:12px;fill:#444}\n"
    ".run{font-size:14px;font-weight:bold}\n"
    ".tick{font-size:11px;fill:#333}\n"
    ".axis{font-size:12px}\n"
    ".legend{font-size:12px}\n"
    ".note{font-size:11px;fill:#555}\n"
    ".frame{fill:none;stroke:#777;stroke-width:1}\n"
    ".grid{fill:none;stroke:#ddd;stroke-width:1}\n"
    ".idle{fill:#ebebeb;stroke:none}\n"
    ".drain{fill:#fde0c5;stroke:none}\n"
    ".whisker{fill:none;stroke:#333;stroke-width:1.2}\n"
    ".median{fill:none;stroke:#000;stroke-width:2.5}\n"
    ".box-idle{fill:#c6dbef;stroke:#333;stroke-width:1}\n"
    ".box-load{fill:#e6550d;stroke:#333;stroke-width:1}\n"
    ".bar-down{fill:#08306b;stroke:none}\n"
    ".bar-up{fill:#fdae6b;stroke:#333;stroke-width:0.8}\n";

static void title_block(struct canvas *c, const struct run *runs, size_t nruns, const char *title)
{
	const struct test_result *r = &runs[0].r;
	char main[512], sub[1024];
	size_t off = 0;

	if (title)
		snprintf(main, sizeof(main), "%s", title);
	else if (nruns == 1 && r->label[0])
		snprintf(main, sizeof(main), "%s: %s to %s", r->label, r->test, r->host);
	else if (nruns == 1)
		snprintf(main, sizeof(main), "%s to %s", r->test, r->host);
	else
		for (size_t i = 0; i < nruns && off < sizeof(main); i++)
			off += (size_t)snprintf(main + off, sizeof(main) - off, "%s%s",
						i ? " vs " : "", runs[i].name);
	if (nruns == 1) {
		run_caption(sub, sizeof(sub), &runs[0]);
		off = strlen(sub);
		if (r->length_s > 0 &&
		    count_kind(r, SERIES_UPLOAD) + count_kind(r, SERIES_DOWNLOAD))
			snprintf(sub + off, sizeof(sub) - off, "; load %g s between %g s idle",
				 r->length_s, r->delay_s);
		else if (r->nsteps > 1)
			snprintf(sub + off, sizeof(sub) - off, "; probes only, %g s",
				 (double)(r->nsteps - 1) * r->step_s);
	} else {
		snprintf(sub, sizeof(sub), "%zu runs of %s", nruns, r->test);
		for (size_t i = 0, off2 = strlen(sub); i < nruns && off2 < sizeof(sub); i++) {
			char date[40];

			run_date(date, sizeof(date), &runs[i].r);
			off2 += (size_t)snprintf(sub + off2, sizeof(sub) - off2, "%s %s (%s)",
						 i ? "," : ":", runs[i].name, date);
		}
	}
	c->y = 28 + 24 * (double)(wrap_text(c, 16, 28, "title", 18, PAGE_W(c) - 32, main) - 1);
	c->y += 20;
	c->y += 16 * (double)wrap_text(c, 16, c->y, "sub", 12, PAGE_W(c) - 32, sub) + 4;
}

int plot_kind_parse(const char *word, enum plot_kind *out)
{
	static const char *const names[] = {"all", "latency", "throughput", "cdf", "box"};

	for (size_t i = 0; i < COUNT(names); i++)
		if (!strcmp(word, names[i])) {
			*out = (enum plot_kind)i;
			return 0;
		}
	return -EINVAL;
}

/* Every panel of the drawing into c, whose legend_w is set. */
static void draw(struct canvas *c, const struct run *runs, size_t nruns,
		 const struct plot_options *o)
{
	title_block(c, runs, nruns, o->title);
	switch (o->kind) {
	case PLOT_ALL:
	case PLOT_LATENCY:
	case PLOT_THROUGHPUT:
		time_plots(c, runs, nruns, o->kind);
		break;
	case PLOT_CDF:
		cdf_panel(c, runs, nruns, false, "panel-cdf");
		break;
	case PLOT_BOX:
		box_panel(c, runs, nruns);
		break;
	case PLOT_COMPARE:
		cdf_panel(c, runs, nruns, true, "panel-cdf");
		bar_panel(c, runs, nruns);
		break;
	}
}

int plot_render(const struct run *runs, size_t nruns, const struct plot_options *o, char **out,
		size_t *len)
{
	struct canvas c = {.legend_w = LEGEND_W};
	struct svg doc = {0};
	int ret;

	if (!nruns)
		return -EINVAL;
	draw(&c, runs, nruns, o);
	if (c.legend_need > c.legend_w) { /* again, with room for the widest label */
		double need = fmin(ceil(c.legend_need), LEGEND_MAX_W);

		svg_free(&c.body);
		c = (struct canvas){.legend_w = need};
		draw(&c, runs, nruns, o);
	}
	svg_printf(&doc,
		   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		   "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		   PAGE_W(&c), c.y, PAGE_W(&c), c.y);
	svg_printf(&doc, "<defs><style type=\"text/css\"><![CDATA[\n%s", style_sheet);
	svg_printf(&doc, "]]></style></defs>\n<rect width=\"100%%\" height=\"100%%\" "
			 "fill=\"#ffffff\"/>\n");
	ret = svg_finish(&c.body);
	if (!ret && c.body.len)
		svg_printf(&doc, "%.*s", (int)c.body.len, c.body.buf);
	svg_printf(&doc, "</svg>\n");
	svg_free(&c.body);
	if (!ret)
		ret = svg_finish(&doc);
	if (ret) {
		svg_free(&doc);
		return ret;
	}
	*out = doc.buf;
	*len = doc.len;
	return 0;
}
