/* SPDX-License-Identifier: MIT */
/*
 * fuzz-driver.c - the driver knob's values ("bql fec platform/2188000.ethernet peer
 * 10.0.2.2"), which the journal and fix's plan carry, on arbitrary text.
 *
 * Invariants: no crash; a value that parses is spelled back to a value that parses
 * to the same thing (a fixed point), equal to the original by knob_value_equal; a
 * value that does not parse leaves the output untouched and a terminated message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/driver.h"
#include "fix/knob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *v)
{
	fprintf(stderr, "fuzz-driver: %s: \"%s\"\n", what, v);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char v[KNOB_VALUE_MAX + 8], out[KNOB_VALUE_MAX], msg[256];
	struct driver_value a, b, keep;
	int r;

	if (size >= sizeof(v))
		size = sizeof(v) - 1;
	memcpy(v, data, size);
	v[size] = '\0';
	memset(&a, 0x5a, sizeof(a));
	keep = a;
	msg[0] = '\0';
	r = driver_value_parse(v, &a, msg, sizeof(msg));
	if (r < 0) {
		if (memcmp(&a, &keep, sizeof(a)))
			fail("output touched on error", v);
		if (!memchr(msg, '\0', sizeof(msg)) || !msg[0])
			fail("no message on error", v);
		return 0;
	}
	if (driver_value_format(&a, out, sizeof(out)) < 0)
		fail("a parsed value cannot be spelled", v);
	memset(&b, 0, sizeof(b));
	if (driver_value_parse(out, &b, msg, sizeof(msg)) < 0)
		fail("the spelling does not parse", out);
	if (a.which != b.which || strcmp(a.module, b.module) || strcmp(a.device, b.device) ||
	    strcmp(a.peer, b.peer))
		fail("the spelling parses to another value", out);
	if (knob_value_equal(KNOB_DRIVER, v, out) != 1)
		fail("a value is not equal to its spelling", v);
	return 0;
}
