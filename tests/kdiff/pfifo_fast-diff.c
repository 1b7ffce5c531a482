/* SPDX-License-Identifier: MIT */
/*
 * pfifo_fast-diff.c - libdebloat's pfifo_fast bands against the kernel's ptr_ring.
 *
 * Linux's pfifo_fast (net/sched/sch_generic.c) keeps each of its three bands in a
 * ptr_ring of txqueuelen slots: enqueue is a produce that fails (a drop) when the
 * producer's slot is still taken, dequeue consumes from the first non-empty band. The
 * file that holds it needs a whole qdisc around it; the rings are the kernel's own
 * include/linux/ptr_ring.h, built here (by tests/test-kernel-diff.sh, from Debian's
 * linux-source package in a temporary directory) with our shims, so this drives three
 * of them as pfifo_fast does, beside db_pfifo_fast, on the same seeded stream of
 * enqueues (random bands, bursts that fill a band) and dequeues. After every event they
 * must agree on the packet accepted or dropped, the packet dequeued, and each band's
 * length. The batch the kernel computes from the cache line (KDIFF_CACHE_BYTES) is
 * given to ours as ring_batch.
 *
 *   pfifo_fast-diff TRACES [SEED]   prints one line and "N passed, N failed"
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/ptr_ring.h>

#include "debloat/pfifo_fast.h"

#define EVENTS 4000
#define BURST  64 /* packets offered at once now and then: enough to fill any band */

static uint64_t rng;
static uint32_t next_random(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

/* every packet of a trace has its own descriptor: none is reused while queued */
static struct db_pkt pkts[EVENTS * BURST];
static int ids[EVENTS * BURST];
static int dropped_id;

static void on_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	(void)why, (void)ctx;
	dropped_id = *(int *)pkt->data;
}

/* Band b's TOS under the default priomap: 0x10 -> 0, 0x00 -> 1, 0x08 -> 2. */
static const uint8_t band_tos[3] = {0x10, 0x00, 0x08};

/* 0 when every event matched, else the event it diverged at. */
static int trace(uint64_t seed, int batch, char *why, size_t whylen)
{
	struct db_qdisc_env env = {.drop = on_drop};
	struct db_pfifo_fast_params p;
	struct db_pfifo_fast q;
	struct ptr_ring ring[3];
	int len[3] = {0}, npkts = 0, ret = 0;
	uint32_t txqueuelen;

	rng = seed * 2654435761ULL + 3;
	txqueuelen = next_random() % 4 ? 2 + next_random() % 200 : 1 + next_random() % 2000;
	db_pfifo_fast_defaults(&p);
	p.txqueuelen = txqueuelen;
	p.ring_batch = (uint32_t)batch;
	if (db_pfifo_fast_init(&q, &p, &env) < 0)
		return snprintf(why, whylen, "init refused txqueuelen %u", txqueuelen), -1;
	for (int b = 0; b < 3; b++)
		if (ptr_ring_init(&ring[b], (int)txqueuelen, GFP_KERNEL))
			return snprintf(why, whylen, "ptr_ring_init failed"), -1;

	for (int ev = 1; ev <= EVENTS && !ret; ev++) {
		uint32_t r = next_random();

		if (r % 100 < 55) {
			unsigned b = next_random() % 3, burst = r % 10 == 0 ? BURST : 1;

			for (unsigned k = 0; k < burst && !ret; k++) {
				int id = npkts++, kok, ook;

				ids[id] = id;
				pkts[id] = (struct db_pkt){
				    .data = &ids[id], .len = 100, .segs = 1, .tos = band_tos[b]};
				kok = __ptr_ring_produce(&ring[b], &pkts[id]) == 0;
				dropped_id = -1;
				ook = db_pfifo_fast_enqueue(&q, &pkts[id], 0) == DB_ENQ_QUEUED;
				len[b] += kok;
				if (kok != ook)
					ret = ev;
			}
		} else {
			struct db_pkt *kp = NULL, *op;

			for (int b = 0; b < 3 && !kp; b++)
				if ((kp = __ptr_ring_consume(&ring[b])))
					len[b]--;
			op = db_pfifo_fast_dequeue(&q, 0);
			if (kp != op)
				ret = ev;
		}
		for (int b = 0; b < 3 && !ret; b++)
			if ((uint32_t)len[b] != q.band[b].pkts)
				ret = ev;
		if (ret)
			snprintf(
			    why, whylen,
			    "seed %llu (txqueuelen %u, batch %d) event %d: kernel bands %d %d %d, "
			    "ours %u %u %u",
			    (unsigned long long)seed, txqueuelen, batch, ev, len[0], len[1], len[2],
			    q.band[0].pkts, q.band[1].pkts, q.band[2].pkts);
	}
	for (int b = 0; b < 3; b++)
		ptr_ring_cleanup(&ring[b], NULL);
	q.env.drop = NULL;
	db_pfifo_fast_destroy(&q);
	return ret;
}

int main(int argc, char **argv)
{
	int traces = argc > 1 ? atoi(argv[1]) : 2000, differ = 0;
	uint64_t seed0 = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	int batch = SMP_CACHE_BYTES * 2 / (int)sizeof(void *);
	char why[512], first[512] = "";

	for (int t = 0; t < traces; t++)
		if (trace(seed0 + (uint64_t)t, batch, why, sizeof(why)) && !differ++)
			snprintf(first, sizeof(first), "%s", why);
	if (differ)
		printf("FAIL pfifo_fast (ring batch %d): %d of %d traces differ from the kernel's "
		       "ptr_ring; first: %s\n",
		       batch, differ, traces, first);
	else
		printf("ok   pfifo_fast (ring batch %d): %d traces of %d events, every decision "
		       "as the kernel's ptr_ring\n",
		       batch, traces, EVENTS);
	printf("%d passed, %d failed\n", !differ, !!differ);
	return differ ? 1 : 0;
}
