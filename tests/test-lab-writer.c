/* SPDX-License-Identifier: MIT */
/* test-lab-writer.c - a direction's writer thread (src/lab/writer.h): every packet
 * pushed is written once, whole and in order, across the ring's wrap-around; what
 * is queued at stop is still written; a packet that cannot be queued is counted; a
 * backlog of one flow's segments goes out merged (GRO), one frame at a time without;
 * the scheduling error is taken for every frame. A SOCK_SEQPACKET socket pair stands
 * in for the tun: it keeps each write a message. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "lab-packets.h"
#include "lab/frame.h"
#include "lab/writer.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* fd[0]: the writer's end (non-blocking, as a tun's), fd[1]: the test reads there. */
static bool pair(int fd[2])
{
	int big = 8 << 20;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fd) < 0)
		return false;
	setsockopt(fd[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)); /* root only */
	setsockopt(fd[1], SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	return true;
}

static struct lab_writer *start(int fd, bool no_gro)
{
	struct lab_writer_config c = {.fd = fd, .no_gro = no_gro, .name = "test-writer"};
	struct lab_writer *w = NULL;

	CHECK_EQ(lab_writer_start(&c, &w), 0);
	return w;
}

/* Packet k: its length and its bytes, all derived from k. */
static size_t fill(uint8_t *buf, uint32_t k)
{
	size_t len = 64 + (k * 7919u) % 9000u;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(k * 31u + i);
	memcpy(buf, &k, sizeof(k));
	return len;
}

/* Read one message, waiting up to a second. Its length, or -1. */
static ssize_t recv_one(int fd, uint8_t *buf, size_t cap)
{
	for (int i = 0; i < 1000; i++) {
		ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);

		if (n >= 0 || errno != EAGAIN)
			return n;
		usleep(1000);
	}
	return -1;
}

static uint8_t out[LAB_MAX_PACKET], in[LAB_MAX_PACKET];

TEST(every_packet_is_written_once_whole_and_in_order_across_the_wrap)
{
	int fd[2];
	struct lab_writer *w;
	uint64_t total = 0;
	const uint32_t n = 2400, batch = 12; /* about 11 MB: the 8 MB ring wraps */
	bool ok = true;

	REQUIRE(pair(fd));
	w = start(fd[0], true);
	REQUIRE(w);
	for (uint32_t k = 0; k < n && ok; k += batch) {
		for (uint32_t j = k; j < k + batch; j++) {
			size_t len = fill(out, j);

			total += len;
			ok &= CHECK_EQ(lab_writer_push(w, out, len, now_ns()), 0);
		}
		lab_writer_kick(w);
		for (uint32_t j = k; j < k + batch && ok; j++) {
			size_t len = fill(out, j);
			ssize_t got = recv_one(fd[1], in, sizeof(in));

			ok &= CHECK_EQ(got, (ssize_t)len);
			ok &= CHECK(got > 0 && memcmp(in, out, len) == 0);
		}
	}
	CHECK(total > LAB_WRITER_RING);
	lab_writer_stop(w);
	{
		const struct lab_writer_stats *s = lab_writer_stats(w);

		CHECK_EQ(s->delivered_pkts, n);
		CHECK_EQ(s->delivered_bytes, total);
		CHECK_EQ(s->writes, n);
		CHECK_EQ(s->write_drops + s->write_errors + s->ring_drops, 0);
		CHECK_EQ(s->sched.count, n);
		CHECK_EQ(s->write_cost.count, n);
	}
	lab_writer_free(w);
	close(fd[0]);
	close(fd[1]);
}

TEST(what_is_queued_at_stop_is_still_written)
{
	int fd[2];
	struct lab_writer *w;

	REQUIRE(pair(fd));
	w = start(fd[0], true);
	REQUIRE(w);
	for (uint32_t k = 0; k < 50; k++) {
		size_t len = fill(out, k);

		CHECK_EQ(lab_writer_push(w, out, len, now_ns()), 0);
	}
	lab_writer_stop(w); /* no kick: stop alone must flush */
	CHECK_EQ(lab_writer_stats(w)->delivered_pkts, 50);
	for (uint32_t k = 0; k < 50; k++) {
		size_t len = fill(out, k);

		if (!CHECK_EQ(recv(fd[1], in, sizeof(in), MSG_DONTWAIT), (ssize_t)len))
			break;
	}
	lab_writer_stop(w); /* idempotent */
	lab_writer_free(w);
	close(fd[0]);
	close(fd[1]);
}

TEST(a_packet_that_cannot_be_queued_is_dropped_and_counted)
{
	int fd[2];
	struct lab_writer *w;

	REQUIRE(pair(fd));
	w = start(fd[0], true);
	REQUIRE(w);
	CHECK_EQ(lab_writer_push(w, out, LAB_MAX_PACKET + 1, 0), -ENOBUFS);
	lab_writer_stop(w);
	CHECK_EQ(lab_writer_stats(w)->ring_drops, 1);
	CHECK_EQ(lab_writer_stats(w)->writes, 0);
	lab_writer_free(w);
	close(fd[0]);
	close(fd[1]);
}

/* A full 1448-byte segment of one flow, k-th of its stream. */
static size_t seg(uint32_t k)
{
	struct lab_pkt_spec s;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.tcp_flags = LAB_TCP_ACK;
	s.tcp_opt_len = 12;
	s.seq = 1000 + k * 1448;
	s.ip_id = (uint16_t)k;
	s.payload_len = 1448;
	s.partial_csum = true;
	return (size_t)lab_pkt_build(&s, out, sizeof(out));
}

/* Wait (at most a second) until the thread named `name` sleeps: the writer, asleep on its
 * futex with its ring empty, takes nothing until it is kicked or stopped. */
static bool asleep(const char *name)
{
	for (int i = 0; i < 1000; i++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;
		bool found = false;

		while (d && (e = readdir(d))) {
			char path[300], buf[300] = "";
			FILE *f;

			snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
			if (!(f = fopen(path, "r")))
				continue;
			if (fgets(buf, sizeof(buf), f)) {
				char *c = strrchr(buf, ')'); /* "TID (comm) STATE ..." */
				size_t n = strlen(name);

				found = c && c[1] == ' ' && c[2] == 'S' && c - buf > (ptrdiff_t)n &&
					!strncmp(c - n, name, n) && c[-(ptrdiff_t)n - 1] == '(';
			}
			fclose(f);
			if (found)
				break;
		}
		if (d)
			closedir(d);
		if (found)
			return true;
		usleep(1000);
	}
	return false;
}

TEST(a_backlog_of_one_flow_is_merged_and_every_frame_counted)
{
	int fd[2];
	struct lab_writer *w;
	size_t bytes = 0;
	ssize_t got;

	REQUIRE(pair(fd));
	w = start(fd[0], false);
	REQUIRE(w);
	REQUIRE(asleep("test-writer")); /* so that it finds all ten at once */
	for (uint32_t k = 0; k < 10; k++) {
		size_t n = seg(k);

		bytes += n;
		CHECK_EQ(lab_writer_push(w, out, n, 1), 0); /* due long ago: found at once */
	}
	lab_writer_stop(w);
	got = recv(fd[1], in, sizeof(in), MSG_DONTWAIT);
	CHECK(got > (ssize_t)(9 * 1448));
	CHECK_EQ(lab_pkt_verify(in, (size_t)got), LAB_PKT_OK);
	CHECK_EQ(recv(fd[1], in, sizeof(in), MSG_DONTWAIT), -1); /* one write */
	{
		const struct lab_writer_stats *s = lab_writer_stats(w);

		CHECK_EQ(s->writes, 1);
		CHECK_EQ(s->delivered_pkts, 10);
		CHECK_EQ(s->delivered_bytes, bytes);
		CHECK_EQ(s->sched.count, 10);
		CHECK(s->sched.min > 0); /* due at 1 ns: late by the whole uptime */
	}
	lab_writer_free(w);
	close(fd[0]);
	close(fd[1]);
}

TEST(without_gro_each_frame_is_its_own_write)
{
	int fd[2];
	struct lab_writer *w;

	REQUIRE(pair(fd));
	w = start(fd[0], true);
	REQUIRE(w);
	for (uint32_t k = 0; k < 10; k++)
		CHECK_EQ(lab_writer_push(w, out, seg(k), 1), 0);
	lab_writer_stop(w);
	CHECK_EQ(lab_writer_stats(w)->writes, 10);
	CHECK_EQ(lab_writer_stats(w)->delivered_pkts, 10);
	lab_writer_free(w);
	close(fd[0]);
	close(fd[1]);
}

TEST(a_refused_write_counts_its_frames_as_drops)
{
	int fd[2];
	struct lab_writer *w;

	REQUIRE(pair(fd));
	signal(SIGPIPE, SIG_IGN); /* a tun raises none */
	close(fd[1]);		  /* the reader is gone: EPIPE, an error that is not a full queue */
	w = start(fd[0], true);
	REQUIRE(w);
	CHECK_EQ(lab_writer_push(w, out, fill(out, 1), now_ns()), 0);
	lab_writer_stop(w);
	CHECK_EQ(lab_writer_stats(w)->write_errors, 1);
	CHECK_EQ(lab_writer_stats(w)->delivered_pkts, 0);
	lab_writer_free(w);
	close(fd[0]);
}
