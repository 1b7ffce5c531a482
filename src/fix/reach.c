/* SPDX-License-Identifier: MIT */
/* reach.c - reach.h: an ICMP echo to a peer through one interface, until it answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "fix/reach.h"

static uint16_t checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* One echo request: type, code, checksum, id, sequence, then a little payload. */
static int send_echo(int fd, int family, const struct sockaddr *to, socklen_t tolen, uint16_t id,
		     uint16_t seq)
{
	uint8_t pkt[16] = {0};

	pkt[0] = family == AF_INET ? ICMP_ECHO : ICMP6_ECHO_REQUEST;
	memcpy(pkt + 4, &(uint16_t){htons(id)}, 2);
	memcpy(pkt + 6, &(uint16_t){htons(seq)}, 2);
	memcpy(pkt + 8, "debloat", 8);
	if (family == AF_INET) /* the kernel sums ICMPv6 itself */
		memcpy(pkt + 2, &(uint16_t){checksum(pkt, sizeof(pkt))}, 2);
	return sendto(fd, pkt, sizeof(pkt), 0, to, tolen) < 0 ? -errno : 0;
}

/* Is this datagram the peer's echo reply to us? IPv4 raw sockets see the IP header. */
static int is_reply(const uint8_t *buf, ssize_t n, int family, uint16_t id)
{
	size_t off = 0;

	if (family == AF_INET) {
		if (n < 20)
			return 0;
		off = (size_t)(buf[0] & 0x0f) * 4;
	}
	if (n < 0 || (size_t)n < off + 8)
		return 0;
	if (buf[off] != (family == AF_INET ? ICMP_ECHOREPLY : ICMP6_ECHO_REPLY))
		return 0;
	return buf[off + 4] == (id >> 8) && buf[off + 5] == (id & 0xff);
}

int reach_peer(const char *ifname, const char *peer, unsigned timeout_ms)
{
	struct sockaddr_storage to = {0}, from;
	socklen_t tolen, fromlen;
	int family = strchr(peer, ':') ? AF_INET6 : AF_INET;
	uint16_t id = (uint16_t)(getpid() ^ 0x4442), seq = 0;
	uint64_t end = mono_ns() + (uint64_t)timeout_ms * 1000000, next = 0;
	int fd, r = -ETIMEDOUT;

	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&to;

		s->sin_family = AF_INET;
		tolen = sizeof(*s);
		if (inet_pton(AF_INET, peer, &s->sin_addr) != 1)
			return -EINVAL;
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&to;

		s->sin6_family = AF_INET6;
		tolen = sizeof(*s);
		if (inet_pton(AF_INET6, peer, &s->sin6_addr) != 1)
			return -EINVAL;
	}
	fd = socket(family, SOCK_RAW | SOCK_CLOEXEC,
		    family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname)) < 0) {
		r = -errno;
		goto out;
	}
	for (uint64_t now = mono_ns(); now < end; now = mono_ns()) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint8_t buf[1500];
		ssize_t n;

		if (now >= next) {
			/* A send may fail while the neighbour is unresolved or the link
			 * still down: the next interval tries again. */
			send_echo(fd, family, (struct sockaddr *)&to, tolen, id, ++seq);
			next = now + (uint64_t)REACH_INTERVAL_MS * 1000000;
		}
		if (poll(&pfd, 1, (int)(((next < end ? next : end) - now) / 1000000) + 1) <= 0)
			continue;
		fromlen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from,
			     &fromlen);
		if (n <= 0 || !is_reply(buf, n, family, id))
			continue;
		if (family == AF_INET ? !memcmp(&((struct sockaddr_in *)&from)->sin_addr,
						&((struct sockaddr_in *)&to)->sin_addr, 4)
				      : !memcmp(&((struct sockaddr_in6 *)&from)->sin6_addr,
						&((struct sockaddr_in6 *)&to)->sin6_addr, 16)) {
			r = 0;
			break;
		}
	}
out:
	close(fd);
	return r;
}
