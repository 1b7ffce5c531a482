/* SPDX-License-Identifier: MIT */
/*
 * codel-diff.c - libdebloat's CoDel against the kernel's own, decision for decision.
 *
 * Built by tests/test-kernel-diff.sh with the kernel's include/net/codel.h and
 * codel_impl.h (from Debian's linux-source package, in a temporary directory; never
 * in this repository) and our shims in tests/kdiff/shim/. Both guard identical FIFOs
 * fed the same seeded stream of enqueues and dequeues (random target, interval, ECN,
 * sizes, ECN codepoints, gaps that empty the queue); after every dequeue they must
 * agree on the packet delivered, the packets dropped, the CE marks, and CoDel's state
 * (count, lastcount, dropping, rec_inv_sqrt, first_above_time, drop_next, ldelay).
 *
 *   codel-diff TRACES [SEED]   prints one line per mode and "N passed, N failed"
 *
 * Modes: libdebloat's defaults must match in every trace; with the options that keep
 * other behaviour (wide_inv_sqrt, keep_first_above) the number of traces that differ
 * is printed, the size of the deviation codel.h states.
 */
#include <stdio.h>
#include <stdlib.h>

#include <net/codel.h>
#include <net/codel_impl.h>

#include "debloat/codel.h"

u64 kdiff_now_ns;

#define QMAX   1000
#define EVENTS 3000

struct fifo {
	void *slot[QMAX];
	unsigned head, n;
	uint64_t backlog;
	int dropped[QMAX], ndropped;
};

static void *fifo_pop(struct fifo *f, uint32_t len_of(void *))
{
	void *x;

	if (!f->n)
		return NULL;
	x = f->slot[f->head];
	f->head = (f->head + 1) % QMAX;
	f->n--;
	f->backlog -= len_of(x);
	return x;
}

static void fifo_push(struct fifo *f, void *x, uint32_t len)
{
	f->slot[(f->head + f->n++) % QMAX] = x;
	f->backlog += len;
}

/* ---- the kernel's side ---- */

static struct sk_buff skbs[EVENTS * 5];
static struct fifo kq;
static u32 kbacklog;

static uint32_t skb_len_of(void *x)
{
	return ((struct sk_buff *)x)->len;
}
static struct sk_buff *k_dequeue(struct codel_vars *vars, void *ctx)
{
	struct sk_buff *skb = fifo_pop(&kq, skb_len_of);

	(void)vars, (void)ctx;
	kbacklog = (u32)kq.backlog;
	return skb;
}
static void k_drop(struct sk_buff *skb, void *ctx)
{
	(void)ctx;
	kq.dropped[kq.ndropped++] = skb->id;
}
static u32 k_len(const struct sk_buff *skb)
{
	return skb->len;
}
static codel_time_t k_time(const struct sk_buff *skb)
{
	return (codel_time_t)(skb->enqueue_ns >> CODEL_SHIFT);
}

/* ---- ours ---- */

static struct db_pkt pkts[EVENTS * 5];
static int ids[EVENTS * 5];
static struct fifo oq;

static uint32_t pkt_len_of(void *x)
{
	return ((struct db_pkt *)x)->len;
}
static struct db_pkt *o_dequeue(void *ctx)
{
	(void)ctx;
	return fifo_pop(&oq, pkt_len_of);
}
static void o_drop(struct db_pkt *pkt, void *ctx)
{
	(void)ctx;
	oq.dropped[oq.ndropped++] = *(int *)pkt->data;
}

static uint64_t rng;
static uint32_t next_random(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

/* One trace; 0 when every decision matched, else the event it diverged at (>= 1). */
static int trace(uint64_t seed, bool wide, bool keep, char *why, size_t whylen)
{
	struct codel_params kp;
	struct codel_vars kv;
	struct codel_stats ks = {0};
	struct db_codel_params op;
	struct db_codel_vars ov;
	struct db_codel_stats os = {0};
	struct db_codel_queue queue = {o_dequeue, o_drop, NULL, NULL};
	int npkts = 0;

	rng = seed * 2654435761ULL + 1;
	memset(&kq, 0, sizeof(kq));
	memset(&oq, 0, sizeof(oq));
	kbacklog = 0;
	codel_params_init(&kp);
	codel_vars_init(&kv);
	codel_stats_init(&ks);
	db_codel_defaults(&op);
	db_codel_vars_init(&ov);
	op.target_ns = (1 + next_random() % 20) * 1000000ULL;
	op.interval_ns = (10 + next_random() % 190) * 1000000ULL;
	op.ecn = next_random() & 1;
	op.mtu = next_random() & 1 ? 1514 : 300;
	op.ce_threshold_ns = next_random() % 4 == 0 ? (1 + next_random() % 30) * 1000000ULL : 0;
	op.wide_inv_sqrt = wide;
	op.keep_first_above = keep;
	kp.target = (codel_time_t)(op.target_ns >> CODEL_SHIFT);
	kp.interval = (codel_time_t)(op.interval_ns >> CODEL_SHIFT);
	kp.ecn = op.ecn;
	kp.mtu = op.mtu;
	kp.ce_threshold = op.ce_threshold_ns ? (codel_time_t)(op.ce_threshold_ns >> CODEL_SHIFT)
					     : CODEL_DISABLED_THRESHOLD;

	kdiff_now_ns = 1000000000ULL;
	for (int ev = 1; ev <= EVENTS; ev++) {
		uint32_t r = next_random();

		/* mostly small steps; now and then a gap that lets the queue empty */
		kdiff_now_ns += r % 50 == 0 ? (uint64_t)(next_random() % 500) * 1000000ULL
					    : (uint64_t)(next_random() % 3000) * 1000ULL;
		if (r % 5 < 2) {
			for (unsigned k = 1 + next_random() % 5; k && kq.n < QMAX - 1; k--) {
				uint32_t len = 64 + next_random() % 1451;
				uint8_t tos = (uint8_t)(next_random() & 3);

				skbs[npkts] = (struct sk_buff){.len = len,
							       .enqueue_ns = kdiff_now_ns,
							       .tos = tos,
							       .id = npkts};
				ids[npkts] = npkts;
				pkts[npkts] = (struct db_pkt){.data = &ids[npkts],
							      .enqueue_ns = kdiff_now_ns,
							      .len = len,
							      .segs = 1,
							      .tos = tos};
				fifo_push(&kq, &skbs[npkts], len);
				fifo_push(&oq, &pkts[npkts], len);
				kbacklog = (u32)kq.backlog;
				npkts++;
			}
			continue;
		}
		kq.ndropped = oq.ndropped = 0;
		struct sk_buff *ks_out =
		    codel_dequeue(NULL, &kbacklog, &kp, &kv, &ks, k_len, k_time, k_drop, k_dequeue);
		struct db_pkt *o_out =
		    db_codel_dequeue(&op, &ov, &os, &oq.backlog, kdiff_now_ns, &queue);
		int kid = ks_out ? ks_out->id : -1, oid = o_out ? *(int *)o_out->data : -1;
		bool same = kid == oid && kq.ndropped == oq.ndropped &&
			    !memcmp(kq.dropped, oq.dropped, sizeof(int) * (size_t)kq.ndropped) &&
			    (!ks_out || ks_out->tos == o_out->tos) && kv.count == ov.count &&
			    kv.lastcount == ov.lastcount && kv.dropping == ov.dropping &&
			    kv.first_above_time == ov.first_above_time &&
			    kv.drop_next == ov.drop_next && kv.ldelay == ov.ldelay &&
			    (wide || kv.rec_inv_sqrt == ov.rec_inv_sqrt);

		if (!same) {
			snprintf(why, whylen,
				 "seed %llu event %d: kernel delivered %d dropped %d count %u "
				 "dropping %d first_above %u drop_next %u inv %u; ours %d %d %u %d "
				 "%u %u %u",
				 (unsigned long long)seed, ev, kid, kq.ndropped, kv.count,
				 kv.dropping, kv.first_above_time, kv.drop_next, kv.rec_inv_sqrt,
				 oid, oq.ndropped, ov.count, ov.dropping, ov.first_above_time,
				 ov.drop_next, ov.rec_inv_sqrt);
			return ev;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int traces = argc > 1 ? atoi(argv[1]) : 2000;
	uint64_t seed0 = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	static const struct {
		const char *name;
		bool wide, keep, must_match;
	} modes[] = {{"codel (defaults: Linux 6.12)", false, false, true},
		     {"codel wide_inv_sqrt", true, false, false},
		     {"codel keep_first_above", false, true, false}};
	int passed = 0, failed = 0;
	char why[512];

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		int differ = 0;
		char first[512] = "";

		for (int t = 0; t < traces; t++)
			if (trace(seed0 + (uint64_t)t, modes[m].wide, modes[m].keep, why,
				  sizeof(why))) {
				if (!differ++)
					snprintf(first, sizeof(first), "%s", why);
			}
		if (modes[m].must_match) {
			if (differ) {
				printf(
				    "FAIL %s: %d of %d traces differ from the kernel; first: %s\n",
				    modes[m].name, differ, traces, first);
				failed++;
			} else {
				printf("ok   %s: %d traces of %d events, every decision and state "
				       "as the kernel's\n",
				       modes[m].name, traces, EVENTS);
				passed++;
			}
		} else {
			printf("info %s: %d of %d traces differ from the kernel (a deliberate "
			       "option)\n",
			       modes[m].name, differ, traces);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
