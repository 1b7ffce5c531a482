/* SPDX-License-Identifier: MIT */
#include "prove/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void prove_numbers_of(const struct summary *s, struct prove_numbers *out)
{
	memset(out, 0, sizeof(*out));
	out->idle_p50_ms = s->idle.p50;
	out->loaded_p50_ms = s->loaded.p50;
	out->loaded_p99_ms = s->loaded.p99;
	out->induced_ms = s->induced_ms;
	out->rpm = s->rpm;
	out->up_mbps = s->upload.nflows ? s->upload.sum_mbps : NAN;
	out->down_mbps = s->download.nflows ? s->download.sum_mbps : NAN;
	snprintf(out->grade, sizeof(out->grade), "%s", s->grade);
}

static void egress(const struct prove_numbers *before, uint32_t link_mbps, enum tristate bql,
		   uint64_t given, struct prove_capacity *out);

void prove_capacity(const struct prove_numbers *before, uint32_t link_mbps, enum tristate bql,
		    uint64_t given, bool ingress, struct prove_capacity *out)
{
	double d = before->down_mbps;

	egress(before, link_mbps, bql, given, out);
	if (ingress && d > 0)
		out->shape_down_rate = (uint64_t)(d * 1000) * 125;
}

static void egress(const struct prove_numbers *before, uint32_t link_mbps, enum tristate bql,
		   uint64_t given, struct prove_capacity *out)
{
	double g = before->up_mbps;

	memset(out, 0, sizeof(*out));
	out->up_mbps = before->up_mbps;
	out->down_mbps = before->down_mbps;
	out->link_mbps = link_mbps;
	if (given) {
		out->source = "given";
		out->shape_rate = given;
		snprintf(out->why, sizeof(out->why), "the shaper's rate was given (--shape)");
		return;
	}
	if (!(g > 0)) {
		out->source = "none";
		snprintf(out->why, sizeof(out->why),
			 "the test sent nothing upstream: no upload capacity to size a shaper "
			 "from (give --shape, or test with uploads)");
		return;
	}
	/* In whole kbit/s, as tc would spell it. */
	uint64_t measured = (uint64_t)(g * 1000) * 125;

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
	if (bql == TRI_NO) {
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
	out->upload_ratio = ratio(after->up_mbps, before->up_mbps);
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
			 100 * (lost_up ? out->upload_ratio : out->download_ratio),
			 100 * max_loss);
		return;
	}
	out->kept = true;
	snprintf(out->why, sizeof(out->why),
		 "induced latency %.1f -> %.1f ms, %.1fx lower (at least %.2fx asked), goodput "
		 "within the %.0f%% loss allowed",
		 before->induced_ms, after->induced_ms, out->latency_ratio, min_gain,
		 100 * max_loss);
}

bool prove_good(const struct prove_numbers *n)
{
	return n->induced_ms < PROVE_GOOD_MS;
}
