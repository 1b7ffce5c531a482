/* SPDX-License-Identifier: MIT */
/*
 * tun.h - the lab's tun devices: one per namespace, opened so that the namespace's
 * TCP hands over GSO super-packets (docs/design/emulation.md section 1).
 *
 * Each device is IFF_TUN | IFF_NO_PI | IFF_VNET_HDR with a 10-byte vnet header
 * (TUNSETVNETHDRSZ), so every read and write is a struct virtio_net_hdr followed by
 * an IP packet (frame.h). Offloads (TUNSETOFFLOAD) say what the namespace's kernel may
 * hand us: TUN_F_CSUM (partial checksums) always, TSO4/TSO6 only when asked, so a
 * board with gso off makes its own kernel segment, as a NIC without TSO would.
 *
 * The device is created inside the namespace (the calling thread enters it and
 * returns to its own namespace before returning) and lives as long as its fd: it is
 * not persistent, so closing the fd, or the process dying, removes it.
 */
#ifndef DEBLOAT_LAB_TUN_H
#define DEBLOAT_LAB_TUN_H

#include <stdbool.h>
#include <stddef.h>

#define LAB_TUN_NAME "lab0" /* the device's name in both namespaces */

/*
 * Open a tun device named `name` in the network namespace nsfd (an fd of
 * /run/netns/NAME): non-blocking, close-on-exec, with a vnet header and TSO offloads
 * when tso is true. Returns the fd, or -errno (-ENOENT: no /dev/net/tun; -ENODEV or
 * -ENXIO: no tun driver in this kernel) with what failed in err.
 */
int lab_tun_open(int nsfd, const char *name, bool tso, char *err, size_t errlen);

#endif
