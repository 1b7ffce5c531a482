/* SPDX-License-Identifier: MIT */
/*
 * make-flent.c - test tool: write the fixture's rrul result (meter-fixture.h) as a
 * flent file, so that tests/test-flent.sh can load it in the real flent.
 *
 *	make-flent FILE.flent.gz [IFACE]
 *
 * With IFACE, EGRESS_INFO and SYSCTLS come from a read-only audit of that interface
 * (meter/egress.h), as `debloat rrul --flent` fills them.
 */
#include <stdio.h>
#include <string.h>

#include "meter-fixture.h"
#include "meter/egress.h"
#include "meter/flent.h"

int main(int argc, char **argv)
{
	struct test_result r;
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: make-flent FILE.flent.gz [IFACE]\n");
		return 2;
	}
	ret = fixture_rrul(&r);
	if (!ret && argc == 3)
		ret = egress_info_iface(argv[2], &r.egress_info_json, &r.sysctls_json);
	if (!ret)
		ret = flent_write(argv[1], &r);
	if (ret < 0)
		fprintf(stderr, "make-flent: cannot write %s: %s\n", argv[1], strerror(-ret));
	result_free(&r);
	return ret < 0;
}
