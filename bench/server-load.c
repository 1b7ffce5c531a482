/* SPDX-License-Identifier: MIT */
/*
 * server-load.c - many ping clients at once against one latency server, for
 * bench-server-scale.sh: N clients, each from its own loopback address (127.10.x.y),
 * send UDP probes at a fixed total rate, spread evenly, for a given time; then it
 * prints one JSON line with what it saw:
 *
 *   server-load debloat|irtt PORT CLIENTS RATE SECONDS
 *   {"clients":N,"ready":N,"sent":S,"received":R,"loss_pct":..,"rtt_us":{"p50":..,
 *    "p90":..,"p99":..,"max":..},"proc_us":{"p50":..,"p90":..,"p99":..,"max":..},
 *    "setup_s":..}
 *
 * The UDP side is one socket for all clients: each datagram leaves from its client's
 * address (IP_PKTINFO's source), and a reply finds its client by the address it was
 * sent to (IP_PKTINFO on receipt); ten thousand clients then need ten thousand
 * descriptors (their TCP control connections), not twenty.
 *
 * debloat: each client opens a test (HELLO over TCP from its address, step 10 s so the
 * control connections stay quiet; WELCOME gives its token), then sends proto.h probes.
 * Clients open WAVE at a time, a wave's HELLOs sent before its WELCOMEs are read; every
 * 3 s of opening, each client ready sends one probe, so that no test idles out before
 * the measurement (those probes and their replies are not counted).
 * irtt: each client opens a connection of irtt's protocol (version 1: an open request
 * with its parameters, the reply with a connection token; little-endian fields) asking
 * for dual monotonic timestamps, then sends echo requests of 32 bytes. Both reply
 * sizes are close (50 and 32 bytes) and both are answered from one UDP port.
 *
 * Probes fall due at the total rate; when this process loses its CPU for more than
 * 5 ms, the probes it missed are skipped, not sent at once (a burst is not what a
 * client does, and it would meet ours' per-test rate limit, which irtt lacks).
 *
 * rtt_us: the kernel's receive time of the reply (SO_TIMESTAMPNS) less the send time,
 * server time included. proc_us: the server's own account of the time between its
 * receive and send timestamps (ours: from the kernel's receive timestamp, socket queue
 * included; irtt's: after its read returned).
 *
 * A bench tool only: no error reporting beyond a line on stderr and exit 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "meter/proto.h"

#define RING	 64  /* sends remembered per client, by seq */
#define WAVE	 200 /* clients opening at once */
#define MAX_SAMP (8u << 20)
#define SLIP_NS	 5000000ULL /* 5 ms */

enum kind { DEBLOAT, IRTT };

struct client {
	int tcp;
	struct sockaddr_in addr;
	uint8_t token[PROTO_TOKEN_LEN]; /* debloat: 16 bytes; irtt: the first 8 */
	int ready;
	uint32_t seq;
	uint64_t sent_ns[RING];
	uint32_t sent_seq[RING];
};

static enum kind kind;
static int udp; /* every client's probes */
static struct sockaddr_in server;
static struct client *cl;
static unsigned nclients;
static uint64_t *rtt, *proc;
static size_t nrtt, nproc;
static uint64_t nsent, nrecv;

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "server-load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A signed varint (zig-zag) as Go's encoding/binary writes it. */
static size_t put_varint(uint8_t *p, int64_t v)
{
	uint64_t u = (uint64_t)v << 1 ^ (uint64_t)(v >> 63);
	size_t n = 0;

	while (u >= 0x80) {
		p[n++] = (uint8_t)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (uint8_t)u;
	return n;
}

static const uint8_t irtt_magic[3] = {0x14, 0xa7, 0x5b};
enum { IRTT_OPEN = 1, IRTT_REPLY = 2, IRTT_CLOSE = 4 };
#define IRTT_ECHO_LEN 32 /* magic 3, flags 1, token 8, seqno 4, rmono 8, smono 8 */

/* An irtt open request: protocol 1, interval, length 32, stamps at both ends, mono. */
static size_t irtt_open(uint8_t *b, uint64_t interval_ns, uint64_t duration_ns, int close)
{
	size_t n = 4;

	memcpy(b, irtt_magic, 3);
	b[3] = IRTT_OPEN | (close ? IRTT_CLOSE : 0);
	b[n++] = 1; /* protocol version */
	n += put_varint(b + n, 1);
	b[n++] = 2; /* duration */
	n += put_varint(b + n, (int64_t)duration_ns);
	b[n++] = 3; /* interval */
	n += put_varint(b + n, (int64_t)interval_ns);
	b[n++] = 4; /* length */
	n += put_varint(b + n, IRTT_ECHO_LEN);
	b[n++] = 6; /* stamp at: both */
	n += put_varint(b + n, 3);
	b[n++] = 7; /* clock: monotonic */
	n += put_varint(b + n, 2);
	return n;
}

static int bound_socket(int type, const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	if (bind(fd, (const struct sockaddr *)a, sizeof(*a)) < 0)
		die("bind");
	return fd;
}

/* One datagram from client c's address. */
static ssize_t udp_send(const struct client *c, const uint8_t *b, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)b, .iov_len = len};
	struct msghdr mh = {.msg_name = &server,
			    .msg_namelen = sizeof(server),
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	struct cmsghdr *cm;
	struct in_pktinfo pi = {.ipi_spec_dst = c->addr.sin_addr};

	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_PKTINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	return sendmsg(udp, &mh, 0);
}

/* The client a datagram was sent to: 127.10.x.y, x = 1 + i / 250, y = 1 + i % 250. */
static struct client *client_of(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr), x = h >> 8 & 0xff, y = h & 0xff;
	uint32_t i;

	if ((h >> 16) != (127u << 8 | 10u) || x < 1 || y < 1 || y > 250)
		return NULL;
	i = (x - 1) * 250 + (y - 1);
	return i < nclients ? &cl[i] : NULL;
}

/* Read one datagram: its bytes in b, its client, the kernel's receive time. 0 when
 * nothing is left, -1 for a datagram of no client of ours. */
static ssize_t udp_recv(uint8_t *b, size_t cap, struct client **c, uint64_t *rx)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec)) +
			 CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = b, .iov_len = cap};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	ssize_t n = recvmsg(udp, &mh, MSG_DONTWAIT);

	*c = NULL;
	*rx = 0;
	if (n <= 0)
		return 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			*rx = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		} else if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			*c = client_of(pi.ipi_addr);
		}
	}
	if (!*rx)
		*rx = real_ns();
	return *c ? n : -1;
}

static int wait_fd(int fd, short ev, int ms)
{
	struct pollfd p = {.fd = fd, .events = ev};

	return poll(&p, 1, ms) == 1;
}

static void hello_send(struct client *c, uint32_t interval_us, uint32_t duration_ms)
{
	struct proto_msg m = {.type = PROTO_HELLO};
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	int n;

	m.u.hello.version = PROTO_VERSION;
	m.u.hello.duration_ms = duration_ms;
	m.u.hello.interval_us = interval_us;
	m.u.hello.probe_len = PROTO_PROBE_LEN;
	m.u.hello.step_ms = 10000;
	n = proto_encode(&m, buf, sizeof(buf));
	if (n < 0 || send(c->tcp, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return;
}

/* The WELCOME, once a whole frame is in; -1 on anything else. */
static int welcome_read(struct client *c)
{
	uint8_t buf[PROTO_FRAME_HDR + PROTO_MAX_BODY];
	struct proto_msg m;
	ssize_t n = recv(c->tcp, buf, sizeof(buf), MSG_PEEK);

	if (n <= 0)
		return n < 0 && errno == EAGAIN ? 0 : -1;
	n = proto_decode(buf, (size_t)n, &m);
	if (n <= 0)
		return n;
	if (recv(c->tcp, buf, (size_t)n, 0) != n || m.type != PROTO_WELCOME)
		return -1;
	memcpy(c->token, m.u.welcome.token, PROTO_TOKEN_LEN);
	return 1;
}

/* Open replies of irtt's server waiting on the socket: the clients they make ready. */
static unsigned irtt_replies_read(void)
{
	unsigned ready = 0;
	uint8_t b[256];
	struct client *c;
	uint64_t rx;
	ssize_t n;

	while ((n = udp_recv(b, sizeof(b), &c, &rx)) != 0) {
		if (n < 12 || memcmp(b, irtt_magic, 3) || !(b[3] & IRTT_OPEN) ||
		    !(b[3] & IRTT_REPLY) || (b[3] & IRTT_CLOSE) || c->ready)
			continue;
		memcpy(c->token, b + 4, 8);
		c->ready = 1;
		ready++;
	}
	return ready;
}

/* The WELCOMEs of clients [w, end) until `until`: the number that got one. */
static unsigned welcomes_read(unsigned w, unsigned end, uint64_t until)
{
	struct pollfd pf[WAVE];
	unsigned idx[WAVE], got = 0;
	uint8_t failed[WAVE] = {0};

	while (mono_ns() < until) {
		nfds_t n = 0;

		for (unsigned i = w; i < end; i++)
			if (!cl[i].ready && !failed[i - w]) {
				pf[n] = (struct pollfd){.fd = cl[i].tcp, .events = POLLIN};
				idx[n++] = i;
			}
		if (!n || poll(pf, n, 100) < 0)
			break;
		for (nfds_t k = 0; k < n; k++) {
			struct client *c = &cl[idx[k]];
			int r;

			if (!pf[k].revents)
				continue;
			r = welcome_read(c);
			if (r == 1) {
				c->ready = 1;
				got++;
			} else if (r < 0) {
				failed[idx[k] - w] = 1;
			}
		}
	}
	return got;
}

static void probe_send(struct client *c);

/* Read and drop what comes to the UDP socket for ms milliseconds. */
static void drain_for(int ms)
{
	uint64_t until = mono_ns() + (uint64_t)ms * 1000000;
	uint8_t b[256];
	struct client *c;
	uint64_t rx;

	while (mono_ns() < until) {
		wait_fd(udp, POLLIN, 10);
		while (udp_recv(b, sizeof(b), &c, &rx) != 0)
			;
	}
}

/* One probe from every client ready so far: a server that ends idle tests (ours after
 * 10 s) keeps those opened first while the rest open. Not measured (see main). */
static void keepalive(void)
{
	for (unsigned i = 0; i < nclients; i++)
		if (cl[i].ready)
			probe_send(&cl[i]);
}

/* Open every client, WAVE at a time; the number ready. */
static unsigned open_all(uint32_t interval_us, uint32_t seconds)
{
	unsigned ready = 0;
	uint64_t kept = mono_ns();

	for (unsigned w = 0; w < nclients; w += WAVE) {
		if (mono_ns() - kept > 3000000000ULL) {
			keepalive();
			kept = mono_ns();
		}
		unsigned end = w + WAVE < nclients ? w + WAVE : nclients, got = 0;
		uint64_t until;

		for (unsigned i = w; i < end; i++) {
			struct client *c = &cl[i];

			if (kind == DEBLOAT) {
				c->tcp = bound_socket(SOCK_STREAM, &c->addr);
				if (connect(c->tcp, (struct sockaddr *)&server, sizeof(server)) <
					0 &&
				    errno != EINPROGRESS)
					die("connect");
			} else {
				uint8_t b[128];
				size_t n = irtt_open(b, (uint64_t)interval_us * 1000,
						     (uint64_t)(seconds + 30) * 1000000000ULL, 0);

				udp_send(c, b, n);
			}
		}
		until = mono_ns() + 5000000000ULL;
		if (kind == IRTT) {
			while (got < end - w && mono_ns() < until) {
				got += irtt_replies_read();
				if (got < end - w)
					wait_fd(udp, POLLIN, 100);
			}
			ready += got;
			continue;
		}
		/* The whole wave's HELLOs, then their WELCOMEs as they come: one round trip
		 * a wave, not one a client (a slow setup would let the first tests idle out
		 * before the probes start). */
		for (unsigned i = w; i < end; i++) {
			struct client *c = &cl[i];

			if (wait_fd(c->tcp, POLLOUT, 5000))
				hello_send(c, interval_us, (seconds + 30) * 1000);
		}
		ready += welcomes_read(w, end, until);
	}
	return ready;
}

static void probe_send(struct client *c)
{
	uint8_t b[PROTO_PROBE_LEN] = {0};
	uint64_t now = real_ns();
	size_t len;

	if (kind == DEBLOAT) {
		struct proto_probe p = {
		    .magic = PROTO_PROBE_MAGIC_REQ, .seq = c->seq, .client_ns = now};

		memcpy(p.token, c->token, PROTO_TOKEN_LEN);
		proto_probe_encode(&p, b, sizeof(b));
		len = PROTO_PROBE_LEN;
	} else {
		memcpy(b, irtt_magic, 3);
		b[3] = 0;
		memcpy(b + 4, c->token, 8);
		put_le(b + 12, c->seq, 4);
		len = IRTT_ECHO_LEN;
	}
	c->sent_ns[c->seq % RING] = now;
	c->sent_seq[c->seq % RING] = c->seq;
	if (udp_send(c, b, len) == (ssize_t)len)
		nsent++;
	c->seq++;
}

static void replies_read(void)
{
	for (;;) {
		uint8_t b[256];
		struct client *c;
		uint64_t rx, held;
		uint32_t seq;
		ssize_t n = udp_recv(b, sizeof(b), &c, &rx);

		if (n == 0)
			return;
		if (n < 0)
			continue;
		if (kind == DEBLOAT) {
			struct proto_probe p;

			if (proto_probe_decode(b, (size_t)n, &p) < 0 ||
			    p.magic != PROTO_PROBE_MAGIC_REP)
				continue;
			seq = p.seq;
			held = p.server_tx_ns - p.server_rx_ns;
		} else {
			if (n < IRTT_ECHO_LEN || memcmp(b, irtt_magic, 3) || !(b[3] & IRTT_REPLY))
				continue;
			seq = (uint32_t)get_le(b + 12, 4);
			held = get_le(b + 24, 8) - get_le(b + 16, 8);
		}
		if (c->sent_seq[seq % RING] != seq || rx < c->sent_ns[seq % RING])
			continue;
		nrecv++;
		if (nrtt < MAX_SAMP)
			rtt[nrtt++] = rx - c->sent_ns[seq % RING];
		if (nproc < MAX_SAMP && held < 10000000000ULL)
			proc[nproc++] = held;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_q(const char *key, uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
#define Q(p) (n ? (double)v[(size_t)((double)(n - 1) * (p))] / 1000 : 0.0)
	/* ns precision: irtt's processing time is under a microsecond */
	printf("\"%s\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}", key, Q(0.5), Q(0.9),
	       Q(0.99), Q(1.0));
#undef Q
}

int main(int argc, char *argv[])
{
	struct rlimit rl;
	struct sockaddr_in any = {.sin_family = AF_INET};
	unsigned rate, seconds, ready;
	uint64_t t0, start, gap_ns, k = 0, end;
	int one = 1, big = 16 << 20;

	if (argc != 6) {
		fprintf(stderr, "usage: server-load debloat|irtt PORT CLIENTS RATE SECONDS\n");
		return 2;
	}
	kind = !strcmp(argv[1], "irtt") ? IRTT : DEBLOAT;
	server =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
	inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
	nclients = (unsigned)atoi(argv[3]);
	rate = (unsigned)atoi(argv[4]);
	seconds = (unsigned)atoi(argv[5]);
	if (!nclients || nclients > 60000 || !rate || !seconds)
		return 2;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	cl = calloc(nclients, sizeof(*cl));
	rtt = malloc(MAX_SAMP * sizeof(*rtt));
	proc = malloc(MAX_SAMP * sizeof(*proc));
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!cl || !rtt || !proc || udp < 0)
		die("setup");
	setsockopt(udp, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	setsockopt(udp, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	/* The replies of every client land here: room for a stall of ours too. */
	if (setsockopt(udp, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(udp, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(udp, (struct sockaddr *)&any, sizeof(any)) < 0)
		die("bind");
	for (unsigned i = 0; i < nclients; i++) {
		cl[i].addr = (struct sockaddr_in){.sin_family = AF_INET};
		cl[i].addr.sin_addr.s_addr =
		    htonl(127u << 24 | 10u << 16 | (1 + i / 250) << 8 | (1 + i % 250));
		cl[i].tcp = -1;
	}
	/* Each client's interval: the total rate spread over the clients. */
	t0 = mono_ns();
	ready = open_all((uint32_t)((uint64_t)nclients * 1000000 / rate), seconds);
	/* The keepalives' replies are not the measurement: let them in, drop them, and
	 * forget what was sent. */
	drain_for(200);
	for (unsigned i = 0; i < nclients; i++)
		memset(cl[i].sent_seq, 0xff, sizeof(cl[i].sent_seq));
	nsent = 0;
	start = mono_ns();
	gap_ns = 1000000000ULL / rate;
	end = start + (uint64_t)seconds * 1000000000ULL;
	for (;;) {
		uint64_t now = mono_ns();
		int wait;

		/* Probe k goes out at start + k * gap, from client k mod N. Probes more than
		 * SLIP late (this process lost its CPU) are skipped, not sent in a burst: a
		 * client's catch-up burst would meet the server's rate limit, which is
		 * ours' and not irtt's, and is not what a client does. */
		if (now < end && start + k * gap_ns + SLIP_NS < now)
			k = (now - start) / gap_ns;
		while (now < end && start + k * gap_ns <= now) {
			struct client *c = &cl[k % nclients];

			if (c->ready)
				probe_send(c);
			k++;
		}
		if (now >= end + 1000000000ULL) /* one more second for the last replies */
			break;
		wait = now < end ? 1 : 100;
		wait_fd(udp, POLLIN, wait);
		replies_read();
	}
	/* irtt: close each connection, as its client does. */
	for (unsigned i = 0; kind == IRTT && i < nclients; i++) {
		uint8_t b[16];

		if (!cl[i].ready)
			continue;
		memcpy(b, irtt_magic, 3);
		b[3] = IRTT_CLOSE;
		memcpy(b + 4, cl[i].token, 8);
		udp_send(&cl[i], b, 12);
	}
	printf("{\"clients\":%u,\"ready\":%u,\"sent\":%llu,\"received\":%llu,\"loss_pct\":%.3f,",
	       nclients, ready, (unsigned long long)nsent, (unsigned long long)nrecv,
	       nsent ? 100.0 * (double)(nsent - (nrecv < nsent ? nrecv : nsent)) / (double)nsent
		     : 100.0);
	print_q("rtt_us", rtt, nrtt);
	printf(",");
	print_q("proc_us", proc, nproc);
	printf(",\"setup_s\":%.2f}\n", (double)(start - t0) / 1e9);
	for (unsigned i = 0; i < nclients; i++)
		if (cl[i].tcp >= 0)
			close(cl[i].tcp);
	close(udp);
	return 0;
}
