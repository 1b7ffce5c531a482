/* SPDX-License-Identifier: MIT */
/* test-peer.c - a client's address as the servers see it (base/peer.h). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "base/peer.h"
#include "harness.h"

static struct sockaddr_storage v4(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a = (void *)&ss;

	memset(&ss, 0, sizeof(ss));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	inet_pton(AF_INET, ip, &a->sin_addr);
	return ss;
}

static struct sockaddr_storage v6(const char *ip, uint16_t port, uint32_t scope)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *a = (void *)&ss;

	memset(&ss, 0, sizeof(ss));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(port);
	a->sin6_scope_id = scope;
	a->sin6_flowinfo = htonl(7);
	inet_pton(AF_INET6, ip, &a->sin6_addr);
	return ss;
}

TEST(mapped_v4_becomes_v4_without_port)
{
	struct sockaddr_storage in = v6("::ffff:192.0.2.1", 4000, 0), out,
				want = v4("192.0.2.1", 0);
	char ip[INET6_ADDRSTRLEN];

	peer_addr(&in, &out);
	CHECK(!memcmp(&out, &want, sizeof(out)));
	peer_text(&out, ip, sizeof(ip));
	CHECK_STR(ip, "192.0.2.1");
	peer_addr(&in, &in); /* in place */
	CHECK(!memcmp(&in, &want, sizeof(in)));
}

TEST(v6_keeps_ip_and_scope_only)
{
	struct sockaddr_storage in = v6("fe80::1", 4000, 3), out;
	const struct sockaddr_in6 *o = (const void *)&out;
	char ip[INET6_ADDRSTRLEN];

	peer_addr(&in, &out);
	CHECK_EQ(o->sin6_family, AF_INET6);
	CHECK_EQ(o->sin6_port, 0);
	CHECK_EQ(o->sin6_flowinfo, 0);
	CHECK_EQ(o->sin6_scope_id, 3);
	peer_text(&out, ip, sizeof(ip));
	CHECK_STR(ip, "fe80::1");
}

TEST(same_peer)
{
	struct sockaddr_storage a = v4("192.0.2.1", 1), b = v6("::ffff:192.0.2.1", 2, 0);
	struct sockaddr_storage c = v4("192.0.2.2", 1), l1 = v6("fe80::1", 1, 1),
				l1b = v6("fe80::1", 9, 1), l2 = v6("fe80::1", 1, 2), none;

	memset(&none, 0, sizeof(none));
	CHECK(peer_same(&a, &b) && peer_same(&b, &a));
	CHECK(!peer_same(&a, &c));
	CHECK(peer_same(&l1, &l1b));
	CHECK(!peer_same(&l1, &l2)); /* one address on two links: two hosts */
	CHECK(!peer_same(&a, &l1));
	CHECK(!peer_same(&none, &none));
}

TEST(text_of_no_address)
{
	struct sockaddr_storage none;
	char ip[INET6_ADDRSTRLEN];

	memset(&none, 0, sizeof(none));
	peer_text(&none, ip, sizeof(ip));
	CHECK_STR(ip, "?");
}

TEST(same_net_is_a_v6_prefix)
{
	struct sockaddr_storage a = v6("2001:db8:1:2::1", 1, 0),
				b = v6("2001:db8:1:2:ffff::9", 2, 0),
				c = v6("2001:db8:1:3::1", 1, 0), d = v6("2001:db8:1:2::1", 7, 0);
	struct sockaddr_storage x = v4("192.0.2.1", 1), y = v4("192.0.2.2", 1),
				xm = v6("::ffff:192.0.2.1", 5, 0);

	CHECK(peer_same_net(&a, &b, 64) && peer_same_net(&b, &a, 64));
	CHECK(!peer_same_net(&a, &c, 64));
	CHECK(peer_same_net(&a, &c, 63)); /* 2001:db8:1:2 and :3 share 63 bits */
	CHECK(peer_same_net(&a, &c, 60));
	CHECK(!peer_same_net(&a, &b, 128)); /* per address */
	CHECK(!peer_same_net(&a, &b, 0));
	CHECK(peer_same_net(&a, &d, 128));
	/* IPv4: per address whatever the v6 prefix; mapped or not */
	CHECK(!peer_same_net(&x, &y, 64));
	CHECK(!peer_same_net(&x, &y, 1));
	CHECK(peer_same_net(&x, &xm, 64));
	CHECK(!peer_same_net(&x, &a, 64));
}

TEST(same_net_keeps_links_apart)
{
	struct sockaddr_storage l1 = v6("fe80::1", 1, 1), l1b = v6("fe80::2", 1, 1),
				l2 = v6("fe80::2", 1, 2);

	CHECK(peer_same_net(&l1, &l1b, 64));
	CHECK(!peer_same_net(&l1, &l2, 64));
}

TEST(scope_of_addresses)
{
	struct {
		struct sockaddr_storage a;
		enum peer_scope want;
	} cases[] = {
	    {v4("127.0.0.1", 1), PEER_SCOPE_HOST},
	    {v4("127.9.8.7", 1), PEER_SCOPE_HOST},
	    {v4("0.0.0.0", 1), PEER_SCOPE_HOST},
	    {v6("::ffff:127.0.0.1", 1, 0), PEER_SCOPE_HOST},
	    {v6("::1", 1, 0), PEER_SCOPE_HOST},
	    {v6("::", 1, 0), PEER_SCOPE_HOST},
	    {v4("169.254.1.1", 1), PEER_SCOPE_LINK},
	    {v6("fe80::1", 1, 2), PEER_SCOPE_LINK},
	    {v4("192.0.2.1", 1), PEER_SCOPE_GLOBAL},
	    {v4("128.0.0.1", 1), PEER_SCOPE_GLOBAL},
	    {v4("169.253.1.1", 1), PEER_SCOPE_GLOBAL},
	    {v6("2001:db8::1", 1, 0), PEER_SCOPE_GLOBAL},
	    {v6("fec0::1", 1, 0), PEER_SCOPE_GLOBAL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_EQ(peer_scope(&cases[i].a), cases[i].want);
}

/* The key of a network says what peer_same_net says, for every pair and prefix. */
TEST(net_keys_agree_with_same_net)
{
	struct sockaddr_storage a[] = {
	    v4("192.0.2.1", 1),		 v4("192.0.2.1", 2),
	    v4("192.0.2.2", 1),		 v6("::ffff:192.0.2.1", 3, 0),
	    v6("2001:db8::1", 1, 0),	 v6("2001:db8::2", 9, 0),
	    v6("2001:db8:0:1::1", 1, 0), v6("2001:db8:0:0:8000::1", 1, 0),
	    v6("2001:db9::1", 1, 0),	 v6("fe80::1", 1, 2),
	    v6("fe80::1", 1, 3),	 v6("fe80::2", 1, 2),
	};
	struct sockaddr_storage none;
	unsigned bits[] = {0, 1, 48, 56, 63, 64, 65, 127, 128, 200};
	struct peer_net ka, kb;
	int agree = 0, pairs = 0;

	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
		for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			for (size_t j = 0; j < sizeof(a) / sizeof(a[0]); j++) {
				peer_net(&a[i], bits[b], &ka);
				peer_net(&a[j], bits[b], &kb);
				pairs++;
				agree += peer_net_equal(&ka, &kb) ==
					 peer_same_net(&a[i], &a[j], bits[b]);
			}
	CHECK_EQ(agree, pairs);
	/* The cases that matter, spelled out. */
	peer_net(&a[4], 64, &ka);
	peer_net(&a[6], 64, &kb);
	CHECK(!peer_net_equal(&ka, &kb)); /* another /64 */
	peer_net(&a[7], 64, &kb);
	CHECK(peer_net_equal(&ka, &kb)); /* the same /64 */
	peer_net(&a[0], 64, &ka);
	peer_net(&a[3], 64, &kb);
	CHECK(peer_net_equal(&ka, &kb)); /* v4-mapped is v4 */
	memset(&none, 0, sizeof(none));
	peer_net(&none, 64, &ka);
	peer_net(&none, 64, &kb);
	CHECK(!peer_net_equal(&ka, &kb)); /* no address is no one's */
}
