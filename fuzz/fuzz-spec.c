/* SPDX-License-Identifier: MIT */
/*
 * fuzz-spec.c - the tc-style spec parser on arbitrary text. A spec that parses must
 * format to a spec that parses again to the same text; one that does not must leave
 * an error message and no discipline behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[2048], a[1024], b[1024], err[256];
	struct db_qdisc *q = NULL, *again = NULL;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	err[0] = '\0';
	if (db_qdisc_create(spec, NULL, &q, err, sizeof(err)) < 0) {
		if (q != NULL || err[0] == '\0') {
			fprintf(stderr, "fuzz-spec: failure without a message for \"%s\"\n", spec);
			abort();
		}
		return 0;
	}
	if (db_qdisc_format(q, a, sizeof(a)) < 0 ||
	    db_qdisc_create(a, NULL, &again, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz-spec: \"%s\" formatted as \"%s\" does not parse: %s\n", spec,
			a, err);
		abort();
	}
	db_qdisc_format(again, b, sizeof(b));
	if (strcmp(a, b)) {
		fprintf(stderr, "fuzz-spec: round trip changed \"%s\" into \"%s\"\n", a, b);
		abort();
	}
	db_qdisc_destroy(again);
	db_qdisc_destroy(q);
	return 0;
}
