/* SPDX-License-Identifier: MIT */
/*
 * INET_ECN_set_ce as the kernel documents it: a Not-ECT packet is left alone (0), an ECT
 * packet is marked CE (1), an already CE packet stays CE (1).
 */
#ifndef KDIFF_SHIM_INET_ECN_H
#define KDIFF_SHIM_INET_ECN_H
#include <linux/skbuff.h>
static inline int INET_ECN_set_ce(struct sk_buff *skb)
{
	if ((skb->tos & 3) == 0)
		return 0;
	skb->tos |= 3;
	return 1;
}
#endif
