/* SPDX-License-Identifier: MIT */
/*
 * fix/knob-root.h - what the root-qdisc knob's row (knob-root.c) lends the download
 * shaper (ingress-shape.c), which builds the same trees at an ifb device's root.
 * Internal to src/fix.
 */
#ifndef DEBLOAT_FIX_KNOB_ROOT_H
#define DEBLOAT_FIX_KNOB_ROOT_H

#include <stdbool.h>

#include "fix/knob-type.h"

/* The commands that put the root-qdisc spec value on ifname (commands.h); -EINVAL
 * for a value that is no spec, or mq with ntxq 0. */
int knob_root_lines(struct knob_lines *o, const char *ifname, const char *value, unsigned ntxq);

#endif
