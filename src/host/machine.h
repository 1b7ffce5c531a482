/* SPDX-License-Identifier: MIT */
/*
 * machine.h - what the machine around a NIC says about how fast the NIC can really go:
 * the device-tree machine's compatible list and the bus speed of a USB NIC. The drivers
 * table (src/audit/drivers.h) turns them into a throughput ceiling.
 *
 * The compatible list is SYSFS/firmware/devicetree/base/compatible (also reachable as
 * /proc/device-tree/compatible): NUL-separated strings, most specific first
 * ("wand,imx6q-wandboard", "fsl,imx6q"). x86 and other ACPI machines have no file.
 *
 * A USB NIC's interface is a child of its USB device, whose `speed` file gives the
 * bus speed in Mbit/s: 1.5, 12, 480 (USB 2 high speed), 5000, 10000, 20000.
 */
#ifndef DEBLOAT_HOST_MACHINE_H
#define DEBLOAT_HOST_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Up to max entries of the compatible list into out (each at most entry_len - 1
 * characters; a longer one is skipped), *n how many. -ENOENT when there is no
 * device tree, -errno when it cannot be read; *n is then 0.
 */
int machine_compatible(const char *sysfs_root, char *out, size_t entry_len, size_t max, size_t *n);

/*
 * The USB bus speed of ifname's device, in Mbit/s (1.5 reads as 1). -ENOENT when the
 * device is not on USB (or there is none), -EINVAL when the speed does not parse;
 * *mbps is untouched on error.
 */
int machine_usb_speed(const char *sysfs_root, const char *ifname, uint32_t *mbps);

#endif
