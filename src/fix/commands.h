/* SPDX-License-Identifier: MIT */
/*
 * commands.h - a plan step as the shell commands a person would type for it (tc, ip,
 * ethtool, sysctl, a write to sysfs), with the same effect as knob_write: audit prints
 * them, so its advice is what `debloat fix` would do, step for step.
 *
 *	root-qdisc "default"         tc qdisc del dev IF root
 *	root-qdisc "KIND OPTS"       tc qdisc replace dev IF root handle 1: KIND OPTS
 *	root-qdisc "mq KIND OPTS"    tc qdisc replace dev IF root handle 1: mq, then one
 *	                             tc qdisc replace dev IF parent 1:N handle (N+1): KIND
 *	                             OPTS per TX queue (ntxq of them)
 *	root-qdisc "htb R KIND OPTS" htb default 1 at the root, class 1:1 rate = ceil = R,
 *	                             KIND OPTS as its leaf, handle 10:
 *	txqueuelen N                 ip link set dev IF txqueuelen N
 *	gso-max-size N               ip link set dev IF gso_max_size N
 *	bql-limit-max N              echo N >
 * /sys/class/net/IF/queues/tx-Q/byte_queue_limits/limit_max ring-tx, ring-rx N           ethtool -G
 *IF tx|rx N offload F on|off             ethtool -K IF F on|off sysctl NAME VALUE            sysctl
 *-w NAME=VALUE ingress SPEC                 ip link add name ifb4IF type ifb; ip link set dev
 *	                             ifb4IF up; SPEC at ifb4IF's root as above; tc qdisc add
 *	                             dev IF handle ffff: ingress; tc filter add dev IF parent
 *	                             ffff: protocol all u32 match u32 0 0 action mirred egress
 *	                             redirect dev ifb4IF
 *	ingress "default"            tc qdisc del dev IF ingress; ip link del dev ifb4IF
 *
 * Interface names are checked (iface_name_invalid) and every value is one the knob
 * grammar accepts, so the text needs no quoting; a value that is not (another
 * "other: ..." tree) is -EINVAL. One command per line, each ending in a newline.
 * Returns the length written, -ENOSPC, -EINVAL.
 */
#ifndef DEBLOAT_FIX_COMMANDS_H
#define DEBLOAT_FIX_COMMANDS_H

#include <stddef.h>

#include "fix/knob.h"

int knob_commands(const struct knob *k, const char *value, unsigned ntxq, char *buf, size_t len);

#endif
