/* SPDX-License-Identifier: MIT */
/*
 * knob-print.h - which knob a report line is about, the same way in every report
 * (fix's steps, undo's items): JSON keys knob, ifname, queue (the TX queue of a BQL
 * knob, else null) and name, then target, knob_describe's words ("eth0 root qdisc"),
 * printed with the caller's flags (PRINT_BARE for text that leads a line).
 */
#ifndef DEBLOAT_FIX_KNOB_PRINT_H
#define DEBLOAT_FIX_KNOB_PRINT_H

#include "base/print.h"
#include "fix/knob.h"

void knob_print(struct printer *p, const struct knob *k, unsigned target_flags);

#endif
