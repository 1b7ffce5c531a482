/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "fix/knob-print.h"
#include "fix/knob-type.h"

void knob_print(struct printer *p, const struct knob *k, unsigned target_flags)
{
	char what[96];

	knob_describe(k, what, sizeof(what));
	print_str(p, "knob", knob_kind_name(k->kind), PRINT_JSON_ONLY);
	print_opt_str(p, "ifname", k->ifname, PRINT_JSON_ONLY);
	if (knob_flags(k->kind) & KNOB_HAS_QUEUE)
		print_uint(p, "queue", (uint64_t)k->queue, PRINT_JSON_ONLY);
	else
		print_null(p, "queue", NULL, PRINT_JSON_ONLY);
	print_opt_str(p, "name", k->name, PRINT_JSON_ONLY);
	print_str(p, "target", what, target_flags);
}
