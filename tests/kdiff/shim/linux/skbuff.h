/* SPDX-License-Identifier: MIT */
/* A packet as the differential test queues it for the kernel's CoDel. */
#ifndef KDIFF_SHIM_SKBUFF_H
#define KDIFF_SHIM_SKBUFF_H
#include <linux/types.h>
struct sk_buff {
	u32 len;
	u64 enqueue_ns;
	u8 tos; /* the ECN field in its low two bits */
	int id;
};
/* the DS field (TOS with ECN) of an IP packet; -1 for other protocols */
static inline int skb_get_dsfield(struct sk_buff *skb)
{
	return skb->tos;
}
#endif
