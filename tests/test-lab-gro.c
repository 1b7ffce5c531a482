/* SPDX-License-Identifier: MIT */
/*
 * test-lab-gro.c - src/lab/gro.c: the deliveries of one step merged per flow as GRO
 * would: interleaved flows each become one super-packet, every flow keeps its order,
 * other packets pass at once, a short or PSH segment ends a super-packet, at most
 * LAB_GRO_FLOWS flows are held, and every frame's due time and bytes come out.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "lab-packets.h"
#include "lab/frame.h"
#include "lab/gro.h"

/* What came out: per emitted packet, its flow's source port (0: not TCP), the first
 * TCP sequence number, frames, payload bytes, the due times' sum and the bytes in. */
struct emitted {
	uint16_t sport;
	uint32_t seq;
	unsigned frames;
	uint32_t payload;
	uint64_t due_sum;
	size_t bytes;
	int verify;
};
static struct emitted em[256];
static unsigned nem;

static void on_emit(const uint8_t *buf, size_t len, unsigned frames, const uint64_t *due_ns,
		    size_t delivered_bytes, void *ctx)
{
	struct lab_frame f;
	struct emitted *e = &em[nem++ % 256];

	(void)ctx;
	memset(e, 0, sizeof(*e));
	e->frames = frames;
	e->bytes = delivered_bytes;
	for (unsigned i = 0; i < frames; i++)
		e->due_sum += due_ns[i];
	e->verify = lab_pkt_verify(buf, len);
	if (lab_frame_parse(buf, len, &f) == 0 && f.l4_proto == IPPROTO_TCP) {
		e->sport = f.key.sport;
		e->seq = lab_pkt_rd32(buf + LAB_VNET_HDR_LEN + f.l4_off + 4);
		e->payload = f.ip_len - f.hdr_len;
	}
}

static uint8_t pkt[LAB_MAX_PACKET];

/* A full 1448-byte segment of flow sport, k-th of its stream, as a tun hands it up. */
static size_t seg(uint16_t sport, uint32_t k, uint32_t payload, uint8_t flags)
{
	struct lab_pkt_spec s;
	int n;

	lab_pkt_init(&s, 4, IPPROTO_TCP);
	s.sport = sport;
	s.tcp_flags = flags;
	s.tcp_opt_len = 12;
	s.seq = 1000 + k * 1448;
	s.ip_id = (uint16_t)k;
	s.payload_len = payload;
	s.partial_csum = true;
	n = lab_pkt_build(&s, pkt, sizeof(pkt));
	CHECK(n > 0);
	return (size_t)n;
}

static struct lab_gro *make(void)
{
	struct lab_gro_out out = {.emit = on_emit};
	struct lab_gro *g = NULL;

	nem = 0;
	CHECK_EQ(lab_gro_new(&out, &g), 0);
	return g;
}

TEST(interleaved_flows_become_one_super_packet_each)
{
	struct lab_gro *g = make();
	size_t bytes = 0;

	REQUIRE(g);
	for (uint32_t k = 0; k < 10; k++)
		for (uint16_t f = 1; f <= 4; f++) {
			size_t n = seg(f, k, 1448, LAB_TCP_ACK);

			bytes += n;
			lab_gro_offer(g, pkt, n, 100 + k);
		}
	CHECK_EQ(nem, 0); /* all held until the step ends */
	lab_gro_flush(g);
	REQUIRE_EQ(nem, 4);
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(em[i].sport, i + 1); /* oldest flow first */
		CHECK_EQ(em[i].seq, 1000);
		CHECK_EQ(em[i].frames, 10);
		CHECK_EQ(em[i].payload, 10 * 1448);
		CHECK_EQ(em[i].due_sum, 10 * 100 + 45);
		CHECK_EQ(em[i].verify, LAB_PKT_OK);
	}
	CHECK_EQ(em[0].bytes + em[1].bytes + em[2].bytes + em[3].bytes, bytes);
	{
		uint64_t offered, emitted;

		lab_gro_counts(g, &offered, &emitted);
		CHECK_EQ(offered, 40);
		CHECK_EQ(emitted, 4);
	}
	lab_gro_free(g);
}

TEST(other_packets_pass_at_once_and_a_flow_keeps_its_order)
{
	struct lab_gro *g = make();
	struct lab_pkt_spec s;
	size_t n;
	int u;

	REQUIRE(g);
	lab_gro_offer(g, pkt, seg(1, 0, 1448, LAB_TCP_ACK), 1);
	lab_gro_offer(g, pkt, seg(2, 0, 1448, LAB_TCP_ACK), 1);
	lab_pkt_init(&s, 4, IPPROTO_UDP); /* a probe */
	s.payload_len = 64;
	u = lab_pkt_build(&s, pkt, sizeof(pkt));
	REQUIRE(u > 0);
	lab_gro_offer(g, pkt, (size_t)u, 2);
	REQUIRE_EQ(nem, 1);
	CHECK_EQ(em[0].sport, 0); /* the probe went first, not behind the bulk data */
	/* A pure ACK of flow 1: flow 1's held segment goes before it. */
	n = seg(1, 1, 0, LAB_TCP_ACK);
	lab_gro_offer(g, pkt, n, 3);
	REQUIRE_EQ(nem, 3);
	CHECK_EQ(em[1].sport, 1);
	CHECK_EQ(em[1].payload, 1448);
	CHECK_EQ(em[2].sport, 1);
	CHECK_EQ(em[2].payload, 0);
	/* A segment out of sequence: the held one first, then it is held itself. */
	lab_gro_offer(g, pkt, seg(2, 5, 1448, LAB_TCP_ACK), 4);
	REQUIRE_EQ(nem, 4);
	CHECK_EQ(em[3].sport, 2);
	CHECK_EQ(em[3].seq, 1000);
	lab_gro_flush(g);
	REQUIRE_EQ(nem, 5);
	CHECK_EQ(em[4].seq, 1000 + 5 * 1448);
	lab_gro_free(g);
}

TEST(a_short_or_psh_segment_ends_the_super_packet)
{
	struct lab_gro *g = make();

	REQUIRE(g);
	lab_gro_offer(g, pkt, seg(1, 0, 1448, LAB_TCP_ACK), 1);
	lab_gro_offer(g, pkt, seg(1, 1, 1448, LAB_TCP_ACK | LAB_TCP_PSH), 1);
	REQUIRE_EQ(nem, 1); /* emitted at once: nothing could follow it */
	CHECK_EQ(em[0].frames, 2);
	lab_gro_offer(g, pkt, seg(1, 2, 1448, LAB_TCP_ACK), 1);
	lab_gro_offer(g, pkt, seg(1, 3, 700, LAB_TCP_ACK), 1);
	REQUIRE_EQ(nem, 2);
	CHECK_EQ(em[1].frames, 2);
	CHECK_EQ(em[1].payload, 1448 + 700);
	lab_gro_flush(g);
	CHECK_EQ(nem, 2);
	lab_gro_free(g);
}

TEST(at_most_lab_gro_flows_are_held)
{
	struct lab_gro *g = make();

	REQUIRE(g);
	for (uint16_t f = 1; f <= LAB_GRO_FLOWS; f++)
		lab_gro_offer(g, pkt, seg(f, 0, 1448, LAB_TCP_ACK), 1);
	CHECK_EQ(nem, 0);
	lab_gro_offer(g, pkt, seg(LAB_GRO_FLOWS + 1, 0, 1448, LAB_TCP_ACK), 1);
	REQUIRE_EQ(nem, 1);
	CHECK_EQ(em[0].sport, 1); /* the oldest made room */
	lab_gro_flush(g);
	CHECK_EQ(nem, LAB_GRO_FLOWS + 1);
	lab_gro_free(g);
}

TEST(garbage_passes_unchanged)
{
	struct lab_gro *g = make();
	uint8_t junk[30] = {0};

	REQUIRE(g);
	lab_gro_offer(g, junk, sizeof(junk), 7);
	REQUIRE_EQ(nem, 1);
	CHECK_EQ(em[0].frames, 1);
	CHECK_EQ(em[0].bytes, sizeof(junk));
	CHECK_EQ(em[0].due_sum, 7);
	lab_gro_free(g);
}
