/* SPDX-License-Identifier: MIT */
#include "prove/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prove_numbers_of(const struct summary *s, const struct test_result *r,
		      struct prove_numbers *out)
{
	memset(out, 0, sizeof(*out));
	out->idle_p50_ms = s->idle.p50;
	out->loaded_p50_ms = s->loaded.p50;
	out->loaded_p99_ms = s->loaded.p99;
	out->induced_ms = s->induced_ms;
	out->rpm = s->rpm;
	out->up_mbps = s->upload.nflows ? s->upload.sum_mbps : NAN;
	out->down_mbps = s->download.nflows ? s->download.sum_mbps : NAN;
	out->own_up_mbps = s->upload.nflows ? r->own_upload_mbps : NAN;
	out->own_down_mbps = s->download.nflows ? r->own_download_mbps : NAN;
	prove_owd(r->owd, r->nowd, r->delay_s, r->length_s, &out->owd_up_ms, &out->owd_down_ms);
	out->server_overloaded = r->server_overloaded;
	snprintf(out->grade, sizeof(out->grade), "%s", s->grade);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median (nearest rank) of v[0..n), sorted in place; NaN when n is 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n + 1) / 2 - 1];
}

void prove_owd(const struct owd_sample *s, size_t n, double delay_s, double length_s, double *up_ms,
	       double *down_ms)
{
	double ramp = length_s > 2 * SUMMARY_RAMP_S ? SUMMARY_RAMP_S : 0;
	double *v = n ? malloc(4 * n * sizeof(*v)) : NULL;
	double *iu = v, *id = v + n, *lu = v + 2 * n, *ld = v + 3 * n;
	size_t ni = 0, nl = 0;

	*up_ms = *down_ms = NAN;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i].t < delay_s) {
			iu[ni] = s[i].up_ms;
			id[ni++] = s[i].down_ms;
		} else if (s[i].t >= delay_s + ramp && s[i].t < delay_s + length_s - ramp) {
			lu[nl] = s[i].up_ms;
			ld[nl++] = s[i].down_ms;
		}
	}
	if (ni && nl) {
		*up_ms = median(lu, nl) - median(iu, ni);
		*down_ms = median(ld, nl) - median(id, ni);
	}
	free(v);
}

/* The larger of two delays, either of which may be NaN (not measured). */
static double larger(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

/* One direction: the rate from this host's counters, checked against the report; its
 * queue from the one-way delays of the baseline and of its own run, the larger: in a
 * mixed run a bloated upload holds back the download's ACKs, so the download cannot
 * fill its own queue there. */
static void direction(const struct prove_numbers *run, const struct prove_numbers *base, bool up,
		      struct prove_direction *d)
{
	double own = up ? run->own_up_mbps : run->own_down_mbps;
	double rep = up ? run->up_mbps : run->down_mbps;

	d->mbps = own > 0 ? own : NAN;
	d->reported_mbps = rep;
	d->induced_ms = up ? base->owd_up_ms : base->owd_down_ms;
	if (run != base)
		d->induced_ms = larger(d->induced_ms, up ? run->owd_up_ms : run->owd_down_ms);
	d->disagree = d->mbps > 0 && rep >= 0 && fabs(rep - own) > PROVE_REPORT_TOLERANCE * own;
}

static bool queued(const struct prove_direction *d)
{
	return d->induced_ms >= PROVE_QUEUE_MS;
}

static const char *where_up(const struct prove_direction *d, const char *egress)
{
	if (egress && (!strcmp(egress, "here") || !strcmp(egress, "driver")))
		return egress;
	if (isnan(d->induced_ms))
		return "unknown";
	return queued(d) ? "upstream" : "none";
}

static const char *where_down(const struct prove_direction *d)
{
	if (isnan(d->induced_ms))
		return "unknown";
	return queued(d) ? "downstream" : "none";
}

static void egress(const struct prove_capacity_in *in, struct prove_capacity *out);

/* In whole kbit/s, as tc would spell it. */
static uint64_t rate_of(double mbps)
{
	return (uint64_t)(mbps * 1000) * 125;
}

static void append(struct prove_capacity *out, const char *fmt, ...)
{
	size_t n = strlen(out->why);
	va_list ap;

	if (n >= sizeof(out->why) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(out->why + n, sizeof(out->why) - n, fmt, ap);
	va_end(ap);
}

static void say_disagree(struct prove_capacity *out, const char *dir,
			 const struct prove_direction *d)
{
	if (d->disagree)
		append(out,
		       "; the server reported %.1f Mbit/s %s, this host's own TCP counters saw "
		       "%.1f: the counters set the rate",
		       d->reported_mbps, dir, d->mbps);
}

void prove_capacity(const struct prove_capacity_in *in, struct prove_capacity *out)
{
	const struct prove_numbers *b = in->before;
	struct prove_direction *dn;

	memset(out, 0, sizeof(*out));
	direction(in->up ? in->up : b, b, true, &out->up);
	direction(in->down ? in->down : b, b, false, &out->down);
	out->up.where = where_up(&out->up, in->egress_where);
	out->down.where = where_down(&out->down);
	out->up_mbps = out->up.mbps;
	out->down_mbps = out->down.mbps;
	out->link_mbps = in->link_mbps;
	egress(in, out);
	say_disagree(out, "up", &out->up);
	dn = &out->down;
	if (in->ingress == PROVE_INGRESS_OFF || isnan(dn->reported_mbps))
		return;
	if (!(dn->mbps > 0)) {
		append(out, "; the download's rate comes from no TCP counters of this host: it is "
			    "not shaped on a server's word");
		return;
	}
	if (in->ingress == PROVE_INGRESS_FORCE) {
		out->shape_down_rate = rate_of(dn->mbps);
		append(out, "; the download shaped at its %.1f Mbit/s (--ingress)", dn->mbps);
	} else if (queued(dn)) {
		out->shape_down_rate = rate_of(dn->mbps);
		append(out,
		       "; the download's one-way delay grew %.1f ms under load (its queue is "
		       "downstream, before this host): shape it at its %.1f Mbit/s",
		       dn->induced_ms, dn->mbps);
	}
	if (out->shape_down_rate)
		say_disagree(out, "down", dn);
}

static void egress(const struct prove_capacity_in *in, struct prove_capacity *out)
{
	const struct prove_direction *u = &out->up;
	double g = u->mbps;
	uint32_t link_mbps = in->link_mbps;

	if (in->given) {
		out->source = "given";
		out->shape_rate = in->given;
		snprintf(out->why, sizeof(out->why), "the shaper's rate was given (--shape)");
		return;
	}
	if (isnan(u->reported_mbps)) {
		out->source = "none";
		snprintf(out->why, sizeof(out->why),
			 "the test sent nothing upstream: no upload capacity to size a shaper "
			 "from (give --shape, or test with uploads)");
		return;
	}
	if (!(g > 0)) {
		out->source = "none";
		snprintf(out->why, sizeof(out->why),
			 "this host's own TCP counters gave no upload rate (the server reported "
			 "%.1f Mbit/s, which alone never sets a shaper): give --shape",
			 u->reported_mbps);
		return;
	}
	if (!isnan(u->induced_ms) && !queued(u) && strcmp(u->where, "here") &&
	    strcmp(u->where, "driver")) {
		out->source = "none";
		snprintf(out->why, sizeof(out->why),
			 "the upload's one-way delay grew only %.1f ms under load at %.1f Mbit/s: "
			 "no queue to move, no upload shaper",
			 u->induced_ms, g);
		return;
	}
	uint64_t measured = rate_of(g);

	if (!link_mbps || g < PROVE_BOTTLENECK_FRACTION * link_mbps) {
		out->source = "measured";
		out->shape_rate = measured;
		if (link_mbps)
			snprintf(out->why, sizeof(out->why),
				 "the upload reached %.1f Mbit/s of a %u Mbit/s link: the "
				 "bottleneck is beyond this host, so shape at %.1f Mbit/s",
				 g, link_mbps, g);
		else
			snprintf(out->why, sizeof(out->why),
				 "the upload reached %.1f Mbit/s on a link of unknown speed: "
				 "shape at %.1f Mbit/s so the queue forms here",
				 g, g);
		return;
	}
	if (in->bql == TRI_NO) {
		out->source = "measured";
		out->shape_rate = measured;
		snprintf(out->why, sizeof(out->why),
			 "the driver has no BQL: its ring holds the queue, so shape at the "
			 "measured %.1f Mbit/s",
			 g);
		return;
	}
	out->source = "link";
	snprintf(out->why, sizeof(out->why),
		 "the upload filled the link (%.1f of %u Mbit/s) and BQL keeps the driver's "
		 "queue short: no shaper, fix's own plan",
		 g, link_mbps);
}

static double floored(double ms)
{
	return ms < PROVE_LATENCY_FLOOR_MS ? PROVE_LATENCY_FLOOR_MS : ms;
}

static double ratio(double after, double before)
{
	return before > 0 && isfinite(before) && isfinite(after) ? after / before : NAN;
}

void prove_judge(const struct prove_numbers *before, const struct prove_numbers *after,
		 double min_gain, double max_loss, struct prove_verdict *out)
{
	bool lost_up, lost_down;

	memset(out, 0, sizeof(*out));
	out->upload_ratio = ratio(after->own_up_mbps, before->own_up_mbps);
	out->download_ratio = ratio(after->own_down_mbps, before->own_down_mbps);
	if (isnan(out->upload_ratio))
		out->upload_ratio = ratio(after->up_mbps, before->up_mbps);
	if (isnan(out->download_ratio))
		out->download_ratio = ratio(after->down_mbps, before->down_mbps);
	if (isnan(before->induced_ms) || isnan(after->induced_ms)) {
		out->latency_ratio = NAN;
		snprintf(out->why, sizeof(out->why),
			 "no induced latency was measured in %s: nothing proves the change",
			 isnan(before->induced_ms) ? "the baseline" : "the second run");
		return;
	}
	out->latency_ratio = floored(before->induced_ms) / floored(after->induced_ms);
	lost_up = out->upload_ratio < 1 - max_loss;
	lost_down = out->download_ratio < 1 - max_loss;
	if (out->latency_ratio < min_gain) {
		snprintf(out->why, sizeof(out->why),
			 "induced latency %.1f -> %.1f ms is %.2fx lower, less than the %.2fx "
			 "asked (--min-gain)",
			 before->induced_ms, after->induced_ms, out->latency_ratio, min_gain);
		return;
	}
	if (lost_up || lost_down) {
		snprintf(out->why, sizeof(out->why),
			 "induced latency is %.1fx lower, but %s goodput fell to %.0f%% of "
			 "before, more than the %.0f%% loss allowed (--max-loss)",
			 out->latency_ratio, lost_up ? "upload" : "download",
			 100 * (lost_up ? out->upload_ratio : out->download_ratio), 100 * max_loss);
		return;
	}
	out->kept = true;
	snprintf(out->why, sizeof(out->why),
		 "induced latency %.1f -> %.1f ms, %.1fx lower (at least %.2fx asked), goodput "
		 "within the %.0f%% loss allowed",
		 before->induced_ms, after->induced_ms, out->latency_ratio, min_gain,
		 100 * max_loss);
}

static const char *const dir_names[PROVE_NDIRS] = {"upload", "download"};

static double own_or_reported(const struct prove_numbers *n, enum prove_dir d)
{
	double own = d == PROVE_UP ? n->own_up_mbps : n->own_down_mbps;

	return isfinite(own) ? own : d == PROVE_UP ? n->up_mbps : n->down_mbps;
}

/* The goodput of direction d: lost, traded, or judged by its runs alone. */
static void judge_goodput(const struct prove_judge_in *in, const struct prove_verdict *all,
			  enum prove_dir d, struct prove_dir_verdict *v)
{
	double other = d == PROVE_UP ? all->download_ratio : all->upload_ratio;
	const struct prove_numbers *b = in->alone_before[d], *a = in->alone_after[d];

	v->goodput_ratio = d == PROVE_UP ? all->upload_ratio : all->download_ratio;
	v->alone_ratio = NAN;
	v->lost = v->goodput_ratio < 1 - in->max_loss;
	v->traded = v->lost && other > 1 + in->max_loss;
	if (!v->traded)
		return;
	if (b && a)
		v->alone_ratio = ratio(own_or_reported(a, d), own_or_reported(b, d));
	if (isfinite(v->alone_ratio))
		v->lost = v->alone_ratio < 1 - in->max_loss;
	else
		v->want_alone = b != NULL && a == NULL;
}

/* The growth of direction d's one-way delay in run n; NaN without one. */
static double owd_of(const struct prove_numbers *n, enum prove_dir d)
{
	return !n ? NAN : d == PROVE_UP ? n->owd_up_ms : n->owd_down_ms;
}

static void judge_latency(const struct prove_judge_in *in, const struct prove_verdict *all,
			  enum prove_dir d, struct prove_dir_verdict *v)
{
	double b = owd_of(in->before, d), a = owd_of(in->after, d);
	double alone = owd_of(in->alone_before[d], d);

	/* The queue its change was made for: a mixed run can hide it (see the header). */
	if (isfinite(b) && isfinite(alone) && alone > b)
		b = alone;
	if (isfinite(b) && isfinite(a))
		v->latency_ratio = floored(b) / floored(a);
	else
		v->latency_ratio = all->latency_ratio;
	v->improved = v->latency_ratio >= in->min_gain;
}

static void say_direction(const struct prove_judge_in *in, enum prove_dir d,
			  struct prove_dir_verdict *v, bool other_lost)
{
	char alone[96] = "";

	if (isfinite(v->alone_ratio))
		snprintf(alone, sizeof(alone), ", %.2fx alone (its own runs)", v->alone_ratio);
	if (!v->changed)
		snprintf(v->why, sizeof(v->why),
			 "no change of its own; goodput %.2fx of before%s%s", v->goodput_ratio,
			 alone, v->lost ? ": lost, more than --max-loss" : "");
	else if (!v->improved)
		snprintf(v->why, sizeof(v->why),
			 "one-way delay only %.2fx lower, less than the %.2fx asked",
			 v->latency_ratio, in->min_gain);
	else if (v->lost)
		snprintf(v->why, sizeof(v->why),
			 "one-way delay %.1fx lower, but %s goodput fell to %.0f%% of before%s, "
			 "more than the %.0f%% loss allowed (--max-loss)",
			 v->latency_ratio, dir_names[d],
			 100 * (v->traded && isfinite(v->alone_ratio) ? v->alone_ratio
								      : v->goodput_ratio),
			 v->traded && isfinite(v->alone_ratio) ? " alone" : "", 100 * in->max_loss);
	else if (other_lost)
		snprintf(v->why, sizeof(v->why),
			 "one-way delay %.1fx lower, but a direction without a change lost its "
			 "goodput",
			 v->latency_ratio);
	else
		snprintf(v->why, sizeof(v->why), "one-way delay %.1fx lower, goodput %.2fx%s%s",
			 v->latency_ratio, v->goodput_ratio,
			 v->traded ? " with the other direction's ACKs (a trade)" : "", alone);
}

/* The verdict's sentence from its directions'. */
static void say_verdict(const struct prove_judge_in *in, struct prove_verdict *out)
{
	const struct prove_dir_verdict *up = &out->dir[PROVE_UP], *dn = &out->dir[PROVE_DOWN];
	enum prove_dir bad = up->changed && strcmp(up->outcome, "kept")	  ? PROVE_UP
			     : dn->changed && strcmp(dn->outcome, "kept") ? PROVE_DOWN
			     : up->lost					  ? PROVE_UP
									  : PROVE_DOWN;
	enum prove_dir traded = up->traded ? PROVE_UP : PROVE_DOWN;

	if (out->partial)
		snprintf(out->why, sizeof(out->why),
			 "the %s's change is kept (%s); the %s's is not (%s)", dir_names[!bad],
			 out->dir[!bad].why, dir_names[bad], out->dir[bad].why);
	else if (out->kept && out->dir[traded].traded)
		snprintf(
		    out->why, sizeof(out->why),
		    "induced latency %.1f -> %.1f ms, %.1fx lower; the %s's goodput fell under "
		    "both loads as the %s's rose (its ACKs), and alone it is within the %.0f%% "
		    "loss allowed",
		    in->before->induced_ms, in->after->induced_ms, out->latency_ratio,
		    dir_names[traded], dir_names[!traded], 100 * in->max_loss);
	else if (out->kept)
		snprintf(out->why, sizeof(out->why),
			 "induced latency %.1f -> %.1f ms, %.1fx lower; each direction changed is "
			 "%.2fx or more lower one way, goodput within the %.0f%% loss allowed",
			 in->before->induced_ms, in->after->induced_ms, out->latency_ratio,
			 in->min_gain, 100 * in->max_loss);
	else
		snprintf(out->why, sizeof(out->why), "nothing to keep: the %s's change: %s",
			 dir_names[bad], out->dir[bad].why);
}

void prove_judge_directions(const struct prove_judge_in *in, struct prove_verdict *out)
{
	bool unchanged_lost = false, changed = false;
	size_t nkept = 0, nchanged = 0;

	prove_judge(in->before, in->after, in->min_gain, in->max_loss, out);
	if (isnan(out->latency_ratio))
		return; /* nothing proves anything: put back, as prove_judge says */
	for (size_t d = 0; d < PROVE_NDIRS; d++)
		changed |= in->changed[d];
	for (size_t d = 0; d < PROVE_NDIRS; d++) {
		struct prove_dir_verdict *v = &out->dir[d];

		/* no direction named: the change is the whole of fix's plan, egress */
		v->changed = changed ? in->changed[d] : d == PROVE_UP;
		judge_goodput(in, out, (enum prove_dir)d, v);
		judge_latency(in, out, (enum prove_dir)d, v);
		out->want_alone |= v->want_alone;
		unchanged_lost |= !v->changed && v->lost;
	}
	for (size_t d = 0; d < PROVE_NDIRS; d++) {
		struct prove_dir_verdict *v = &out->dir[d];
		bool keep = v->changed && v->improved && !v->lost && !unchanged_lost;

		v->outcome = !v->changed ? "unchanged" : keep ? "kept" : "put-back";
		nchanged += v->changed;
		nkept += keep;
		say_direction(in, (enum prove_dir)d, v, unchanged_lost);
	}
	out->kept = nkept > 0;
	out->partial = nkept > 0 && nkept < nchanged;
	say_verdict(in, out);
}

bool prove_good(const struct prove_numbers *n)
{
	return n->induced_ms < PROVE_GOOD_MS;
}
