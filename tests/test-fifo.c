/* SPDX-License-Identifier: MIT */
/* test-fifo.c - pfifo and bfifo: packet and byte limits, tail drop, counters, options. */
#include <errno.h>
#include <string.h>

#include "debloat/fifo.h"
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

static void setup(struct db_fifo *q, struct drops *d, bool bytes, uint32_t limit)
{
	struct db_fifo_params p;
	struct db_qdisc_env env = {.drop = record_drop, .ctx = d};

	memset(d, 0, sizeof(*d));
	if (bytes)
		db_bfifo_defaults(&p);
	else
		db_pfifo_defaults(&p);
	p.limit = limit;
	db_fifo_init(q, &p, &env);
}

static struct db_pkt frame(uint32_t len)
{
	struct db_pkt pkt = {.len = len, .segs = 1};

	return pkt;
}

/* A TSO super-packet: 44 segments of 1448 B payload behind 66 B of headers. */
static struct db_pkt gso(void)
{
	struct db_pkt pkt = {.len = 44 * 1448 + 44 * 66, .segs = 44};

	return pkt;
}

TEST(defaults_are_txqueuelen_1000_in_packets_and_in_bytes)
{
	struct db_fifo_params p;

	db_pfifo_defaults(&p);
	CHECK_EQ(p.limit, 1000);
	CHECK(!p.limit_in_bytes);
	db_bfifo_defaults(&p);
	CHECK_EQ(p.limit, 1514000);
	CHECK(p.limit_in_bytes);
}

TEST(pfifo_takes_limit_packets_and_drops_at_the_tail)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt p[5];
	struct db_qdisc_stats st;

	setup(&q, &d, false, 3);
	for (int i = 0; i < 5; i++) {
		p[i] = frame(100);
		CHECK_EQ(db_fifo_enqueue(&q, &p[i], 0), i < 3 ? DB_ENQ_QUEUED : DB_ENQ_DROPPED);
	}
	REQUIRE_EQ(d.n, 2);
	CHECK(d.pkt[0] == &p[3]);
	CHECK(d.pkt[1] == &p[4]);
	CHECK_EQ(d.why[0], DB_DROP_OVERLIMIT);
	db_fifo_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 3);
	CHECK_EQ(st.backlog_bytes, 300);
	CHECK_EQ(st.drops, 2);
	CHECK_EQ(st.overlimits, 2);

	CHECK(db_fifo_dequeue(&q, 0) == &p[0]); /* the head was not touched */
	CHECK_EQ(db_fifo_enqueue(&q, &p[3], 0), DB_ENQ_QUEUED);
}

TEST(packets_leave_in_arrival_order_with_their_enqueue_time)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt p[4];

	setup(&q, &d, false, 1000);
	for (int i = 0; i < 4; i++) {
		p[i] = frame(60 + (uint32_t)i);
		db_fifo_enqueue(&q, &p[i], 1000 + (uint64_t)i);
	}
	for (int i = 0; i < 4; i++) {
		struct db_pkt *pkt = db_fifo_dequeue(&q, 5000);

		CHECK(pkt == &p[i]);
		if (pkt)
			CHECK_EQ(pkt->enqueue_ns, 1000 + (uint64_t)i);
	}
	CHECK(db_fifo_dequeue(&q, 5000) == NULL);
}

TEST(pfifo_counts_a_gso_super_packet_as_one)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt g[3] = {gso(), gso(), gso()};
	struct db_qdisc_stats st;

	setup(&q, &d, false, 2);
	CHECK_EQ(db_fifo_enqueue(&q, &g[0], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_fifo_enqueue(&q, &g[1], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_fifo_enqueue(&q, &g[2], 0), DB_ENQ_DROPPED);
	db_fifo_stats(&q, &st);
	CHECK_EQ(st.backlog_bytes, 2 * 66616);
}

TEST(bfifo_limit_is_inclusive_in_bytes)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt a = frame(1514), b = frame(1514), c = frame(1);

	setup(&q, &d, true, 3028);
	CHECK_EQ(db_fifo_enqueue(&q, &a, 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_fifo_enqueue(&q, &b, 0), DB_ENQ_QUEUED);  /* exactly the limit */
	CHECK_EQ(db_fifo_enqueue(&q, &c, 0), DB_ENQ_DROPPED); /* one byte over */
	db_fifo_dequeue(&q, 0);
	CHECK_EQ(db_fifo_enqueue(&q, &c, 0), DB_ENQ_QUEUED);
}

TEST(bfifo_counts_every_byte_of_a_gso_super_packet)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt g1 = gso(), g2 = gso(), small = frame(1514);
	struct db_qdisc_stats st;

	setup(&q, &d, true, 65536 + 66616); /* room for one super-packet and 64 KB */
	CHECK_EQ(db_fifo_enqueue(&q, &g1, 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_fifo_enqueue(&q, &g2, 0), DB_ENQ_DROPPED);
	/* Tail drop judges each packet: a frame that fits still gets in. */
	CHECK_EQ(db_fifo_enqueue(&q, &small, 0), DB_ENQ_QUEUED);
	db_fifo_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 2);
	CHECK_EQ(st.backlog_bytes, 66616 + 1514);
	CHECK_EQ(st.overlimits, 1);
}

TEST(default_bfifo_holds_22_super_packets_where_pfifo_holds_1000)
{
	struct db_fifo b, p;
	struct drops db, dp;
	struct db_pkt g[1001];
	int nb = 0, np = 0;

	setup(&b, &db, true, 1514000);
	setup(&p, &dp, false, 1000);
	for (int i = 0; i < 1001; i++) {
		g[i] = gso();
		nb += db_fifo_enqueue(&b, &g[i], 0) == DB_ENQ_QUEUED;
	}
	db_fifo_reset(&b);
	for (int i = 0; i < 1001; i++)
		np += db_fifo_enqueue(&p, &g[i], 0) == DB_ENQ_QUEUED;
	CHECK_EQ(nb, 22); /* 1514000 / 66616 */
	CHECK_EQ(np, 1000);
	db_fifo_reset(&p);
}

TEST(limit_zero_drops_everything)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt a = frame(1), b = frame(0);

	setup(&q, &d, false, 0);
	CHECK_EQ(db_fifo_enqueue(&q, &a, 0), DB_ENQ_DROPPED);
	setup(&q, &d, true, 0);
	CHECK_EQ(db_fifo_enqueue(&q, &a, 0), DB_ENQ_DROPPED);
	CHECK_EQ(db_fifo_enqueue(&q, &b, 0), DB_ENQ_QUEUED); /* 0 bytes do fit in 0 */
}

TEST(reset_flushes_as_reset_drops_not_overlimits)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt p[3] = {frame(10), frame(20), frame(30)};
	struct db_qdisc_stats st;

	setup(&q, &d, false, 2);
	for (int i = 0; i < 3; i++)
		db_fifo_enqueue(&q, &p[i], 0);
	db_fifo_reset(&q);
	REQUIRE_EQ(d.n, 3);
	CHECK_EQ(d.why[0], DB_DROP_OVERLIMIT);
	CHECK(d.pkt[1] == &p[0]);
	CHECK_EQ(d.why[1], DB_DROP_RESET);
	CHECK(d.pkt[2] == &p[1]);
	CHECK_EQ(d.why[2], DB_DROP_RESET);
	db_fifo_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	CHECK_EQ(st.backlog_bytes, 0);
	CHECK_EQ(st.drops, 3);
	CHECK_EQ(st.overlimits, 1);
	CHECK(db_fifo_dequeue(&q, 0) == NULL);
	CHECK_EQ(db_fifo_enqueue(&q, &p[2], 0), DB_ENQ_QUEUED);
}

TEST(destroy_flushes_and_null_env_only_counts)
{
	struct db_fifo_params p;
	struct db_fifo q;
	struct db_pkt a = frame(10), b = frame(10);
	struct db_qdisc_stats st;

	db_pfifo_defaults(&p);
	p.limit = 1;
	REQUIRE_EQ(db_fifo_init(&q, &p, NULL), 0);
	db_fifo_enqueue(&q, &a, 0);
	CHECK_EQ(db_fifo_enqueue(&q, &b, 0), DB_ENQ_DROPPED);
	db_fifo_destroy(&q);
	db_fifo_stats(&q, &st);
	CHECK_EQ(st.drops, 2);
	CHECK_EQ(st.backlog_pkts, 0);
}

TEST(xstats_report_the_peak_backlog)
{
	struct db_fifo q;
	struct drops d;
	struct db_pkt p[3] = {frame(100), frame(200), frame(300)};
	struct db_stat xs[4];

	setup(&q, &d, false, 10);
	db_fifo_enqueue(&q, &p[0], 0);
	db_fifo_enqueue(&q, &p[1], 0);
	db_fifo_dequeue(&q, 0);
	db_fifo_enqueue(&q, &p[2], 0); /* 2 packets, 500 bytes: the bytes peak now */
	db_fifo_reset(&q);
	REQUIRE_EQ(db_fifo_xstats(&q, xs, 4), 2);
	CHECK_STR(xs[0].name, "peak_backlog_pkts");
	CHECK_EQ(xs[0].value, 2);
	CHECK_STR(xs[1].name, "peak_backlog_bytes");
	CHECK_EQ(xs[1].value, 500);
	CHECK_EQ(db_fifo_xstats(&q, xs, 1), 1);
}

static int parse_words(struct db_fifo_params *p, const char *spec, char *err, size_t n)
{
	char copy[256], *argv[32];
	int argc = 0;

	strcpy(copy, spec);
	for (char *w = strtok(copy, " "); w; w = strtok(NULL, " "))
		argv[argc++] = w;
	return db_fifo_parse(p, argc, argv, err, n);
}

TEST(format_and_parse_round_trip_for_both_kinds)
{
	struct db_fifo_params p, again;
	char buf[64], err[160] = "";

	db_pfifo_defaults(&p);
	REQUIRE(db_fifo_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "pfifo limit 1000");
	db_bfifo_defaults(&p);
	REQUIRE(db_fifo_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "bfifo limit 1514000");

	REQUIRE_EQ(parse_words(&p, "limit 64k", err, sizeof(err)), 0);
	CHECK_EQ(p.limit, 65536);
	REQUIRE(db_fifo_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "bfifo limit 65536");
	db_bfifo_defaults(&again);
	REQUIRE_EQ(parse_words(&again, buf + strlen("bfifo "), err, sizeof(err)), 0);
	CHECK_EQ(again.limit, p.limit);
	CHECK_EQ(again.limit_in_bytes, p.limit_in_bytes);

	db_pfifo_defaults(&p);
	REQUIRE_EQ(parse_words(&p, "limit 17", err, sizeof(err)), 0);
	REQUIRE(db_fifo_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "pfifo limit 17");
	CHECK_EQ(db_fifo_format(&p, buf, 8), -ENOSPC);
}

static void check_parse_error(bool bytes, const char *spec, const char *want)
{
	struct db_fifo_params p, before;
	char err[160] = "";

	if (bytes)
		db_bfifo_defaults(&p);
	else
		db_pfifo_defaults(&p);
	memcpy(&before, &p, sizeof(p));
	CHECK_EQ(parse_words(&p, spec, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, want);
	CHECK(memcmp(&p, &before, sizeof(p)) == 0);
}

TEST(bad_options_are_refused_quoting_the_word)
{
	check_parse_error(false, "limit", "pfifo limit needs 1 value");
	check_parse_error(false, "limit 10 packets", "unknown option \"packets\" for pfifo");
	check_parse_error(false, "limit 64k",
			  "bad value \"64k\" for pfifo limit: expected an integer");
	check_parse_error(false, "limit -5",
			  "bad value \"-5\" for pfifo limit: expected an integer");
	check_parse_error(true, "limit 5xb",
			  "bad value \"5xb\" for bfifo limit: expected a size like 1514 or 64k");
	check_parse_error(true, "limt 5", "unknown option \"limt\" for bfifo");
	check_parse_error(true, "limit 8g",
			  "bad value \"8g\" for bfifo limit: expected a size like 1514 or 64k");
}

TEST(ops_tables_differ_only_in_kind_and_defaults)
{
	struct db_fifo_params p;
	struct db_fifo q;
	struct db_pkt a = frame(1000), b = frame(1000);
	char *argv[] = {"limit", "1500"};
	char err[160];

	CHECK_STR(db_pfifo_ops.kind, "pfifo");
	CHECK_STR(db_bfifo_ops.kind, "bfifo");
	CHECK(db_pfifo_ops.next_ns == NULL);
	CHECK(db_bfifo_ops.enqueue == db_pfifo_ops.enqueue);

	db_bfifo_ops.defaults(&p);
	REQUIRE_EQ(db_bfifo_ops.parse(&p, 2, argv, err, sizeof(err)), 0);
	REQUIRE_EQ(db_bfifo_ops.init(&q, &p, NULL), 0);
	CHECK_EQ(db_bfifo_ops.enqueue(&q, &a, 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_bfifo_ops.enqueue(&q, &b, 0), DB_ENQ_DROPPED); /* 2000 > 1500 bytes */
	db_bfifo_ops.destroy(&q);

	db_pfifo_ops.defaults(&p);
	REQUIRE_EQ(db_pfifo_ops.parse(&p, 2, argv, err, sizeof(err)), 0);
	REQUIRE_EQ(db_pfifo_ops.init(&q, &p, NULL), 0);
	CHECK_EQ(db_pfifo_ops.enqueue(&q, &a, 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_pfifo_ops.enqueue(&q, &b, 0), DB_ENQ_QUEUED); /* 2 of 1500 packets */
	db_pfifo_ops.destroy(&q);
}
