/* SPDX-License-Identifier: MIT */
/*
 * base/peer.h - a client's address as the servers (meter/server.h, http/hserver.h,
 * exporter/http.h) count and bind things to it: its IP alone. A dual-stack socket
 * reports an IPv4 client as a v4-mapped IPv6 address (::ffff:192.0.2.1); made IPv4
 * here, the same client is the same peer whichever socket it came in on. The port is zeroed (a
 * client opens many connections); an IPv6 scope id is kept (fe80::1 on two links are
 * two hosts). Families other than AF_INET and AF_INET6 become AF_UNSPEC.
 */
#ifndef DEBLOAT_BASE_PEER_H
#define DEBLOAT_BASE_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* in as a peer: out is zeroed, then holds the family and IP (see above). */
void peer_addr(const struct sockaddr_storage *in, struct sockaddr_storage *out);

/* Are a and b the same peer (each made a peer first, so raw socket addresses do)? */
bool peer_same(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/*
 * Are a and b in the same network, the unit a server counts its clients in: one host
 * is given a whole IPv6 prefix (a /64 on most links) and picks addresses from it at
 * will, so counting IPv6 clients per address lets one host take every slot. IPv6
 * addresses are compared on their first v6_bits bits (1 to 128; 128 is per address),
 * IPv4 ones on all 32 (a host rarely holds more than one, and a /24 is many
 * neighbours). Link-local addresses compare their scope too.
 */
bool peer_same_net(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
		   unsigned v6_bits);

#define PEER_V6_BITS_DEFAULT 64

/*
 * The network of an address (as peer_same_net sees it) as a key of fixed size, for
 * arrays and tables that are scanned or hashed often: for the same v6_bits,
 * peer_same_net(a, b) exactly when peer_net_equal of their keys. v6_bits 0 or 128 and
 * more key the address itself, which is peer_same. Every byte is set (padding zeroed),
 * so keys may be compared and hashed as bytes.
 */
struct peer_net {
	uint8_t ip[16]; /* IPv4: the first 4 bytes; IPv6: its first v6_bits bits, then 0 */
	uint32_t scope; /* IPv6 scope id, else 0 */
	uint8_t family; /* AF_INET, AF_INET6 or AF_UNSPEC (equal to nothing) */
	uint8_t pad[3];
};

void peer_net(const struct sockaddr_storage *a, unsigned v6_bits, struct peer_net *out);
bool peer_net_equal(const struct peer_net *a, const struct peer_net *b);

/*
 * What an address reaches: this host (loopback, 127.0.0.0/8, ::1, and the unspecified
 * address, which connects to this host), a link (link-local, 169.254.0.0/16, fe80::/10),
 * or beyond. A client that follows URLs a stranger gave it refuses the first two unless
 * the stranger is there itself. v4-mapped IPv6 addresses are their IPv4 address's.
 */
enum peer_scope { PEER_SCOPE_GLOBAL, PEER_SCOPE_HOST, PEER_SCOPE_LINK };
enum peer_scope peer_scope(const struct sockaddr_storage *a);

/* The IP of a (no port, no brackets) into buf, or "?" when it has none. */
void peer_text(const struct sockaddr_storage *a, char *buf, size_t len);

#endif
