/* SPDX-License-Identifier: MIT */
/*
 * test-lab-emu.c - src/lab/emu.c in simulated time: wire arithmetic, queueing delay
 * that matches the backlog, rings with and without BQL, GSO and TSO, fq_codel and
 * pfifo_fast, tail-drop switch ports, TSQ, the client direction, the memory bound,
 * USB NICs' URBs (packing, per-URB completion) and completions when the ring empties,
 * and that every packet offered leaves exactly once under random profiles and load.
 * Profiles are built field by field here; packets come from lab-packets.h and every
 * delivered packet is parsed back and its checksums verified.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <debloat/dql.h>

#include "base/hist.h"
#include "harness.h"
#include "lab-packets.h"
#include "lab/emu.h"
#include "lab/frame.h"

#define MBIT(x) ((uint64_t)(x)*1000000 / 8) /* profile rates are bytes per second */
#define US	1000ull
#define MS	1000000ull
#define SEC	1000000000ull
#define NEVER	UINT64_MAX
#define FULL_L2 1514u
#define FULL_NS 123040ull /* a 1514-byte frame (1538 on the wire) at 100 Mbit/s */
#define SW_NS	12304ull  /* the same frame at the 1 Gbit/s switch port */

/* ---- profiles ---- */

/* A 100 Mbit/s board with a pfifo, a 128-descriptor ring without BQL, completions
 * per frame, no delay, and a 1 Gbit/s switch port with a buffer that never fills. */
static void prof_base(struct lab_profile *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "test");
	p->rate_bps = MBIT(100);
	p->mtu = 1500;
	strcpy(p->qdisc, "pfifo");
	p->txqueuelen = 1000;
	p->gso = true;
	p->tso = false;
	p->ring = 128;
	p->bql = false;
	p->bql_limit_min = 0;
	p->bql_limit_max = DB_DQL_MAX_LIMIT;
	p->bql_hold_ns = DB_DQL_DEFAULT_HOLD_NS;
	p->completion_frames = 1;
	p->completion_ns = 0;
	p->delay_ns = 0;
	p->switch_rate_bps = MBIT(1000);
	p->switch_buffer_bytes = 1u << 30;
	p->tsq_bytes = 0;
	p->client_rate_bps = MBIT(1000);
	strcpy(p->client_qdisc, "fq_codel");
	p->client_ring = 256;
	p->board_port_buffer_bytes = 1u << 30;
	strcpy(p->cc, "cubic");
}

/* ---- deliveries ---- */

struct delivery {
	uint64_t t, in_order; /* due time; arrival index */
	uint32_t seq;	      /* TCP sequence number */
	uint32_t l2, payload; /* bytes */
	uint16_t sport, segs;
	uint8_t tos, dir;
};

struct rec {
	struct delivery *d;
	size_t n, cap;
	bool keep; /* store every delivery in d */
	uint64_t count[2], frames[2];
	int bad;     /* deliveries that do not parse or verify */
	uint64_t ce; /* deliveries with CE */
	void (*cb)(const struct delivery *d, void *ctx);
	void *ctx;
};

static void on_deliver(enum lab_dir dir, const uint8_t *buf, size_t len, uint64_t due_ns, void *ctx)
{
	struct rec *r = ctx;
	struct lab_frame f;
	struct delivery d = {.t = due_ns, .dir = (uint8_t)dir};

	if (lab_frame_parse(buf, len, &f) < 0 || lab_pkt_verify(buf, len) != LAB_PKT_OK) {
		r->bad++;
		return;
	}
	d.l2 = f.l2_bytes;
	d.segs = f.segs;
	d.tos = f.tos;
	d.sport = f.key.sport;
	d.payload = f.ip_len - f.hdr_len;
	if (f.l4_proto == IPPROTO_TCP)
		d.seq = lab_pkt_rd32(buf + LAB_VNET_HDR_LEN + f.l4_off + 4);
	d.in_order = r->count[0] + r->count[1];
	r->count[dir]++;
	r->frames[dir] += f.segs;
	if ((f.tos & 3) == 3)
		r->ce++;
	if (r->cb)
		r->cb(&d, r->ctx);
	if (!r->keep)
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->d = realloc(r->d, r->cap * sizeof(*r->d));
	}
	r->d[r->n++] = d;
}

static struct lab_emu *make(const struct lab_profile *p, struct rec *r)
{
	struct lab_emu_hooks hooks = {.deliver = on_deliver, .ctx = r};
	struct lab_emu *e = NULL;
	char err[256] = "";
	int ret = lab_emu_create(p, &hooks, &e, err, sizeof(err));

	if (ret < 0)
		fprintf(stderr, "lab_emu_create: %d %s\n", ret, err);
	return e;
}

/* Destroy e and empty r for the next run (keeping what it was asked to do). */
static void done(struct lab_emu *e, struct rec *r)
{
	struct rec keep = {.keep = r->keep, .cb = r->cb, .ctx = r->ctx};

	lab_emu_destroy(e);
	free(r->d);
	*r = keep;
}

/* ---- packets ---- */

static uint8_t pkt[LAB_MAX_PACKET + 64];

/* A TCP packet of `payload` bytes (a super-packet when gso > 0) with the 12-byte
 * timestamp option, so a full frame carries 1448 bytes (IP 1500, L2 1514). */
static void tcp_spec(struct lab_pkt_spec *s, uint16_t sport, uint32_t seq, uint32_t payload,
		     uint16_t gso, uint8_t tos)
{
	lab_pkt_init(s, 4, IPPROTO_TCP);
	s->sport = sport;
	s->seq = seq;
	s->payload_len = payload;
	s->gso_size = gso;
	s->tos = tos;
	s->tcp_opt_len = 12;
}

static int send_spec(struct lab_emu *e, enum lab_dir dir, const struct lab_pkt_spec *s, uint64_t t)
{
	int n = lab_pkt_build(s, pkt, sizeof(pkt));

	if (n < 0)
		return n;
	return lab_emu_input(e, dir, pkt, (size_t)n, t);
}

static int send_tcp(struct lab_emu *e, enum lab_dir dir, uint64_t t, uint16_t sport, uint32_t seq,
		    uint32_t payload, uint16_t gso, uint8_t tos)
{
	struct lab_pkt_spec s;

	tcp_spec(&s, sport, seq, payload, gso, tos);
	return send_spec(e, dir, &s, t);
}

/* One full frame of flow sport every `every` ns in [t0, t1); returns the count. */
static unsigned stream(struct lab_emu *e, enum lab_dir dir, uint16_t sport, uint64_t t0,
		       uint64_t t1, uint64_t every, uint8_t tos)
{
	unsigned n = 0;

	for (uint64_t t = t0; t < t1; t += every, n++)
		send_tcp(e, dir, t, sport, 1000 + n * 1448u, 1448, 0, tos);
	return n;
}

static struct lab_telemetry telem(const struct lab_emu *e, uint64_t t)
{
	struct lab_telemetry tm;

	lab_emu_telemetry(e, t, &tm);
	return tm;
}

static uint64_t drop_frames(const struct lab_telemetry *tm)
{
	uint64_t n = 0;

	for (int s = 0; s < LAB_STAGE_COUNT; s++)
		n += tm->stage[s].drop_frames;
	return n;
}

static long long absdiff(uint64_t a, uint64_t b)
{
	return a > b ? (long long)(a - b) : (long long)(b - a);
}

/* ---- the histogram ---- */

TEST(hist_quantiles_within_one_percent)
{
	struct hist h;
	uint64_t x = 88172645463325252ull;

	REQUIRE(hist_init(&h) == 0);
	CHECK_EQ(hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100000; v++)
		hist_record(&h, v * 1000);
	for (int q = 1; q <= 99; q++) {
		uint64_t want = (uint64_t)q * 1000 * 1000, got = hist_quantile(&h, q / 100.0);

		CHECK(absdiff(got, want) * 100 <= (long long)want);
	}
	CHECK_EQ(hist_quantile(&h, 1.0), 100000000);
	hist_clear(&h);
	/* exact below 256, and every single value within 1% */
	hist_record(&h, 7);
	CHECK_EQ(hist_quantile(&h, 0.5), 7);
	for (int i = 0; i < 2000; i++) {
		uint64_t v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = x >> (24 + x % 40);
		hist_clear(&h);
		hist_record(&h, v);
		hist_record(&h, v);
		hist_record(&h, v + 1);
		CHECK(absdiff(hist_quantile(&h, 0.5), v) * 100 <= (long long)v + 100);
	}
	hist_free(&h);
}

/* ---- setup ---- */

TEST(create_rejects_bad_specs_and_leaves_out_alone)
{
	struct lab_profile p;
	struct lab_emu *e = (struct lab_emu *)&p;
	char err[256] = "";

	prof_base(&p);
	strcpy(p.qdisc, "fq_codel quantom 300");
	CHECK_EQ(lab_emu_create(&p, NULL, &e, err, sizeof(err)), -EINVAL);
	CHECK(e == (struct lab_emu *)&p);
	CHECK(strstr(err, "qdisc") && strstr(err, "quantom"));
	prof_base(&p);
	strcpy(p.client_qdisc, "sfq");
	CHECK(lab_emu_create(&p, NULL, &e, err, sizeof(err)) < 0);
	CHECK(strstr(err, "client_qdisc") != NULL);
	prof_base(&p);
	p.ring = 0;
	CHECK_EQ(lab_emu_create(&p, NULL, &e, err, sizeof(err)), -EINVAL);
	CHECK(e == (struct lab_emu *)&p);
	CHECK_STR(lab_stage_name(LAB_STAGE_BOARD_PORT), "board_port");
	CHECK_STR(lab_stage_name(LAB_STAGE_INPUT), "input");
}

/*
 * A bare pfifo or pfifo_fast is as long as txqueuelen; an explicit limit wins. The one
 * packet read into the ring leaves a pfifo_fast slot unfreed (ptr_ring batch 16,
 * pfifo_fast.h) where txqueuelen is at least twice the batch.
 */
TEST(bare_fifo_takes_txqueuelen)
{
	static const struct {
		const char *spec;
		unsigned pkts;
	} cases[] = {{"pfifo", 50},
		     {"pfifo limit 10", 10},
		     {"pfifo_fast", 49},
		     {"pfifo_fast txqueuelen 7", 7}};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_profile p;
		struct lab_emu_summary s;
		struct rec r = {0};
		struct lab_emu *e;

		prof_base(&p);
		strcpy(p.qdisc, cases[i].spec);
		p.txqueuelen = 50;
		p.ring = 1;
		REQUIRE((e = make(&p, &r)));
		for (unsigned k = 0; k < 200; k++)
			send_tcp(e, LAB_BOARD_TX, 0, 1, k * 1448, 1448, 0, 0);
		lab_emu_summary(e, 0, &s);
		CHECK_EQ(s.qdisc_backlog_max_bytes, (uint64_t)cases[i].pkts * FULL_L2);
		CHECK_EQ(s.last.stage[LAB_STAGE_QDISC].drops, 200 - 1 - cases[i].pkts);
		done(e, &r);
	}
}

/* ---- wire arithmetic ---- */

TEST(wire_timing_back_to_back)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	p.delay_ns = 100 * US;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 10; k++)
		CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 0, 1, 1000 + k * 1448, 1448, 0, 0), 0);
	CHECK_EQ(lab_emu_next_ns(e), FULL_NS);
	lab_emu_advance(e, SEC);
	REQUIRE_EQ(r.n, 10);
	/* frame k leaves the board at (k+1) * 123.04 us, crosses the cable, and is
	 * stored and forwarded by the switch at 1 Gbit/s */
	for (unsigned k = 0; k < 10; k++) {
		CHECK_EQ(r.d[k].t, (k + 1) * FULL_NS + 100 * US + SW_NS);
		CHECK_EQ(r.d[k].l2, FULL_L2);
		CHECK_EQ(r.d[k].seq, 1000 + k * 1448);
	}
	tm = telem(e, SEC);
	CHECK_EQ(tm.board_wire_busy_ns, 10 * FULL_NS);
	CHECK_EQ(tm.board_tx_bytes, 10 * FULL_L2);
	CHECK_EQ(tm.board_tx_pkts, 10);
	CHECK_EQ(tm.memory_bytes, 0);
	CHECK_EQ(lab_emu_next_ns(e), NEVER);
	done(e, &r);
}

/* At 7 Mbit/s a frame takes 1757714.28... ns: back-to-back frames carry the
 * fraction instead of rounding each one. */
TEST(wire_timing_exact_at_odd_rates)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_emu *e;

	prof_base(&p);
	p.rate_bps = MBIT(7);
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 7; k++)
		send_tcp(e, LAB_BOARD_TX, 0, 1, k * 1448, 1448, 0, 0);
	lab_emu_advance(e, 100 * SEC);
	REQUIRE_EQ(r.n, 7);
	for (unsigned k = 0; k < 7; k++)
		CHECK_EQ(r.d[k].t, (k + 1) * 1538ull * SEC / MBIT(7) + SW_NS);
	CHECK_EQ(r.d[6].t - SW_NS, 12304000ull); /* 7 frames of 1538 B at 7 Mbit/s */
	done(e, &r);
}

/* A saturated link delivers rate * 1514/1538 of L2 bytes; TCP with timestamps
 * (1448-byte segments) gets rate * 1448/1538 = 94.15 Mbit/s of goodput. */
TEST(saturated_throughput)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	uint64_t frames = 0, l2 = 0, payload = 0;
	struct lab_emu *e;

	prof_base(&p);
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 1200 * MS, 60 * US, 0);
	lab_emu_advance(e, 1200 * MS);
	for (size_t i = 0; i < r.n; i++) {
		if (r.d[i].t < 200 * MS || r.d[i].t >= 1200 * MS)
			continue;
		frames++;
		l2 += r.d[i].l2;
		payload += r.d[i].payload;
	}
	/* 1 s / 123.04 us = 8127.4 frames */
	CHECK(frames == 8127 || frames == 8128);
	CHECK(absdiff(l2 * 8, 98439531) * 1000 < 98439531);	 /* 100e6 * 1514 / 1538 */
	CHECK(absdiff(payload * 8, 94148244) * 1000 < 94148244); /* 100e6 * 1448 / 1538 */
	printf("# saturated 100 Mbit/s: %llu frames/s, L2 %.2f Mbit/s, goodput %.2f Mbit/s\n",
	       (unsigned long long)frames, l2 * 8 / 1e6, payload * 8 / 1e6);
	done(e, &r);
}

/* ---- queueing delay ---- */

/* Fill pfifo 1000 and the ring, then a probe waits exactly for the bytes ahead. */
TEST(probe_delay_equals_bytes_ahead)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t tp = 300 * MS + 200 * US, ahead, want, got = 0;

	prof_base(&p);
	p.delay_ns = 1 * MS;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 300 * MS, 60 * US, 0);
	lab_emu_advance(e, tp);
	tm = telem(e, tp);
	CHECK_EQ(tm.ring_descs, 128);
	CHECK(tm.qdisc_backlog_pkts >= 998 && tm.qdisc_backlog_pkts < 1000);
	CHECK_EQ(tm.qdisc_backlog_bytes, tm.qdisc_backlog_pkts * FULL_L2);
	CHECK_EQ(tm.ring_bytes, 128 * FULL_L2);
	/* the probe: 100 bytes of payload, 166 B at L2, 190 B on the wire */
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, tp, 7777, 1, 100, 0, 0), 0);
	lab_emu_advance(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++)
		if (r.d[i].sport == 7777)
			got = r.d[i].t - tp;
	ahead = tm.qdisc_backlog_bytes + 24ull * tm.qdisc_backlog_pkts + tm.ring_bytes +
		24ull * tm.ring_descs + 190;
	want = ahead * SEC / MBIT(100) + 1 * MS + 190 * SEC / MBIT(1000);
	CHECK(got > 130 * MS);
	CHECK(absdiff(got, want) * 100 < (long long)want);
	printf(
	    "# probe behind a full pfifo 1000 + ring 128: %.3f ms (bytes ahead predict %.3f ms)\n",
	    got / 1e6, want / 1e6);
	done(e, &r);
}

/* ---- rings and BQL ---- */

/* Saturate the board for `secs` and return the summary; ring_max gets the most
 * descriptors in use after the first 100 ms (sampled every 100 us). */
static struct lab_emu_summary saturate(struct lab_profile *p, uint64_t len_ns, uint32_t *ring_max)
{
	struct lab_emu_summary s;
	struct rec r = {0};
	struct lab_emu *e = make(p, &r);
	unsigned n = 0;

	memset(&s, 0, sizeof(s));
	*ring_max = 0;
	if (!e)
		return s;
	for (uint64_t t = 0; t < len_ns; t += 60 * US, n++) {
		send_tcp(e, LAB_BOARD_TX, t, 1, n * 1448u, 1448, 0, 0);
		if (t >= 100 * MS && t % (100 * US) < 60 * US) {
			struct lab_telemetry tm = telem(e, t);

			if (tm.ring_descs > *ring_max)
				*ring_max = tm.ring_descs;
		}
	}
	lab_emu_summary(e, len_ns, &s);
	done(e, &r);
	return s;
}

TEST(ring_without_bql_fills_to_its_descriptors)
{
	struct lab_profile p;
	struct lab_emu_summary s;
	uint32_t ring_max;

	prof_base(&p);
	p.ring = 128;
	s = saturate(&p, 500 * MS, &ring_max);
	CHECK_EQ(ring_max, 128);
	CHECK_EQ(s.ring_descs_max, 128);
	CHECK_EQ(s.last.ring_descs, 128);
	CHECK_EQ(s.last.bql_limit, 0);
	CHECK_EQ(s.bql_limit_max_seen, 0);
}

/* A shaper below the line rate (fix's remedy for a driver without BQL) leaves the ring
 * nearly empty and keeps the queue in its child, where it is managed: frames leave at
 * the shaper's rate, and a probe waits for the child's bytes at that rate. */
TEST(a_shaper_below_the_line_moves_the_queue_from_the_ring_into_its_child)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint32_t ring_max;
	uint64_t frames = 0, tp = 300 * MS + 200 * US, got = 0, want;

	prof_base(&p);
	strcpy(p.qdisc, "shaper rate 90mbit child pfifo limit 1000");
	saturate(&p, 500 * MS, &ring_max);
	CHECK(ring_max <= 2); /* the wire is faster than the shaper: the ring drains */
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 1200 * MS, 60 * US, 0);
	lab_emu_advance(e, 1200 * MS);
	for (size_t i = 0; i < r.n; i++)
		if (r.d[i].t >= 200 * MS && r.d[i].t < 1200 * MS)
			frames++;
	/* 90e6 / 8 / 1514 = 7430.5 frames in a second */
	CHECK(frames >= 7429 && frames <= 7432);
	done(e, &r);

	/* A probe behind a full child, once the stream has stopped (so that it fits). */
	memset(&r, 0, sizeof(r));
	r.keep = true;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 300 * MS, 60 * US, 0);
	lab_emu_advance(e, tp);
	tm = telem(e, tp);
	CHECK(tm.qdisc_backlog_pkts >= 990); /* the child holds the queue */
	CHECK(tm.ring_descs <= 2);
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, tp, 7777, 1, 100, 0, 0), 0);
	lab_emu_advance(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++)
		if (r.d[i].sport == 7777)
			got = r.d[i].t - tp;
	/* it waits for the child's bytes at the shaper's rate */
	want = tm.qdisc_backlog_bytes * SEC / MBIT(90);
	CHECK(absdiff(got, want) * 100 < 3 * (long long)want);
	printf("# shaper 90 Mbit/s over a 100 Mbit/s board: %llu frames/s, ring max %u, probe "
	       "%.3f ms (the child's bytes at 90 Mbit/s: %.3f ms)\n",
	       (unsigned long long)frames, ring_max, got / 1e6, want / 1e6);
	done(e, &r);
}

TEST(bql_with_completion_per_frame_limits_to_two_frames)
{
	struct lab_profile p;
	struct lab_emu_summary s;
	uint32_t ring_max;

	prof_base(&p);
	p.bql = true;
	s = saturate(&p, 3 * SEC, &ring_max);
	/* DQL never shrinks below twice what one completion reports: the limit is two
	 * frames, the ring two frames plus the one that went over it */
	CHECK_EQ(s.bql_limit_p50, 2 * FULL_L2);
	CHECK_EQ(s.bql_limit_max_seen, 2 * FULL_L2);
	CHECK(ring_max >= 2 && ring_max <= 3);
	CHECK(s.last.bql_inflight <= 3 * FULL_L2);
	/* the wire never starved: 3 s minus the first frame's time */
	CHECK(absdiff(s.last.board_wire_busy_ns, 3 * SEC) < (long long)(200 * US));
	printf("# BQL, completion per frame: limit p50 %u max %u, ring <= %u descriptors\n",
	       s.bql_limit_p50, s.bql_limit_max_seen, ring_max);
}

/* The bbb-bql batching: completions every 2 frames or 250 us. */
TEST(bql_with_batched_completions_settles_at_a_few_frames)
{
	static const struct {
		uint32_t frames;
		uint64_t ns;
		bool empty;
	} cases[] = {{2, 250 * US, false},  {1, 0, false},	 {4, 250 * US, false},
		     {16, 250 * US, false}, {64, 1 * MS, false}, {10, 0, true}};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_profile p;
		struct lab_emu_summary s;
		uint32_t ring_max;

		prof_base(&p);
		p.bql = true;
		p.completion_frames = cases[i].frames;
		p.completion_ns = cases[i].ns;
		p.completion_empty = cases[i].empty;
		s = saturate(&p, 3 * SEC, &ring_max);
		printf(
		    "# BQL, completions every %u frames or %llu us%s: limit p50 %u (%.1f frames) "
		    "max %u, ring <= %u descriptors, wire busy %.2f%%\n",
		    cases[i].frames, (unsigned long long)(cases[i].ns / US),
		    cases[i].empty ? " or when the ring empties" : "", s.bql_limit_p50,
		    s.bql_limit_p50 / (double)FULL_L2, s.bql_limit_max_seen, ring_max,
		    s.last.board_wire_busy_ns * 100.0 / (3 * SEC));
		if (i == 0) {
			/* the seed: "BQL holds things down to two full size packets" */
			CHECK(s.bql_limit_p50 >= 2 * FULL_L2 && s.bql_limit_p50 <= 4 * FULL_L2);
			CHECK(ring_max >= 2 && ring_max <= 5);
		}
		/* whatever the batching, BQL never starves a saturated wire for long */
		CHECK(s.last.board_wire_busy_ns > 3 * SEC * 99 / 100);
		CHECK(ring_max < 128);
	}
}

/* ---- GSO and TSO ---- */

#define SUPER_SEGS    44
#define SUPER_PAYLOAD (SUPER_SEGS * 1448u)

TEST(gso_without_tso_splits_before_the_ring)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	REQUIRE((e = make(&p, &r)));
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 0, 1, 5000, SUPER_PAYLOAD, 1448, 0), 0);
	tm = telem(e, 0);
	CHECK_EQ(tm.ring_descs, SUPER_SEGS);
	CHECK_EQ(tm.ring_bytes, SUPER_SEGS * FULL_L2);
	CHECK_EQ(tm.qdisc_backlog_pkts, 0);
	CHECK_EQ(tm.stage[LAB_STAGE_QDISC].pkts, 1);
	lab_emu_advance(e, SEC);
	REQUIRE_EQ(r.n, SUPER_SEGS);
	CHECK_EQ(r.bad, 0);
	for (unsigned k = 0; k < SUPER_SEGS; k++) {
		CHECK_EQ(r.d[k].seq, 5000 + k * 1448);
		CHECK_EQ(r.d[k].segs, 1);
		CHECK_EQ(r.d[k].l2, FULL_L2);
		CHECK_EQ(r.d[k].t, (k + 1) * FULL_NS + SW_NS);
	}
	done(e, &r);

	/* a ring of 10: 10 frames posted, 34 wait in the requeue slot ahead of the qdisc */
	prof_base(&p);
	p.ring = 10;
	REQUIRE((e = make(&p, &r)));
	send_tcp(e, LAB_BOARD_TX, 0, 1, 5000, SUPER_PAYLOAD, 1448, 0);
	send_tcp(e, LAB_BOARD_TX, 0, 2, 5000, 1448, 0, 0);
	tm = telem(e, 0);
	CHECK_EQ(tm.ring_descs, 10);
	CHECK_EQ(tm.qdisc_backlog_pkts, 34 + 1);
	lab_emu_advance(e, SEC);
	REQUIRE_EQ(r.n, SUPER_SEGS + 1);
	CHECK_EQ(r.d[SUPER_SEGS].sport, 2); /* the requeued frames went first */
	done(e, &r);
}

TEST(tso_takes_one_descriptor_and_segs_frames_of_wire_time)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_frame f;
	struct lab_pkt_spec s;
	struct lab_emu *e;
	int n;

	tcp_spec(&s, 1, 5000, SUPER_PAYLOAD, 1448, 0);
	n = lab_pkt_build(&s, pkt, sizeof(pkt));
	REQUIRE(n > 0 && lab_frame_parse(pkt, (size_t)n, &f) == 0);
	CHECK_EQ(f.l2_bytes, SUPER_SEGS * FULL_L2);

	prof_base(&p);
	p.tso = true;
	p.ring = 1;
	REQUIRE((e = make(&p, &r)));
	CHECK_EQ(send_spec(e, LAB_BOARD_TX, &s, 0), 0);
	CHECK_EQ(send_spec(e, LAB_BOARD_TX, &s, 0), 0);
	tm = telem(e, 0);
	CHECK_EQ(tm.ring_descs, 1);
	CHECK_EQ(tm.ring_bytes, f.l2_bytes);
	/* the qdisc counts the second one as one packet of l2_bytes */
	CHECK_EQ(tm.qdisc_backlog_pkts, 1);
	CHECK_EQ(tm.qdisc_backlog_bytes, f.l2_bytes);
	lab_emu_advance(e, SEC);
	REQUIRE_EQ(r.n, 2);
	CHECK_EQ(r.bad, 0);
	CHECK_EQ(r.d[0].segs, SUPER_SEGS);
	CHECK_EQ(r.d[0].l2, f.l2_bytes);
	/* 44 frames of board wire time, then 44 frames at the switch (kept whole,
	 * delivered when its last frame has left the port) */
	CHECK_EQ(r.d[0].t, SUPER_SEGS * FULL_NS + SUPER_SEGS * SW_NS);
	CHECK_EQ(r.d[1].t, 2 * SUPER_SEGS * FULL_NS + SUPER_SEGS * SW_NS);
	tm = telem(e, SEC);
	CHECK_EQ(tm.board_wire_busy_ns, 2 * SUPER_SEGS * FULL_NS);
	done(e, &r);
}

/* With TSO and no BQL a 128-descriptor ring holds 128 super-packets: 680 ms at
 * 100 Mbit/s. BQL counts bytes and keeps it short. */
TEST(tso_without_bql_makes_the_ring_huge)
{
	struct lab_profile p;
	struct rec r = {0};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	p.tso = true;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 200; k++)
		send_tcp(e, LAB_BOARD_TX, 0, 1, k * SUPER_PAYLOAD, SUPER_PAYLOAD, 1448, 0);
	tm = telem(e, 0);
	CHECK_EQ(tm.ring_descs, 128);
	CHECK_EQ(tm.ring_bytes * SEC / MBIT(100) / MS, 682); /* ms of queue in the ring */
	done(e, &r);

	p.bql = true;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 200; k++)
		send_tcp(e, LAB_BOARD_TX, k * 5 * MS, 1, k * SUPER_PAYLOAD, SUPER_PAYLOAD, 1448, 0);
	tm = telem(e, 200 * 5 * MS);
	CHECK(tm.ring_descs <= 3);
	done(e, &r);
}

/* ---- disciplines ---- */

/* An ack-clocked sender, TCP-like (Reno with ECN): a window of cwnd frames per
 * flow, + 1/cwnd per delivery, halved on CE or on a gap (a drop) at most once per
 * round trip. The acks come back at once: the round trip is the board's path. */
struct flow {
	uint16_t sport;
	uint32_t sent, acked;
	double cwnd;
	uint64_t last_cut, last_progress;
	uint64_t sent_at[1024]; /* by frame index, for the round trip */
};

struct sender {
	struct flow fl[16];
	unsigned nflows;
	uint16_t probe_sport;
	struct hist probe_delay;
	uint64_t t, next_probe;
	uint32_t probes;
	uint64_t probe_sent_at[4096];
};

static void sender_ack(const struct delivery *d, void *ctx)
{
	struct sender *s = ctx;

	if (d->sport == s->probe_sport) {
		hist_record(&s->probe_delay, d->t - s->probe_sent_at[(d->seq / 100) % 4096]);
		return;
	}
	for (unsigned i = 0; i < s->nflows; i++) {
		struct flow *f = &s->fl[i];
		uint32_t idx = (d->seq - 1000) / 1448;

		if (f->sport != d->sport)
			continue;
		if (idx + 1 <= f->acked)
			return;
		bool cut = (d->tos & 3) == 3 || idx != f->acked;
		f->acked = idx + 1;
		f->last_progress = d->t;
		if (cut && d->t > f->last_cut + (d->t - f->sent_at[idx % 1024])) {
			f->cwnd = f->cwnd / 2 < 2 ? 2 : f->cwnd / 2;
			f->last_cut = d->t;
		} else {
			f->cwnd += 1 / f->cwnd;
		}
		return;
	}
}

/* Run the flows and the probe (100 bytes every 10 ms) from s->t to end. */
static void run_sender(struct lab_emu *e, struct sender *s, uint64_t end, uint8_t tos)
{
	uint64_t t = s->t, next_probe = s->next_probe;
	uint32_t probes = s->probes;

	while (t < end) {
		for (unsigned i = 0; i < s->nflows; i++) {
			struct flow *f = &s->fl[i];

			if (f->sent > f->acked && t - f->last_progress > 300 * MS)
				f->acked = f->sent; /* a lost tail: time out */
			while (f->sent - f->acked < (uint32_t)f->cwnd) {
				send_tcp(e, LAB_BOARD_TX, t, f->sport, 1000 + f->sent * 1448u, 1448,
					 0, tos);
				f->sent_at[f->sent % 1024] = t;
				if (f->sent++ == f->acked)
					f->last_progress = t;
			}
		}
		if (t >= next_probe) {
			s->probe_sent_at[probes % 4096] = t;
			send_tcp(e, LAB_BOARD_TX, t, s->probe_sport, probes * 100, 100, 0, 0);
			probes++;
			next_probe += 10 * MS;
		}
		uint64_t tn = lab_emu_next_ns(e);

		if (tn > next_probe)
			tn = next_probe;
		if (tn > end)
			tn = end;
		lab_emu_advance(e, tn);
		t = tn;
	}
	s->t = t;
	s->next_probe = next_probe;
	s->probes = probes;
}

static void sender_init(struct sender *s, unsigned nflows)
{
	memset(s, 0, sizeof(*s));
	s->nflows = nflows;
	for (unsigned i = 0; i < nflows; i++) {
		s->fl[i].sport = (uint16_t)(100 + i);
		s->fl[i].cwnd = 10;
	}
	s->probe_sport = 9999;
	s->next_probe = 5 * MS;
	hist_init(&s->probe_delay);
}

/* bbb-bql-fq_codel: 8 responsive ECN flows and a sparse probe every 10 ms. */
TEST(fq_codel_keeps_sojourn_low_and_sparse_flows_fast)
{
	static struct sender s;
	struct lab_profile p;
	struct rec r = {0};
	struct lab_emu_summary sum;
	struct lab_emu *e;

	prof_base(&p);
	strcpy(p.qdisc, "fq_codel");
	p.bql = true;
	p.completion_frames = 2;
	p.completion_ns = 250 * US;
	p.delay_ns = 2 * MS;
	sender_init(&s, 8);
	r.cb = sender_ack;
	r.ctx = &s;
	REQUIRE((e = make(&p, &r)));
	run_sender(e, &s, 1 * SEC, LAB_ECN_ECT0);
	lab_emu_summary(e, 1 * SEC, &sum);
	uint64_t marks0 = sum.last.stage[LAB_STAGE_QDISC].marks;
	hist_clear(&s.probe_delay);
	run_sender(e, &s, 6 * SEC, LAB_ECN_ECT0);
	lab_emu_summary(e, 6 * SEC, &sum);
	printf("# fq_codel+BQL, 8 flows: sojourn p50 %.2f ms p99 %.2f ms, probe p50 %.3f ms "
	       "p99 %.3f ms, marks %llu, drops %llu, bql limit p50 %u, throughput %.1f Mbit/s\n",
	       sum.qdisc_sojourn.p50_ns / 1e6, sum.qdisc_sojourn.p99_ns / 1e6,
	       hist_quantile(&s.probe_delay, 0.5) / 1e6, hist_quantile(&s.probe_delay, 0.99) / 1e6,
	       (unsigned long long)sum.last.stage[LAB_STAGE_QDISC].marks,
	       (unsigned long long)sum.last.stage[LAB_STAGE_QDISC].drops, sum.bql_limit_p50,
	       sum.last.board_tx_bytes * 8 / 6e6);
	CHECK(sum.qdisc_sojourn.p50_ns <= 10 * MS);
	CHECK(sum.last.stage[LAB_STAGE_QDISC].marks > marks0); /* CoDel acted after 1 s */
	/* the probe skips the bulk flows' queues: cable + ring + a quantum or two */
	CHECK(hist_quantile(&s.probe_delay, 0.99) < p.delay_ns + 2 * MS);
	/* and the link stayed busy */
	CHECK(sum.last.board_wire_busy_ns > 6 * SEC * 95 / 100);
	CHECK_EQ(r.bad, 0);
	hist_free(&s.probe_delay);
	done(e, &r);
}

/* The stock setup with the same load: the probe waits behind the whole FIFO. */
TEST(pfifo_fast_without_bql_makes_probes_wait)
{
	static struct sender s;
	struct lab_profile p;
	struct rec r = {0};
	struct lab_emu_summary sum;
	struct lab_emu *e;

	prof_base(&p);
	strcpy(p.qdisc, "pfifo_fast");
	p.completion_frames = 2;
	p.completion_ns = 250 * US;
	p.delay_ns = 2 * MS;
	sender_init(&s, 8);
	r.cb = sender_ack;
	r.ctx = &s;
	REQUIRE((e = make(&p, &r)));
	run_sender(e, &s, 4 * SEC, LAB_ECN_NOT_ECT);
	lab_emu_summary(e, 4 * SEC, &sum);
	printf("# pfifo_fast, no BQL, 8 flows: sojourn p50 %.2f ms, probe p50 %.2f ms, "
	       "ring max %u\n",
	       sum.qdisc_sojourn.p50_ns / 1e6, hist_quantile(&s.probe_delay, 0.5) / 1e6,
	       sum.ring_descs_max);
	CHECK(hist_quantile(&s.probe_delay, 0.5) > 15 * MS); /* at least the ring's 15.7 ms */
	CHECK_EQ(sum.ring_descs_max, 128);
	hist_free(&s.probe_delay);
	done(e, &r);
}

/* pfifo_fast: band 0 (TOS 0x10) goes before the full band 1; band 2 (TOS 0x08)
 * waits until band 1 is empty. */
TEST(pfifo_fast_prioritises_by_tos_band)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_emu *e;
	uint64_t t_band0 = 0, t_band2 = 0;

	prof_base(&p);
	strcpy(p.qdisc, "pfifo_fast");
	p.ring = 16;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 200 * MS, 60 * US, 0x00);
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 200 * MS, 8, 1, 100, 0, 0x08), 0);
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 200 * MS, 16, 1, 100, 0, 0x10), 0);
	lab_emu_advance(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++) {
		if (r.d[i].sport == 16)
			t_band0 = r.d[i].t - 200 * MS;
		if (r.d[i].sport == 8)
			t_band2 = r.d[i].t - 200 * MS;
	}
	/* band 0: only the ring's 16 frames ahead */
	CHECK(t_band0 > 15 * FULL_NS && t_band0 < 17 * FULL_NS + SW_NS);
	/* band 2: after all of band 1 (at least 1000 - 16 + 1 frames: the ring's batch of
	 * read slots not yet freed, pfifo_fast.h) and the ring */
	CHECK(t_band2 > 1000 * FULL_NS);
	CHECK_EQ(r.d[r.n - 1].sport, 8);
	done(e, &r);
}

/* CoDel marks ECT packets instead of dropping them, and the mark is in the packet
 * that leaves: TOS CE, IPv4 header checksum valid (IPv6 too). */
TEST(ce_marks_rewrite_the_packet)
{
	for (int family = 4; family <= 6; family += 2) {
		struct lab_profile p;
		struct rec r = {.keep = true};
		struct lab_telemetry tm;
		struct lab_emu *e;
		uint64_t ce = 0;

		prof_base(&p);
		strcpy(p.qdisc, "fq_codel target 1ms interval 10ms");
		REQUIRE((e = make(&p, &r)));
		for (unsigned k = 0; k < 3000; k++) {
			struct lab_pkt_spec s;

			tcp_spec(&s, 1, 1000 + k * 1448, 1448, 0, LAB_ECN_ECT0);
			if (family == 6) {
				lab_pkt_init(&s, 6, IPPROTO_TCP);
				s.seq = 1000 + k * 1448;
				s.payload_len = 1428;
				s.tcp_opt_len = 12;
			}
			send_spec(e, LAB_BOARD_TX, &s, k * 100 * US);
		}
		lab_emu_advance(e, 10 * SEC);
		tm = telem(e, 10 * SEC);
		for (size_t i = 0; i < r.n; i++)
			ce += (r.d[i].tos & 3) == 3;
		CHECK(tm.stage[LAB_STAGE_QDISC].marks > 10);
		CHECK_EQ(tm.stage[LAB_STAGE_QDISC].drops, 0);
		CHECK_EQ(ce, tm.stage[LAB_STAGE_QDISC].marks);
		CHECK_EQ(r.ce, ce);
		CHECK_EQ(r.bad, 0); /* every packet verified: checksums valid */
		CHECK_EQ(r.n, 3000);
		done(e, &r);
	}
}

/* ---- TSQ ---- */

TEST(tsq_holds_a_flow_above_its_budget)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint32_t last = 0;
	bool in_order = true;

	prof_base(&p);
	p.tsq_bytes = 2 * FULL_L2;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 100; k++)
		send_tcp(e, LAB_BOARD_TX, 0, 1, 1000 + k * 1448, 1448, 0, 0);
	send_tcp(e, LAB_BOARD_TX, 0, 2, 1000, 1448, 0, 0);
	tm = telem(e, 0);
	/* flow 1: two frames in the ring, 98 held; flow 2 was not held */
	CHECK_EQ(tm.ring_descs, 3);
	CHECK_EQ(tm.tsq_held_bytes, 98 * FULL_L2);
	CHECK_EQ(tm.stage[LAB_STAGE_TSQ].pkts, 98);
	CHECK_EQ(tm.qdisc_backlog_pkts, 0);
	lab_emu_advance(e, 10 * SEC);
	REQUIRE_EQ(r.n, 101);
	CHECK_EQ(r.d[2].sport, 2);
	for (size_t i = 0; i < r.n; i++) {
		if (r.d[i].sport != 1)
			continue;
		in_order &= r.d[i].seq > last;
		last = r.d[i].seq;
	}
	CHECK(in_order);
	/* released on completion: back to back, the wire never waited */
	CHECK_EQ(r.d[100].t, 101 * FULL_NS + SW_NS);
	tm = telem(e, 10 * SEC);
	CHECK_EQ(tm.tsq_held_bytes, 0);
	CHECK_EQ(tm.memory_bytes, 0);
	done(e, &r);
}

/* ---- switch ports ---- */

TEST(switch_port_tail_drops_per_frame_and_drains_at_its_rate)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t max_backlog = 0;

	prof_base(&p);
	p.switch_rate_bps = MBIT(10);
	p.switch_buffer_bytes = 10 * FULL_L2;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 30; k++)
		send_tcp(e, LAB_BOARD_TX, 0, 1, 1000 + k * 1448, 1448, 0, 0);
	for (uint64_t t = 0; t < SEC; t += 10 * US) {
		lab_emu_advance(e, t);
		tm = telem(e, t);
		if (tm.switch_backlog_bytes > max_backlog)
			max_backlog = tm.switch_backlog_bytes;
	}
	tm = telem(e, SEC);
	CHECK_EQ(max_backlog, 10 * FULL_L2);
	CHECK(tm.stage[LAB_STAGE_SWITCH].drops > 0);
	CHECK_EQ(r.n + tm.stage[LAB_STAGE_SWITCH].drops, 30);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].pkts, 30);
	/* 30 arrivals every 123.04 us, one departure every 1230.4 us: the port holds 10,
	 * frees one slot per 10 arrivals: 10 + 2 kept during the burst */
	CHECK_EQ(r.n, 12);
	for (size_t i = 1; i < r.n; i++)
		CHECK_EQ(r.d[i].t - r.d[i - 1].t, 1230400);
	CHECK_EQ(r.d[0].t, FULL_NS + 1230400);
	done(e, &r);
}

TEST(switch_port_splits_a_super_packet_that_does_not_fit)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	p.tso = true;
	p.switch_rate_bps = MBIT(10);
	p.switch_buffer_bytes = 5 * FULL_L2 + 100;
	REQUIRE((e = make(&p, &r)));
	send_tcp(e, LAB_BOARD_TX, 0, 1, 5000, SUPER_PAYLOAD, 1448, 0);
	lab_emu_advance(e, 10 * SEC);
	tm = telem(e, 10 * SEC);
	REQUIRE_EQ(r.n, 5);
	CHECK_EQ(r.bad, 0);
	for (unsigned k = 0; k < 5; k++) {
		CHECK_EQ(r.d[k].segs, 1);
		CHECK_EQ(r.d[k].seq, 5000 + k * 1448);
		CHECK_EQ(r.d[k].t, SUPER_SEGS * FULL_NS + (k + 1) * 1230400);
	}
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].pkts, SUPER_SEGS);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].drops, SUPER_SEGS - 5);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].drop_frames, SUPER_SEGS - 5);
	done(e, &r);

	/* one that fits is kept whole and delivered when its last frame leaves */
	p.switch_buffer_bytes = 100 * FULL_L2;
	REQUIRE((e = make(&p, &r)));
	send_tcp(e, LAB_BOARD_TX, 0, 1, 5000, SUPER_PAYLOAD, 1448, 0);
	lab_emu_advance(e, 10 * SEC);
	REQUIRE_EQ(r.n, 1);
	CHECK_EQ(r.d[0].segs, SUPER_SEGS);
	CHECK_EQ(r.d[0].t, SUPER_SEGS * FULL_NS + SUPER_SEGS * 1230400);
	done(e, &r);
}

/* A full port keeps a super-packet's short last frame if only that fits, and drops
 * one of which no frame fits whole (one drop of segs frames, no segmenting). */
TEST(switch_port_keeps_only_frames_that_fit)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	p.tso = true;
	p.switch_rate_bps = MBIT(1); /* 12.3 ms per frame: nothing drains meanwhile */
	p.switch_buffer_bytes = 5 * FULL_L2 + 300;
	REQUIRE((e = make(&p, &r)));
	send_tcp(e, LAB_BOARD_TX, 0, 1, 0, SUPER_PAYLOAD, 1448, 0);		 /* A */
	send_tcp(e, LAB_BOARD_TX, 0, 2, 0, SUPER_PAYLOAD - 1448 + 100, 1448, 0); /* B */
	send_tcp(e, LAB_BOARD_TX, 0, 3, 0, SUPER_PAYLOAD, 1448, 0);		 /* C */
	lab_emu_advance(e, 100 * SEC);
	tm = telem(e, 100 * SEC);
	REQUIRE_EQ(r.n, 6);
	for (unsigned k = 0; k < 5; k++)
		CHECK(r.d[k].sport == 1 && r.d[k].seq == k * 1448 && r.d[k].segs == 1);
	/* B's last frame: 100 bytes of payload, 166 at L2, fits in the 300 left */
	CHECK(r.d[5].sport == 2 && r.d[5].seq == 43 * 1448 && r.d[5].l2 == 166);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].pkts, 44 + 44 + 1);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].drops, 39 + 43 + 1);
	CHECK_EQ(tm.stage[LAB_STAGE_SWITCH].drop_frames, 39 + 43 + 44);
	CHECK_EQ(tm.memory_bytes, 0);
	done(e, &r);
}

/* ---- the client direction ---- */

TEST(client_direction_bottleneck_is_the_board_port)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t frames = 0, max_backlog = 0, first = 0, last = 0;

	prof_base(&p);
	p.board_port_buffer_bytes = 64 * 1024;
	p.delay_ns = 500 * US;
	REQUIRE((e = make(&p, &r)));
	/* 200 Mbit/s of full frames from the client */
	for (uint64_t t = 0, n = 0; t < SEC; t += 60 * US, n++) {
		send_tcp(e, LAB_CLIENT_TX, t, 3, 1000 + (uint32_t)n * 1448, 1448, 0, 0);
		tm = telem(e, t);
		if (tm.board_port_backlog_bytes > max_backlog)
			max_backlog = tm.board_port_backlog_bytes;
	}
	lab_emu_advance(e, 2 * SEC);
	tm = telem(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++) {
		CHECK_EQ(r.d[i].dir, LAB_CLIENT_TX);
		if (r.d[i].t >= 200 * MS && r.d[i].t < 1000 * MS) {
			frames++;
			last = r.d[i].t;
			first = first ? first : r.d[i].t;
		}
	}
	/* at the board's rate: one frame per 123.04 us, back to back */
	CHECK(frames == 6501 || frames == 6502);
	CHECK_EQ(last - first, (frames - 1) * FULL_NS);
	CHECK(tm.stage[LAB_STAGE_BOARD_PORT].drops > 0);
	CHECK(max_backlog <= 64 * 1024 && max_backlog > 60 * 1024);
	CHECK_EQ(tm.stage[LAB_STAGE_CLIENT_QDISC].drops, 0); /* the client's own queue is fast */
	CHECK(absdiff(tm.client_wire_busy_ns, r.n * FULL_NS) < 1000);
	CHECK_EQ(tm.client_tx_pkts, r.n);
	CHECK_EQ(tm.board_tx_pkts, 0);
	/* the first frame: client wire (12.3 us at 1 Gbit/s), board port (123 us), cable */
	CHECK_EQ(r.d[0].t, SW_NS + FULL_NS + 500 * US);
	done(e, &r);
}

/* ---- limits and conservation ---- */

TEST(memory_bound_drops_at_input)
{
	struct lab_profile p;
	struct rec r = {0};
	struct lab_telemetry tm;
	struct lab_emu *e;
	unsigned refused = 0, k;
	int ret = 0;

	prof_base(&p);
	strcpy(p.qdisc, "pfifo limit 100000");
	p.tso = true;
	p.ring = 1;
	REQUIRE((e = make(&p, &r)));
	for (k = 0; k < 5000; k++) {
		ret = send_tcp(e, LAB_BOARD_TX, 0, 1, k * SUPER_PAYLOAD, SUPER_PAYLOAD, 1448, 0);
		if (ret == 1)
			refused++;
	}
	tm = telem(e, 0);
	CHECK(refused > 0 && refused < 5000);
	CHECK_EQ(ret, 1);
	CHECK_EQ(tm.stage[LAB_STAGE_INPUT].drops, refused);
	CHECK_EQ(tm.stage[LAB_STAGE_INPUT].drop_frames, refused * SUPER_SEGS);
	CHECK(tm.memory_bytes <= LAB_EMU_MEMORY_MAX);
	CHECK(tm.memory_bytes > LAB_EMU_MEMORY_MAX - 70000);
	CHECK_EQ(tm.stage[LAB_STAGE_QDISC].drops, 0);
	/* garbage is refused and counted too */
	CHECK_EQ(lab_emu_input(e, LAB_BOARD_TX, pkt, 12, 0), -EBADMSG);
	tm = telem(e, 0);
	CHECK_EQ(tm.stage[LAB_STAGE_INPUT].drops, refused + 1);
	lab_emu_destroy(e); /* frees 256 MB of queued packets */
}

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? rng_state % n : 0;
}

static void random_profile(struct lab_profile *p)
{
	static const char *const qdiscs[] = {
	    "pfifo",
	    "pfifo limit 20",
	    "bfifo limit 30000",
	    "pfifo_fast",
	    "fq_codel",
	    "fq_codel target 1ms interval 5ms limit 50 memory_limit 40000",
	    "fq",
	    "fq maxrate 4mbit flow_limit 10"};
	static const char *const client_qdiscs[] = {"fq_codel", "pfifo limit 30", "pfifo_fast"};
	static const uint64_t rates[] = {MBIT(10), MBIT(100), MBIT(1000)};

	prof_base(p);
	p->rate_bps = rates[rnd(3)];
	strcpy(p->qdisc, qdiscs[rnd(8)]);
	p->txqueuelen = 1 + (uint32_t)rnd(300);
	p->gso = rnd(2);
	p->tso = rnd(2);
	p->ring = 1 + (uint32_t)rnd(200);
	p->bql = rnd(2);
	if (rnd(4) == 0) {
		p->bql_limit_min = (uint32_t)rnd(3000);
		p->bql_limit_max = p->bql_limit_min + (uint32_t)rnd(100000);
	}
	p->bql_hold_ns = (1 + rnd(1000)) * MS;
	p->completion_frames = 1 + (uint32_t)rnd(8);
	p->completion_ns = p->completion_frames > 1 || rnd(2) ? (1 + rnd(1000)) * US : 0;
	p->delay_ns = rnd(5 * MS);
	p->switch_rate_bps = rates[rnd(3)];
	p->switch_buffer_bytes = 1514 + rnd(200000);
	p->tsq_bytes = rnd(2) ? 0 : 1514 + (uint32_t)rnd(100000);
	p->client_rate_bps = rates[rnd(3)];
	strcpy(p->client_qdisc, client_qdiscs[rnd(3)]);
	p->client_ring = 1 + (uint32_t)rnd(256);
	p->board_port_buffer_bytes = 1514 + rnd(200000);
	p->completion_empty = rnd(2);
	if (p->completion_empty && rnd(2))
		p->completion_ns = 0;
	if (rnd(3) == 0) { /* a USB NIC */
		p->ring = 1 + (uint32_t)rnd(20);
		p->urb_bytes = 1 + (uint32_t)rnd(40000);
		p->urb_frames = rnd(3) ? 0 : (uint32_t)rnd(12);
		p->urb_overhead = (uint32_t)rnd(32);
	}
}

/* Frames of packet id (seq = id << 17) delivered, as a bitmap of segment indexes. */
static uint64_t seen_frames[2][8192];
static uint16_t mss_of[2][8192];
static int dup_frames;
/* lab_emu_next_delivery_ns just before the last input or advance, and what the
 * deliveries since made of it: early ones break it, exact ones show it is tight. */
static uint64_t bound;
static bool bound_fresh;
static unsigned bound_early, bound_exact, bound_checked;

static void mark_seen(const struct delivery *d, void *ctx)
{
	uint32_t id = d->seq >> 17, first = (d->seq & 0x1ffff) / mss_of[d->dir][id % 8192];

	(void)ctx;
	if (d->t < bound)
		bound_early++;
	if (bound_fresh) { /* the first delivery after the bound was taken */
		bound_checked++;
		bound_exact += d->t == bound;
		bound_fresh = false;
	}
	for (uint32_t i = first; i < first + d->segs && i < 64; i++) {
		uint64_t bit = 1ull << i;

		if (seen_frames[d->dir][id % 8192] & bit)
			dup_frames++;
		seen_frames[d->dir][id % 8192] |= bit;
	}
}

/*
 * One random run (seed): a random profile (with a random ceiling when asked) under
 * 4000 random packets in both directions, then drained as a runtime that wakes only
 * for deliveries would. Checks conservation and the next-delivery bound; adds the
 * stage counters to *total.
 */
static void random_run(uint64_t seed, bool ceiling, struct lab_telemetry *total)
{
	struct lab_profile p;
	struct rec r = {0};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t t = 0, offered = 0, delivered = 0;

	rng_state = seed * 0x9e3779b97f4a7c15ull;
	random_profile(&p);
	if (ceiling) {
		/* between a tenth and twice the line rate, shared or not, a small rx ring */
		p.ceiling_bps = p.rate_bps / 10 + rnd(2 * p.rate_bps);
		p.ceiling_shared = rnd(3) != 0;
		p.rx_ring = 1 + (uint32_t)rnd(64);
	}
	memset(seen_frames, 0, sizeof(seen_frames));
	dup_frames = 0;
	bound = 0;
	r.cb = mark_seen;
	REQUIRE((e = make(&p, &r)));
	for (uint32_t id = 0; id < 4000; id++) {
		enum lab_dir dir = rnd(5) == 0 ? LAB_CLIENT_TX : LAB_BOARD_TX;
		struct lab_pkt_spec s;
		struct lab_frame f;
		uint64_t kind = rnd(100);
		uint32_t payload = kind < 20 ? (uint32_t)rnd(200) : 1448;
		uint16_t gso = 0;
		int n, ret;

		if (kind >= 80) {
			gso = (uint16_t)(500 + rnd(949));
			payload = gso * (uint32_t)(2 + rnd(43)) - (uint32_t)rnd(gso);
		}
		t += rnd(kind < 5 ? 20 * MS : 150 * US);
		tcp_spec(&s, (uint16_t)(1 + rnd(12)), id << 17, payload, gso, 0);
		s.tos = (uint8_t)(rnd(8) << 2 | rnd(4));
		if (rnd(4) == 0) {
			lab_pkt_init(&s, 6, IPPROTO_TCP);
			s.seq = id << 17;
			s.sport = (uint16_t)(20 + rnd(4));
			s.payload_len = payload > 1428 && !gso ? 1428 : payload;
			s.gso_size = gso;
			s.tos = (uint8_t)rnd(4);
		}
		n = lab_pkt_build(&s, pkt, sizeof(pkt));
		REQUIRE(n > 0);
		if (rnd(100) == 0)
			n = (int)rnd(30); /* garbage */
		mss_of[dir][id % 8192] = gso ? gso : 1;
		if (lab_frame_parse(pkt, (size_t)n, &f) == 0)
			offered += f.segs;
		else
			offered++;
		bound = lab_emu_next_delivery_ns(e);
		bound_fresh = true;
		ret = lab_emu_input(e, dir, pkt, (size_t)n, t);
		CHECK(ret == 0 || ret == 1 || ret == -EBADMSG);
		bound = lab_emu_next_delivery_ns(e);
		bound_fresh = true;
		if (rnd(50) == 0) {
			lab_emu_advance(e, t + rnd(5 * MS));
			bound = lab_emu_next_delivery_ns(e);
			bound_fresh = true;
		}
	}
	/* Then the rest in steps, as a runtime that wakes only for deliveries. */
	while ((bound = lab_emu_next_delivery_ns(e)) != NEVER) {
		bound_fresh = true;
		lab_emu_advance(e, bound);
	}
	CHECK_EQ(lab_emu_next_ns(e), NEVER); /* nothing pending delivers nothing */
	lab_emu_advance(e, UINT64_MAX);
	tm = telem(e, t);
	delivered = r.frames[0] + r.frames[1];
	if (offered != delivered + drop_frames(&tm) || dup_frames || r.bad || tm.memory_bytes) {
		printf("# seed %llu: qdisc \"%s\" ring %u bql %d gso/tso %d/%d tsq %u "
		       "completions %u/%lluns: offered %llu delivered %llu dropped %llu "
		       "dups %d bad %d memory %llu\n",
		       (unsigned long long)seed, p.qdisc, p.ring, p.bql, p.gso, p.tso, p.tsq_bytes,
		       p.completion_frames, (unsigned long long)p.completion_ns,
		       (unsigned long long)offered, (unsigned long long)delivered,
		       (unsigned long long)drop_frames(&tm), dup_frames, r.bad,
		       (unsigned long long)tm.memory_bytes);
	}
	CHECK_EQ(offered, delivered + drop_frames(&tm));
	CHECK_EQ(dup_frames, 0);
	CHECK_EQ(r.bad, 0);
	CHECK_EQ(tm.memory_bytes, 0);
	CHECK_EQ(tm.qdisc_backlog_pkts, 0);
	CHECK_EQ(tm.ring_descs, 0);
	CHECK_EQ(tm.tsq_held_bytes, 0);
	CHECK_EQ(lab_emu_next_ns(e), NEVER);
	CHECK_EQ(tm.board_tx_pkts, r.count[0]);
	CHECK_EQ(tm.client_tx_pkts, r.count[1]);
	for (int st = 0; st < LAB_STAGE_COUNT; st++) {
		total->stage[st].pkts += tm.stage[st].pkts;
		total->stage[st].drops += tm.stage[st].drops;
		total->stage[st].marks += tm.stage[st].marks;
	}
	done(e, &r);
}

TEST(every_packet_leaves_exactly_once)
{
	struct lab_telemetry total = {0};

	for (uint64_t seed = 1; seed <= 12; seed++)
		random_run(seed, false, &total);
	/* the load reached every stage: drops everywhere a drop can happen, TSQ holds,
	 * CE marks, and more packets entering the switch than the board sent (splits) */
	printf("# random runs:");
	for (int st = 0; st < LAB_STAGE_COUNT; st++)
		printf(" %s %llu/%llu/%llu", lab_stage_name(st),
		       (unsigned long long)total.stage[st].pkts,
		       (unsigned long long)total.stage[st].drops,
		       (unsigned long long)total.stage[st].marks);
	printf(" (entered/dropped/marked)\n");
	printf("# next-delivery bound: %u of %u first deliveries exactly at it, %u before it\n",
	       bound_exact, bound_checked, bound_early);
	CHECK_EQ(bound_early, 0);
	CHECK(bound_exact * 2 > bound_checked); /* mostly exact, not merely low */
	CHECK(total.stage[LAB_STAGE_INPUT].drops > 0);
	CHECK(total.stage[LAB_STAGE_TSQ].pkts > 0);
	CHECK(total.stage[LAB_STAGE_QDISC].drops > 0);
	CHECK(total.stage[LAB_STAGE_QDISC].marks > 0);
	CHECK(total.stage[LAB_STAGE_SWITCH].drops > 0);
	CHECK(total.stage[LAB_STAGE_CLIENT_QDISC].drops > 0);
	CHECK(total.stage[LAB_STAGE_BOARD_PORT].drops > 0);
}

/* ---- a throughput ceiling below the line rate ---- */

/* Full frames from flow sport every `every` ns in [t0, t1) in direction dir, then
 * the wire bits per second (L2 + 24 per frame) and L2 bits per second delivered in
 * that direction in [w0, w1). */
struct rates {
	double wire_bps, l2_bps;
	uint64_t frames;
};

static struct rates window(const struct rec *r, enum lab_dir dir, uint64_t w0, uint64_t w1)
{
	struct rates x = {0};
	uint64_t l2 = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->d[i].dir != dir || r->d[i].t < w0 || r->d[i].t >= w1)
			continue;
		x.frames += r->d[i].segs ? r->d[i].segs : 1;
		l2 += r->d[i].l2;
	}
	x.l2_bps = (double)l2 * 8 * SEC / (double)(w1 - w0);
	x.wire_bps = (double)(l2 + 24 * x.frames) * 8 * SEC / (double)(w1 - w0);
	return x;
}

static bool within_pct(double got, double want, double pct)
{
	return got > want * (1 - pct / 100) && got < want * (1 + pct / 100);
}

/* A 1 Gbit/s board whose NIC moves 470 Mbit/s (the Wandboard's fec). */
static void prof_gige_ceiling(struct lab_profile *p, uint64_t ceiling_bps, bool shared)
{
	prof_base(p);
	p->rate_bps = MBIT(1000);
	p->ceiling_bps = ceiling_bps;
	p->ceiling_shared = shared;
	p->rx_ring = 512;
}

/* Saturated transmit at a 470 Mbit/s ceiling on a 1 Gbit/s wire: 470 Mbit/s on
 * the wire (L2 470 * 1514/1538 = 462.67 Mbit/s), shared or not. */
TEST(ceiling_caps_transmit_below_the_line_rate)
{
	for (int shared = 0; shared < 2; shared++) {
		struct lab_profile p;
		struct rec r = {.keep = true};
		struct lab_telemetry tm;
		struct lab_emu *e;
		struct rates x;

		prof_gige_ceiling(&p, MBIT(470), shared);
		REQUIRE((e = make(&p, &r)));
		stream(e, LAB_BOARD_TX, 1, 0, 1200 * MS, 10 * US, 0); /* 1.2 Gbit/s offered */
		lab_emu_advance(e, 1200 * MS);
		x = window(&r, LAB_BOARD_TX, 200 * MS, 1200 * MS);
		tm = telem(e, 1200 * MS);
		printf("# ceiling 470 Mbit/s on a 1 Gbit/s wire (%s): wire %.2f Mbit/s (want 470), "
		       "L2 %.2f (want %.2f), wire busy %.1f%%\n",
		       shared ? "shared" : "not shared", x.wire_bps / 1e6, x.l2_bps / 1e6,
		       470e6 * 1514 / 1538 / 1e6, 100.0 * tm.board_wire_busy_ns / (1200 * MS));
		CHECK(within_pct(x.wire_bps, 470e6, 3));
		CHECK(within_pct(x.l2_bps, 470e6 * 1514 / 1538, 3));
		/* each frame still takes its time at 1 Gbit/s: the wire is busy 47% */
		CHECK(within_pct((double)tm.board_wire_busy_ns, 0.47 * 1200 * MS, 3));
		CHECK(tm.stage[LAB_STAGE_QDISC].drops > 0);
		CHECK_EQ(tm.stage[LAB_STAGE_BOARD_RX].pkts, 0);
		done(e, &r);
	}
}

/* Frames back to back at the ceiling: frame k starts at k * 1538 B / ceiling and
 * takes 12.304 us at 1 Gbit/s, then the 1 Gbit/s switch port: exact. */
TEST(ceiling_spaces_frames_at_its_rate)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_emu *e;

	prof_gige_ceiling(&p, MBIT(470), false);
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 10; k++)
		send_tcp(e, LAB_BOARD_TX, 0, 1, 1000 + k * 1448, 1448, 0, 0);
	CHECK_EQ(lab_emu_next_delivery_ns(e), 2 * SW_NS);
	lab_emu_advance(e, SEC);
	REQUIRE_EQ(r.n, 10);
	for (unsigned k = 0; k < 10; k++)
		CHECK_EQ(r.d[k].t, k * 1538ull * SEC / MBIT(470) + 2 * SW_NS);
	done(e, &r);
}

/* Both directions saturated through a shared 470 Mbit/s ceiling: together they
 * carry 470 Mbit/s on the wire, each about half; the receive ring overflows. */
TEST(shared_ceiling_splits_between_the_directions)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	struct rates tx, rx;

	prof_gige_ceiling(&p, MBIT(470), true);
	REQUIRE((e = make(&p, &r)));
	/* 0.97 Gbit/s offered each way, interleaved in time */
	for (uint64_t t = 0, n = 0; t < 1200 * MS; t += 12500, n++) {
		send_tcp(e, LAB_BOARD_TX, t, 1, 1000 + (uint32_t)n * 1448, 1448, 0, 0);
		send_tcp(e, LAB_CLIENT_TX, t, 2, 1000 + (uint32_t)n * 1448, 1448, 0, 0);
	}
	lab_emu_advance(e, 1200 * MS);
	tx = window(&r, LAB_BOARD_TX, 200 * MS, 1200 * MS);
	rx = window(&r, LAB_CLIENT_TX, 200 * MS, 1200 * MS);
	tm = telem(e, 1200 * MS);
	printf("# shared ceiling 470 Mbit/s, both ways saturated: board->client %.2f + "
	       "client->board %.2f = %.2f Mbit/s on the wire (want 470, 235 each); "
	       "%llu dropped at the rx ring\n",
	       tx.wire_bps / 1e6, rx.wire_bps / 1e6, (tx.wire_bps + rx.wire_bps) / 1e6,
	       (unsigned long long)tm.stage[LAB_STAGE_BOARD_RX].drops);
	CHECK(within_pct(tx.wire_bps + rx.wire_bps, 470e6, 3));
	CHECK(within_pct(tx.wire_bps, 235e6, 3));
	CHECK(within_pct(rx.wire_bps, 235e6, 3));
	CHECK(tm.stage[LAB_STAGE_BOARD_RX].drops > 0);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_PORT].drops, 0); /* the port drains at 1 Gbit/s */
	done(e, &r);
}

/* Receive alone at a shared 470 Mbit/s ceiling: the ceiling. */
TEST(shared_ceiling_caps_receive)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_emu *e;
	struct rates rx;

	prof_gige_ceiling(&p, MBIT(470), true);
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_CLIENT_TX, 2, 0, 1200 * MS, 12500, 0);
	lab_emu_advance(e, 1200 * MS);
	rx = window(&r, LAB_CLIENT_TX, 200 * MS, 1200 * MS);
	printf("# shared ceiling 470 Mbit/s, receive alone: %.2f Mbit/s on the wire (want 470)\n",
	       rx.wire_bps / 1e6);
	CHECK(within_pct(rx.wire_bps, 470e6, 3));
	done(e, &r);
}

/* A download shaper on the board (profile.ingress, an ifb's place) behind a shared
 * 470 Mbit/s ceiling: a saturating download is delivered at the shaper's 200 Mbit/s
 * (L2 bytes, as the shaper counts them), within 3%, and its queue is the shaper's. */
TEST(ingress_shaper_holds_a_saturating_download_to_its_rate)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	struct rates rx;

	prof_gige_ceiling(&p, MBIT(470), true);
	strcpy(p.ingress, "shaper rate 200mbit child pfifo limit 1000");
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_CLIENT_TX, 2, 0, 1200 * MS, 12500, 0);
	lab_emu_advance(e, 1200 * MS);
	rx = window(&r, LAB_CLIENT_TX, 200 * MS, 1200 * MS);
	tm = telem(e, 1200 * MS);
	printf("# ingress shaper 200 Mbit/s behind a 470 Mbit/s shared ceiling: %.2f Mbit/s L2 "
	       "(want 200), board_ingress drops %llu\n",
	       rx.l2_bps / 1e6, (unsigned long long)tm.stage[LAB_STAGE_BOARD_INGRESS].drops);
	CHECK(within_pct(rx.l2_bps, 200e6, 3));
	CHECK(tm.stage[LAB_STAGE_BOARD_INGRESS].drops > 0); /* the open-loop excess */
	done(e, &r);
}

/*
 * A probe behind a known ingress backlog: 30 full frames then a 31st (the probe) of
 * the same flow, all input at 0, reach the board 2 x 12.304 us later, one every
 * 12.304 us; a shaper at 121.12 Mbit/s lets one 1514-byte frame go every 100 us
 * exactly, the first as it arrives. The probe waits for the 30 ahead: delivered at
 * 2 x 12.304 us + 30 x 100 us. While frames wait there, the next delivery is the
 * shaper's time for the next one.
 */
TEST(ingress_probe_waits_for_the_backlog_at_the_shaper_rate)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_base(&p);
	p.rate_bps = MBIT(1000);
	strcpy(p.ingress, "shaper rate 121120kbit child pfifo limit 1000");
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 31; k++)
		send_tcp(e, LAB_CLIENT_TX, 0, 2, 1000 + k * 1448, 1448, 0, 0);
	lab_emu_advance(e, 1 * MS);
	REQUIRE_EQ(r.n, 10);
	CHECK_EQ(lab_emu_next_delivery_ns(e), 2 * SW_NS + 10 * 100 * US);
	lab_emu_advance(e, SEC);
	tm = telem(e, SEC);
	REQUIRE_EQ(r.n, 31);
	for (unsigned k = 0; k < 31; k++)
		CHECK_EQ(r.d[k].t, 2 * SW_NS + k * 100 * US);
	printf("# probe behind 30 frames at a 121.12 Mbit/s ingress shaper: %.3f ms (want "
	       "%.3f)\n",
	       r.d[30].t / 1e6, (2 * SW_NS + 30 * 100 * US) / 1e6);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_INGRESS].pkts, 31);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_INGRESS].drops, 0);
	CHECK_EQ(tm.memory_bytes, 0);
	done(e, &r);
}

/* The shaper's child drops as the board's qdisc would, counted at board_ingress:
 * 40 frames at once into a pfifo of 10 behind a slow shaper; every frame leaves once. */
TEST(ingress_child_drops_count_at_board_ingress)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	char err[256] = "";

	prof_base(&p);
	p.rate_bps = MBIT(1000);
	strcpy(p.ingress, "shaper rate 10mbit child pfifo limit 10");
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 40; k++)
		send_tcp(e, LAB_CLIENT_TX, 0, 2, 1000 + k * 1448, 1448, 0, 0);
	lab_emu_advance(e, 10 * SEC);
	tm = telem(e, 10 * SEC);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_INGRESS].pkts, 40);
	CHECK(tm.stage[LAB_STAGE_BOARD_INGRESS].drops > 0);
	CHECK_EQ(r.n + tm.stage[LAB_STAGE_BOARD_INGRESS].drops, 40);
	CHECK_EQ(tm.memory_bytes, 0);
	CHECK_STR(lab_stage_name(LAB_STAGE_BOARD_INGRESS), "board_ingress");
	done(e, &r);

	/* a spec libdebloat refuses is an error naming the key */
	strcpy(p.ingress, "shaper rate fast");
	e = NULL;
	CHECK(lab_emu_create(&p, NULL, &e, err, sizeof(err)) == -EINVAL);
	CHECK(e == NULL);
	CHECK(strstr(err, "ingress") != NULL);
}

/*
 * The receive ring: 20 frames back to back from the client at 1 Gbit/s reach the
 * board 2 x 12.304 us apart from the start (client wire, then the port), one every
 * 12.304 us; a 50 Mbit/s bus takes 246.08 us per frame, so a ring of 4 holds frames
 * 0-3 and the other 16 arrive before frame 0 is across: dropped at board_rx.
 */
TEST(receive_ring_drops_when_the_bus_is_slower)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	const uint64_t bus_ns = 1538ull * SEC / MBIT(50);

	prof_base(&p);
	p.rate_bps = MBIT(1000);
	p.ceiling_bps = MBIT(50);
	p.ceiling_shared = true;
	p.rx_ring = 4;
	REQUIRE((e = make(&p, &r)));
	for (unsigned k = 0; k < 20; k++)
		send_tcp(e, LAB_CLIENT_TX, 0, 2, 1000 + k * 1448, 1448, 0, 0);
	lab_emu_advance(e, 2 * SW_NS);
	CHECK_EQ(lab_emu_next_delivery_ns(e), 2 * SW_NS + bus_ns);
	lab_emu_advance(e, SEC);
	tm = telem(e, SEC);
	REQUIRE_EQ(r.n, 4);
	for (unsigned k = 0; k < 4; k++) {
		CHECK_EQ(r.d[k].t, 2 * SW_NS + (k + 1) * bus_ns);
		CHECK_EQ(r.d[k].seq, 1000 + k * 1448);
	}
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_RX].pkts, 20);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_RX].drops, 16);
	CHECK_EQ(tm.stage[LAB_STAGE_BOARD_RX].drop_frames, 16);
	CHECK_EQ(tm.memory_bytes, 0);
	done(e, &r);
}

/* Behind a full pfifo 1000 and ring 128 at a 470 Mbit/s ceiling, a probe waits for
 * the bytes ahead at the ceiling, then its own time at the line rate. */
TEST(probe_delay_at_the_ceiling_equals_bytes_ahead)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t tp = 300 * MS + 20 * US, ahead, want, got = 0;

	prof_gige_ceiling(&p, MBIT(470), false);
	p.delay_ns = 1 * MS;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 300 * MS, 10 * US, 0);
	lab_emu_advance(e, tp);
	tm = telem(e, tp);
	CHECK_EQ(tm.ring_descs, 128);
	CHECK(tm.qdisc_backlog_pkts >= 998 && tm.qdisc_backlog_pkts <= 1000);
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, tp, 7777, 1, 100, 0, 0), 0);
	lab_emu_advance(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++)
		if (r.d[i].sport == 7777)
			got = r.d[i].t - tp;
	ahead = tm.qdisc_backlog_bytes + 24ull * tm.qdisc_backlog_pkts + tm.ring_bytes +
		24ull * tm.ring_descs;
	want = ahead * SEC / MBIT(470) + 190 * SEC / MBIT(1000) + 1 * MS + 190 * SEC / MBIT(1000);
	printf("# probe behind pfifo 1000 + ring 128 at a 470 Mbit/s ceiling: %.3f ms "
	       "(bytes ahead over the ceiling predict %.3f ms)\n",
	       got / 1e6, want / 1e6);
	CHECK(got > 20 * MS);
	CHECK(absdiff(got, want) * 100 < (long long)want);
	done(e, &r);
}

/* A ceiling above the line rate changes nothing on transmit: every delivery at the
 * same time as without it, shared or not. */
TEST(ceiling_above_the_line_rate_changes_nothing)
{
	struct rec r0 = {.keep = true}, r1 = {.keep = true};

	for (int shared = 0; shared < 2; shared++) {
		struct lab_profile p;
		struct lab_emu *e;

		prof_base(&p);
		p.bql = true;
		REQUIRE((e = make(&p, &r0)));
		stream(e, LAB_BOARD_TX, 1, 0, 200 * MS, 60 * US, 0);
		stream(e, LAB_BOARD_TX, 2, 200 * MS, 300 * MS, 150 * US, 0);
		lab_emu_advance(e, SEC);
		p.ceiling_bps = MBIT(101);
		p.ceiling_shared = shared;
		{
			struct lab_emu *e1;

			REQUIRE((e1 = make(&p, &r1)));
			stream(e1, LAB_BOARD_TX, 1, 0, 200 * MS, 60 * US, 0);
			stream(e1, LAB_BOARD_TX, 2, 200 * MS, 300 * MS, 150 * US, 0);
			lab_emu_advance(e1, SEC);
			REQUIRE_EQ(r1.n, r0.n);
			CHECK(r0.n > 1000);
			for (size_t i = 0; i < r0.n; i++) {
				if (!CHECK_EQ(r1.d[i].t, r0.d[i].t))
					break;
			}
			done(e1, &r1);
		}
		done(e, &r0);
	}
}

/* The conservation and next-delivery checks of every_packet_leaves_exactly_once,
 * with random ceilings (shared or not, small receive rings). */
TEST(every_packet_leaves_exactly_once_under_a_ceiling)
{
	struct lab_telemetry total = {0};

	bound_early = bound_exact = bound_checked = 0;
	for (uint64_t seed = 1; seed <= 12; seed++)
		random_run(seed, true, &total);
	printf("# random runs with a ceiling: board_rx %llu/%llu entered/dropped; "
	       "next-delivery bound: %u of %u exact, %u early\n",
	       (unsigned long long)total.stage[LAB_STAGE_BOARD_RX].pkts,
	       (unsigned long long)total.stage[LAB_STAGE_BOARD_RX].drops, bound_exact,
	       bound_checked, bound_early);
	CHECK_EQ(bound_early, 0);
	CHECK(bound_exact * 2 > bound_checked);
	CHECK(total.stage[LAB_STAGE_BOARD_RX].drops > 0);
}

/* ---- cost ---- */

/* 2 s of a 1 Gbit/s board with TSO, 4 flows of 64 KB super-packets plus the
 * client's acks: completes (the emulator's per-packet work is O(1)). */
TEST(two_seconds_of_gigabit_with_tso)
{
	struct lab_profile p;
	struct rec r = {0};
	struct lab_telemetry tm;
	struct lab_emu *e;
	static uint8_t super[4][LAB_VNET_HDR_LEN + 20 + 32 + SUPER_PAYLOAD];
	uint32_t seq[4] = {0};
	uint64_t t, calls = 0;
	int len[4];

	prof_base(&p);
	p.rate_bps = MBIT(1000);
	p.tso = true;
	p.bql = true;
	p.ring = 512;
	strcpy(p.qdisc, "fq_codel");
	p.switch_rate_bps = MBIT(1000);
	p.completion_frames = 16;
	p.completion_ns = 100 * US;
	REQUIRE((e = make(&p, &r)));
	/* built once per flow; the sequence number is patched (a partial checksum does
	 * not cover it) so that the test's own packet building does not dominate */
	for (unsigned f = 0; f < 4; f++) {
		struct lab_pkt_spec s;

		tcp_spec(&s, (uint16_t)(10 + f), 0, SUPER_PAYLOAD, 1448, LAB_ECN_ECT0);
		len[f] = lab_pkt_build(&s, super[f], sizeof(super[f]));
		REQUIRE(len[f] > 0);
	}
	/* 1.1 Gbit/s offered: a 44-frame super-packet every 480 us per flow; an ack
	 * from the client every 100 us */
	for (t = 0; t < 2 * SEC; t += 20 * US) {
		if (t % (120 * US) == 0) {
			unsigned f = (unsigned)(t / (120 * US)) % 4;

			lab_pkt_wr32(super[f] + LAB_VNET_HDR_LEN + 20 + 4, seq[f]);
			CHECK_EQ(lab_emu_input(e, LAB_BOARD_TX, super[f], (size_t)len[f], t), 0);
			seq[f] += SUPER_PAYLOAD;
			calls++;
		}
		if (t % (100 * US) == 0) {
			send_tcp(e, LAB_CLIENT_TX, t, 5201, (uint32_t)t, 0, 0, 0);
			calls++;
		}
		lab_emu_advance(e, t);
		calls++;
	}
	lab_emu_advance(e, 2 * SEC);
	tm = telem(e, 2 * SEC);
	printf("# 1 Gbit/s TSO: %llu calls, %.0f Mbit/s delivered, %llu client packets\n",
	       (unsigned long long)calls, tm.board_tx_bytes * 8 / 2e6,
	       (unsigned long long)tm.client_tx_pkts);
	CHECK(tm.board_tx_bytes * 8 > 2 * 900000000ull);
	CHECK(tm.client_tx_pkts > 19000);
	done(e, &r);
}

/* ---- USB NICs: URBs ---- */

#define URB_FRAMES 10u /* full frames in a 16 KB URB: floor(16384 / (1514 + 8)) */

/* lan78xx on USB 2 (the Pi 3B+): 10 URBs of 16 KB, 8 bytes per frame, on a 1 Gbit/s
 * PHY behind a 300 Mbit/s ceiling; ceiling 0: the same URBs on a plain 100 Mbit/s
 * wire. */
static void prof_usb(struct lab_profile *p, uint64_t ceiling_bps)
{
	prof_base(p);
	if (ceiling_bps) {
		p->rate_bps = MBIT(1000);
		p->ceiling_bps = ceiling_bps;
	}
	p->ring = 10;
	p->urb_bytes = 16384;
	p->urb_overhead = 8;
}

/* One super-packet of n full frames at t (split before the ring: tso off). */
static void send_burst(struct lab_emu *e, uint64_t t, unsigned n)
{
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, t, 1, 1000, n * 1448u, 1448, 0), 0);
}

/* Step through every event until `until`, recording when ring_descs drops (a
 * completion report) and by how much; returns the number of reports. */
static unsigned reports(struct lab_emu *e, uint64_t until, uint64_t *at, uint32_t *freed,
			unsigned max)
{
	uint32_t before = telem(e, 0).ring_descs;
	unsigned n = 0;
	uint64_t t;

	while ((t = lab_emu_next_ns(e)) <= until && t != NEVER) {
		struct lab_telemetry tm;

		lab_emu_advance(e, t);
		tm = telem(e, t);
		if (tm.ring_descs < before && n < max) {
			at[n] = t;
			freed[n++] = before - tm.ring_descs;
		}
		before = tm.ring_descs;
	}
	return n;
}

/* A lone frame travels in a URB of its own; a backlog fills each URB to
 * floor(urb_bytes / (l2 + urb_overhead)) frames: 44 frames make URBs of 10, 10,
 * 10, 10 and 4. With urb_frames 1 (usbnet) every frame is a URB, and urb_frames
 * caps a URB below what its bytes allow. */
TEST(urbs_pack_a_backlog_and_carry_a_lone_frame_alone)
{
	struct lab_profile p;
	struct rec r = {0};
	struct lab_telemetry tm;
	struct lab_emu *e;

	prof_usb(&p, 0);
	REQUIRE((e = make(&p, &r)));
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 0, 1, 1000, 1448, 0, 0), 0);
	tm = telem(e, 0);
	CHECK_EQ(tm.ring_urbs, 1);
	CHECK_EQ(tm.ring_descs, 1);
	lab_emu_advance(e, FULL_NS);
	CHECK_EQ(telem(e, FULL_NS).ring_urbs, 0);

	send_burst(e, MS, 44);
	tm = telem(e, MS);
	CHECK_EQ(tm.ring_urbs, 5);
	CHECK_EQ(tm.ring_descs, 44);
	CHECK_EQ(tm.ring_bytes, 44 * FULL_L2);
	printf("# URBs of 16 KB + 8 B per frame: a lone frame 1 URB; 44 frames %u URBs\n",
	       tm.ring_urbs);
	done(e, &r);

	/* urb_frames caps the count; urb_frames 1 is usbnet's one frame per URB */
	for (uint32_t cap = 1; cap <= 4; cap += 3) {
		prof_usb(&p, 0);
		p.urb_frames = cap;
		REQUIRE((e = make(&p, &r)));
		send_burst(e, 0, 44);
		tm = telem(e, 0);
		/* ring 10 URBs of cap frames; the rest waits in the qdisc */
		CHECK_EQ(tm.ring_urbs, 10);
		CHECK_EQ(tm.ring_descs, 10 * cap);
		CHECK_EQ(tm.qdisc_backlog_pkts, 44 - 10 * cap);
		done(e, &r);
	}
}

/* Under a saturating stream every URB is refilled full as soon as it completes:
 * 10 URBs of 10 frames, 100 descriptors, whatever the instant. */
TEST(urbs_under_backlog_hold_ring_times_frames_per_urb)
{
	struct lab_profile p;
	struct lab_emu_summary s;
	uint32_t ring_max;

	prof_usb(&p, 0);
	s = saturate(&p, 300 * MS, &ring_max);
	CHECK_EQ(ring_max, 10 * URB_FRAMES);
	CHECK_EQ(s.ring_descs_max, 10 * URB_FRAMES);
	CHECK_EQ(s.ring_urbs_max, 10);
	CHECK_EQ(s.last.ring_urbs, 10);
	printf("# saturated URB ring: %u URBs, at most %u frames in them\n", s.last.ring_urbs,
	       ring_max);
}

/*
 * A URB is reported when its last frame has been sent, all its descriptors at once.
 * 44 frames at t = 0 in URBs of 10: on a 100 Mbit/s wire URB k (k = 1..5) completes
 * at n_k * W/R, n_k = 10k (44 for the last); under a 300 Mbit/s ceiling on a
 * 1 Gbit/s wire frame i starts at i * W/C, so URB k completes at (n_k - 1) * W/C +
 * W/R (W = 1538 B on the wire).
 */
TEST(urb_completes_whole_when_its_last_frame_is_sent)
{
	for (int ceil = 0; ceil < 2; ceil++) {
		struct lab_profile p;
		struct rec r = {0};
		struct lab_emu *e;
		uint64_t at[8];
		uint32_t freed[8];
		unsigned n;

		prof_usb(&p, ceil ? MBIT(300) : 0);
		REQUIRE((e = make(&p, &r)));
		send_burst(e, 0, 44);
		n = reports(e, SEC, at, freed, 8);
		REQUIRE_EQ(n, 5);
		for (unsigned k = 0; k < 5; k++) {
			uint64_t last = k < 4 ? 10 * (k + 1) : 44, want;

			want = ceil ? (last - 1) * 1538 * SEC / MBIT(300) + 1538 * SEC / MBIT(1000)
				    : last * FULL_NS;
			CHECK_EQ(freed[k], k < 4 ? 10 : 4);
			CHECK(within_pct((double)at[k], (double)want, 3));
			printf("# %s: URB %u of %u frames reported at %.2f us (want %.2f)\n",
			       ceil ? "300 Mbit/s ceiling" : "100 Mbit/s", k + 1, freed[k],
			       at[k] / 1e3, want / 1e3);
		}
		CHECK_EQ(telem(e, SEC).ring_urbs, 0);
		done(e, &r);
	}
}

/* URBs cost no throughput: the next URB is packed and posted the moment one
 * completes. 100 Mbit/s line (wire 100, L2 98.44), and lan78xx's 300 Mbit/s
 * ceiling (wire 300, L2 300 * 1514/1538 = 295.32 Mbit/s). */
TEST(urbs_carry_the_line_rate_and_the_ceiling)
{
	for (int ceil = 0; ceil < 2; ceil++) {
		struct lab_profile p;
		struct rec r = {.keep = true};
		struct lab_emu *e;
		struct rates x;
		double want = ceil ? 300e6 : 100e6;

		prof_usb(&p, ceil ? MBIT(300) : 0);
		REQUIRE((e = make(&p, &r)));
		stream(e, LAB_BOARD_TX, 1, 0, 1200 * MS, ceil ? 20 * US : 60 * US, 0);
		lab_emu_advance(e, 1200 * MS);
		x = window(&r, LAB_BOARD_TX, 200 * MS, 1200 * MS);
		printf("# URBs of 16 KB at %s: wire %.2f Mbit/s (want %.0f), L2 %.2f (want %.2f)\n",
		       ceil ? "a 300 Mbit/s ceiling" : "100 Mbit/s", x.wire_bps / 1e6, want / 1e6,
		       x.l2_bps / 1e6, want * 1514 / 1538 / 1e6);
		CHECK(within_pct(x.wire_bps, want, 3));
		CHECK(within_pct(x.l2_bps, want * 1514 / 1538, 3));
		CHECK_EQ(r.bad, 0);
		done(e, &r);
	}
}

/* Behind a full pfifo 1000 and 10 URBs of 10 frames at the 300 Mbit/s ceiling, a
 * probe waits for the bytes ahead over the ceiling (the frames of the head URB
 * already sent count until it completes: < 10 frames of 1100, under 1%). */
TEST(probe_delay_behind_urbs_equals_bytes_ahead)
{
	struct lab_profile p;
	struct rec r = {.keep = true};
	struct lab_telemetry tm;
	struct lab_emu *e;
	uint64_t tp = 300 * MS + 20 * US, ahead, want, got = 0;

	prof_usb(&p, MBIT(300));
	p.delay_ns = 1 * MS;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, 300 * MS, 20 * US, 0);
	lab_emu_advance(e, tp);
	tm = telem(e, tp);
	CHECK_EQ(tm.ring_urbs, 10);
	CHECK(tm.ring_descs > 90 && tm.ring_descs <= 100);
	printf("# URB ring at the probe: %u URBs, %u frames; qdisc %u packets\n", tm.ring_urbs,
	       tm.ring_descs, tm.qdisc_backlog_pkts);
	CHECK(tm.qdisc_backlog_pkts >= 990 && tm.qdisc_backlog_pkts <= 1001);
	CHECK_EQ(send_tcp(e, LAB_BOARD_TX, tp, 7777, 1, 100, 0, 0), 0);
	lab_emu_advance(e, 2 * SEC);
	for (size_t i = 0; i < r.n; i++)
		if (r.d[i].sport == 7777)
			got = r.d[i].t - tp;
	ahead = tm.qdisc_backlog_bytes + 24ull * tm.qdisc_backlog_pkts + tm.ring_bytes +
		24ull * tm.ring_descs;
	want = ahead * SEC / MBIT(300) + 190 * SEC / MBIT(1000) + 1 * MS + 190 * SEC / MBIT(1000);
	printf("# probe behind pfifo 1000 + 10 URBs of 16 KB at a 300 Mbit/s ceiling: %.3f ms "
	       "(bytes ahead over the ceiling predict %.3f ms)\n",
	       got / 1e6, want / 1e6);
	CHECK(got > 40 * MS);
	CHECK(within_pct((double)got, (double)want, 3));
	done(e, &r);
}

/* ---- completions without a timer ---- */

/*
 * bcmgenet's rule: report after completion_frames frames or when the ring runs
 * empty, no timer. At 1 Gbit/s (W/R = 12.304 us): a lone frame is reported as it
 * leaves, at W/R (a 125 us timer would wait W/R + 125 us); a burst of 25 frames
 * is reported at 10, 20 and 25 frames' time, the last 5 when the ring empties.
 */
TEST(completion_when_the_ring_empties)
{
	static const uint64_t w = 1538 * SEC / MBIT(1000);

	for (int timer = 0; timer < 2; timer++) {
		struct lab_profile p;
		struct rec r = {0};
		struct lab_emu *e;
		uint64_t at[8], want;
		uint32_t freed[8];
		unsigned n;

		prof_base(&p);
		p.rate_bps = MBIT(1000);
		p.completion_frames = 10;
		p.completion_ns = timer ? 125 * US : 0;
		p.completion_empty = !timer;
		REQUIRE((e = make(&p, &r)));
		CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 0, 1, 1000, 1448, 0, 0), 0);
		n = reports(e, MS, at, freed, 8);
		REQUIRE_EQ(n, 1);
		want = timer ? w + 125 * US : w;
		CHECK_EQ(freed[0], 1);
		CHECK(within_pct((double)at[0], (double)want, 3));
		printf("# completions every 10 frames or %s: a lone frame reported at %.2f us "
		       "(want %.2f)\n",
		       timer ? "125 us" : "when the ring empties", at[0] / 1e3, want / 1e3);
		if (timer) {
			done(e, &r);
			continue;
		}
		send_burst(e, MS, 25);
		n = reports(e, 2 * MS, at, freed, 8);
		REQUIRE_EQ(n, 3);
		for (unsigned k = 0; k < 3; k++) {
			want = MS + (k < 2 ? 10 * (k + 1) : 25) * w;
			CHECK_EQ(freed[k], k < 2 ? 10 : 5);
			CHECK(within_pct((double)(at[k] - MS), (double)(want - MS), 3));
			printf("# a burst of 25: report %u of %u frames at %.2f us (want %.2f)\n",
			       k + 1, freed[k], (at[k] - MS) / 1e3, (want - MS) / 1e3);
		}
		done(e, &r);
	}
}

/* The rpi4 profile's rule with BQL under a saturating stream at 1 Gbit/s: the wire
 * never starves, and DQL's limit settles at a few batches of 10 frames. */
TEST(bql_with_completions_every_10_or_when_empty_keeps_the_wire_busy)
{
	struct lab_profile p;
	struct lab_emu_summary s;
	struct rec r = {0};
	struct lab_emu *e;

	prof_base(&p);
	p.rate_bps = MBIT(1000);
	p.bql = true;
	p.completion_frames = 10;
	p.completion_empty = true;
	REQUIRE((e = make(&p, &r)));
	stream(e, LAB_BOARD_TX, 1, 0, SEC, 10 * US, 0); /* 1.2 Gbit/s offered */
	lab_emu_summary(e, SEC, &s);
	printf("# 1 Gbit/s, BQL, every 10 frames or when empty: limit p50 %u (%.1f frames), "
	       "max %u, wire busy %.2f%%\n",
	       s.bql_limit_p50, s.bql_limit_p50 / (double)FULL_L2, s.bql_limit_max_seen,
	       s.last.board_wire_busy_ns * 100.0 / SEC);
	CHECK(s.last.board_wire_busy_ns > SEC * 99 / 100);
	/* DQL settles near twice one report of 10 frames (30272 bytes here) */
	CHECK(s.bql_limit_p50 >= 19 * FULL_L2 && s.bql_limit_p50 <= 40 * FULL_L2);
	done(e, &r);
}

/* The shipped profiles in the model: the Pi 3B+ (lan78xx) carries its 300 Mbit/s
 * ceiling in 10 URBs of 10 frames, the Pi 3B (usbnet) 100 Mbit/s in 60 URBs of one,
 * and the Pi 4 (genet) reports a lone frame as it leaves. */
TEST(the_pi_profiles_in_the_model)
{
	static const struct {
		const char *name;
		double wire_bps;
		uint32_t urbs, frames;
		uint64_t every;
	} boards[] = {{"rpi3bplus", 300e6, 10, 100, 20 * US}, {"rpi3b", 100e6, 60, 60, 60 * US}};
	char err[256] = "";

	for (unsigned i = 0; i < 2; i++) {
		struct lab_profile p;
		struct rec r = {.keep = true};
		struct lab_emu_summary s;
		struct lab_emu *e;
		struct rates x;

		REQUIRE_EQ(lab_profile_load(&p, boards[i].name, err, sizeof(err)), 0);
		REQUIRE((e = make(&p, &r)));
		stream(e, LAB_BOARD_TX, 1, 0, 1200 * MS, boards[i].every, 0);
		lab_emu_advance(e, 1200 * MS);
		x = window(&r, LAB_BOARD_TX, 200 * MS, 1200 * MS);
		lab_emu_summary(e, 1200 * MS, &s);
		printf("# %s saturated: wire %.2f Mbit/s (want %.0f), at most %u URBs and %u "
		       "frames in them\n",
		       boards[i].name, x.wire_bps / 1e6, boards[i].wire_bps / 1e6, s.ring_urbs_max,
		       s.ring_descs_max);
		CHECK(within_pct(x.wire_bps, boards[i].wire_bps, 3));
		CHECK_EQ(s.ring_urbs_max, boards[i].urbs);
		CHECK_EQ(s.ring_descs_max, boards[i].frames);
		done(e, &r);
	}

	{
		struct lab_profile p;
		struct rec r = {0};
		struct lab_emu *e;
		uint64_t at[2];
		uint32_t freed[2];

		REQUIRE_EQ(lab_profile_load(&p, "rpi4", err, sizeof(err)), 0);
		REQUIRE((e = make(&p, &r)));
		CHECK_EQ(send_tcp(e, LAB_BOARD_TX, 0, 1, 1000, 1448, 0, 0), 0);
		REQUIRE_EQ(reports(e, MS, at, freed, 2), 1);
		CHECK_EQ(at[0], 1538 * SEC / MBIT(1000));
		done(e, &r);
	}
}
