/* SPDX-License-Identifier: MIT */
/*
 * lab/compare-seed.c - compare-int.h: `lab seed`'s header and footer, which read the
 * four runs against the 2014 email (loaded latency 4-10x lower, the BQL limit at
 * "two full size packets", throughput kept).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "base/print.h"
#include "plot/compare-runs.h"
#include "plot/run-file.h"

#include "compare-int.h"

/* ---- The seed's story ---- */

static const struct lc_run *by_profile(const struct lc_run *runs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(runs[i].profile, name) && runs[i].run)
			return &runs[i];
	return NULL;
}

static double pct_change(double v, double base)
{
	return isfinite(v) && isfinite(base) && base > 0 ? (v - base) * 100 / base : NAN;
}

/* Both directions' goodput together. */
static double total_mbps(const struct lc_run *lr)
{
	return lr->run->s.download.sum_mbps + lr->run->s.upload.sum_mbps;
}

void lc_seed_read(const struct lc_run *runs, size_t n, struct seed_reading *sr)
{
	const struct lc_run *fixed[2];

	*sr = (struct seed_reading){.loaded_ratio = NAN,
				    .bql_ratio = NAN,
				    .bql_frames = NAN,
				    .worst_down_pct = NAN,
				    .worst_up_pct = NAN,
				    .bql_down_pct = NAN,
				    .worst_total_ratio = NAN};
	sr->stock = by_profile(runs, n, "bbb-stock");
	sr->bql = by_profile(runs, n, "bbb-bql");
	sr->fq = by_profile(runs, n, "bbb-bql-fq");
	sr->fq_codel = by_profile(runs, n, "bbb-bql-fq_codel");
	if (sr->stock && sr->fq_codel)
		sr->loaded_ratio =
		    compare_ratio(sr->stock->run->s.loaded.p50, sr->fq_codel->run->s.loaded.p50);
	if (sr->stock && sr->bql) {
		sr->bql_ratio =
		    compare_ratio(sr->stock->run->s.loaded.p50, sr->bql->run->s.loaded.p50);
		sr->bql_down_pct = pct_change(sr->bql->run->s.download.sum_mbps,
					      sr->stock->run->s.download.sum_mbps);
	}
	if (sr->bql && isfinite(sr->bql->bql_limit_p50))
		sr->bql_frames = sr->bql->bql_limit_p50 / LC_FULL_FRAME;
	fixed[0] = sr->fq, fixed[1] = sr->fq_codel;
	for (size_t k = 0; sr->stock && k < 2; k++) {
		double d, u, t;

		if (!fixed[k])
			continue;
		d = pct_change(fixed[k]->run->s.download.sum_mbps,
			       sr->stock->run->s.download.sum_mbps);
		u = pct_change(fixed[k]->run->s.upload.sum_mbps, sr->stock->run->s.upload.sum_mbps);
		if (isfinite(d) && !(d >= sr->worst_down_pct))
			sr->worst_down_pct = d;
		if (isfinite(u) && !(u >= sr->worst_up_pct))
			sr->worst_up_pct = u;
		t = compare_ratio(total_mbps(fixed[k]), total_mbps(sr->stock));
		if (isfinite(t) && !(t >= sr->worst_total_ratio))
			sr->worst_total_ratio = t;
	}
}

void lc_seed_header(struct printer *p, const struct lc_args *a)
{
	print_text(
	    p,
	    "2014: a BeagleBone Black at 100 Mbit/s (cpsw, 128 TX descriptors, no BQL, pfifo_fast "
	    "with txqueuelen 1000) was \"pretty awful\" under load;");
	print_nl(p);
	print_text(p,
		   "BQL held the ring to two full-size packets, and BQL + fq / fq_codel gave 4-10x "
		   "lower latency. The lab replays those four setups (RRUL, %g s each; the "
		   "downloads leave through the emulated board's queues):",
		   a->length_s);
	print_nl(p);
	print_nl(p);
}

void lc_seed_footer(struct printer *p, const struct seed_reading *sr)
{
	char a[24], b[24];

	print_text(p, "What it shows:");
	print_nl(p);
	if (isfinite(sr->loaded_ratio)) {
		lc_fmt_num(a, sizeof(a), sr->stock->run->s.loaded.p50);
		lc_fmt_num(b, sizeof(b), sr->fq_codel->run->s.loaded.p50);
		print_text(
		    p,
		    "- Latency under load (p50, all probes): %s ms with bbb-stock, %s ms with "
		    "bbb-bql-fq_codel, %.1fx lower. The 2014 email saw 4-10x.",
		    a, b, sr->loaded_ratio);
		print_nl(p);
		if (sr->loaded_ratio > 10) {
			print_text(
			    p, "  More than in 2014: the lab's board has no TCP small queues "
			       "(TSQ), so its own flows fill pfifo_fast with 64 KB super-packets.");
			print_nl(p);
			print_text(
			    p,
			    "  The 2014 board ran with TSQ at 3028 bytes; the lab's model of "
			    "it: %s lab compare --set tsq=3028 PROFILE...",
			    PROG_NAME);
			print_nl(p);
		}
	}
	if (isfinite(sr->bql_ratio)) {
		lc_fmt_num(a, sizeof(a), sr->bql->run->s.loaded.p50);
		print_text(
		    p,
		    "- BQL alone (bbb-bql): %s ms, x%.2f of stock. BQL keeps the ring short, "
		    "but behind pfifo_fast the packets then wait in its queue instead:",
		    a, 1 / sr->bql_ratio);
		print_nl(p);
		print_text(
		    p, "  it takes fq or fq_codel in front of BQL to keep the probes out of the "
		       "bulk flows' queue.");
		print_nl(p);
	}
	if (isfinite(sr->bql_frames)) {
		print_text(
		    p,
		    "- bbb-bql's BQL limit settled at %.0f bytes, %.1f full-size frames of %d "
		    "bytes (the 2014 email: \"two full size packets\").",
		    sr->bql->bql_limit_p50, sr->bql_frames, LC_FULL_FRAME);
		print_nl(p);
	}
	if (sr->stock && sr->fq_codel) {
		const struct summary *s0 = &sr->stock->run->s, *s3 = &sr->fq_codel->run->s;
		char d0[24], d3[24], u0[24], u3[24];

		lc_fmt_num(d0, sizeof(d0), s0->download.sum_mbps);
		lc_fmt_num(d3, sizeof(d3), s3->download.sum_mbps);
		lc_fmt_num(u0, sizeof(u0), s0->upload.sum_mbps);
		lc_fmt_num(u3, sizeof(u3), s3->upload.sum_mbps);
		print_text(p,
			   "- Throughput, bbb-stock -> bbb-bql-fq_codel: download %s -> %s Mbit/s, "
			   "upload %s -> %s Mbit/s (the 2014 email: \"an enormous improvement in "
			   "bidirectional throughput\").",
			   d0, d3, u0, u3);
		print_nl(p);
	}
	if (isfinite(sr->worst_down_pct) || isfinite(sr->worst_up_pct)) {
		char alone[64] = "";

		if (isfinite(sr->bql_down_pct))
			snprintf(alone, sizeof(alone), "; BQL alone, download: %+.1f%%",
				 sr->bql_down_pct);
		print_text(p,
			   "  BQL with fq or fq_codel against stock, the worse of the two: "
			   "download %+.1f%%, upload %+.1f%%%s; both directions together "
			   "x%.2f.",
			   sr->worst_down_pct, sr->worst_up_pct, alone, sr->worst_total_ratio);
		print_nl(p);
		if (sr->worst_down_pct < -2) {
			print_text(p,
				   "  The fixed setups' downloads fall short because their uploads "
				   "now fill the tail-drop switch port towards the board, where "
				   "the downloads' ACKs are dropped too (2014: \"a tail dropping "
				   "switch in the way\" cost the fq run some throughput).");
			print_nl(p);
		}
	}
	print_text(p, "- The lab models the queues (qdisc, ring, BQL, completions, switch), not a "
		      "real board's CPU or its driver's timing: see docs/howto.md.");
	print_nl(p);
}

void lc_seed_json(struct printer *p, const struct seed_reading *sr)
{
	print_open_object(p, "seed");
	print_double(p, "loaded_p50_ratio", sr->loaded_ratio, 2, PRINT_JSON_ONLY);
	print_double(p, "bql_loaded_p50_ratio", sr->bql_ratio, 2, PRINT_JSON_ONLY);
	lc_json_num(p, "bql_limit_bytes", sr->bql ? sr->bql->bql_limit_p50 : NAN);
	print_double(p, "bql_limit_frames", sr->bql_frames, 2, PRINT_JSON_ONLY);
	print_double(p, "worst_download_change_pct", sr->worst_down_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "worst_upload_change_pct", sr->worst_up_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "bql_download_change_pct", sr->bql_down_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "worst_total_ratio", sr->worst_total_ratio, 3, PRINT_JSON_ONLY);
	print_close(p);
}
