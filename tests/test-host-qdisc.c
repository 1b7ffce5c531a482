/* SPDX-License-Identifier: MIT */
/*
 * test-host-qdisc.c - src/host/qdisc.c: each kind's TCA_OPTIONS decoder on golden bytes,
 * malformed options, whole RTM_NEWQDISC messages, and rebuilding trees from handles.
 *
 * The fq_codel, fq and cake bytes are what `tc` sends for the commands quoted above
 * each (captured with `strace -f -e trace=sendmsg -xx`, docs/design/host-tuning.md section 3): the
 * encoding of TCA_OPTIONS is the same in a request and in a dump, and this kernel has
 * none of the three, so a request is the only place to see them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "harness.h"
#include "host/qdisc.h"

static struct qdisc decode(const char *kind, const void *opts, size_t len, int *r)
{
	struct qdisc q = {0};

	strcpy(q.kind, kind);
	*r = host_qdisc_decode_options(&q, opts, len);
	return q;
}

static uint64_t opt(const struct qdisc *q, const char *key)
{
	const struct value *v = host_qdisc_option(q, key);

	return v ? v->u : 0xdeadbeef;
}

TEST(pfifo_and_bfifo_options_are_a_bare_struct)
{
	struct tc_fifo_qopt fifo = {.limit = 1000};
	struct qdisc q;
	int r;

	q = decode("pfifo", &fifo, sizeof(fifo), &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.noptions, 1);
	CHECK_EQ(opt(&q, "limit_packets"), 1000);
	CHECK_EQ(q.options[0].unit, UNIT_PACKETS);
	fifo.limit = 30000;
	q = decode("bfifo", &fifo, sizeof(fifo), &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(opt(&q, "limit_bytes"), 30000);
	CHECK_EQ(q.options[0].unit, UNIT_BYTES);
}

TEST(short_fifo_options_are_ebadmsg_and_decode_nothing)
{
	uint16_t half = 1000;
	struct qdisc q;
	int r;

	q = decode("pfifo", &half, sizeof(half), &r);
	CHECK_EQ(r, -EBADMSG);
	CHECK_EQ(q.noptions, 0);
}

TEST(pfifo_fast_has_bands_and_priomap)
{
	struct tc_prio_qopt prio = {.bands = 3,
				    .priomap = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}};
	const struct value *map;
	struct qdisc q;
	int r;

	q = decode("pfifo_fast", &prio, sizeof(prio), &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(opt(&q, "bands"), 3);
	map = host_qdisc_option(&q, "priomap");
	REQUIRE(map);
	CHECK_EQ(map->type, VALUE_LIST);
	CHECK_EQ(map->nlist, 16);
	CHECK_EQ(map->list[0], 1);
	CHECK_EQ(map->list[6], 0);
	q = decode("pfifo_fast", &prio, sizeof(prio) - 1, &r);
	CHECK_EQ(r, -EBADMSG);
}

/* tc qdisc add dev X root fq_codel limit 800 flows 1024 quantum 300 target 5ms
 *   interval 100ms ecn memory_limit 4Mb drop_batch 64 */
static const unsigned char fq_codel_golden[] = {
    0x08, 0x00, 0x02, 0x00, 0x20, 0x03, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00, 0x00, 0x04, 0x00, 0x00,
    0x08, 0x00, 0x06, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x08, 0x00, 0x03, 0x00, 0xa0, 0x86, 0x01, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x88, 0x13, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x09, 0x00, 0x00, 0x00, 0x40, 0x00, 0x08, 0x00, 0x08, 0x00, 0x40, 0x00, 0x00, 0x00,
};

TEST(fq_codel_golden_bytes)
{
	struct qdisc q;
	int r;

	q = decode("fq_codel", fq_codel_golden, sizeof(fq_codel_golden), &r);
	REQUIRE_EQ(r, 0);
	CHECK_EQ(q.noptions, 8);
	CHECK_EQ(opt(&q, "limit_packets"), 800);
	CHECK_EQ(opt(&q, "flows"), 1024);
	CHECK_EQ(opt(&q, "quantum_bytes"), 300);
	CHECK_EQ(opt(&q, "target_us"), 5000);
	CHECK_EQ(opt(&q, "interval_us"), 100000);
	CHECK_EQ(opt(&q, "ecn"), 1);
	CHECK_EQ(host_qdisc_option(&q, "ecn")->type, VALUE_BOOL);
	CHECK_EQ(opt(&q, "memory_limit_bytes"), 4194304);
	CHECK_EQ(opt(&q, "drop_batch_packets"), 64);
	CHECK(host_qdisc_option(&q, "ce_threshold_us") == NULL);
	/* The table's order, not the wire's: limit first. */
	CHECK_STR(q.options[0].key, "limit_packets");
}

TEST(fq_codel_malformed_is_ebadmsg_and_keeps_nothing)
{
	unsigned char bad[sizeof(fq_codel_golden)];
	struct qdisc q;
	int r;

	/* The second attribute claims more bytes than remain. */
	memcpy(bad, fq_codel_golden, sizeof(bad));
	bad[8] = 0xff;
	q = decode("fq_codel", bad, sizeof(bad), &r);
	CHECK_EQ(r, -EBADMSG);
	CHECK_EQ(q.noptions, 0);
	/* LIMIT with a 2-byte payload: the length is checked before the read. */
	memcpy(bad, fq_codel_golden, sizeof(bad));
	bad[0] = 0x06;
	q = decode("fq_codel", bad, 8, &r);
	CHECK_EQ(r, -EBADMSG);
	CHECK_EQ(q.noptions, 0);
	/* Cut in the middle of an attribute. */
	q = decode("fq_codel", fq_codel_golden, 13, &r);
	CHECK_EQ(r, -EBADMSG);
}

/* tc qdisc add dev X root fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140
 *   maxrate 100mbit buckets 1024 refill_delay 40ms orphan_mask 1023
 *   low_rate_threshold 550kbit ce_threshold 2ms timer_slack 10us horizon 10s horizon_drop */
static const unsigned char fq_golden[] = {
    0x08, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0x10, 0x27, 0x00,
    0x00, 0x08, 0x00, 0x02, 0x00, 0x64, 0x00, 0x00, 0x00, 0x08, 0x00, 0x03, 0x00, 0xd4, 0x0b,
    0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x24, 0x3b, 0x00, 0x00, 0x08, 0x00, 0x07, 0x00, 0x20,
    0xbc, 0xbe, 0x00, 0x08, 0x00, 0x0b, 0x00, 0x8e, 0x0c, 0x01, 0x00, 0x08, 0x00, 0x09, 0x00,
    0x40, 0x9c, 0x00, 0x00, 0x08, 0x00, 0x0a, 0x00, 0xff, 0x03, 0x00, 0x00, 0x08, 0x00, 0x0c,
    0x00, 0xd0, 0x07, 0x00, 0x00, 0x08, 0x00, 0x0d, 0x00, 0x10, 0x27, 0x00, 0x00, 0x08, 0x00,
    0x0e, 0x00, 0x80, 0x96, 0x98, 0x00, 0x05, 0x00, 0x0f, 0x00, 0x01, 0x00, 0x00, 0x00,
};

TEST(fq_golden_bytes)
{
	struct qdisc q;
	int r;

	q = decode("fq", fq_golden, sizeof(fq_golden), &r);
	REQUIRE_EQ(r, 0);
	CHECK_EQ(opt(&q, "limit_packets"), 10000);
	CHECK_EQ(opt(&q, "flow_limit_packets"), 100);
	CHECK_EQ(opt(&q, "quantum_bytes"), 3028);
	CHECK_EQ(opt(&q, "initial_quantum_bytes"), 15140);
	CHECK_EQ(opt(&q, "maxrate_bps"), 100000000);
	CHECK_EQ(opt(&q, "buckets"), 1024);
	CHECK_EQ(opt(&q, "refill_delay_us"), 40000);
	CHECK_EQ(opt(&q, "orphan_mask"), 1023);
	CHECK_EQ(opt(&q, "low_rate_threshold_bps"), 550000);
	CHECK_EQ(opt(&q, "ce_threshold_us"), 2000);
	CHECK_EQ(opt(&q, "timer_slack_ns"), 10000);
	CHECK_EQ(opt(&q, "horizon_us"), 10000000);
	CHECK_EQ(opt(&q, "horizon_drop"), 1); /* a u8, padded to 4 on the wire */
}

TEST(fq_unlimited_rate_and_disabled_ce_threshold_are_left_out)
{
	unsigned char buf[16];
	uint32_t off = ~0U;
	struct nlattr a = {.nla_len = 8, .nla_type = 7}; /* TCA_FQ_FLOW_MAX_RATE */
	struct qdisc q;
	int r;

	memcpy(buf, &a, 4);
	memcpy(buf + 4, &off, 4);
	a.nla_type = 12; /* TCA_FQ_CE_THRESHOLD */
	memcpy(buf + 8, &a, 4);
	memcpy(buf + 12, &off, 4);
	q = decode("fq", buf, sizeof(buf), &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.noptions, 0);
}

/* tc qdisc add dev X root cake bandwidth 95mbit */
static const unsigned char cake_golden[] = {
    0x0c, 0x00, 0x02, 0x00, 0xb8, 0x32, 0xb5, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x08, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,
};

TEST(cake_golden_bytes)
{
	struct qdisc q;
	int r;

	q = decode("cake", cake_golden, sizeof(cake_golden), &r);
	REQUIRE_EQ(r, 0);
	CHECK_EQ(opt(&q, "bandwidth_bps"), 95000000);
	CHECK_EQ(opt(&q, "autorate_ingress"), 0);
}

TEST(unknown_kinds_are_listed_by_name_only)
{
	unsigned char junk[3] = {1, 2, 3};
	struct qdisc q;
	int r;

	q = decode("sfq", junk, sizeof(junk), &r);
	CHECK_EQ(r, 0);
	CHECK_EQ(q.noptions, 0);
}

/* A whole RTM_NEWQDISC: tcmsg, TCA_KIND, TCA_OPTIONS. */
static size_t build_qdisc_msg(unsigned char *buf, uint32_t handle, uint32_t parent,
			      const char *kind, const void *opts, size_t optlen)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct tcmsg tcm = {.tcm_ifindex = 3, .tcm_handle = handle, .tcm_parent = parent};
	struct nlattr a;
	size_t len = NLMSG_HDRLEN;

	memset(buf, 0, 512);
	memcpy(buf + len, &tcm, sizeof(tcm));
	len += NLMSG_ALIGN(sizeof(tcm));
	a.nla_type = TCA_KIND;
	a.nla_len = (uint16_t)(4 + strlen(kind) + 1);
	memcpy(buf + len, &a, 4);
	memcpy(buf + len + 4, kind, strlen(kind) + 1);
	len += NLA_ALIGN(a.nla_len);
	if (opts) {
		a.nla_type = TCA_OPTIONS;
		a.nla_len = (uint16_t)(4 + optlen);
		memcpy(buf + len, &a, 4);
		memcpy(buf + len + 4, opts, optlen);
		len += NLA_ALIGN(a.nla_len);
	}
	nlh->nlmsg_type = RTM_NEWQDISC;
	nlh->nlmsg_len = (uint32_t)len;
	return len;
}

TEST(whole_message_decodes)
{
	unsigned char buf[512];
	struct tc_fifo_qopt fifo = {.limit = 1000};
	struct qdisc q;

	build_qdisc_msg(buf, 0x80010000, TC_H_ROOT, "pfifo", &fifo, sizeof(fifo));
	REQUIRE_EQ(host_qdisc_from_msg((struct nlmsghdr *)buf, &q), 0);
	CHECK_STR(q.kind, "pfifo");
	CHECK_EQ(q.ifindex, 3);
	CHECK_EQ(q.handle, 0x80010000);
	CHECK_EQ(q.parent, TC_H_ROOT);
	CHECK_EQ(q.options_err, 0);
	CHECK_EQ(opt(&q, "limit_packets"), 1000);
}

TEST(message_with_malformed_options_is_listed_with_options_err)
{
	unsigned char buf[512];
	uint16_t half = 7;
	struct qdisc q;

	build_qdisc_msg(buf, 0x80010000, TC_H_ROOT, "pfifo", &half, sizeof(half));
	REQUIRE_EQ(host_qdisc_from_msg((struct nlmsghdr *)buf, &q), 0);
	CHECK_STR(q.kind, "pfifo");
	CHECK_EQ(q.options_err, -EBADMSG);
	CHECK_EQ(q.noptions, 0);
}

TEST(message_without_kind_or_with_a_long_kind_is_ebadmsg)
{
	unsigned char buf[512];
	struct qdisc q = {.ifindex = 42};

	build_qdisc_msg(buf, 0, TC_H_ROOT, "a-kind-name-too-long-for-tc", NULL, 0);
	CHECK_EQ(host_qdisc_from_msg((struct nlmsghdr *)buf, &q), -EBADMSG);
	build_qdisc_msg(buf, 0, TC_H_ROOT, "pfifo", NULL, 0);
	((struct nlmsghdr *)buf)->nlmsg_len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct tcmsg));
	CHECK_EQ(host_qdisc_from_msg((struct nlmsghdr *)buf, &q), -EBADMSG);
	CHECK_EQ(q.ifindex, 42);
}

/* An RTM_NEWTCLASS of htb: TCA_OPTIONS nests TCA_HTB_PARMS (and TCA_HTB_RATE64). */
static size_t build_htb_class(unsigned char *buf, uint32_t handle, uint32_t rate_bytes,
			      uint64_t rate64, size_t parms_len)
{
	unsigned char opts[128] = {0};
	struct tc_htb_opt parms = {.rate = {.rate = rate_bytes}};
	struct nlattr a = {.nla_len = (uint16_t)(4 + parms_len), .nla_type = TCA_HTB_PARMS};
	size_t len;

	memcpy(opts, &a, 4);
	memcpy(opts + 4, &parms, parms_len);
	len = NLA_ALIGN(a.nla_len);
	if (rate64) {
		a.nla_len = 4 + 8;
		a.nla_type = TCA_HTB_RATE64;
		memcpy(opts + len, &a, 4);
		memcpy(opts + len + 4, &rate64, 8);
		len += 12;
	}
	len = build_qdisc_msg(buf, handle, 0x00010000, "htb", opts, len);
	((struct nlmsghdr *)buf)->nlmsg_type = RTM_NEWTCLASS;
	return len;
}

TEST(htb_class_rate_in_bits_per_second)
{
	unsigned char buf[512];
	uint32_t handle = 0;
	uint64_t bps = 7;

	build_htb_class(buf, 0x00010010, 1250000, 0, sizeof(struct tc_htb_opt));
	REQUIRE_EQ(host_class_from_msg((struct nlmsghdr *)buf, &handle, &bps), 0);
	CHECK_EQ(handle, 0x00010010);
	CHECK_EQ(bps, 10000000); /* 1250000 bytes/s */
	/* above 4 GB/s the 32-bit field saturates and TCA_HTB_RATE64 carries it */
	build_htb_class(buf, 0x00010010, UINT32_MAX, 5000000000ULL, sizeof(struct tc_htb_opt));
	REQUIRE_EQ(host_class_from_msg((struct nlmsghdr *)buf, &handle, &bps), 0);
	CHECK_EQ(bps, 40000000000ULL);
	/* a short TCA_HTB_PARMS is malformed, and the rate is left alone */
	bps = 7;
	build_htb_class(buf, 0x00010010, 1250000, 0, 8);
	CHECK_EQ(host_class_from_msg((struct nlmsghdr *)buf, &handle, &bps), -EBADMSG);
	CHECK_EQ(bps, 7);
	/* a class of a kind that does not shape has no rate */
	build_qdisc_msg(buf, 0x00010001, 0x00010000, "prio", NULL, 0);
	CHECK_EQ(host_class_from_msg((struct nlmsghdr *)buf, &handle, &bps), -ENOENT);
}

static struct qdisc flat(int ifindex, const char *kind, uint32_t handle, uint32_t parent)
{
	struct qdisc q = {.ifindex = ifindex, .handle = handle, .parent = parent};

	strcpy(q.kind, kind);
	return q;
}

TEST(tree_of_mq_with_default_children)
{
	/* As the kernel lists a default mq: every handle is 0, children's parents :1, :2. */
	struct qdisc all[] = {
	    flat(2, "pfifo_fast", 0, 0x00000002),
	    flat(2, "mq", 0, TC_H_ROOT),
	    flat(3, "noqueue", 0, TC_H_ROOT),
	    flat(2, "pfifo_fast", 0, 0x00000001),
	    flat(2, "ingress", 0xffff0000, TC_H_INGRESS),
	};
	struct qdisc *root = NULL;

	REQUIRE_EQ(host_qdisc_tree(all, 5, 2, &root), 0);
	CHECK_STR(root->kind, "mq");
	REQUIRE_EQ(root->nchildren, 2);
	CHECK_EQ(root->children[0].parent, 1); /* sorted by queue */
	CHECK_EQ(root->children[1].parent, 2);
	CHECK_EQ(root->children[0].nchildren, 0);
	host_qdisc_free_children(root);
	free(root);
}

TEST(tree_of_htb_with_leaves)
{
	struct qdisc all[] = {
	    flat(5, "htb", 0x00010000, TC_H_ROOT),
	    flat(5, "pfifo", 0x00100000, 0x00010010),
	    flat(5, "fq_codel", 0x00200000, 0x00010020),
	    flat(5, "bfifo", 0x00300000, 0x00200001), /* under fq_codel's class: depth 2 */
	    flat(6, "pfifo", 0x00100000, 0x00010010), /* another device */
	};
	struct qdisc *root = NULL;

	REQUIRE_EQ(host_qdisc_tree(all, 5, 5, &root), 0);
	CHECK_STR(root->kind, "htb");
	REQUIRE_EQ(root->nchildren, 2);
	CHECK_STR(root->children[0].kind, "pfifo");
	CHECK_STR(root->children[1].kind, "fq_codel");
	REQUIRE_EQ(root->children[1].nchildren, 1);
	CHECK_STR(root->children[1].children[0].kind, "bfifo");
	host_qdisc_free_children(root);
	free(root);
	root = (struct qdisc *)0x1;
	CHECK_EQ(host_qdisc_tree(all, 5, 9, &root), -ENOENT);
	CHECK(root == (struct qdisc *)0x1);
}

TEST(handles_format_as_tc_writes_them)
{
	char buf[16];

	host_qdisc_format_handle(TC_H_ROOT, buf, sizeof(buf));
	CHECK_STR(buf, "root");
	host_qdisc_format_handle(0x80010000, buf, sizeof(buf));
	CHECK_STR(buf, "8001:");
	host_qdisc_format_handle(0x00010010, buf, sizeof(buf));
	CHECK_STR(buf, "1:10");
	host_qdisc_format_handle(0, buf, sizeof(buf));
	CHECK_STR(buf, "0:");
}
