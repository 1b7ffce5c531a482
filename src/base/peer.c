/* SPDX-License-Identifier: MIT */
/* base/peer.c - base/peer.h: a client's address as the servers see it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/peer.h"

void peer_addr(const struct sockaddr_storage *in, struct sockaddr_storage *out)
{
	const struct sockaddr_in6 *a6 = (const void *)in;
	struct sockaddr_in *o4 = (void *)out;
	struct sockaddr_in6 *o6 = (void *)out;
	struct sockaddr_storage tmp;

	if (in == out) {
		tmp = *in;
		in = &tmp;
		a6 = (const void *)in;
	}
	memset(out, 0, sizeof(*out));
	if (in->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
		o4->sin_family = AF_INET;
		memcpy(&o4->sin_addr, &a6->sin6_addr.s6_addr[12], 4);
	} else if (in->ss_family == AF_INET6) {
		o6->sin6_family = AF_INET6;
		o6->sin6_addr = a6->sin6_addr;
		o6->sin6_scope_id = a6->sin6_scope_id;
	} else if (in->ss_family == AF_INET) {
		o4->sin_family = AF_INET;
		o4->sin_addr = ((const struct sockaddr_in *)(const void *)in)->sin_addr;
	}
}

bool peer_same(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	struct sockaddr_storage pa, pb;
	const struct sockaddr_in6 *a6 = (const void *)&pa, *b6 = (const void *)&pb;

	peer_addr(a, &pa);
	peer_addr(b, &pb);
	if (pa.ss_family != pb.ss_family || pa.ss_family == AF_UNSPEC)
		return false;
	if (pa.ss_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)&pa)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)&pb)->sin_addr.s_addr;
	return !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr)) &&
	       a6->sin6_scope_id == b6->sin6_scope_id;
}

bool peer_same_net(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
		   unsigned v6_bits)
{
	struct sockaddr_storage pa, pb;
	const uint8_t *x = ((const struct sockaddr_in6 *)(const void *)&pa)->sin6_addr.s6_addr;
	const uint8_t *y = ((const struct sockaddr_in6 *)(const void *)&pb)->sin6_addr.s6_addr;
	unsigned whole;

	peer_addr(a, &pa);
	peer_addr(b, &pb);
	if (pa.ss_family != AF_INET6 || v6_bits >= 128 || !v6_bits)
		return peer_same(&pa, &pb);
	if (pb.ss_family != AF_INET6 ||
	    ((const struct sockaddr_in6 *)(const void *)&pa)->sin6_scope_id !=
		((const struct sockaddr_in6 *)(const void *)&pb)->sin6_scope_id)
		return false;
	whole = v6_bits / 8;
	if (memcmp(x, y, whole))
		return false;
	return !(v6_bits % 8) || !((x[whole] ^ y[whole]) & (uint8_t)(0xff00u >> (v6_bits % 8)));
}

void peer_net(const struct sockaddr_storage *a, unsigned v6_bits, struct peer_net *out)
{
	const struct sockaddr_in6 *a6 = (const void *)a;
	const uint8_t *ip = a6->sin6_addr.s6_addr;

	memset(out, 0, sizeof(*out));
	out->family = AF_UNSPEC;
	if (a->ss_family == AF_INET) {
		out->family = AF_INET;
		memcpy(out->ip, &((const struct sockaddr_in *)(const void *)a)->sin_addr, 4);
	} else if (a->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
		out->family = AF_INET;
		memcpy(out->ip, ip + 12, 4);
	} else if (a->ss_family == AF_INET6) {
		unsigned bits = v6_bits && v6_bits < 128 ? v6_bits : 128;

		out->family = AF_INET6;
		out->scope = a6->sin6_scope_id;
		memcpy(out->ip, ip, bits / 8);
		if (bits % 8)
			out->ip[bits / 8] = ip[bits / 8] & (uint8_t)(0xff00u >> (bits % 8));
	}
}

bool peer_net_equal(const struct peer_net *a, const struct peer_net *b)
{
	return a->family != AF_UNSPEC && !memcmp(a, b, sizeof(*a));
}

enum peer_scope peer_scope(const struct sockaddr_storage *a)
{
	struct sockaddr_storage p;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)(const void *)&p)->sin6_addr;
	uint32_t a4;

	peer_addr(a, &p);
	if (p.ss_family == AF_INET) {
		a4 = ntohl(((const struct sockaddr_in *)(const void *)&p)->sin_addr.s_addr);
		if ((a4 >> 24) == 127 || a4 == 0)
			return PEER_SCOPE_HOST;
		return (a4 >> 16) == 0xa9fe ? PEER_SCOPE_LINK : PEER_SCOPE_GLOBAL;
	}
	if (p.ss_family != AF_INET6)
		return PEER_SCOPE_GLOBAL;
	if (IN6_IS_ADDR_LOOPBACK(a6) || IN6_IS_ADDR_UNSPECIFIED(a6))
		return PEER_SCOPE_HOST;
	return IN6_IS_ADDR_LINKLOCAL(a6) ? PEER_SCOPE_LINK : PEER_SCOPE_GLOBAL;
}

void peer_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
	const void *ip =
	    a->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)(const void *)a)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr;

	if ((a->ss_family != AF_INET && a->ss_family != AF_INET6) ||
	    !inet_ntop(a->ss_family, ip, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}
