/* SPDX-License-Identifier: MIT */
/*
 * pktq.h - the packet FIFO every libdebloat discipline is built from: packets chained
 * through pkt->next, pushed at the tail and popped at the head.
 *
 * Ownership: from db_pktq_push() until the packet leaves by db_pktq_pop(), the queue
 * owns pkt->next and no other field (packet.h: the discipline owns `next` while a
 * packet is queued; this is where it keeps it). pop hands a packet back with next =
 * NULL. A packet is in one queue at a time; db_pktq_splice() moves whole chains
 * between queues. The queue never allocates, frees, or looks at any other field:
 * the caller owns the packets' storage.
 *
 * Costs: every operation is O(1), a few loads and stores, static inline because it
 * is the per-packet path of every discipline. The one exception is db_pktq_count(),
 * which walks the chain: for telemetry and tests, never for the packet path.
 *
 * Counts: the queue keeps none, on purpose. Two pointers (16 bytes on 64-bit) are what
 * a per-flow table can afford: fq_codel's bucket and fq's flow must each stay within
 * one 64-byte cache line. Each discipline keeps the packet and byte counts it needs
 * where it reads them (fq_codel's per-bucket bytes in a dense array for its overflow
 * scan, fq's per-flow qlen, each pfifo_fast band's pkts and bytes, every discipline's
 * whole backlog) and updates them next to each push and pop: the queue cannot.
 *
 * State: all zero (memset, calloc, `= {0}`) is an empty queue, as after
 * db_pktq_init(). Invariants: head == NULL exactly when tail == NULL, and
 * tail->next == NULL. Concurrency: none; one caller at a time per queue.
 */
#ifndef DEBLOAT_PKTQ_H
#define DEBLOAT_PKTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "packet.h"

struct db_pktq {
	struct db_pkt *head; /* oldest packet, next to leave; NULL when empty */
	struct db_pkt *tail; /* newest packet; NULL when empty */
};

_Static_assert(sizeof(struct db_pktq) == 2 * sizeof(struct db_pkt *),
	       "per-flow tables budget two pointers for a queue");

static inline void db_pktq_init(struct db_pktq *q)
{
	q->head = NULL;
	q->tail = NULL;
}

static inline bool db_pktq_empty(const struct db_pktq *q)
{
	return !q->head;
}

/* The packet pop would return, left in place; NULL when empty. */
static inline struct db_pkt *db_pktq_peek(const struct db_pktq *q)
{
	return q->head;
}

/* Append pkt at the tail. pkt must not be in any queue. */
static inline void db_pktq_push(struct db_pktq *q, struct db_pkt *pkt)
{
	pkt->next = NULL;
	if (q->tail)
		q->tail->next = pkt;
	else
		q->head = pkt;
	q->tail = pkt;
}

/* Take the head packet off (its next cleared); NULL when empty. */
static inline struct db_pkt *db_pktq_pop(struct db_pktq *q)
{
	struct db_pkt *pkt = q->head;

	if (!pkt)
		return NULL;
	q->head = pkt->next;
	if (!q->head)
		q->tail = NULL;
	pkt->next = NULL;
	return pkt;
}

/* Move every packet of src, in order, behind those of dst; src is left empty. */
static inline void db_pktq_splice(struct db_pktq *dst, struct db_pktq *src)
{
	if (!src->head)
		return;
	if (dst->tail)
		dst->tail->next = src->head;
	else
		dst->head = src->head;
	dst->tail = src->tail;
	db_pktq_init(src);
}

/* Packets queued, by walking the chain: O(n), not for the packet path. */
static inline uint32_t db_pktq_count(const struct db_pktq *q)
{
	uint32_t n = 0;

	for (const struct db_pkt *pkt = q->head; pkt; pkt = pkt->next)
		n++;
	return n;
}

#endif
