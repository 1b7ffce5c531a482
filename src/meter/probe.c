/* SPDX-License-Identifier: MIT */
/* probe.c - UDP and ICMP latency probe streams (see probe.h). */
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "meter/probe.h"

/* Our ICMP echo payload: the full sequence number and the send time. */
#define ICMP_HDR     8
#define ICMP_PAYLOAD 12
/* Large enough for any reply we accept: a UDP probe reply, or an IPv4 header + echo. */
#define PROBE_BUF 2048
#ifndef ICMP_FILTER
#define ICMP_FILTER 1 /* <linux/icmp.h>, which clashes with <netinet/ip_icmp.h> */
#endif

uint64_t probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The Internet checksum (RFC 1071), for ICMPv4 echo over a raw socket. */
static uint16_t inet_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int set_tos(int fd, int family, uint8_t tos)
{
	int v = tos;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)) ? -errno : 0;
	return setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)) ? -errno : 0;
}

/* A ping socket where ping_group_range allows it, else a raw socket, else -errno. */
static int open_icmp(struct probe_stream *ps)
{
	int proto = ps->family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	int fd, err;

	fd = socket(ps->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (fd >= 0)
		return fd;
	err = errno;
	fd = socket(ps->family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -(err == EACCES || err == EPERM ? err : errno);
	ps->raw = true;
	ps->echo_id = (uint16_t)((getpid() * 31 + ps->id) & 0xffff);
	if (ps->family == AF_INET) {
		/* Only echo replies reach this socket, not every ICMP message of the host. */
		uint32_t filter = ~(1u << ICMP_ECHOREPLY);

		setsockopt(fd, IPPROTO_RAW, ICMP_FILTER, &filter, sizeof(filter));
	} else {
		struct icmp6_filter filter;

		ICMP6_FILTER_SETBLOCKALL(&filter);
		ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &filter);
		setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof(filter));
	}
	return fd;
}

int probe_open(struct probe_stream *ps, enum probe_kind kind, uint8_t id, uint8_t tos,
	       const struct sockaddr *server, socklen_t server_len, const struct sockaddr *local,
	       socklen_t local_len, uint16_t probe_len)
{
	struct probe_stream s = {.kind = kind, .id = id, .tos = tos, .fd = -1};
	int one = 1, r;

	if (server_len > sizeof(s.server) || probe_len > PROBE_BUF)
		return -EINVAL;
	s.family = server->sa_family;
	memcpy(&s.server, server, server_len);
	s.server_len = server_len;
	s.probe_len = probe_len < PROTO_PROBE_LEN ? PROTO_PROBE_LEN : probe_len;
	if (kind == PROBE_ICMP) {
		/* The port means nothing to ICMP, and a ping socket rejects a nonzero one. */
		if (s.family == AF_INET6)
			((struct sockaddr_in6 *)&s.server)->sin6_port = 0;
		else
			((struct sockaddr_in *)&s.server)->sin_port = 0;
		s.fd = open_icmp(&s);
	} else {
		s.fd = socket(s.family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (s.fd < 0)
			s.fd = -errno;
	}
	if (s.fd < 0)
		return s.fd;
	r = set_tos(s.fd, s.family, tos);
	/* Kernel receive times keep our own scheduling delay out of the RTT. A socket
	 * that cannot give them (qemu-user) still works: rx_time() then reads the
	 * clock after recvmsg, a few microseconds later. */
	if (!r && setsockopt(s.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) &&
	    errno != ENOPROTOOPT)
		r = -errno;
	if (!r && local && bind(s.fd, local, local_len))
		r = -errno;
	/* Connected: the kernel drops datagrams from anyone but the server. */
	if (!r && connect(s.fd, (struct sockaddr *)&s.server, s.server_len))
		r = -errno;
	if (r) {
		close(s.fd);
		return r;
	}
	*ps = s;
	return 0;
}

void probe_close(struct probe_stream *ps)
{
	if (ps->fd >= 0)
		close(ps->fd);
	ps->fd = -1;
}

static int send_icmp(struct probe_stream *ps, uint32_t seq, uint64_t now_ns)
{
	uint8_t pkt[ICMP_HDR + ICMP_PAYLOAD] = {0};
	uint16_t sum;

	pkt[0] = ps->family == AF_INET6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
	pkt[4] = (uint8_t)(ps->echo_id >> 8); /* a ping socket overwrites the id */
	pkt[5] = (uint8_t)ps->echo_id;
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	put_be32(pkt + ICMP_HDR, seq);
	put_be64(pkt + ICMP_HDR + 4, now_ns);
	if (ps->raw && ps->family == AF_INET) { /* else the kernel sums it */
		sum = inet_checksum(pkt, sizeof(pkt));
		pkt[2] = (uint8_t)(sum >> 8);
		pkt[3] = (uint8_t)sum;
	}
	return send(ps->fd, pkt, sizeof(pkt), MSG_DONTWAIT) < 0 ? -errno : 0;
}

int probe_send(struct probe_stream *ps, const uint8_t token[PROTO_TOKEN_LEN], uint32_t seq,
	       uint64_t now_ns)
{
	struct proto_probe p = {.magic = PROTO_PROBE_MAGIC_REQ, .stream = ps->id, .seq = seq};
	uint8_t buf[PROBE_BUF] = {0};
	int n;

	if (ps->kind == PROBE_ICMP)
		return send_icmp(ps, seq, now_ns);
	memcpy(p.token, token, PROTO_TOKEN_LEN);
	p.client_ns = now_ns;
	if (ps->key)
		p.flags = PROTO_PROBE_KEYED;
	n = proto_probe_encode(&p, buf, sizeof(buf));
	if (n < 0)
		return n;
	n = ps->probe_len;
	if (ps->key && n < PROTO_PROBE_LEN + PROTO_MAC_LEN)
		n = PROTO_PROBE_LEN + PROTO_MAC_LEN;
	if (ps->key && proto_probe_sign(buf, (size_t)n, ps->key, ps->keylen) < 0)
		return -EINVAL;
	return send(ps->fd, buf, (size_t)n, MSG_DONTWAIT) < 0 ? -errno : 0;
}

/* The kernel's receive time from the SO_TIMESTAMPNS control message, or now. */
static uint64_t rx_time(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		}
	}
	return probe_now_ns();
}

static int parse_icmp(struct probe_stream *ps, const uint8_t *p, size_t n,
		      struct probe_reply *reply)
{
	uint8_t want = ps->family == AF_INET6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY;
	uint64_t sent;

	if (ps->raw && ps->family == AF_INET) { /* raw IPv4 sockets see the IP header */
		size_t ihl;

		if (n < 20)
			return 2;
		ihl = (size_t)(p[0] & 0x0f) * 4;
		if (ihl < 20 || n < ihl)
			return 2;
		p += ihl;
		n -= ihl;
	}
	if (n < ICMP_HDR + ICMP_PAYLOAD || p[0] != want)
		return 2;
	if (ps->raw && get_be(p + 4, 2) != ps->echo_id)
		return 2;
	reply->seq = (uint32_t)get_be(p + ICMP_HDR, 4);
	sent = get_be(p + ICMP_HDR + 4, 8);
	if (reply->rx_ns < sent)
		return 2;
	reply->rtt_ns = reply->rx_ns - sent;
	return 1;
}

static int parse_udp(struct probe_stream *ps, const uint8_t *p, size_t n, struct probe_reply *reply)
{
	struct proto_probe pr;
	uint64_t held;

	if (ps->key && proto_probe_verify(p, n, ps->key, ps->keylen) < 0)
		return 2;
	if (proto_probe_decode(p, n, &pr) < 0 || pr.magic != PROTO_PROBE_MAGIC_REP ||
	    pr.stream != ps->id || reply->rx_ns < pr.client_ns)
		return 2;
	reply->seq = pr.seq;
	reply->rtt_ns = reply->rx_ns - pr.client_ns;
	/* The server's processing time, when its timestamps make sense. */
	held = pr.server_tx_ns >= pr.server_rx_ns ? pr.server_tx_ns - pr.server_rx_ns : 0;
	if (held < reply->rtt_ns)
		reply->rtt_ns -= held;
	reply->up_ns = (int64_t)(pr.server_rx_ns - pr.client_ns);
	reply->down_ns = (int64_t)(reply->rx_ns - pr.server_tx_ns);
	reply->owd = true;
	return 1;
}

int probe_receive(struct probe_stream *ps, struct probe_reply *reply)
{
	uint8_t buf[PROBE_BUF];
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec)) + 64];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = control.buf,
	    .msg_controllen = sizeof(control.buf),
	};
	struct probe_reply r = {0};
	ssize_t n;
	int ok;

	n = recvmsg(ps->fd, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		/* ICMP errors reported on a connected UDP socket (port unreachable...). */
		if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
			return 2;
		return -errno;
	}
	r.rx_ns = rx_time(&mh);
	ok = ps->kind == PROBE_ICMP ? parse_icmp(ps, buf, (size_t)n, &r)
				    : parse_udp(ps, buf, (size_t)n, &r);
	if (ok == 1)
		*reply = r;
	return ok;
}
