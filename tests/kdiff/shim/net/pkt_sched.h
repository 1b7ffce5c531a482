/* SPDX-License-Identifier: MIT */
/*
 * Just enough of a qdisc for the kernel's fq_codel enqueue and dequeue paths
 * (tests/kdiff/): the Qdisc with its queue length, limit and stats, and the helpers
 * those paths call. Drops are collected on a list the test reads.
 */
#ifndef KDIFF_SHIM_PKT_SCHED_H
#define KDIFF_SHIM_PKT_SCHED_H
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/skbuff.h>

#define __rcu
#define NET_XMIT_SUCCESS  0x00
#define NET_XMIT_DROP	  0x01
#define NET_XMIT_CN	  0x02
#define __NET_XMIT_STOLEN 0x00010000
#define __NET_XMIT_BYPASS 0x00020000
#define TC_H_MAJ(h)	  ((h)&0xFFFF0000U)
#define TC_H_MIN(h)	  ((h)&0x0000FFFFU)
#define fallthrough	  __attribute__((__fallthrough__))

struct tcf_proto;
struct tcf_block;

struct Qdisc {
	u32 handle;
	u32 limit;
	struct {
		u32 qlen;
	} q;
	struct {
		u32 backlog, drops;
	} qstats;
	void *priv;
	/* what the test observes: packets dropped, in order */
	int dropped[4096];
	int ndropped;
};

extern struct Qdisc *kdiff_sch; /* the one qdisc of the test, for the drop hooks */

static inline void *qdisc_priv(struct Qdisc *sch)
{
	return sch->priv;
}
static inline u32 qdisc_pkt_len(const struct sk_buff *skb)
{
	return skb->len;
}
static inline void qdisc_qstats_backlog_inc(struct Qdisc *sch, const struct sk_buff *skb)
{
	sch->qstats.backlog += skb->len;
}
static inline void qdisc_qstats_drop(struct Qdisc *sch)
{
	sch->qstats.drops++;
}
static inline void __qdisc_qstats_drop(struct Qdisc *sch, int n)
{
	sch->qstats.drops += (u32)n;
}
static inline void kdiff_record_drop(struct sk_buff *skb)
{
	if (kdiff_sch->ndropped < 4096)
		kdiff_sch->dropped[kdiff_sch->ndropped++] = skb->id;
}
static inline void __qdisc_drop(struct sk_buff *skb, struct sk_buff **to_free)
{
	(void)to_free;
	kdiff_record_drop(skb);
}
static inline void kfree_skb(struct sk_buff *skb)
{
	kdiff_record_drop(skb);
}
static inline void qdisc_tree_reduce_backlog(struct Qdisc *sch, int n, int len)
{
	(void)sch, (void)n, (void)len;
}
static inline void qdisc_bstats_update(struct Qdisc *sch, const struct sk_buff *skb)
{
	(void)sch, (void)skb;
}
struct qdisc_skb_cb {
	char data[48];
};
static inline struct qdisc_skb_cb *qdisc_skb_cb(const struct sk_buff *skb)
{
	return (struct qdisc_skb_cb *)skb->cb;
}
#define qdisc_cb_private_validate(skb, sz) ((void)(skb), (void)(sz))
#endif
