/* SPDX-License-Identifier: MIT */
/*
 * emit-udev.c - the plan's BQL steps as udev rules (udev(7), systemd 252): no network
 * manager has a BQL key. limit_max is an attribute of the TX queue's kobject, below
 * the device: /sys/class/net/IFACE/queues/tx-N/byte_queue_limits/limit_max. Each queue
 * gets two rules (docs/design/fleet-config.md):
 *
 *   SUBSYSTEM=="net" on the device, writing queues/tx-N/... (a path below the device):
 *     what `udevadm trigger` replays at boot, when the queues exist already;
 *   SUBSYSTEM=="queues" on the queue itself (KERNEL=="tx-N", KERNELS=="IFACE"): the
 *     queue's own "add" event, for a device that appears later (a module, USB), whose
 *     queues the kernel registers just after the device's own event.
 *
 * Writing the same value twice is harmless. Every other step is a comment and a warning:
 * the other formats carry them.
 */
#include <stdio.h>
#include <string.h>

#include "fix/emit.h"

int emit_udev(const struct plan *p, struct emit *e)
{
	for (size_t ti = 0; ti < p->ntargets && !e->err; ti++) {
		const char *name = p->targets[ti].name;
		struct emit_file *f;

		if (!emit_target_wanted(&p->targets[ti]))
			continue;
		f = emit_file_new(e, "90-debloat-%s.rules", name);
		emit_line(e, f, "# debloat fix --emit udev: %s's BQL limits.", name);
		emit_line(e, f, "# Install in /etc/udev/rules.d/. Per TX queue: the device's rule "
				"(boot, coldplug),");
		emit_line(e, f, "# then the queue's own rule (a device that appears later).");
		for (size_t i = 0; i < p->nsteps; i++) {
			const struct plan_step *s = &p->steps[i];

			if (s->target != (int)ti || !emit_step_wanted(p, s))
				continue;
			if (s->knob.kind != KNOB_BQL_LIMIT_MAX) {
				emit_cannot(e, f, s,
					    "udev rules here carry BQL only: use `debloat fix "
					    "--emit networkd` or `--emit nm` for the rest");
				continue;
			}
			emit_line(e, f,
				  "ACTION==\"add\", SUBSYSTEM==\"net\", KERNEL==\"%s\", "
				  "ATTR{queues/tx-%d/byte_queue_limits/limit_max}=\"%s\"",
				  name, s->knob.queue, s->after);
			emit_line(e, f,
				  "ACTION==\"add\", SUBSYSTEM==\"queues\", KERNEL==\"tx-%d\", "
				  "KERNELS==\"%s\", ATTR{byte_queue_limits/limit_max}=\"%s\"",
				  s->knob.queue, name, s->after);
		}
	}
	for (size_t i = 0; i < p->nsteps && !e->err; i++)
		if (p->steps[i].target < 0 && emit_step_wanted(p, &p->steps[i]))
			emit_cannot(e, NULL, &p->steps[i],
				    "host-wide: `debloat fix --emit networkd` writes it for "
				    "sysctl.d");
	return e->err;
}
