/* SPDX-License-Identifier: MIT */
/*
 * test-host-qstats.c - src/host/qstats.c: qdisc statistics out of RTM_NEWQDISC messages.
 *
 * The htb and pfifo messages are a real dump after traffic, recorded with what tc
 * decoded from it (tests/fixtures/netlink/capture-stats.sh). This kernel has no
 * fq_codel, fq or cake, so their xstats are built here field by field from the
 * kernel's uapi layouts (linux/pkt_sched.h), which is also how iproute2 reads them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/rtnetlink.h>

#include "harness.h"
#include "host/qdisc.h"
#include "host/qstats.h"

#define MAX_BYTES 8192

/* ---- the recorded dump ---- */

struct tc_line {
	char kind[16], handle[16], parent[16];
	unsigned long long bytes, packets, drops, overlimits, requeues, backlog, qlen;
};

struct dump {
	struct tc_line tc[8];
	size_t ntc;
	unsigned char msg[8][MAX_BYTES];
	size_t len[8], nmsg;
};

/* From the source tree's top (run.sh), or up from this executable (build/tests/). */
static const char *fixture_dir(void)
{
	return harness_source_dir("tests/fixtures/netlink");
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool load_dump(const char *name, struct dump *d)
{
	char path[PATH_MAX], line[2 * MAX_BYTES + 64];
	const char *dir = fixture_dir();
	FILE *fp;
	bool ok = true;

	memset(d, 0, sizeof(*d));
	if (!dir)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (ok && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# tc: ", 6) && d->ntc < 8) {
			struct tc_line *t = &d->tc[d->ntc++];

			ok =
			    sscanf(line + 6, "%15s %15s %15s %llu %llu %llu %llu %llu %llu %llu",
				   t->kind, t->handle, t->parent, &t->bytes, &t->packets, &t->drops,
				   &t->overlimits, &t->requeues, &t->backlog, &t->qlen) == 10;
		} else if (hexval(line[0]) >= 0 && d->nmsg < 8) {
			size_t n = strlen(line), i;

			if (n % 2 || n / 2 > MAX_BYTES)
				ok = false;
			for (i = 0; ok && i < n; i += 2) {
				int hi = hexval(line[i]), lo = hexval(line[i + 1]);

				ok = hi >= 0 && lo >= 0;
				d->msg[d->nmsg][i / 2] = (unsigned char)(hi << 4 | lo);
			}
			d->len[d->nmsg++] = n / 2;
		}
	}
	fclose(fp);
	return ok;
}

TEST(htb_and_pfifo_counters_are_what_tc_read_from_the_same_dump)
{
	struct dump d;

	REQUIRE(load_dump("stats-htb-pfifo.hex", &d));
	REQUIRE_EQ(d.nmsg, 2);
	REQUIRE_EQ(d.ntc, 2);
	for (size_t i = 0; i < d.nmsg; i++) {
		const struct tc_line *t = NULL;
		char handle[16];
		struct qdisc q;

		REQUIRE_EQ(host_qdisc_from_msg((const struct nlmsghdr *)d.msg[i], &q), 0);
		host_qdisc_format_handle(q.handle, handle, sizeof(handle));
		for (size_t j = 0; j < d.ntc; j++)
			if (!strcmp(d.tc[j].handle, handle))
				t = &d.tc[j];
		REQUIRE(t);
		CHECK_STR(q.kind, t->kind);
		CHECK_EQ(q.stats_err, 0);
		CHECK(q.stats.have);
		CHECK_EQ(q.stats.bytes, t->bytes);
		CHECK_EQ(q.stats.packets, t->packets);
		CHECK_EQ(q.stats.drops, t->drops);
		CHECK_EQ(q.stats.overlimits, t->overlimits);
		CHECK_EQ(q.stats.requeues, t->requeues);
		CHECK_EQ(q.stats.backlog_bytes, t->backlog);
		CHECK_EQ(q.stats.backlog_packets, t->qlen);
		CHECK(q.stats.packets > 0);
		/* htb and pfifo have no xstats we read */
		CHECK_EQ(q.xstats.ecn_marks, -1);
		CHECK_EQ(q.xstats.flows, -1);
	}
}

TEST(the_dump_has_drops_and_overlimits_to_compare)
{
	struct dump d;
	unsigned long long drops = 0, overlimits = 0;

	REQUIRE(load_dump("stats-htb-pfifo.hex", &d));
	for (size_t j = 0; j < d.ntc; j++) {
		drops += d.tc[j].drops;
		overlimits += d.tc[j].overlimits;
	}
	CHECK(drops > 0);
	CHECK(overlimits > 0);
}

/* ---- hand-built TCA_STATS2 payloads ---- */

struct buf {
	unsigned char b[1024];
	size_t len;
};

static size_t put_attr(struct buf *w, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};
	size_t at = w->len;

	memcpy(w->b + w->len, &a, sizeof(a));
	if (len)
		memcpy(w->b + w->len + NLA_HDRLEN, data, len);
	w->len += NLA_ALIGN(NLA_HDRLEN + len);
	return at;
}

/* Close a nest opened at `at` (an attribute written with no payload). */
static void end_nest(struct buf *w, size_t at)
{
	uint16_t len = (uint16_t)(w->len - at);

	memcpy(w->b + at, &len, sizeof(len));
}

static void put_basic(struct buf *w, uint64_t bytes, uint32_t packets)
{
	unsigned char basic[16] = {0};

	memcpy(basic, &bytes, 8);
	memcpy(basic + 8, &packets, 4);
	put_attr(w, 1, basic, sizeof(basic)); /* TCA_STATS_BASIC */
}

static void put_queue(struct buf *w, const uint32_t q[5])
{
	put_attr(w, 3, q, 5 * sizeof(uint32_t)); /* TCA_STATS_QUEUE */
}

static struct qdisc decode(const char *kind, const struct buf *w, int *r)
{
	struct qdisc q = {0};

	snprintf(q.kind, sizeof(q.kind), "%s", kind);
	*r = qstats_decode(&q, w->b, w->len, NULL, 0);
	return q;
}

TEST(pkt64_is_believed_over_the_32_bit_packet_count)
{
	struct buf w = {0};
	uint64_t pkt64 = 9357292602ULL; /* more than 2^32: the basic struct's count wrapped */
	uint32_t queue[5] = {3, 4500, 7, 1, 9};
	struct qdisc q;
	int r;

	put_basic(&w, 1ULL << 40, (uint32_t)pkt64);
	put_queue(&w, queue);
	put_attr(&w, 8, &pkt64, sizeof(pkt64)); /* TCA_STATS_PKT64 */
	q = decode("pfifo", &w, &r);
	CHECK_EQ(r, 0);
	CHECK(q.stats.have);
	CHECK_EQ(q.stats.bytes, 1ULL << 40);
	CHECK_EQ(q.stats.packets, 9357292602ULL);
	CHECK_EQ(q.stats.backlog_packets, 3);
	CHECK_EQ(q.stats.backlog_bytes, 4500);
	CHECK_EQ(q.stats.drops, 7);
	CHECK_EQ(q.stats.requeues, 1);
	CHECK_EQ(q.stats.overlimits, 9);
}

TEST(fq_codel_xstats_fields_by_their_offsets)
{
	/* struct tc_fq_codel_xstats: type 0, then maxpacket, drop_overlimit, ecn_mark,
	 * new_flow_count, new_flows_len, old_flows_len, ce_mark, memory_usage,
	 * drop_overmemory */
	uint32_t x[10] = {0, 1514, 11, 22, 33, 2, 5, 44, 65536, 55};
	struct buf w = {0};
	struct qdisc q;
	int r;

	put_basic(&w, 100, 1);
	put_attr(&w, 4, x, sizeof(x)); /* TCA_STATS_APP */
	q = decode("fq_codel", &w, &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.xstats.drop_overlimit, 11);
	CHECK_EQ(q.xstats.ecn_marks, 22);
	CHECK_EQ(q.xstats.new_flow_count, 33);
	CHECK_EQ(q.xstats.flows, 7);
	CHECK_EQ(q.xstats.ce_marks, 44);
	CHECK_EQ(q.xstats.memory_used_bytes, 65536);
	CHECK_EQ(q.xstats.drop_overmemory, 55);
	CHECK_EQ(q.xstats.throttled, -1);
}

TEST(an_older_kernels_shorter_fq_codel_struct_leaves_the_rest_unknown)
{
	/* up to old_flows_len only (before ce_mark and memory_usage existed) */
	uint32_t x[7] = {0, 1514, 11, 22, 33, 2, 5};
	struct buf w = {0};
	struct qdisc q;
	int r;

	put_basic(&w, 100, 1);
	put_attr(&w, 4, x, sizeof(x));
	q = decode("fq_codel", &w, &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.xstats.ecn_marks, 22);
	CHECK_EQ(q.xstats.flows, 7);
	CHECK_EQ(q.xstats.ce_marks, -1);
	CHECK_EQ(q.xstats.memory_used_bytes, -1);
}

TEST(fq_codel_class_xstats_are_not_a_qdiscs)
{
	uint32_t x[10] = {1, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct buf w = {0};
	struct qdisc q;
	int r;

	put_basic(&w, 100, 1);
	put_attr(&w, 4, x, sizeof(x));
	q = decode("fq_codel", &w, &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.xstats.ecn_marks, -1);
}

TEST(fq_xstats_throttled_flows_and_ce_marks)
{
	unsigned char x[120] = {0}; /* struct tc_fq_qd_stats with room to spare */
	uint64_t throttled = 123456, ce = 77;
	uint32_t flows = 9, tflows = 2;
	struct buf w = {0};
	struct qdisc q;
	int r;

	memcpy(x + 24, &throttled, 8);
	memcpy(x + 64, &flows, 4);
	memcpy(x + 72, &tflows, 4);
	memcpy(x + 80, &ce, 8);
	put_basic(&w, 100, 1);
	put_attr(&w, 4, x, sizeof(x));
	q = decode("fq", &w, &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.xstats.throttled, 123456);
	CHECK_EQ(q.xstats.flows, 9);
	CHECK_EQ(q.xstats.throttled_flows, 2);
	CHECK_EQ(q.xstats.ce_marks, 77);
	CHECK_EQ(q.xstats.ecn_marks, -1);
}

TEST(cake_xstats_sum_their_tins)
{
	struct buf w = {0};
	uint32_t mem = 40000, v;
	size_t app, tins, tin;
	struct qdisc q;
	int r;

	put_basic(&w, 100, 1);
	app = put_attr(&w, 4, NULL, 0);	    /* TCA_STATS_APP */
	put_attr(&w, 3, &mem, sizeof(mem)); /* TCA_CAKE_STATS_MEMORY_USED */
	tins = put_attr(&w, 9, NULL, 0);    /* TCA_CAKE_STATS_TIN_STATS */
	for (uint16_t t = 1; t <= 3; t++) {
		tin = put_attr(&w, t, NULL, 0);
		v = 10 * t;
		put_attr(&w, 7, &v, sizeof(v)); /* ECN_MARKED_PACKETS */
		v = t;
		put_attr(&w, 20, &v, sizeof(v)); /* SPARSE_FLOWS */
		put_attr(&w, 21, &v, sizeof(v)); /* BULK_FLOWS */
		v = 0;
		put_attr(&w, 22, &v, sizeof(v)); /* UNRESPONSIVE_FLOWS */
		end_nest(&w, tin);
	}
	end_nest(&w, tins);
	end_nest(&w, app);
	q = decode("cake", &w, &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.xstats.memory_used_bytes, 40000);
	CHECK_EQ(q.xstats.ecn_marks, 60);
	CHECK_EQ(q.xstats.flows, 12);
	CHECK_EQ(q.xstats.drop_overlimit, -1);
}

TEST(malformed_statistics_are_ebadmsg_and_leave_nothing_half_decoded)
{
	uint32_t short_queue[3] = {1, 2, 3};
	uint32_t x[1] = {0};
	struct buf w = {0};
	struct qdisc q;
	int r;

	put_basic(&w, 100, 1);
	put_attr(&w, 3, short_queue, sizeof(short_queue));
	q = decode("pfifo", &w, &r);
	CHECK_EQ(r, -EBADMSG);
	CHECK(!q.stats.have);
	CHECK_EQ(q.stats.bytes, 0);

	memset(&w, 0, sizeof(w));
	put_basic(&w, 100, 1);
	put_attr(&w, 4, x, 2); /* fq_codel xstats without even its type */
	q = decode("fq_codel", &w, &r);
	CHECK_EQ(r, -EBADMSG);
	CHECK(!q.stats.have);
	CHECK_EQ(q.xstats.ecn_marks, -1);

	memset(&w, 0, sizeof(w));
	w.len = 3; /* not even an attribute header */
	q = decode("pfifo", &w, &r);
	CHECK_EQ(r, -EBADMSG);
}
