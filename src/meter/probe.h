/* SPDX-License-Identifier: MIT */
/*
 * probe.h - latency probe streams: UDP request/response to `debloat server` and ICMP
 * echo, one socket per stream so each stream keeps its own marking (IP_TOS, or
 * IPV6_TCLASS over IPv6).
 *
 * UDP: each request is a proto_probe carrying the test's token, padded to the granted
 * probe length; the reply carries the server's receive and transmit times, and the
 * round trip is (reply received - request sent) - (server tx - server rx), so the
 * server's own processing time is not counted as network delay.
 *
 * ICMP: an unprivileged ping socket (SOCK_DGRAM + IPPROTO_ICMP, which the kernel allows
 * to the groups in net.ipv4.ping_group_range; it picks the echo id and the checksum), or
 * a raw socket when we are allowed one (root, CAP_NET_RAW). When neither opens,
 * probe_open returns the error and the caller reports the kind as unavailable: there
 * is no silent fallback to another kind of probe.
 *
 * Times are CLOCK_REALTIME nanoseconds, the clock of the kernel's receive timestamps
 * (SO_TIMESTAMPNS): a reply's arrival is taken from the kernel, not from when our loop
 * got round to reading it, which matters under load on a busy machine.
 *
 * With a shared key (set ps->key after probe_open), UDP requests carry the tag of
 * proto_probe_sign and replies without a valid tag are ignored.
 *
 * Sockets are non-blocking; nothing here prints or allocates after probe_open.
 */
#ifndef DEBLOAT_METER_PROBE_H
#define DEBLOAT_METER_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "meter/load-tests.h"
#include "meter/proto.h"

struct probe_stream {
	enum probe_kind kind;
	uint8_t id; /* the stream number sent in UDP requests */
	uint8_t tos;
	int family; /* AF_INET or AF_INET6 */
	int fd;
	bool raw;	    /* ICMP over a raw socket: we filter on our echo id */
	uint16_t echo_id;   /* raw ICMP: our echo id (a ping socket's is the kernel's) */
	uint16_t probe_len; /* UDP request size */
	const uint8_t *key; /* a private server's shared key (UDP), NULL = none */
	size_t keylen;
	struct sockaddr_storage server;
	socklen_t server_len;
};

/* One answered probe. */
struct probe_reply {
	uint32_t seq;
	uint64_t rx_ns;	 /* when the reply arrived (CLOCK_REALTIME) */
	uint64_t rtt_ns; /* round trip less the server's processing time */
	/*
	 * UDP only (owd set): each way's delay plus the offset between the server's clock
	 * and ours, which is the same for every probe of a test: up the server's receive
	 * time less our send time, down our receive time less the server's send time. A
	 * change from idle to loaded is that way's queue; the offset cancels.
	 */
	int64_t up_ns, down_ns;
	bool owd;
};

/*
 * Open stream `id` of `kind` towards server (the UDP port matters for UDP only),
 * marked tos, from source address local (its port 0; NULL: the kernel's choice).
 * -errno: for ICMP, -EPERM/-EACCES when neither a ping socket nor a raw socket is
 * allowed. probe_len is the UDP request size (at least PROTO_PROBE_LEN).
 */
int probe_open(struct probe_stream *ps, enum probe_kind kind, uint8_t id, uint8_t tos,
	       const struct sockaddr *server, socklen_t server_len, const struct sockaddr *local,
	       socklen_t local_len, uint16_t probe_len);
void probe_close(struct probe_stream *ps);

/*
 * Send probe seq stamped now_ns (CLOCK_REALTIME; it comes back in the reply). 0, or
 * -errno (-EAGAIN: the socket buffer is full, the probe counts as lost).
 */
int probe_send(struct probe_stream *ps, const uint8_t token[PROTO_TOKEN_LEN], uint32_t seq,
	       uint64_t now_ns);

/*
 * Read one datagram: 1 and *reply for an answer to one of our probes, 0 when nothing
 * is left to read, 2 for a datagram that was not ours (another host's echo reply on a
 * raw socket, a malformed reply: read again), -errno.
 */
int probe_receive(struct probe_stream *ps, struct probe_reply *reply);

uint64_t probe_now_ns(void);

#endif
