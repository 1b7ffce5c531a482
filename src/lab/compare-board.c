/* SPDX-License-Identifier: MIT */
/*
 * lab/compare-board.c - compare-int.h: `lab seed --board NAME`, a board of the 2014
 * thread as it ships (its hand-written profile) against the same board with `debloat
 * fix`'s plan for its snapshot applied (lab/board.h) and with its driver's BQL under
 * fq_codel, and a header and footer that read the table for that board (with
 * --sending, what each keeps of stock's goodput when the board only sends).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/print.h"
#include "plot/lab-table.h"
#include "plot/run-file.h"

#include "compare-int.h"

int lc_board_prepare(const struct lab_board_entry *e, const struct plan_options *opts,
		     struct lc_board *b, char *err, size_t errlen)
{
	int r;

	memset(b, 0, sizeof(*b));
	b->stock = b->n++;
	snprintf(b->path[b->stock], sizeof(b->path[0]), "%s", e->profile);
	/* Then the cure that costs (fix's plan), then the driver's own (its BQL variant). */
	b->fixed_run = b->n;
	r = lab_board_load(e->snapshot, NULL, true, opts, &b->prof[b->n], &b->fixed, err, errlen);
	if (r < 0)
		return r;
	snprintf(b->prof[b->n].name, sizeof(b->prof[0].name), "%s-fixed", e->profile);
	b->write[b->n++] = true;
	b->bql_run = LC_BOARD_RUNS;
	if (e->bql_profile || e->bql_set) {
		struct lab_profile *p = &b->prof[b->n];
		const char *ingress = b->prof[b->fixed_run].ingress;

		r = lab_profile_load(p, e->bql_profile ? e->bql_profile : e->profile, err, errlen);
		if (r == 0 && e->bql_set)
			r = lab_profile_set_word(p, e->bql_set, err, errlen);
		if (r < 0)
			return r;
		if (e->bql_set) {
			snprintf(p->name, sizeof(p->name), "%s-bql", e->profile);
			snprintf(p->description, sizeof(p->description), "%s with %s (--set %s)",
				 e->profile, e->bql_why, e->bql_set);
		}
		/*
		 * What fix leaves on the board once its driver has BQL: no transmit shaper
		 * (BQL keeps the ring short), but the download shaper of its plan where there
		 * is one, since the queue of what the board receives is beyond it (the
		 * switch's port, the shared bus), where BQL cannot reach.
		 */
		if (strcmp(ingress, "off")) {
			char base[LAB_PROFILE_NAME_MAX], rate[sizeof(p->ingress)];

			/* Copies: to the compiler, the fixed run's profile may be this one. */
			snprintf(base, sizeof(base), "%s", p->name);
			snprintf(rate, sizeof(rate), "%s", ingress);
			r = lab_profile_set(p, "ingress", ingress, err, errlen);
			if (r < 0)
				return r;
			b->bql_ingress = true;
			snprintf(p->name, sizeof(p->name), "%.50s-ingress", base);
			snprintf(p->description, sizeof(p->description),
				 "%s with fix's download shaper (ingress = %.150s)", base, rate);
		}
		b->write[b->n] = e->bql_set || b->bql_ingress;
		if (!b->write[b->n])
			snprintf(b->path[b->n], sizeof(b->path[0]), "%s", e->bql_profile);
		b->bql_run = b->n++;
	}
	if (b->bql_run == LC_BOARD_RUNS)
		b->bql_run = b->n;
	return 0;
}

int lc_board_write(struct lc_board *b, const char *dir, struct lc_args *a, char *err, size_t errlen)
{
	char text[LAB_PROFILE_TEXT_MAX * 2];
	int len, fd;

	a->nprofiles = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (b->write[i]) {
			snprintf(b->path[i], sizeof(b->path[0]), "%s/%s.conf", dir,
				 b->prof[i].name);
			len = lab_profile_format(&b->prof[i], text, sizeof(text));
			if (len < 0) {
				snprintf(err, errlen, "profile %s does not fit", b->prof[i].name);
				return len;
			}
			fd = open(b->path[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || write(fd, text, (size_t)len) != len) {
				int e = errno ? errno : EIO;

				snprintf(err, errlen, "cannot write %s: %s", b->path[i],
					 strerror(e));
				if (fd >= 0)
					close(fd);
				return -e;
			}
			if (close(fd) < 0) {
				snprintf(err, errlen, "cannot write %s: %s", b->path[i],
					 strerror(errno));
				return -errno;
			}
		}
		a->profiles[a->nprofiles++] = b->path[i];
	}
	return 0;
}

static double pct(double v, double base)
{
	return isfinite(v) && isfinite(base) && base > 0 ? (v - base) * 100 / base : NAN;
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

/* What the table says for this board; NaN where a run is missing. */
struct board_reading {
	const struct lc_run *stock, *fixed, *bql;
	double loaded_ratio;	 /* stock loaded p50 / fixed loaded p50 */
	double down_pct, up_pct; /* fixed goodput against stock */
	double bql_ratio;	 /* stock loaded p50 / BQL variant's */
	double bql_down_pct, bql_up_pct;
	/* --sending: each setup's sending-only goodput over stock's */
	double send_fixed, send_bql;
};

/* A sending-only goodput over another, NaN unless both ran. */
static double send_ratio(const struct lc_run *a, const struct lc_run *b)
{
	return a && b && a->send_ok && b->send_ok ? ratio(a->send_mbps, b->send_mbps) : NAN;
}

static void board_read(const struct lc_args *a, const struct lc_run *runs, struct board_reading *br)
{
	const struct lc_board *b = a->boardp;

	*br = (struct board_reading){.loaded_ratio = NAN,
				     .down_pct = NAN,
				     .up_pct = NAN,
				     .bql_ratio = NAN,
				     .bql_down_pct = NAN,
				     .bql_up_pct = NAN,
				     .send_fixed = NAN,
				     .send_bql = NAN};
	br->stock = runs[b->stock].run ? &runs[b->stock] : NULL;
	br->fixed = runs[b->fixed_run].run ? &runs[b->fixed_run] : NULL;
	br->bql = b->bql_run < b->n && runs[b->bql_run].run ? &runs[b->bql_run] : NULL;
	if (br->stock && br->fixed) {
		const struct summary *s0 = &br->stock->run->s, *s1 = &br->fixed->run->s;

		br->loaded_ratio = ratio(s0->loaded.p50, s1->loaded.p50);
		br->down_pct = pct(s1->download.sum_mbps, s0->download.sum_mbps);
		br->up_pct = pct(s1->upload.sum_mbps, s0->upload.sum_mbps);
	}
	if (br->stock && br->bql) {
		const struct summary *s0 = &br->stock->run->s, *s2 = &br->bql->run->s;

		br->bql_ratio = ratio(s0->loaded.p50, s2->loaded.p50);
		br->bql_down_pct = pct(s2->download.sum_mbps, s0->download.sum_mbps);
		br->bql_up_pct = pct(s2->upload.sum_mbps, s0->upload.sum_mbps);
	}
	/* the sending-only runs stand on their own: the RRUL run of a profile may fail */
	br->send_fixed = send_ratio(&runs[b->fixed_run], &runs[b->stock]);
	if (b->bql_run < b->n)
		br->send_bql = send_ratio(&runs[b->bql_run], &runs[b->stock]);
}

/* The BQL variant's profile name: built in, or the one written for --set. */
static const char *bql_name(const struct lab_board_entry *e, const struct lc_board *b)
{
	return b->write[b->bql_run] ? b->prof[b->bql_run].name : e->bql_profile;
}

void lc_board_header(struct printer *p, const struct lc_args *a)
{
	const struct lab_board_entry *e = a->board;
	const struct lc_board *b = a->boardp;
	const struct lab_profile *fx = &b->prof[b->fixed_run];
	char bql[192] = "";

	if (b->bql_run < b->n)
		snprintf(bql, sizeof(bql), ", and with %s instead%s (%s)", e->bql_why,
			 b->bql_ingress ? ", fq_codel and the plan's download shaper" : "",
			 bql_name(e, b));
	print_text(p,
		   "%s on %s: stock (%s) against the same board with `%s fix`'s plan for "
		   "boards/%s.json applied (%s: qdisc %s)%s. RRUL, %g s each%s:",
		   e->board, e->os, e->profile, PROG_NAME, e->snapshot, fx->name, fx->qdisc, bql,
		   a->length_s,
		   a->sending ? "; then " LC_SEND_TEST ", the board sending only, as long" : "");
	print_nl(p);
	for (unsigned i = 0; i < b->fixed.nsteps; i++)
		if (!b->fixed.steps[i].applied) {
			print_text(p, "  fix's step not modelled: %s -> %s (%s)",
				   b->fixed.steps[i].knob, b->fixed.steps[i].value,
				   b->fixed.steps[i].lab);
			print_nl(p);
		}
	print_nl(p);
}

/* Where the stock board keeps its queue under load, from its profile and its run. */
static void queue_left(struct printer *p, const struct lc_args *a, const struct lc_run *stock)
{
	const struct lc_board *b = a->boardp;
	struct lab_profile sp;
	char err[256], ring[24];

	if (lab_profile_load(&sp, b->path[b->stock], err, sizeof(err)) < 0)
		return;
	snprintf(ring, sizeof(ring), isfinite(stock->ring_max) ? "%.0f" : "-", stock->ring_max);
	if (!strncmp(sp.qdisc, "fq_codel", 8) || !strncmp(sp.qdisc, "fq ", 3)) {
		/* With URBs the model counts the frames in them, not the URBs. */
		print_text(p,
			   "- Where the stock board's queue is left: below its %s, in the %s "
			   "(%u %s, at most %s %s), where the qdisc cannot see it%s.",
			   strtok(sp.qdisc, " "),
			   sp.urb_bytes ? "USB driver's URBs" : "driver's TX ring", sp.ring,
			   sp.urb_bytes ? "URBs" : "descriptors", ring,
			   sp.urb_bytes ? "frames in them" : "in use",
			   sp.bql ? "; BQL bounds it" : " (no BQL)");
	} else {
		print_text(p,
			   "- Where the stock board's queue is left: in its %s of %u packets and "
			   "the %u-descriptor ring below it (most %s in use).",
			   strtok(sp.qdisc, " "), sp.txqueuelen, sp.ring, ring);
	}
	print_nl(p);
}

/* --sending: what each setup keeps of stock's goodput when the board only sends. */
static void sending_line(struct printer *p, const struct lc_args *a, const struct lc_run *runs,
			 const struct board_reading *br)
{
	const struct lc_board *b = a->boardp;
	const struct lc_run *st = &runs[b->stock], *fx = &runs[b->fixed_run];
	char s0[24], s1[24], s2[24], bql[96] = "";

	if (!isfinite(br->send_fixed))
		return;
	lc_fmt_num(s0, sizeof(s0), st->send_mbps);
	lc_fmt_num(s1, sizeof(s1), fx->send_mbps);
	if (isfinite(br->send_bql)) {
		lc_fmt_num(s2, sizeof(s2), runs[b->bql_run].send_mbps);
		snprintf(bql, sizeof(bql), ", %s Mbit/s with BQL (x%.2f)", s2, br->send_bql);
	}
	print_text(p,
		   "- Sending only (" LC_SEND_TEST ": the board sends, as an NFS or iSCSI server "
		   "does): %s Mbit/s stock, %s Mbit/s fixed (x%.2f)%s.",
		   s0, s1, br->send_fixed, bql);
	print_nl(p);
	if (b->prof[b->fixed_run].ceiling_shared && br->send_fixed < 0.75 && !a->plan.shape_rate &&
	    !a->plan.ingress_rate) {
		print_text(p,
			   "  fix's shaper gives each direction half of the ceiling both share, "
			   "whatever the mix: a board that mostly sends loses the other half. "
			   "With BQL in the driver no shaper is needed. Else split it: %s fix "
			   "--shape RATE --ingress RATE (docs/boards).",
			   PROG_NAME);
		print_nl(p);
	}
}

void lc_board_footer(struct printer *p, const struct lc_args *a, const struct lc_run *runs)
{
	struct board_reading br;
	char s0[24], s1[24];

	board_read(a, runs, &br);
	print_text(p, "What it shows for the %s:", a->board->board);
	print_nl(p);
	if (isfinite(br.loaded_ratio)) {
		lc_fmt_num(s0, sizeof(s0), br.stock->run->s.loaded.p50);
		lc_fmt_num(s1, sizeof(s1), br.fixed->run->s.loaded.p50);
		print_text(p,
			   "- Latency under load (p50): %s ms stock, %s ms fixed: x%.2f "
			   "(stock over fixed).",
			   s0, s1, br.loaded_ratio);
		print_nl(p);
		print_text(p, "- Goodput, fixed against stock: download %+.1f%%, upload %+.1f%%.",
			   br.down_pct, br.up_pct);
		print_nl(p);
	}
	if (isfinite(br.bql_ratio)) {
		lc_fmt_num(s0, sizeof(s0), br.bql->run->s.loaded.p50);
		print_text(p,
			   "- With the driver's BQL and fq_codel%s (%s): %s ms, x%.2f (stock over "
			   "BQL); goodput against stock: download %+.1f%%, upload %+.1f%%.",
			   a->boardp->bql_ingress ? ", the download shaped as fixed" : "",
			   br.bql->stem, s0, br.bql_ratio, br.bql_down_pct, br.bql_up_pct);
		print_nl(p);
	}
	if (a->sending)
		sending_line(p, a, runs, &br);
	if (br.stock)
		queue_left(p, a, br.stock);
	print_text(p, "- The lab models the queues (qdisc, ring, BQL, completions, switch), not a "
		      "real board's CPU or its driver's timing: see docs/howto.md.");
	print_nl(p);
}

void lc_board_json(struct printer *p, const struct lc_args *a, const struct lc_run *runs)
{
	const struct lc_board *b = a->boardp;
	struct board_reading br;

	board_read(a, runs, &br);
	print_open_object(p, "board");
	print_str(p, "name", a->board->snapshot, PRINT_JSON_ONLY);
	print_str(p, "profile", a->board->profile, PRINT_JSON_ONLY);
	print_str(p, "fixed_profile", b->prof[b->fixed_run].name, PRINT_JSON_ONLY);
	print_str(p, "fixed_qdisc", b->prof[b->fixed_run].qdisc, PRINT_JSON_ONLY);
	print_double(p, "loaded_p50_ratio", br.loaded_ratio, 2, PRINT_JSON_ONLY);
	print_double(p, "download_change_pct", br.down_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "upload_change_pct", br.up_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "bql_loaded_p50_ratio", br.bql_ratio, 2, PRINT_JSON_ONLY);
	if (b->bql_run < b->n)
		print_str(p, "bql_profile", bql_name(a->board, b), PRINT_JSON_ONLY);
	else
		print_null(p, "bql_profile", NULL, PRINT_JSON_ONLY);
	print_double(p, "bql_download_change_pct", br.bql_down_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "bql_upload_change_pct", br.bql_up_pct, 2, PRINT_JSON_ONLY);
	print_double(p, "sending_fixed_ratio", br.send_fixed, 3, PRINT_JSON_ONLY);
	print_double(p, "sending_bql_ratio", br.send_bql, 3, PRINT_JSON_ONLY);
	lc_json_num(p, "stock_ring_max_descriptors", br.stock ? br.stock->ring_max : NAN);
	print_open_array(p, "plan");
	for (unsigned i = 0; i < b->fixed.nsteps; i++) {
		print_open_object(p, NULL);
		print_str(p, "knob", b->fixed.steps[i].knob, PRINT_JSON_ONLY);
		print_str(p, "value", b->fixed.steps[i].value, PRINT_JSON_ONLY);
		print_bool(p, "applied", b->fixed.steps[i].applied, PRINT_JSON_ONLY);
		print_str(p, "lab", b->fixed.steps[i].lab, PRINT_JSON_ONLY);
		print_close(p);
	}
	print_close(p);
	print_close(p);
}
