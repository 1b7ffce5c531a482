/* SPDX-License-Identifier: MIT */
/*
 * test-nl.c - src/base/nl.c: attribute parsing against hand-built, malformed messages, and
 * a real rtnetlink dump (links and qdiscs of this namespace; lo is always there).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "base/nl.h"
#include "harness.h"
#include "host/link.h"
#include "host/qdisc.h"

/* A message under construction: nlmsghdr, a family header, then attributes. */
struct msg {
	union {
		struct nlmsghdr nlh;
		unsigned char raw[1024];
	} u;
	size_t len;
};

static void msg_init(struct msg *m, uint16_t type, const void *hdr, size_t hdrlen)
{
	memset(m, 0, sizeof(*m));
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);
	memcpy(m->u.raw + NLMSG_HDRLEN, hdr, hdrlen);
	m->u.nlh.nlmsg_type = type;
	m->u.nlh.nlmsg_len = (uint32_t)m->len;
}

/* nla_len is what the test says, not what the payload is: that is the point. */
static void put_raw_attr(unsigned char *buf, size_t *len, uint16_t type, uint16_t nla_len,
			 const void *data, size_t n)
{
	struct nlattr a = {.nla_len = nla_len, .nla_type = type};

	memcpy(buf + *len, &a, sizeof(a));
	memcpy(buf + *len + sizeof(a), data, n);
	*len += NLA_ALIGN(sizeof(a) + n);
}

static void put_attr(unsigned char *buf, size_t *len, uint16_t type, const void *data, size_t n)
{
	put_raw_attr(buf, len, type, (uint16_t)(sizeof(struct nlattr) + n), data, n);
}

static void msg_put(struct msg *m, uint16_t type, const void *data, size_t n)
{
	put_attr(m->u.raw, &m->len, type, data, n);
	m->u.nlh.nlmsg_len = (uint32_t)m->len;
}

TEST(attributes_are_indexed_by_type)
{
	unsigned char buf[64];
	size_t len = 0;
	const struct nlattr *tb[8];
	uint32_t u32 = 0, v = 1000;
	uint8_t u8 = 0, b = 6;
	char name[16];

	put_attr(buf, &len, 2, &v, sizeof(v));
	put_attr(buf, &len, 3, &b, sizeof(b));
	put_attr(buf, &len, 5, "eth0", 5);
	put_attr(buf, &len, 40, &v, sizeof(v)); /* above maxtype: a newer kernel's, ignored */
	REQUIRE_EQ(nl_attrs(buf, len, tb, 7), 0);
	CHECK(tb[1] == NULL);
	CHECK_EQ(nl_attr_u32(tb[2], &u32), 0);
	CHECK_EQ(u32, 1000);
	CHECK_EQ(nl_attr_u8(tb[3], &u8), 0);
	CHECK_EQ(u8, 6);
	CHECK_EQ(nl_attr_str(tb[5], name, sizeof(name)), 0);
	CHECK_STR(name, "eth0");
	CHECK_EQ(nl_attr_len(tb[5]), 5);
}

TEST(attribute_longer_than_the_buffer_is_ebadmsg)
{
	unsigned char buf[64];
	size_t len = 0;
	const struct nlattr *tb[8];
	uint32_t v = 1;

	put_attr(buf, &len, 1, &v, sizeof(v));
	put_raw_attr(buf, &len, 2, 64, &v, sizeof(v)); /* claims 64 bytes, has 8 */
	CHECK_EQ(nl_attrs(buf, len, tb, 7), -EBADMSG);
}

TEST(attribute_shorter_than_its_header_is_ebadmsg)
{
	unsigned char buf[64];
	size_t len = 0;
	const struct nlattr *tb[8];
	uint32_t v = 1;

	put_raw_attr(buf, &len, 1, 2, &v, sizeof(v)); /* nla_len 2 < 4 */
	CHECK_EQ(nl_attrs(buf, len, tb, 7), -EBADMSG);
}

TEST(trailing_bytes_after_the_last_attribute_are_ebadmsg)
{
	unsigned char buf[64] = {0};
	size_t len = 0;
	const struct nlattr *tb[8];
	uint32_t v = 1;

	put_attr(buf, &len, 1, &v, sizeof(v));
	CHECK_EQ(nl_attrs(buf, len + 3, tb, 7), -EBADMSG);
	/* An unpadded last attribute that ends the buffer is fine. */
	len = 0;
	put_attr(buf, &len, 1, "ab", 3);
	CHECK_EQ(nl_attrs(buf, 4 + 3, tb, 7), 0);
	CHECK(tb[1] != NULL);
	CHECK_EQ(nl_attrs(buf, 0, tb, 7), 0);
	CHECK(tb[1] == NULL);
}

TEST(integers_must_have_exactly_their_size)
{
	unsigned char buf[64];
	size_t len = 0;
	const struct nlattr *tb[8];
	uint64_t v64 = 5;
	uint32_t u32 = 77;
	uint16_t v16 = 9;
	uint64_t u64 = 77;
	uint8_t u8 = 77;

	put_attr(buf, &len, 1, &v16, sizeof(v16));
	put_attr(buf, &len, 2, &v64, sizeof(v64));
	REQUIRE_EQ(nl_attrs(buf, len, tb, 7), 0);
	CHECK_EQ(nl_attr_u32(tb[1], &u32), -EBADMSG); /* 2 bytes where 4 belong */
	CHECK_EQ(nl_attr_u32(tb[2], &u32), -EBADMSG); /* 8 bytes where 4 belong */
	CHECK_EQ(u32, 77);
	CHECK_EQ(nl_attr_u8(tb[1], &u8), -EBADMSG);
	CHECK_EQ(u8, 77);
	CHECK_EQ(nl_attr_u64(tb[1], &u64), -EBADMSG);
	CHECK_EQ(u64, 77);
	CHECK_EQ(nl_attr_u64(tb[2], &u64), 0);
	CHECK_EQ(u64, 5);
	CHECK_EQ(nl_attr_u32(NULL, &u32), -EBADMSG);
	CHECK(nl_attr_data(tb[1], 4) == NULL);
	CHECK(nl_attr_data(tb[2], 4) != NULL);
}

TEST(strings_need_their_nul_and_must_fit)
{
	unsigned char buf[64];
	size_t len = 0;
	const struct nlattr *tb[8];
	char name[8] = "keep";

	put_attr(buf, &len, 1, "eth0", 4); /* no NUL */
	put_attr(buf, &len, 2, "a-long-name", 12);
	put_attr(buf, &len, 3, "", 0);
	REQUIRE_EQ(nl_attrs(buf, len, tb, 7), 0);
	CHECK_EQ(nl_attr_str(tb[1], name, sizeof(name)), -EBADMSG);
	CHECK_EQ(nl_attr_str(tb[2], name, sizeof(name)), -ENAMETOOLONG);
	CHECK_EQ(nl_attr_str(tb[3], name, sizeof(name)), -EBADMSG);
	CHECK_STR(name, "keep");
}

TEST(nested_attributes_are_checked_too)
{
	unsigned char inner[32], outer[64];
	size_t ilen = 0, olen = 0;
	const struct nlattr *tb[4], *nested[4];
	uint32_t v = 3;

	put_attr(inner, &ilen, 1, &v, sizeof(v));
	put_raw_attr(inner, &ilen, 2, 200, &v, sizeof(v)); /* overruns its parent */
	put_attr(outer, &olen, 1, inner, ilen);
	REQUIRE_EQ(nl_attrs(outer, olen, tb, 3), 0);
	CHECK_EQ(nl_nested(tb[1], nested, 3), -EBADMSG);
}

TEST(message_shorter_than_its_family_header_is_rejected)
{
	struct msg m;
	struct ifinfomsg ifi = {.ifi_index = 1};
	const struct nlattr *tb[IFLA_MAX + 1];

	msg_init(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	m.u.nlh.nlmsg_len = NLMSG_HDRLEN + 4; /* cut inside struct ifinfomsg */
	CHECK(nl_msg_header(&m.u.nlh, sizeof(ifi)) == NULL);
	CHECK_EQ(nl_msg_attrs(&m.u.nlh, sizeof(ifi), tb, IFLA_MAX), -EBADMSG);
	struct iface out = {.ifindex = 99};
	CHECK_EQ(link_from_msg(&m.u.nlh, &out), -EBADMSG);
	CHECK_EQ(out.ifindex, 99);
}

TEST(link_message_decodes)
{
	struct ifinfomsg ifi = {.ifi_index = 7};
	unsigned char info[32];
	size_t ilen = 0;
	uint64_t stats[4] = {10, 20, 1000, 2000};
	uint32_t mtu = 1500, qlen = 1000, ntx = 4;
	uint8_t oper = 6;
	struct iface out;
	struct msg m;

	msg_init(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	msg_put(&m, IFLA_IFNAME, "veth0", 6);
	msg_put(&m, IFLA_MTU, &mtu, 4);
	msg_put(&m, IFLA_TXQLEN, &qlen, 4);
	msg_put(&m, IFLA_NUM_TX_QUEUES, &ntx, 4);
	msg_put(&m, IFLA_OPERSTATE, &oper, 1);
	msg_put(&m, IFLA_QDISC, "pfifo", 6);
	put_attr(info, &ilen, IFLA_INFO_KIND, "veth", 5);
	msg_put(&m, IFLA_LINKINFO, info, ilen);
	msg_put(&m, IFLA_STATS64, stats, sizeof(stats));
	REQUIRE_EQ(link_from_msg(&m.u.nlh, &out), 0);
	CHECK_STR(out.name, "veth0");
	CHECK_EQ(out.ifindex, 7);
	CHECK_STR(out.kind, "veth");
	CHECK_STR(out.operstate, "up");
	CHECK_STR(out.root_qdisc, "pfifo");
	CHECK_EQ(out.mtu, 1500);
	CHECK_EQ(out.txqueuelen, 1000);
	CHECK_EQ(out.tx_queues, 4);
	CHECK(out.have_stats);
	CHECK_EQ(out.tx_packets, 20);
	CHECK_EQ(out.tx_bytes, 2000);
}

TEST(link_message_with_a_short_mtu_or_stats_is_ebadmsg)
{
	struct ifinfomsg ifi = {.ifi_index = 7};
	uint16_t short_mtu = 1500;
	uint64_t stats[2] = {0};
	struct iface out = {.ifindex = 5};
	struct msg m;

	msg_init(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	msg_put(&m, IFLA_IFNAME, "veth0", 6);
	msg_put(&m, IFLA_MTU, &short_mtu, 2);
	CHECK_EQ(link_from_msg(&m.u.nlh, &out), -EBADMSG);

	msg_init(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	msg_put(&m, IFLA_IFNAME, "veth0", 6);
	msg_put(&m, IFLA_STATS64, stats, sizeof(stats));
	CHECK_EQ(link_from_msg(&m.u.nlh, &out), -EBADMSG);

	msg_init(&m, RTM_NEWLINK, &ifi, sizeof(ifi)); /* no name at all */
	CHECK_EQ(link_from_msg(&m.u.nlh, &out), -EBADMSG);
	CHECK_EQ(out.ifindex, 5);
}

TEST(real_link_dump_lists_loopback)
{
	struct nl *nl = NULL;
	struct iface *links = NULL;
	size_t n = 0;
	bool found = false;
	int r;

	r = nl_open(&nl);
	if (r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT || r == -EPERM)
		SKIP("no rtnetlink here");
	REQUIRE_EQ(r, 0);
	CHECK_EQ(link_list(nl, &links, &n), 0);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(links[i].name, "lo")) {
			found = true;
			CHECK(links[i].loopback);
			CHECK(links[i].mtu > 0);
		}
	}
	CHECK(found);
	free(links);
	/* The socket stays usable for a second dump of another kind. */
	struct qdisc *qdiscs = NULL;
	size_t nq = 0;
	CHECK_EQ(host_qdisc_list(nl, &qdiscs, &nq), 0);
	free(qdiscs);
	nl_close(nl);
}

static int fail_on_first(const struct nlmsghdr *nlh, void *data)
{
	int *calls = data;

	(*calls)++;
	return -ECANCELED;
}

TEST(callback_error_ends_the_dump_and_the_socket_stays_usable)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nl *nl = NULL;
	struct iface *links = NULL;
	size_t n = 0;
	int calls = 0;

	if (nl_open(&nl) < 0)
		SKIP("no rtnetlink here");
	CHECK_EQ(nl_dump(nl, RTM_GETLINK, &ifi, sizeof(ifi), fail_on_first, &calls), -ECANCELED);
	CHECK_EQ(calls, 1);
	CHECK_EQ(link_list(nl, &links, &n), 0);
	CHECK(n >= 1);
	free(links);
	nl_close(nl);
}

/* ---- the builder, against the uapi layout written out by hand ---- */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_HOST 1
#else
#define LITTLE_ENDIAN_HOST 0
#endif

TEST(builder_lays_out_header_family_header_attributes_and_a_nest)
{
	/*
	 * RTM_NEWQDISC (36), NLM_F_REQUEST|NLM_F_ACK (0x5), seq 7; struct tcmsg (20 bytes:
	 * family, two pads, ifindex 3, handle 1:0, parent root); TCA_KIND "fq_codel" (4 + 9
	 * bytes, padded to 16); TCA_OPTIONS nest (4) around TCA_FQ_CODEL_LIMIT (2) u32 800 (8)
	 * and TCA_FQ_CODEL_ECN (4) u8 1 (5, padded to 8): 16 + 20 + 16 + 20 = 72 bytes.
	 */
	/* clang-format off */
	static const unsigned char want[72] = {
	    0x48, 0, 0, 0, 0x24, 0, 0x05, 0, 7, 0, 0, 0, 0, 0, 0, 0,		   /* nlmsghdr */
	    0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, /* tcmsg */
	    0x0d, 0, 1, 0, 'f', 'q', '_', 'c', 'o', 'd', 'e', 'l', 0, 0, 0, 0,	   /* kind */
	    0x14, 0, 2, 0,							   /* nest */
	    8, 0, 2, 0, 0x20, 0x03, 0, 0, 5, 0, 4, 0, 1, 0, 0, 0,
	};
	/* clang-format on */
	struct tcmsg tcm = {.tcm_ifindex = 3, .tcm_handle = 0x10000, .tcm_parent = TC_H_ROOT};
	unsigned char buf[128];
	struct nlbuf b;
	size_t nest;

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the expected bytes are little-endian");
	memset(buf, 0xaa, sizeof(buf)); /* padding must be written as zeros, not left */
	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWQDISC, NLM_F_REQUEST | NLM_F_ACK, 7, &tcm, sizeof(tcm));
	nlbuf_str(&b, TCA_KIND, "fq_codel");
	nest = nlbuf_nest(&b, TCA_OPTIONS);
	nlbuf_u32(&b, TCA_FQ_CODEL_LIMIT, 800);
	nlbuf_u8(&b, TCA_FQ_CODEL_ECN, 1);
	nlbuf_nest_end(&b, nest);
	REQUIRE_EQ(b.err, 0);
	REQUIRE_EQ(b.len, sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		if (!CHECK_EQ(buf[i], want[i]))
			fprintf(stderr, "  first difference at byte %zu\n", i);
	CHECK_EQ(buf[72], 0xaa); /* nothing past the end */
}

TEST(builder_keeps_each_message_its_own_length)
{
	struct ifinfomsg ifi = {.ifi_index = 1};
	unsigned char buf[256];
	const struct nlmsghdr *first = (const void *)buf, *second;
	struct nlbuf b;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST, 1, &ifi, sizeof(ifi));
	nlbuf_u32(&b, IFLA_MTU, 1500);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST, 2, &ifi, sizeof(ifi));
	nlbuf_u8(&b, IFLA_CARRIER, 1);
	REQUIRE_EQ(b.err, 0);
	CHECK_EQ(first->nlmsg_len, 16 + 16 + 8);
	second = (const void *)(buf + 40);
	CHECK_EQ(second->nlmsg_len, 16 + 16 + 8);
	CHECK_EQ(second->nlmsg_seq, 2);
	CHECK_EQ(b.len, 80);
}

TEST(a_full_buffer_is_enospc_and_drops_the_message_it_broke)
{
	struct ifinfomsg ifi = {.ifi_index = 1};
	unsigned char buf[80];
	const struct nlmsghdr *first = (const void *)buf;
	struct nlbuf b;

	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 1, &ifi, sizeof(ifi)); /* 32 */
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 2, &ifi, sizeof(ifi)); /* 64 */
	nlbuf_u32(&b, IFLA_MTU, 1500);						     /* 72 */
	CHECK_EQ(b.err, 0);
	nlbuf_str(&b, IFLA_IFNAME, "a-name-too-long"); /* 4 + 16 > 8 left */
	CHECK_EQ(b.err, -ENOSPC);
	CHECK_EQ(b.len, 32); /* only the first, whole message is left to send */
	CHECK_EQ(first->nlmsg_len, 32);
	nlbuf_u8(&b, IFLA_CARRIER, 1); /* ignored after the error */
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 3, &ifi, sizeof(ifi));
	CHECK_EQ(b.len, 32);
	CHECK_EQ(b.err, -ENOSPC);
	/* A header that does not fit at all writes nothing. */
	nlbuf_init(&b, buf, 20);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST, 1, &ifi, sizeof(ifi));
	CHECK_EQ(b.err, -ENOSPC);
	CHECK_EQ(b.len, 0);
}

TEST(an_attribute_or_nest_over_64k_is_emsgsize)
{
	size_t cap = 70000;
	unsigned char *buf = calloc(1, cap), *big = calloc(1, 65535);
	struct ifinfomsg ifi = {0};
	struct nlbuf b;
	size_t nest;

	REQUIRE(buf && big);
	nlbuf_init(&b, buf, cap);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST, 1, &ifi, sizeof(ifi));
	nlbuf_attr(&b, IFLA_AF_SPEC, big, 65532); /* nla_len would be 65536 */
	CHECK_EQ(b.err, -EMSGSIZE);
	CHECK_EQ(b.len, 0);

	nlbuf_init(&b, buf, cap);
	nlbuf_msg(&b, RTM_NEWLINK, NLM_F_REQUEST, 1, &ifi, sizeof(ifi));
	nest = nlbuf_nest(&b, IFLA_AF_SPEC);
	nlbuf_attr(&b, 1, big, 65000);
	nlbuf_attr(&b, 2, big, 1000);
	nlbuf_nest_end(&b, nest);
	CHECK_EQ(b.err, -EMSGSIZE);
	CHECK_EQ(b.len, 0);
	free(buf);
	free(big);
}

TEST(a_bare_attribute_stream_keeps_its_first_attribute)
{
	unsigned char buf[64];
	const struct nlattr *tb[4], *inner[4];
	struct nlbuf b;
	uint32_t v = 0;
	size_t nest;

	/* No message: nothing may treat the first attribute as a struct nlmsghdr. */
	nlbuf_init(&b, buf, sizeof(buf));
	nest = nlbuf_nest(&b, 2);
	nlbuf_u32(&b, 1, 11);
	nlbuf_u32(&b, 3, 33);
	nlbuf_u32(&b, 3, 34);
	nlbuf_nest_end(&b, nest);
	REQUIRE_EQ(b.err, 0);
	REQUIRE_EQ(nl_attrs(buf, b.len, tb, 3), 0);
	REQUIRE(tb[2] != NULL);
	CHECK_EQ(nl_attr_len(tb[2]), 24);
	REQUIRE_EQ(nl_nested(tb[2], inner, 3), 0);
	CHECK_EQ(nl_attr_u32(inner[1], &v), 0);
	CHECK_EQ(v, 11);
	CHECK_EQ(nl_attr_u32(inner[3], &v), 0);
	CHECK_EQ(v, 34); /* of two of one type, the table keeps the last */
}

/* ---- the parser ---- */

TEST(walking_sees_every_attribute_and_masks_the_flags)
{
	/* Three attributes by hand: type 1 | NLA_F_NESTED (0x8001) empty, then type 3
	 * twice (u16 7, padded; u16 9, unpadded at the end). */
	/* clang-format off */
	static const unsigned char buf[] = {
	    4, 0, 0x01, 0x80, 6, 0, 3, 0, 7, 0, 0, 0, 6, 0, 3, 0, 9, 0,
	};
	/* clang-format on */
	const struct nlattr *a = NULL;
	uint16_t v[2] = {0};
	unsigned n = 0;
	int r;

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the bytes are little-endian");
	REQUIRE_EQ(nl_attr_next(buf, sizeof(buf), &a), 1);
	CHECK_EQ(nl_attr_type(a), 1);
	CHECK_EQ(nl_attr_len(a), 0);
	while ((r = nl_attr_next(buf, sizeof(buf), &a)) > 0) {
		CHECK_EQ(nl_attr_type(a), 3);
		if (n < 2)
			CHECK_EQ(nl_attr_u16(a, &v[n]), 0);
		n++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(v[0], 7);
	CHECK_EQ(v[1], 9);
	/* Cut inside the last attribute's header, then inside its payload. */
	a = NULL;
	n = 0;
	while ((r = nl_attr_next(buf, sizeof(buf) - 4, &a)) > 0)
		n++;
	CHECK_EQ(r, -EBADMSG);
	CHECK_EQ(n, 2);
	a = NULL;
	while ((r = nl_attr_next(buf, sizeof(buf) - 1, &a)) > 0)
		;
	CHECK_EQ(r, -EBADMSG);
}

TEST(a_malformed_table_is_left_empty)
{
	/* clang-format off */
	static const unsigned char buf[] = {8, 0, 1, 0, 1, 2, 3, 4, 9, 0, 2, 0, 0, 0};
	/* clang-format on */
	const struct nlattr *tb[4] = {0};

	CHECK_EQ(nl_attrs(buf, sizeof(buf), tb, 3), -EBADMSG);
	CHECK(tb[1] == NULL); /* nothing half-indexed for a caller to trust */
}

/* ---- replies: NLMSG_ERROR, extended ack, multipart with NLMSG_DONE ---- */

struct seen {
	unsigned calls;
	uint16_t types[8];
	int fail; /* returned from the callback when non-zero */
};

static int see(const struct nlmsghdr *nlh, void *data)
{
	struct seen *s = data;

	if (s->calls < 8)
		s->types[s->calls] = nlh->nlmsg_type;
	s->calls++;
	return s->fail;
}

TEST(an_error_ack_is_its_errno)
{
	/*
	 * NLMSG_ERROR (2), NLM_F_CAPPED (0x100), seq 9, pid 1234; struct nlmsgerr: error
	 * -ENOENT, then the request's own header (16 bytes, capped: no payload). Before
	 * it, a stale reply (seq 8) that must be skipped.
	 */
	/* clang-format off */
	static const unsigned char buf[] = {
	    0x24, 0, 0, 0, 2, 0, 0, 1, 8, 0, 0, 0, 0xd2, 0x04, 0, 0, /* stale: seq 8 */
	    0xf3, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 0x24, 0, 5, 0, 8, 0, 0, 0, 0, 0, 0, 0,
	    0x24, 0, 0, 0, 2, 0, 0, 1, 9, 0, 0, 0, 0xd2, 0x04, 0, 0, /* seq 9 */
	    0xfe, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 0x24, 0, 5, 0, 9, 0, 0, 0, 0, 0, 0, 0,
	};
	/* clang-format on */
	char msg[32] = "untouched";

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the bytes are little-endian");
	CHECK_EQ(nl_reply(buf, sizeof(buf), 9, 1234, NULL, NULL, NULL, msg, sizeof(msg)), -ENOENT);
	CHECK_STR(msg, "untouched"); /* no NLM_F_ACK_TLVS: no text */
	/* The stale one alone is not the answer: more is to come. */
	CHECK_EQ(nl_reply(buf, 36, 9, 1234, NULL, NULL, NULL, NULL, 0), 1);
	/* Another port's reply is not ours either. */
	CHECK_EQ(nl_reply(buf + 36, 36, 9, 999, NULL, NULL, NULL, NULL, 0), 1);
	/* Cut short: the header says 36, 30 bytes arrived. */
	CHECK_EQ(nl_reply(buf + 36, 30, 9, 1234, NULL, NULL, NULL, NULL, 0), -EBADMSG);
}

TEST(an_ack_of_zero_ends_the_request)
{
	/* clang-format off */
	static const unsigned char buf[] = {
	    0x24, 0, 0, 0, 2, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0x24, 0, 0, 0, 0x24, 0, 5, 0, 4, 0, 0, 0, 0, 0, 0, 0,
	};
	/* clang-format on */
	/* An error too short for struct nlmsgerr is malformed, not success. */
	/* clang-format off */
	static const unsigned char shortack[] = {0x14, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0,
						 0,    0, 0, 0, 0, 0, 0, 0};
	/* clang-format on */

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the bytes are little-endian");
	CHECK_EQ(nl_reply(buf, sizeof(buf), 4, 0, NULL, NULL, NULL, NULL, 0), 0);
	CHECK_EQ(nl_reply(shortack, sizeof(shortack), 4, 0, NULL, NULL, NULL, NULL, 0), -EBADMSG);
}

TEST(extended_ack_text_comes_with_the_errno)
{
	/*
	 * Capped ack with TLVs (flags 0x300): nlmsgerr (-EINVAL, echoed 16-byte header),
	 * then NLMSGERR_ATTR_MSG (1) "bad kind\0" (4 + 9, padded to 16): 16 + 20 + 16 = 52.
	 * The uncapped form echoes the whole request (here 20 bytes: header and 4 of
	 * payload) before the TLVs: 16 + 4 + 20 + 16 = 56.
	 */
	/* clang-format off */
	static const unsigned char capped[] = {
	    0x34, 0, 0, 0, 2, 0, 0, 3, 5, 0, 0, 0, 0, 0, 0, 0,
	    0xea, 0xff, 0xff, 0xff, 0x14, 0, 0, 0, 0x24, 0, 5, 0, 5, 0, 0, 0, 0, 0, 0, 0,
	    0x0d, 0, 1, 0, 'b', 'a', 'd', ' ', 'k', 'i', 'n', 'd', 0, 0, 0, 0,
	};
	/* clang-format on */
	/* clang-format off */
	static const unsigned char full[] = {
	    0x38, 0, 0, 0, 2, 0, 0, 2, 5, 0, 0, 0, 0, 0, 0, 0,
	    0xea, 0xff, 0xff, 0xff, 0x14, 0, 0, 0, 0x24, 0, 5, 0, 5, 0, 0, 0, 0, 0, 0, 0,
	    0x11, 0x22, 0x33, 0x44, 0x0d, 0, 1, 0, 'b', 'a', 'd', ' ', 'k', 'i', 'n', 'd', 0, 0, 0, 0,
	};
	/* clang-format on */
	char msg[32] = "", small[4] = "";

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the bytes are little-endian");
	CHECK_EQ(nl_reply(capped, sizeof(capped), 5, 0, NULL, NULL, NULL, msg, sizeof(msg)),
		 -EINVAL);
	CHECK_STR(msg, "bad kind");
	msg[0] = '\0';
	CHECK_EQ(nl_reply(full, sizeof(full), 5, 0, NULL, NULL, NULL, msg, sizeof(msg)), -EINVAL);
	CHECK_STR(msg, "bad kind");
	/* Truncated to fit, still terminated. */
	CHECK_EQ(nl_reply(capped, sizeof(capped), 5, 0, NULL, NULL, NULL, small, sizeof(small)),
		 -EINVAL);
	CHECK_STR(small, "bad");
}

TEST(a_multipart_dump_runs_until_done)
{
	/*
	 * Datagram one: two RTM_NEWLINK (16) parts, NLM_F_MULTI (0x2), seq 5, each just a
	 * header and a 16-byte ifinfomsg; the second also NLM_F_DUMP_INTR (0x10).
	 * Datagram two: NLMSG_DONE (3) carrying int 0. Then a DONE carrying -ENOBUFS.
	 */
	/* clang-format off */
	static const unsigned char one[] = {
	    0x20, 0, 0, 0, 0x10, 0, 0x02, 0, 5, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0x20, 0, 0, 0, 0x10, 0, 0x12, 0, 5, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* clang-format on */
	/* clang-format off */
	static const unsigned char done[] = {0x14, 0, 0, 0, 3, 0, 2, 0, 5, 0, 0, 0,
					     0,	   0, 0, 0, 0, 0, 0, 0};
	/* clang-format on */
	/* clang-format off */
	static const unsigned char failed[] = {0x14, 0, 0, 0, 3, 0, 2, 0, 5, 0, 0, 0,
					       0,    0, 0, 0, 0x97, 0xff, 0xff, 0xff};
	/* clang-format on */
	/* clang-format off */
	static const unsigned char empty_done[] = {0x10, 0, 0, 0, 3, 0, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0};
	/* clang-format on */
	struct seen s = {0};
	bool intr = false;

	if (!LITTLE_ENDIAN_HOST)
		SKIP("the bytes are little-endian");
	CHECK_EQ(nl_reply(one, sizeof(one), 5, 0, see, &s, &intr, NULL, 0), 1);
	CHECK_EQ(s.calls, 2);
	CHECK_EQ(s.types[0], RTM_NEWLINK);
	CHECK(intr);
	CHECK_EQ(nl_reply(done, sizeof(done), 5, 0, see, &s, NULL, NULL, 0), 0);
	CHECK_EQ(s.calls, 2); /* DONE is not a part */
	CHECK_EQ(nl_reply(failed, sizeof(failed), 5, 0, see, &s, NULL, NULL, 0), -ENOBUFS);
	CHECK_EQ(nl_reply(empty_done, sizeof(empty_done), 5, 0, see, &s, NULL, NULL, 0), 0);
	/* A callback's error stops the walk at once. */
	s = (struct seen){.fail = -ECANCELED};
	CHECK_EQ(nl_reply(one, sizeof(one), 5, 0, see, &s, NULL, NULL, 0), -ECANCELED);
	CHECK_EQ(s.calls, 1);
}

TEST(a_refused_request_is_the_kernels_errno)
{
	/* Deleting the root qdisc of an interface that does not exist changes nothing. */
	struct tcmsg tcm = {
	    .tcm_family = AF_UNSPEC, .tcm_ifindex = 0x7ffffff0, .tcm_parent = TC_H_ROOT};
	unsigned char buf[64];
	char msg[128];
	struct nlbuf b;
	struct nl *nl = NULL;
	size_t done = 99;
	int r;

	if (nl_open(&nl) < 0)
		SKIP("no rtnetlink here");
	nlbuf_init(&b, buf, sizeof(buf));
	nlbuf_msg(&b, RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, 0, &tcm, sizeof(tcm));
	REQUIRE_EQ(b.err, 0);
	r = nl_request(nl, buf, b.len, &done, msg, sizeof(msg));
	if (r == -EPERM) {
		nl_close(nl);
		SKIP("no CAP_NET_ADMIN");
	}
	CHECK_EQ(r, -ENODEV);
	CHECK_EQ(done, 0);
	/* No NLM_F_ACK: refused before anything is sent. */
	((struct nlmsghdr *)(void *)buf)->nlmsg_flags = NLM_F_REQUEST;
	CHECK_EQ(nl_request(nl, buf, b.len, NULL, NULL, 0), -EINVAL);
	nl_close(nl);
}
