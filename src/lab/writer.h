/* SPDX-License-Identifier: MIT */
/*
 * writer.h - one direction's deliveries, written to its receiving tun by a thread of
 * their own, so that a slow write in one direction never delays the other.
 *
 * A write to a tun runs the receiving namespace's input path (IP, TCP, waking the
 * reader) inside the write() call: usually 5-20 us, sometimes milliseconds. With
 * both directions written from the loop that also reads packets and runs the model,
 * a delivery due during any of those writes waits. A writer per direction leaves the
 * loop only the model, and each direction waits only behind itself.
 *
 * The loop (the producer) copies each delivered packet, with the time it was due,
 * into the writer's ring (lab_writer_push) and wakes the writer after each step of
 * the model (lab_writer_kick). The writer (the consumer) takes what the ring holds
 * when it looks, offers it to its direction's GRO (gro.h; unless `no_gro`), flushes
 * and looks again; it sleeps on a futex when the ring is empty. Everything in the
 * ring is already due, so what a writer that fell behind finds there is merged into
 * as few writes as GRO allows: that is when merging helps.
 *
 * Waking a sleeping thread takes tens of microseconds (an inter-processor interrupt;
 * more in a VM), which would be added to every delivery. So the loop tells the
 * writer when its direction's next delivery is due (lab_writer_expect) and wakes it
 * ahead of it, when it wakes itself for that delivery (lab_writer_kick). A writer
 * woken with its ring empty spins, polling the ring, if the next delivery is at most
 * LAB_WRITER_SPIN_NS away, until LAB_WRITER_GRACE_NS past it, and only while the
 * loop allows spinning (its CPU budget, run.h); a writer that emptied its ring
 * sleeps. (On the VMs we measured, this still cost more than writing from the loop:
 * the loop does not use these threads unless asked; docs/design/lab-timing.md.)
 *
 * One producer, one consumer, no locks: the ring's head is written only by the
 * producer, its tail only by the consumer (release/acquire), and a sleeping flag
 * with a sequence counter (the futex word) makes a wake-up impossible to miss.
 *
 * A packet that does not fit in the ring (LAB_WRITER_RING bytes: tens of
 * milliseconds of a gigabit link) is dropped and counted, as a full tun queue drops.
 *
 * The writer's scheduling error is taken at its write: the write's start minus the
 * packet's due time, for every frame in it. Its counters and distributions belong to
 * the writer thread until lab_writer_stop has joined it; read them only after that.
 */
#ifndef DEBLOAT_LAB_WRITER_H
#define DEBLOAT_LAB_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"

#define LAB_WRITER_RING	    (8u << 20) /* bytes of queued deliveries per direction */
#define LAB_WRITER_SPIN_NS  100000ull  /* spin for a delivery at most this far ahead */
#define LAB_WRITER_GRACE_NS 30000ull   /* and this long past its due time */

struct lab_writer_stats {
	uint64_t delivered_pkts, delivered_bytes; /* frames written (the same as run.h) */
	uint64_t write_drops;			  /* frames in writes refused with EAGAIN/ENOBUFS */
	uint64_t write_errors;			  /* frames in writes refused otherwise */
	uint64_t writes;			  /* write() calls */
	uint64_t ring_drops;			  /* frames that found the ring full */
	struct hist sched;			  /* write start minus due time, per frame */
	struct hist write_cost;			  /* the time each write() took */
};

struct lab_writer_config {
	int fd;		  /* the receiving tun (non-blocking) */
	bool no_gro;	  /* one write per delivered packet */
	bool realtime;	  /* run at SCHED_FIFO 1, as the loop does (if allowed) */
	const char *name; /* the thread's name (at most 15 bytes are kept) */
};

struct lab_writer;

/* Allocate and start the thread. 0, or -errno (-ENOMEM, pthread_create's error). */
int lab_writer_start(const struct lab_writer_config *c, struct lab_writer **out);

/*
 * Queue a delivered packet (vnet header + IP), due at due_ns, for writing. 0, or
 * -ENOBUFS when the ring is full (the packet is dropped and counted). Producer only.
 */
int lab_writer_push(struct lab_writer *w, const uint8_t *buf, size_t len, uint64_t due_ns);

/*
 * Wake the writer if it sleeps: what was pushed is due now, or a delivery is due
 * soon (it then spins for it, if allowed). Producer only.
 */
void lab_writer_kick(struct lab_writer *w);

/*
 * The direction's next delivery is due at due_ns (UINT64_MAX: none on its way), and
 * whether the writer may spin for it. Producer only; cheap (two atomic stores).
 */
void lab_writer_expect(struct lab_writer *w, uint64_t due_ns, bool may_spin);

/*
 * Let the writer write what is queued, then end and join its thread. After this the
 * stats are stable. Idempotent.
 */
void lab_writer_stop(struct lab_writer *w);

/* Valid after lab_writer_stop. */
const struct lab_writer_stats *lab_writer_stats(const struct lab_writer *w);

/* Stops (if needed) and frees. NULL is fine. */
void lab_writer_free(struct lab_writer *w);

#endif
