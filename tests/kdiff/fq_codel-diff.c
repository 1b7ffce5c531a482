/* SPDX-License-Identifier: MIT */
/*
 * fq_codel-diff.c - libdebloat's fq_codel against the kernel's sch_fq_codel.c.
 *
 * tests/test-kernel-diff.sh takes the kernel's fq_codel structures and its enqueue,
 * overload-drop and dequeue paths out of net/sched/sch_fq_codel.c (Debian's
 * linux-source package, in a temporary directory; never in this repository) into
 * fq_codel_core.c, and builds it here with the kernel's CoDel and our shims. What it
 * leaves out is netlink configuration, statistics dumps and the classifier, whose fast
 * path (no filter: the flow hash scaled onto the buckets) fq_codel_classify() below
 * stands for. Both sides get the same seeded stream of enqueues (a few flows and many,
 * bursts over the limit, ECN codepoints) and dequeues at advancing times, with random
 * limit, flows, quantum, target, interval, ECN and drop batch; after every event they
 * must agree on the packets dropped, the packet delivered, its CE mark, and every
 * bucket's backlog, deficit and CoDel state.
 *
 * Kept out, as fq_codel.h documents: memory_limit counts bytes of length here and
 * skb->truesize there (the test sets truesize to the length); a quantum below 256
 * (Linux raises it).
 *
 *   fq_codel-diff TRACES [SEED]   prints one line and "N passed, N failed"
 */
#include <stdio.h>
#include <stdlib.h>

#include <net/codel.h>
#include <net/codel_impl.h>
#include <net/codel_qdisc.h>
#include <net/pkt_sched.h>

static unsigned int fq_codel_classify(struct sk_buff *skb, struct Qdisc *sch, int *qerr);

#include "fq_codel_core.c"

#include "debloat/flow.h"
#include "debloat/fq_codel.h"

u64 kdiff_now_ns;
struct Qdisc *kdiff_sch;

/* The classifier's fast path: no filter attached, so the flow hash picks the bucket. */
static unsigned int fq_codel_classify(struct sk_buff *skb, struct Qdisc *sch, int *qerr)
{
	(void)qerr;
	return fq_codel_hash(qdisc_priv(sch), skb) + 1;
}

#define EVENTS 3000
#define NPKTS  (EVENTS * 16)

static struct sk_buff skbs[NPKTS];
static struct db_pkt pkts[NPKTS];
static int ids[NPKTS];
static int o_dropped[4096], o_ndropped;

static void o_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	(void)why, (void)ctx;
	if (o_ndropped < 4096)
		o_dropped[o_ndropped++] = *(int *)pkt->data;
}

static uint64_t rng;
static uint32_t next_random(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static bool same_buckets(const struct fq_codel_sched_data *kq, const struct db_fq_codel *oq,
			 bool wide)
{
	for (u32 i = 0; i < kq->flows_cnt; i++) {
		const struct fq_codel_flow *kf = &kq->flows[i];
		const struct db_fq_codel_flow *of = &oq->flows[i];

		if (kq->backlogs[i] != oq->backlogs[i] || kf->deficit != of->deficit ||
		    kf->cvars.count != of->cvars.count ||
		    kf->cvars.lastcount != of->cvars.lastcount ||
		    kf->cvars.dropping != of->cvars.dropping ||
		    (!wide && kf->cvars.rec_inv_sqrt != of->cvars.rec_inv_sqrt) ||
		    kf->cvars.first_above_time != of->cvars.first_above_time ||
		    kf->cvars.drop_next != of->cvars.drop_next)
			return false;
	}
	return true;
}

/* 0 when every event matched, else the event it diverged at. */
static int trace(uint64_t seed, bool wide, bool keep, char *why, size_t whylen)
{
	static struct Qdisc sch;
	struct fq_codel_sched_data kq;
	struct db_qdisc_env env = {.drop = o_drop};
	struct db_fq_codel_params op;
	struct db_fq_codel oq;
	unsigned nflows_used;
	int npkts = 0, ret = 0;

	rng = seed * 2654435761ULL + 5;
	db_fq_codel_defaults(&op);
	op.limit = 4 + next_random() % 300;
	op.flows = 1 + next_random() % 64;
	op.quantum = 256 + next_random() % 1300;
	op.drop_batch = 1 + next_random() % 64;
	op.codel.target_ns = (1 + next_random() % 20) * 1000000ULL;
	op.codel.interval_ns = (10 + next_random() % 190) * 1000000ULL;
	op.codel.ecn = next_random() & 1;
	op.memory_limit = UINT32_MAX;
	op.codel.wide_inv_sqrt = wide;
	op.codel.keep_first_above = keep;
	nflows_used = 1 + next_random() % 16;
	if (db_fq_codel_init(&oq, &op, &env) < 0)
		return snprintf(why, whylen, "init refused"), -1;

	memset(&kq, 0, sizeof(kq));
	memset(&sch, 0, sizeof(sch));
	sch.priv = &kq;
	sch.limit = op.limit;
	kdiff_sch = &sch;
	kq.flows_cnt = op.flows;
	kq.quantum = op.quantum;
	kq.drop_batch_size = op.drop_batch;
	kq.memory_limit = UINT32_MAX;
	codel_params_init(&kq.cparams);
	kq.cparams.target = (codel_time_t)(op.codel.target_ns >> CODEL_SHIFT);
	kq.cparams.interval = (codel_time_t)(op.codel.interval_ns >> CODEL_SHIFT);
	kq.cparams.ecn = op.codel.ecn;
	kq.cparams.mtu = op.codel.mtu;
	codel_stats_init(&kq.cstats);
	INIT_LIST_HEAD(&kq.new_flows);
	INIT_LIST_HEAD(&kq.old_flows);
	kq.flows = calloc(kq.flows_cnt, sizeof(*kq.flows));
	kq.backlogs = calloc(kq.flows_cnt, sizeof(*kq.backlogs));
	if (!kq.flows || !kq.backlogs)
		return snprintf(why, whylen, "out of memory"), -1;
	for (u32 i = 0; i < kq.flows_cnt; i++) {
		INIT_LIST_HEAD(&kq.flows[i].flowchain);
		codel_vars_init(&kq.flows[i].cvars);
	}

	kdiff_now_ns = 1000000000ULL;
	for (int ev = 1; ev <= EVENTS && !ret; ev++) {
		uint32_t r = next_random();
		int kid = -2, oid = -2;
		u8 ktos = 0, otos = 0;

		kdiff_now_ns += r % 40 == 0 ? (uint64_t)(next_random() % 400) * 1000000ULL
					    : (uint64_t)(next_random() % 2000) * 1000ULL;
		sch.ndropped = 0;
		o_ndropped = 0;
		if (r % 100 < 55) {
			unsigned burst = r % 12 == 0 ? 1 + next_random() % 16 : 1;
			uint32_t flow = next_random() % nflows_used,
				 len = 64 + next_random() % 1451;
			uint8_t tos = (uint8_t)(next_random() & 3);

			for (unsigned k = 0; k < burst && npkts < NPKTS; k++, npkts++) {
				uint32_t h = 0x9e3779b9u * (flow + 1);

				skbs[npkts] = (struct sk_buff){.len = len,
							       .truesize = len,
							       .hash = db_hash_perturb(h, 0),
							       .tos = tos,
							       .id = npkts};
				ids[npkts] = npkts;
				pkts[npkts] = (struct db_pkt){.data = &ids[npkts],
							      .len = len,
							      .hash = h,
							      .segs = 1,
							      .tos = tos};
				fq_codel_enqueue(&skbs[npkts], &sch, NULL);
				db_fq_codel_enqueue(&oq, &pkts[npkts], kdiff_now_ns);
			}
		} else {
			struct sk_buff *ks = fq_codel_dequeue(&sch);
			struct db_pkt *os = db_fq_codel_dequeue(&oq, kdiff_now_ns);

			kid = ks ? ks->id : -1;
			ktos = ks ? ks->tos : 0;
			oid = os ? *(int *)os->data : -1;
			otos = os ? os->tos : 0;
		}
		if (kid != oid || ktos != otos || sch.ndropped != o_ndropped ||
		    memcmp(sch.dropped, o_dropped, sizeof(int) * (size_t)o_ndropped) ||
		    sch.q.qlen != oq.backlog_pkts || !same_buckets(&kq, &oq, wide)) {
			ret = ev;
			snprintf(
			    why, whylen,
			    "seed %llu event %d: kernel delivered %d dropped %d qlen %u; ours %d "
			    "%d %u",
			    (unsigned long long)seed, ev, kid, sch.ndropped, sch.q.qlen, oid,
			    o_ndropped, oq.backlog_pkts);
		}
	}
	free(kq.flows);
	free(kq.backlogs);
	oq.env.drop = NULL;
	db_fq_codel_destroy(&oq);
	return ret;
}

int main(int argc, char **argv)
{
	int traces = argc > 1 ? atoi(argv[1]) : 2000, failed = 0;
	uint64_t seed0 = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	static const struct {
		const char *name;
		bool wide, keep, must_match;
	} modes[] = {{"fq_codel (defaults: Linux 6.12)", false, false, true},
		     {"fq_codel wide_inv_sqrt", true, false, false},
		     {"fq_codel keep_first_above", false, true, false}};
	char why[512];

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		int differ = 0;
		char first[512] = "";

		for (int t = 0; t < traces; t++)
			if (trace(seed0 + (uint64_t)t, modes[m].wide, modes[m].keep, why,
				  sizeof(why)) &&
			    !differ++)
				snprintf(first, sizeof(first), "%s", why);
		if (!modes[m].must_match)
			printf("info %s: %d of %d traces differ from the kernel (a deliberate "
			       "option)\n",
			       modes[m].name, differ, traces);
		else if (differ)
			printf("FAIL %s: %d of %d traces differ from the kernel; first: %s\n",
			       modes[m].name, differ, traces, first);
		else
			printf("ok   %s: %d traces of %d events, every decision and state as the "
			       "kernel's\n",
			       modes[m].name, traces, EVENTS);
		failed += modes[m].must_match && differ;
	}
	printf("%d passed, %d failed\n", !failed, failed);
	return failed ? 1 : 0;
}
