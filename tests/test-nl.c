/* SPDX-License-Identifier: MIT */
/*
 * test-nl.c - src/base/nl.c: attribute parsing against hand-built, malformed messages, and
 * a real rtnetlink dump (links and qdiscs of this namespace; lo is always there).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "harness.h"
#include "host/link.h"
#include "host/qdisc.h"
#include "base/nl.h"

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
