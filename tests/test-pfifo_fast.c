/* SPDX-License-Identifier: MIT */
/* test-pfifo_fast.c - the TOS/priority band table, strict priority, per-band limits, options. */
#include <errno.h>
#include <string.h>

#include "debloat/pfifo_fast.h"
#include "harness.h"

struct drops {
	struct db_pkt *pkt[64];
	enum db_drop_reason why[64];
	int n;
};

static void record_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	struct drops *d = ctx;

	if (d->n < 64) {
		d->pkt[d->n] = pkt;
		d->why[d->n] = why;
	}
	d->n++;
}

static void setup(struct db_pfifo_fast *q, struct drops *d, uint32_t txqueuelen)
{
	struct db_pfifo_fast_params p;
	struct db_qdisc_env env = {.drop = record_drop, .ctx = d};

	memset(d, 0, sizeof(*d));
	db_pfifo_fast_defaults(&p);
	p.txqueuelen = txqueuelen;
	db_pfifo_fast_init(q, &p, &env);
}

static struct db_pkt tos_pkt(uint8_t tos, uint32_t len)
{
	struct db_pkt pkt = {.len = len, .segs = 1, .tos = tos};

	return pkt;
}

static struct db_pkt prio_pkt(uint32_t priority, uint32_t len)
{
	struct db_pkt pkt = {
	    .len = len, .segs = 1, .priority = priority, .flags = DB_PKT_HAS_PRIORITY};

	return pkt;
}

/* Packets whose band is 0, 1 and 2 under the default priomap. */
#define TOS_BAND0 0x10 /* IPTOS_LOWDELAY */
#define TOS_BAND1 0x00
#define TOS_BAND2 0x08 /* IPTOS_THROUGHPUT */

/* docs/design/emulation.md section 2, by the five TOS bits the table reads. */
static unsigned documented_band(uint8_t tos)
{
	uint8_t low = tos & 0x1f;

	if (low <= 0x07)
		return 1;
	if (low <= 0x0f)
		return 2;
	if (low <= 0x17)
		return 0;
	return 1;
}

TEST(tos_to_priority_is_linux_rt_tos2priority)
{
	CHECK_EQ(db_tos_to_priority(0x00), 0); /* best effort */
	CHECK_EQ(db_tos_to_priority(0x02), 0); /* the "min cost" bit does not count */
	CHECK_EQ(db_tos_to_priority(0x08), 2); /* bulk */
	CHECK_EQ(db_tos_to_priority(0x10), 6); /* interactive */
	CHECK_EQ(db_tos_to_priority(0x18), 4); /* interactive bulk */
	CHECK_EQ(db_tos_to_priority(0xff), 4);
	for (int tos = 0; tos < 256; tos++)
		CHECK_EQ(db_tos_to_priority((uint8_t)tos),
			 db_tos_to_priority((uint8_t)(tos & 0x1e)));
}

TEST(every_tos_value_lands_in_the_documented_band)
{
	struct db_pfifo_fast q;
	struct drops d;
	int bad = 0;

	setup(&q, &d, 1000);
	for (int tos = 0; tos < 256; tos++) {
		struct db_pkt pkt = tos_pkt((uint8_t)tos, 100);

		if (!CHECK_EQ(db_pfifo_fast_band(&q, &pkt), documented_band((uint8_t)tos)))
			bad++;
	}
	CHECK_EQ(bad, 0);
}

TEST(dscp_classes_land_in_their_documented_bands)
{
	static const struct {
		uint8_t dscp, band;
	} table[] = {
	    {46, 1},							   /* EF */
	    {10, 2}, {18, 2}, {26, 2}, {34, 2},				   /* AF11 AF21 AF31 AF41 */
	    {12, 0}, {20, 0}, {28, 0}, {36, 0},				   /* AF12 AF22 AF32 AF42 */
	    {14, 1}, {22, 1}, {30, 1}, {38, 1},				   /* AF13 AF23 AF33 AF43 */
	    {8, 1},  {16, 1}, {24, 1}, {32, 1}, {40, 1}, {48, 1}, {56, 1}, /* CS1..CS7 */
	    {0, 1},							   /* default */
	};
	struct db_pfifo_fast q;
	struct drops d;

	setup(&q, &d, 1000);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		for (uint8_t ecn = 0; ecn <= DB_ECN_CE; ecn++) {
			struct db_pkt pkt = tos_pkt((uint8_t)(table[i].dscp << 2 | ecn), 100);

			CHECK_EQ(db_pfifo_fast_band(&q, &pkt), table[i].band);
		}
	}
}

TEST(caller_priority_overrides_tos_and_wraps_at_16)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt pkt;

	setup(&q, &d, 1000);
	pkt = prio_pkt(6, 100);
	pkt.tos = TOS_BAND2;
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 0); /* TC_PRIO_INTERACTIVE, not the TOS */
	pkt = prio_pkt(1, 100);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 2);
	pkt = prio_pkt(16 + 6, 100);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 0); /* priomap[22 & 15] */
	pkt = prio_pkt(0x10007, 100);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 0); /* a classid-like value: priomap[7] */
	pkt = prio_pkt(17, 100);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 2);
}

TEST(bands_are_served_in_strict_priority)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[6] = {tos_pkt(TOS_BAND2, 1), tos_pkt(TOS_BAND1, 2), tos_pkt(TOS_BAND0, 3),
			      tos_pkt(TOS_BAND2, 4), tos_pkt(TOS_BAND1, 5), tos_pkt(TOS_BAND0, 6)};
	const int want[6] = {2, 5, 1, 4, 0, 3};

	setup(&q, &d, 1000);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[i], 0), DB_ENQ_QUEUED);
	for (int i = 0; i < 6; i++)
		CHECK(db_pfifo_fast_dequeue(&q, 0) == &p[want[i]]);
	CHECK(db_pfifo_fast_dequeue(&q, 0) == NULL);
}

TEST(band_zero_arriving_later_still_goes_first)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt bulk[3] = {tos_pkt(TOS_BAND2, 1), tos_pkt(TOS_BAND2, 2),
				 tos_pkt(TOS_BAND2, 3)};
	struct db_pkt ping = tos_pkt(TOS_BAND0, 64);

	setup(&q, &d, 1000);
	for (int i = 0; i < 3; i++)
		db_pfifo_fast_enqueue(&q, &bulk[i], 0);
	CHECK(db_pfifo_fast_dequeue(&q, 1) == &bulk[0]);
	db_pfifo_fast_enqueue(&q, &ping, 2);
	CHECK(db_pfifo_fast_dequeue(&q, 3) == &ping);
	CHECK(db_pfifo_fast_dequeue(&q, 4) == &bulk[1]);
}

TEST(packets_of_one_band_leave_in_arrival_order)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[5];

	setup(&q, &d, 1000);
	for (int i = 0; i < 5; i++) {
		p[i] = tos_pkt(TOS_BAND1, 100 + (uint32_t)i);
		db_pfifo_fast_enqueue(&q, &p[i], (uint64_t)i * 1000);
		CHECK_EQ(p[i].enqueue_ns, (uint64_t)i * 1000);
	}
	for (int i = 0; i < 5; i++)
		CHECK(db_pfifo_fast_dequeue(&q, 9000) == &p[i]);
}

/* docs/design/emulation.md section 3: a 6-packet limit, 2 per band; the third per band is
 * dropped. */
TEST(each_band_holds_txqueuelen_packets_and_drops_the_next)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt b0[3], b1[3], b2[3];
	struct db_qdisc_stats st;

	setup(&q, &d, 2);
	for (int i = 0; i < 3; i++)
		b1[i] = tos_pkt(TOS_BAND1, 1000);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &b1[0], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &b1[1], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &b1[2], 0), DB_ENQ_DROPPED);
	REQUIRE_EQ(d.n, 1);
	CHECK(d.pkt[0] == &b1[2]);
	CHECK_EQ(d.why[0], DB_DROP_OVERLIMIT);

	/* Band 1 is full; bands 0 and 2 still take two each. */
	for (int i = 0; i < 3; i++) {
		b0[i] = tos_pkt(TOS_BAND0, 1000);
		b2[i] = tos_pkt(TOS_BAND2, 1000);
		CHECK_EQ(db_pfifo_fast_enqueue(&q, &b0[i], 0),
			 i < 2 ? DB_ENQ_QUEUED : DB_ENQ_DROPPED);
		CHECK_EQ(db_pfifo_fast_enqueue(&q, &b2[i], 0),
			 i < 2 ? DB_ENQ_QUEUED : DB_ENQ_DROPPED);
	}
	REQUIRE_EQ(d.n, 3);
	CHECK(d.pkt[1] == &b0[2]);
	CHECK(d.pkt[2] == &b2[2]);

	db_pfifo_fast_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 6);
	CHECK_EQ(st.backlog_bytes, 6000);
	CHECK_EQ(st.drops, 3);
	CHECK_EQ(st.overlimits, 3);

	/* Room again once one leaves. */
	CHECK(db_pfifo_fast_dequeue(&q, 0) == &b0[0]);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &b0[2], 0), DB_ENQ_QUEUED);
}

TEST(a_gso_super_packet_counts_as_one_packet)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt gso[3];
	struct db_qdisc_stats st;

	setup(&q, &d, 2);
	for (int i = 0; i < 3; i++) {
		gso[i] = tos_pkt(TOS_BAND1, 64000);
		gso[i].segs = 44;
	}
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &gso[0], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &gso[1], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &gso[2], 0), DB_ENQ_DROPPED);
	db_pfifo_fast_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 2);
	CHECK_EQ(st.backlog_bytes, 128000);
}

TEST(reset_flushes_every_band_through_the_drop_callback)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[3] = {tos_pkt(TOS_BAND0, 10), tos_pkt(TOS_BAND1, 20),
			      tos_pkt(TOS_BAND2, 30)};
	struct db_qdisc_stats st;

	setup(&q, &d, 1000);
	for (int i = 0; i < 3; i++)
		db_pfifo_fast_enqueue(&q, &p[i], 0);
	db_pfifo_fast_reset(&q);
	REQUIRE_EQ(d.n, 3);
	for (int i = 0; i < 3; i++) {
		CHECK(d.pkt[i] == &p[i]);
		CHECK_EQ(d.why[i], DB_DROP_RESET);
	}
	db_pfifo_fast_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	CHECK_EQ(st.backlog_bytes, 0);
	CHECK_EQ(st.drops, 3);
	CHECK_EQ(st.overlimits, 0);
	CHECK(db_pfifo_fast_dequeue(&q, 0) == NULL);

	/* Still usable, params kept. */
	CHECK_EQ(q.params.txqueuelen, 1000);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[2], 1), DB_ENQ_QUEUED);
	CHECK(db_pfifo_fast_dequeue(&q, 1) == &p[2]);
}

TEST(destroy_flushes_what_is_left)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[2] = {tos_pkt(TOS_BAND0, 10), tos_pkt(TOS_BAND2, 30)};

	setup(&q, &d, 1000);
	db_pfifo_fast_enqueue(&q, &p[0], 0);
	db_pfifo_fast_enqueue(&q, &p[1], 0);
	db_pfifo_fast_destroy(&q);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.why[1], DB_DROP_RESET);
}

TEST(drops_without_a_callback_are_still_counted)
{
	struct db_pfifo_fast_params p;
	struct db_pfifo_fast q;
	struct db_pkt a = tos_pkt(0, 1), b = tos_pkt(0, 1);
	struct db_qdisc_stats st;

	db_pfifo_fast_defaults(&p);
	p.txqueuelen = 1;
	REQUIRE_EQ(db_pfifo_fast_init(&q, &p, NULL), 0);
	db_pfifo_fast_enqueue(&q, &a, 0);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &b, 0), DB_ENQ_DROPPED);
	db_pfifo_fast_stats(&q, &st);
	CHECK_EQ(st.drops, 1);
}

TEST(xstats_show_each_band)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[4] = {tos_pkt(TOS_BAND0, 10), tos_pkt(TOS_BAND2, 30),
			      tos_pkt(TOS_BAND2, 40), tos_pkt(TOS_BAND2, 50)};
	struct db_stat xs[16];
	const char *names[9] = {"band0_pkts", "band0_bytes", "band0_drops",
				"band1_pkts", "band1_bytes", "band1_drops",
				"band2_pkts", "band2_bytes", "band2_drops"};
	const uint64_t values[9] = {1, 10, 0, 0, 0, 0, 2, 70, 1};

	setup(&q, &d, 2);
	for (int i = 0; i < 4; i++)
		db_pfifo_fast_enqueue(&q, &p[i], 0);
	REQUIRE_EQ(db_pfifo_fast_xstats(&q, xs, 16), 9);
	for (int i = 0; i < 9; i++) {
		CHECK_STR(xs[i].name, names[i]);
		CHECK_EQ(xs[i].value, values[i]);
	}
	CHECK_EQ(db_pfifo_fast_xstats(&q, xs, 4), 4); /* a short array is not overrun */
	CHECK_EQ(db_pfifo_fast_xstats(&q, xs, 0), 0);
}

static int parse_words(struct db_pfifo_fast_params *p, const char *spec, char *err, size_t n)
{
	char copy[512], *argv[64];
	int argc = 0;

	strcpy(copy, spec);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	return db_pfifo_fast_parse(p, argc, argv, err, n);
}

TEST(priomap_and_txqueuelen_parse_and_take_effect)
{
	struct db_pfifo_fast_params p;
	struct db_pfifo_fast q;
	struct drops d;
	struct db_qdisc_env env = {.drop = record_drop, .ctx = &d};
	struct db_pkt pkt = tos_pkt(TOS_BAND0, 100);
	char err[160] = "";

	memset(&d, 0, sizeof(d));
	db_pfifo_fast_defaults(&p);
	REQUIRE_EQ(parse_words(&p, "txqueuelen 8 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 0", err,
			       sizeof(err)),
		   0);
	CHECK_EQ(p.txqueuelen, 8);
	CHECK_EQ(p.priomap[6], 2);
	CHECK_EQ(p.priomap[15], 0);
	REQUIRE_EQ(db_pfifo_fast_init(&q, &p, &env), 0);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 2); /* interactive now goes to band 2 */
	pkt = prio_pkt(15, 100);
	CHECK_EQ(db_pfifo_fast_band(&q, &pkt), 0);
}

TEST(format_and_parse_round_trip)
{
	struct db_pfifo_fast_params p, again;
	char buf[256], err[160] = "";

	db_pfifo_fast_defaults(&p);
	CHECK(db_pfifo_fast_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(
	    buf,
	    "pfifo_fast txqueuelen 1000 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 ring_batch 16");

	p.txqueuelen = 3;
	p.priomap[0] = 0;
	p.priomap[15] = 2;
	REQUIRE(db_pfifo_fast_format(&p, buf, sizeof(buf)) > 0);
	db_pfifo_fast_defaults(&again);
	REQUIRE_EQ(parse_words(&again, buf + strlen("pfifo_fast "), err, sizeof(err)), 0);
	CHECK(memcmp(&p, &again, sizeof(p)) == 0);
	CHECK_EQ(db_pfifo_fast_format(&p, buf, 10), -ENOSPC);
}

static void check_parse_error(const char *spec, const char *want)
{
	struct db_pfifo_fast_params p, before;
	char err[160] = "";

	db_pfifo_fast_defaults(&p);
	p.txqueuelen = 7; /* something that a partial parse could overwrite */
	before = p;
	CHECK_EQ(parse_words(&p, spec, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, want);
	CHECK(memcmp(&p, &before, sizeof(p)) == 0);
}

TEST(priomap_with_17_values_is_refused)
{
	check_parse_error("txqueuelen 5 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 1",
			  "unknown option \"1\" for pfifo_fast");
}

TEST(priomap_with_15_values_is_refused)
{
	check_parse_error("priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1",
			  "pfifo_fast priomap needs 16 values");
}

TEST(priomap_band_3_is_out_of_range)
{
	check_parse_error("txqueuelen 5 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 3 1 1",
			  "pfifo_fast priomap 3 is out of range (0..2)");
}

TEST(bad_txqueuelen_and_unknown_options_are_refused)
{
	check_parse_error("txqueuelen 0",
			  "pfifo_fast txqueuelen 0 is out of range (1..1000000000)");
	check_parse_error("txqueuelen 1k",
			  "bad value \"1k\" for pfifo_fast txqueuelen: expected an integer");
	check_parse_error("txqueuelen", "pfifo_fast txqueuelen needs 1 value");
	check_parse_error("limit 10", "unknown option \"limit\" for pfifo_fast");
}

TEST(init_refuses_params_that_parse_would_refuse)
{
	struct db_pfifo_fast_params p;
	struct db_pfifo_fast q;

	db_pfifo_fast_defaults(&p);
	p.priomap[3] = 3;
	CHECK_EQ(db_pfifo_fast_init(&q, &p, NULL), -EINVAL);
	db_pfifo_fast_defaults(&p);
	p.txqueuelen = 0;
	CHECK_EQ(db_pfifo_fast_init(&q, &p, NULL), -EINVAL);
}

TEST(ops_table_drives_the_same_discipline)
{
	const struct db_qdisc_ops *ops = &db_pfifo_fast_ops;
	struct db_pfifo_fast_params p;
	struct db_pfifo_fast q;
	struct drops d;
	struct db_qdisc_env env = {.drop = record_drop, .ctx = &d};
	struct db_pkt a = tos_pkt(TOS_BAND2, 10), b = tos_pkt(TOS_BAND0, 20);
	struct db_qdisc_stats st;
	char *argv[] = {"txqueuelen", "4"};
	char err[160];

	memset(&d, 0, sizeof(d));
	CHECK_STR(ops->kind, "pfifo_fast");
	CHECK_EQ(ops->params_size, sizeof(p));
	CHECK_EQ(ops->priv_size, sizeof(q));
	CHECK(ops->next_ns == NULL);
	ops->defaults(&p);
	REQUIRE_EQ(ops->parse(&p, 2, argv, err, sizeof(err)), 0);
	REQUIRE_EQ(ops->init(&q, &p, &env), 0);
	CHECK_EQ(q.params.txqueuelen, 4);
	CHECK_EQ(ops->enqueue(&q, &a, 0), DB_ENQ_QUEUED);
	CHECK_EQ(ops->enqueue(&q, &b, 0), DB_ENQ_QUEUED);
	CHECK(ops->dequeue(&q, 0) == &b);
	ops->stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 1);
	ops->destroy(&q);
	CHECK_EQ(d.n, 1);
}

/*
 * Linux's ptr_ring frees read slots in batches (16 on x86-64): txqueuelen 100, 68
 * packets in, 1 out, 33 in: the 33rd is dropped with 99 queued (Linux 6.12).
 */
TEST(a_band_frees_read_slots_in_batches_as_ptr_ring)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[102];
	int i;

	setup(&q, &d, 100);
	for (i = 0; i < 68; i++) {
		p[i] = tos_pkt(0, 100);
		REQUIRE_EQ(db_pfifo_fast_enqueue(&q, &p[i], 0), DB_ENQ_QUEUED);
	}
	REQUIRE(db_pfifo_fast_dequeue(&q, 0) == &p[0]);
	for (; i < 68 + 32; i++) {
		p[i] = tos_pkt(0, 100);
		REQUIRE_EQ(db_pfifo_fast_enqueue(&q, &p[i], 0), DB_ENQ_QUEUED);
	}
	p[i] = tos_pkt(0, 100);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[i], 0), DB_ENQ_DROPPED);
	CHECK_EQ(q.stats.backlog_pkts, 99);
	/* 14 more out (15 read) free nothing; the 16th read frees the batch of 16 slots */
	for (int k = 0; k < 14; k++)
		REQUIRE(db_pfifo_fast_dequeue(&q, 0));
	p[i + 1] = tos_pkt(0, 100);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[i + 1], 0), DB_ENQ_DROPPED);
	REQUIRE(db_pfifo_fast_dequeue(&q, 0));
	for (int k = 0; k < 16; k++) {
		p[k] = tos_pkt(0, 100); /* those were dequeued: their descriptors are free */
		CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[k], 0), DB_ENQ_QUEUED);
	}
	CHECK_EQ(q.stats.backlog_pkts, 100);
	db_pfifo_fast_destroy(&q);
}

/* Below twice the batch the ring frees every slot at once: an exact FIFO of txqueuelen. */
TEST(a_short_band_is_an_exact_fifo)
{
	struct db_pfifo_fast q;
	struct drops d;
	struct db_pkt p[8];

	setup(&q, &d, 7);
	for (int i = 0; i < 7; i++) {
		p[i] = tos_pkt(0, 100);
		REQUIRE_EQ(db_pfifo_fast_enqueue(&q, &p[i], 0), DB_ENQ_QUEUED);
	}
	REQUIRE(db_pfifo_fast_dequeue(&q, 0) == &p[0]);
	p[0] = tos_pkt(0, 100);
	CHECK_EQ(db_pfifo_fast_enqueue(&q, &p[0], 0), DB_ENQ_QUEUED);
	db_pfifo_fast_destroy(&q);
}
