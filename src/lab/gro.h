/* SPDX-License-Identifier: MIT */
/*
 * gro.h - the receiving hosts' GRO for the lab's deliveries, one instance per
 * direction.
 *
 * The runtime offers every packet the emulator delivers (lab_gro_offer) and flushes
 * after each step of the emulator (lab_gro_flush). Within a step, in-order TCP
 * segments of one flow are merged into one GSO super-packet (lab_frame_merge), as a
 * NIC's NAPI poll with GRO merges the frames it finds in its ring, and each
 * super-packet costs one tun write instead of one per frame. A step delivers only
 * what is already due, so a runtime on time delivers frame by frame and nothing is
 * ever held back; one that fell behind (all the frames of the last milliseconds are
 * due at once) catches up with a few writes, which is where it needs them.
 *
 * Rules, as Linux's GRO keeps them:
 *  - at most LAB_GRO_FLOWS flows are held at once; a new one beyond that first
 *    emits the oldest held flow;
 *  - a flow's held packet is emitted before anything else of that flow that cannot
 *    be merged into it (a pure ACK, a segment out of sequence, a FIN), so each
 *    flow's packets keep their order; packets of other flows and protocols pass at
 *    once (so a probe is never held behind bulk data);
 *  - a merged segment with PSH, or shorter than the MSS, ends its super-packet: it is
 *    emitted at once;
 *  - lab_gro_flush emits what is held, oldest flow first.
 * Each emitted packet carries the due times of the frames in it (the runtime's
 * scheduling error is taken for every frame) and the bytes they had as delivered.
 *
 * Memory: LAB_GRO_FLOWS buffers of LAB_MAX_PACKET, allocated once. Not thread-safe.
 */
#ifndef DEBLOAT_LAB_GRO_H
#define DEBLOAT_LAB_GRO_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define LAB_GRO_FLOWS 8

struct lab_gro_out {
	/*
	 * A packet to write: buf[0..len), made of `frames` delivered packets (1 when it
	 * was passed or held alone, unchanged) whose due times are due_ns[0..frames) and
	 * whose lengths add up to `delivered_bytes`. buf is valid only during the call.
	 */
	void (*emit)(const uint8_t *buf, size_t len, unsigned frames, const uint64_t *due_ns,
		     size_t delivered_bytes, void *ctx);
	void *ctx;
};

struct lab_gro;

/* -ENOMEM, or 0 and *out. */
int lab_gro_new(const struct lab_gro_out *out, struct lab_gro **g);
/* Frees without emitting: flush first. */
void lab_gro_free(struct lab_gro *g);

/* A delivered packet (vnet header + IP), due at due_ns: merged, held or emitted. */
void lab_gro_offer(struct lab_gro *g, const uint8_t *buf, size_t len, uint64_t due_ns);

/* Emit everything held, oldest flow first. */
void lab_gro_flush(struct lab_gro *g);

/* Counters since creation: packets offered and packets emitted. */
void lab_gro_counts(const struct lab_gro *g, uint64_t *offered, uint64_t *emitted);

#endif
