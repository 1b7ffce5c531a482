/* SPDX-License-Identifier: MIT */
/*
 * emu.h - the emulated link between the lab's client and board: both directions'
 * queues, ring, wire and switch, as a discrete-event model. Pure: time is passed in,
 * nothing here reads a clock or touches a file descriptor, so tests drive it in
 * simulated time and the runtime (run.c) drives it from CLOCK_MONOTONIC.
 *
 * Board -> client (LAB_BOARD_TX), the board's transmit path, in order:
 *
 *   tsq hold -> qdisc -> [GSO split] -> TX ring (+ DQL) -> wire -> delay -> switch port -> client
 *
 *  - tsq (profile.tsq_bytes > 0): a flow (5-tuple hash) may have at most tsq_bytes
 *    in the qdisc and ring together (l2 bytes); beyond that its packets wait in a
 *    per-flow FIFO before the qdisc, released in order as the flow's bytes complete.
 *    The real kernel's TSQ keeps that data in the socket; the tun hides it from the
 *    board's TCP, so this is a model, off by default.
 *  - qdisc: any libdebloat discipline from profile.qdisc. A bare "pfifo_fast" or
 *    "pfifo" gets limit txqueuelen, as Linux does. Drops and CE marks are counted
 *    per stage; marking rewrites the packet (frame.h).
 *  - The driver loop ("xmit"): while the qdisc yields a packet, a descriptor is free
 *    and (with BQL) db_dql_avail() >= 0: dequeue, split a GSO packet into frames when
 *    gso is on but tso is off (each frame takes a descriptor; frames that do not fit
 *    wait in a requeue slot ahead of the qdisc, like Linux's gso_skb), post, and
 *    db_dql_queued_at(l2 bytes). With TSO a super-packet takes one descriptor.
 *    (With gso off the runtime does not enable the tun's offloads, so no super-packet
 *    comes; one that does is split unless tso is on.) The requeued frames count in
 *    the qdisc's backlog gauges, as Linux counts its requeued skbs.
 *    The loop runs whenever something is enqueued, whenever a completion frees room,
 *    and when a pacing qdisc (fq maxrate) said a held-back packet may go.
 *  - URBs (profile.urb_bytes > 0, a USB NIC): the ring is `ring` URBs, not frames.
 *    What one run of the driver loop posts is packed into URBs in order: a frame
 *    (or TSO super-packet) joins the open URB while its frames stay within
 *    urb_frames (0: no limit) and its bytes within urb_bytes, counting each
 *    frame's l2 bytes + urb_overhead; else that URB is closed and the next free
 *    one opened, which takes the frame whatever its size. The last URB is closed
 *    when the run ends, however full, so a lone frame travels alone and a backlog
 *    fills URBs. No free URB stops the loop; a frame dequeued for a full URB waits
 *    in the requeue slot. The loop also stops at ring x (frames one URB can take:
 *    urb_frames, or urb_bytes over a minimum frame + overhead) descriptors, at most
 *    65536. A URB's frames go on the wire as before; none of them counts as
 *    finished until the last has left it, and then all do at once (per-URB
 *    completion: its descriptors freed together, with the rules below).
 *    urb_overhead only packs: the wire and the ceiling count frames as without URBs.
 *  - wire: frames leave the ring in order, back to back, each taking
 *    (l2 bytes + LAB_WIRE_OVERHEAD) * 8 / rate; a TSO super-packet takes its segs
 *    frames' time and is delivered whole. Rates are bytes per second, as profile.h
 *    stores them (units.h); back-to-back times carry the fraction of a nanosecond,
 *    so frame k of a burst ends at exactly floor(k * wire bytes * 1e9 / rate).
 *  - completions: finished frames are reported to the ring (descriptors freed) and
 *    to DQL (db_dql_completed with their bytes) in batches: when completion_frames
 *    have finished since the last report, or completion_ns after the first unreported
 *    one finished, whichever first; like interrupt moderation plus NAPI. With
 *    completion_frames 1 and completion_ns 0 every frame is reported as it finishes.
 *    A TSO super-packet counts as its segs frames. With completion_empty a batch
 *    is also reported when the ring runs empty: the frame just finished was the
 *    last posted (the wire has nothing left to send), as bcmgenet's TX interrupt.
 *    Should completion_ns be 0 with completion_frames > 1 and completion_empty off
 *    (profile.c refuses it), the emulator applies that rule anyway, so the ring
 *    never stalls.
 *    DQL never shrinks its limit below twice the bytes of one report: per-frame
 *    completions settle at two full frames (the seed's "two full size packets"),
 *    completions every 2 frames at four (tests/test-lab-emu.c prints the figures).
 *  - delay: fixed propagation, then the switch's port towards the client: a FIFO of
 *    switch_buffer_bytes (tail drop, per frame; a whole super-packet is kept or split
 *    as needed so that exactly the frames that fit are kept) drained at switch_rate.
 *    The port's backlog counts l2 bytes, the frame being sent included. A frame
 *    arriving when the port finishes one is accepted after that one left.
 *
 *  - ceiling (profile.ceiling_bps > 0): the board's NIC or bus moves at most that
 *    many bytes per second though its PHY links at rate. Frames still take their
 *    wire time at rate, but a frame cannot start before the ceiling's time for the
 *    one before it has passed (wire bytes / ceiling): the wire carries the lower of
 *    the two rates. The budget is one clock, "the bus is busy until T", which each
 *    frame claims when it is ready to start (the wire just finished the one before,
 *    or it was posted to an idle wire); claims are served in the order they come.
 *
 * Client -> board (LAB_CLIENT_TX): a well-behaved fast client: client_qdisc ->
 * client ring (client_ring descriptors, BQL on, completion per frame) -> wire at
 * client_rate -> the switch's port towards the board (board_port_buffer_bytes,
 * tail drop per frame, drained at the board's rate) -> delay -> board.
 *
 * With ceiling_shared, what the board receives crosses the same bus: after the
 * delay a packet enters the board's receive ring (rx_ring frames; a super-packet
 * counts as its frames and is kept or dropped whole, at LAB_STAGE_BOARD_RX) and is
 * delivered at max(its arrival, bus free) + its wire bytes / ceiling. The ring's
 * head claims the bus when it arrives at an empty ring, else when the one before it
 * is across. Both directions saturated share the ceiling about evenly: each claims
 * one slot per slot of its own. A received packet always spends its time at the
 * ceiling, even with the ceiling above the line rate (the DMA of a real NIC).
 *
 * With profile.ingress (a libdebloat spec, e.g. "shaper rate 223250kbit child
 * fq_codel"), what the board receives passes that discipline last: after the receive
 * ring and the bus when the ceiling is shared, else as it arrives; as an ifb device
 * does on a real board, after the NIC and before the stack. A packet is delivered
 * when the discipline dequeues it; its drops and CE marks count at
 * LAB_STAGE_BOARD_INGRESS, like the board qdisc's. A held-back packet is retried at
 * the discipline's db_qdisc_next_ns (one more event source).
 *
 * A super-packet reaching a tail-drop port is treated as its frames: kept whole if
 * all fit, else segmented (frame.h) and the frames that fit kept. Segmented frames
 * are delivered one by one; a kept super-packet is delivered whole when its last
 * frame arrives (like GRO at the receiver). A TSO super-packet reaches the switch
 * all at once when its last frame has left the board's wire (a simplification: its
 * first frames arrive early in reality, so a slow port's backlog peaks a little
 * higher here). The client's super-packets are sent as TSO (one descriptor).
 *
 * Every packet offered leaves exactly once: delivered (hooks.deliver) or dropped and
 * counted at one stage. A super-packet split on the way leaves as its frames, so the
 * exact statement is about frames: frames offered (segs of each parsed packet, 1 per
 * unparseable one) = frames delivered + the drop_frames of every stage.
 *
 * Packets are copied in (lab_emu_input) and owned by the emulator until delivered;
 * memory is bounded by LAB_EMU_MEMORY_MAX bytes of packets (a packet costs its
 * length plus ~200 bytes of bookkeeping), beyond which input is dropped at stage
 * LAB_STAGE_INPUT. Segmenting a super-packet may exceed the bound by its frames'
 * extra headers (< 8 KB). Buffers are rounded up to a size class (at most 1.5x) and
 * freed ones are kept for reuse, at most LAB_POOL_KEEP_BYTES per class (pool.h).
 *
 * Cost: O(1) per packet and per event (fourteen event sources, scanned); the packet
 * buffer is the only allocation per packet, and it comes from a free list (pool.h)
 * once the pool has warmed up; a summary walks the histograms.
 *
 * Hooks are called from lab_emu_advance() and from lab_emu_input(), which first
 * runs every event due at or before its now_ns; they must not call back into the
 * emulator. Not thread-safe. Errors are -errno with a message; nothing is printed.
 */
#ifndef DEBLOAT_LAB_EMU_H
#define DEBLOAT_LAB_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define LAB_EMU_MEMORY_MAX (256u << 20)

enum lab_dir {
	LAB_BOARD_TX = 0,  /* board -> client: the board's transmit path */
	LAB_CLIENT_TX = 1, /* client -> board */
};

/* Where a packet was dropped (or marked). */
enum lab_stage {
	LAB_STAGE_INPUT,	 /* unparseable, or emulator memory exhausted */
	LAB_STAGE_TSQ,		 /* never drops; counts packets held */
	LAB_STAGE_QDISC,	 /* the board's qdisc */
	LAB_STAGE_SWITCH,	 /* the switch port towards the client */
	LAB_STAGE_CLIENT_QDISC,	 /* the client's qdisc */
	LAB_STAGE_BOARD_PORT,	 /* the switch port towards the board */
	LAB_STAGE_BOARD_RX,	 /* the board's receive ring (shared ceiling only) */
	LAB_STAGE_BOARD_INGRESS, /* the board's download shaper (profile.ingress) */
	LAB_STAGE_COUNT,
};
const char *lab_stage_name(enum lab_stage s); /* "input", "tsq", "qdisc", "switch", ... */

struct lab_emu_hooks {
	/*
	 * A packet (vnet header + IP) reaches the end of direction dir: write it to the
	 * client's tun for LAB_BOARD_TX, the board's for LAB_CLIENT_TX. due_ns is when
	 * the model says it arrives (the runtime's scheduling error is now - due_ns).
	 * buf is valid only during the call.
	 */
	void (*deliver)(enum lab_dir dir, const uint8_t *buf, size_t len, uint64_t due_ns,
			void *ctx);
	void *ctx;
};

struct lab_stage_counts {
	uint64_t pkts;	      /* packets that entered the stage (a super-packet split there:
				 each of its frames) */
	uint64_t drops;	      /* packets dropped there */
	uint64_t marks;	      /* packets CE-marked there */
	uint64_t drop_frames; /* wire frames in the packets dropped there (segs of each) */
};

/* A sample of the emulator's state (telemetry, every 10 ms in the runtime). */
struct lab_telemetry {
	uint64_t t_ns;
	/* Board transmit path, gauges. */
	uint64_t tsq_held_bytes;
	uint64_t qdisc_backlog_bytes;
	uint32_t qdisc_backlog_pkts;
	uint32_t ring_descs;   /* descriptors in use (frames, with URBs) */
	uint32_t ring_urbs;    /* URBs in use (0 without urb_bytes) */
	uint64_t ring_bytes;   /* l2 bytes posted and not yet completed */
	uint32_t bql_limit;    /* bytes (0 without BQL) */
	uint32_t bql_inflight; /* bytes */
	uint64_t switch_backlog_bytes;
	/* Client transmit path, gauges. */
	uint64_t client_qdisc_backlog_bytes;
	uint64_t board_port_backlog_bytes;
	/* Counters (only grow). */
	struct lab_stage_counts stage[LAB_STAGE_COUNT];
	uint64_t board_wire_busy_ns;  /* time the board's wire has been sending */
	uint64_t client_wire_busy_ns; /* time the board port's wire has been sending */
	uint64_t board_tx_bytes;      /* L2 bytes delivered to the client */
	uint64_t client_tx_bytes;     /* L2 bytes delivered to the board */
	uint64_t board_tx_pkts;	      /* packets delivered to the client */
	uint64_t client_tx_pkts;      /* packets delivered to the board */
	uint64_t memory_bytes;	      /* bytes of packets the emulator holds now */
};

/* Distribution of a duration, from a histogram with <= 1% relative error. */
struct lab_dist {
	uint64_t count;
	uint64_t p50_ns, p90_ns, p99_ns, max_ns;
};

struct lab_emu_summary {
	struct lab_telemetry last;     /* the state at the time asked */
	struct lab_dist qdisc_sojourn; /* board qdisc: enqueue to dequeue */
	struct lab_dist board_path;    /* board input to delivery (every delivered packet) */
	struct lab_dist client_path;   /* client input to delivery */
	uint32_t bql_limit_max_seen;   /* the largest limit DQL reached */
	uint32_t bql_limit_p50;	       /* the limit's median over completions */
	uint32_t ring_descs_max;       /* most descriptors ever in use */
	uint32_t ring_urbs_max;	       /* most URBs ever in use (0 without urb_bytes) */
	uint64_t qdisc_backlog_max_bytes;
};

struct lab_emu;

/* Build from a profile (qdisc specs parsed here). -EINVAL with a message, -ENOMEM. */
int lab_emu_create(const struct lab_profile *p, const struct lab_emu_hooks *hooks,
		   struct lab_emu **out, char *err, size_t errlen);
void lab_emu_destroy(struct lab_emu *e);

/*
 * A packet read from a tun at now_ns (buf: vnet header + IP), from the board for
 * LAB_BOARD_TX, from the client for LAB_CLIENT_TX. Copied; may deliver nothing yet.
 * Returns 0 when accepted (it may still be dropped downstream and is counted there;
 * a packet TSQ holds is accepted), 1 when dropped at once (input stage: memory; or
 * the first qdisc refused it), -EBADMSG for a packet frame.h cannot parse (counted
 * at LAB_STAGE_INPUT). Runs lab_emu_advance(now_ns) first; time never goes back: a
 * now_ns before the last event handled counts as that event's time.
 */
int lab_emu_input(struct lab_emu *e, enum lab_dir dir, const uint8_t *buf, size_t len,
		  uint64_t now_ns);

/* Run every event due at or before now_ns, in time order, delivering through hooks. */
void lab_emu_advance(struct lab_emu *e, uint64_t now_ns);

/* When the next event is due; UINT64_MAX when nothing is pending. */
uint64_t lab_emu_next_ns(const struct lab_emu *e);

/*
 * A lower bound on the due time of the next delivery (hooks.deliver) if no packet
 * is input before it; UINT64_MAX when nothing is on its way. Most events deliver
 * nothing (completions, a frame leaving the board's wire for the switch) and their
 * time needs no precision, since lab_emu_advance runs each at its own time however
 * late it is called: a runtime needs to be on time only for this one. The bound is
 * exact for a packet in the last stage before delivery (a port sending it, the
 * cable, or the board's bus), and for one still on the wire it adds the stages after
 * it at their fastest (delay, the port's serialisation when that port is idle and
 * would take it whole, and with a shared ceiling its time on the bus from when the
 * bus is free at the earliest, which claims only push later). Packets behind the wire's head leave
 * after it; a completion or pacing timer counts (as its own time) only while the wire is idle.
 */
uint64_t lab_emu_next_delivery_ns(const struct lab_emu *e);
/* The same for one direction's deliveries. */
uint64_t lab_emu_next_delivery_dir_ns(const struct lab_emu *e, enum lab_dir dir);

void lab_emu_telemetry(const struct lab_emu *e, uint64_t now_ns, struct lab_telemetry *t);
void lab_emu_summary(const struct lab_emu *e, uint64_t now_ns, struct lab_emu_summary *s);

#endif
