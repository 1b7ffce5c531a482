/* SPDX-License-Identifier: MIT */
/* A packet as the differential test queues it for the kernel's CoDel. */
#ifndef KDIFF_SHIM_SKBUFF_H
#define KDIFF_SHIM_SKBUFF_H
#include <linux/types.h>
struct sk_buff {
	struct sk_buff *next; /* on a flow's list (fq_codel) */
	u32 len;
	u32 truesize; /* fq_codel's memory accounting: the differential test sets len */
	u32 hash;     /* skb_get_hash() */
	u32 priority;
	u64 enqueue_ns;
	u8 tos; /* the ECN field in its low two bits */
	int id;
	char cb[48]; /* the qdisc's private control block */
};

static inline u32 skb_get_hash(struct sk_buff *skb)
{
	return skb->hash;
}

static inline void skb_mark_not_on_list(struct sk_buff *skb)
{
	skb->next = NULL;
}
/* the DS field (TOS with ECN) of an IP packet; -1 for other protocols */
static inline int skb_get_dsfield(struct sk_buff *skb)
{
	return skb->tos;
}
#endif
