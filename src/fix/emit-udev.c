/* SPDX-License-Identifier: MIT */
/*
 * emit-udev.c - the plan's BQL steps as udev rules (udev(7), systemd 252): no network
 * manager has a BQL key. limit_max is an attribute of the TX queue's kobject, below
 * the device: /sys/class/net/IFACE/queues/tx-N/byte_queue_limits/limit_max.
 *
 * Two rules per queue, both on the device (SUBSYSTEM=="net"), whose ATTR{} names the
 * path below the device: udev writes ATTR{} relative to the event device's directory,
 * subdirectories included, and the device's "add" is what `udevadm trigger` replays
 * at boot. The first matches KERNEL=="IFACE", the kernel's name; the second NAME==
 * "IFACE" where that differs (KERNEL!=), for an interface udev renames in the same
 * event (80-net-setup-link.rules sets NAME= before these rules run: "end0" from
 * "eth0"), as the plan names interfaces by their current name. The queues' own
 * kobjects have no uevent file, so udev cannot open them as devices (`udevadm test`
 * refuses them): a rule on SUBSYSTEM=="queues" could not be checked, and is not
 * written (docs/design/fleet-config.md). tests/test-fix-emit.sh runs these rules with
 * `udevadm test` on an ifb device (it has BQL), named as the plan's interface and
 * renamed to it, and reads limit_max back.
 *
 * Every other step is a comment and a warning: the other formats carry them.
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
		emit_line(e, f,
			  "# Install in /etc/udev/rules.d/: applied when %s appears, and at "
			  "boot.",
			  name);
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
			emit_line(
			    e, f,
			    "ACTION==\"add\", SUBSYSTEM==\"net\", NAME==\"%s\", KERNEL!=\"%s\", "
			    "ATTR{queues/tx-%d/byte_queue_limits/limit_max}=\"%s\"",
			    name, name, s->knob.queue, s->after);
		}
	}
	emit_cannot_host_wide(p, e);
	return e->err;
}
