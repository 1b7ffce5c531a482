/* SPDX-License-Identifier: MIT */
/*
 * fuzz-knobspec.c - fix's root-qdisc specs ("mq fq_codel limit 800", "htb 95mbit
 * cake ...") on arbitrary text: the parser behind knob_write, the plan and the
 * persisted plan files.
 *
 * Invariants: no crash; a spec that builds requests yields whole netlink messages
 * that add up to the returned length, with consecutive sequence numbers; the
 * canonical spelling of a spec is a fixed point (canonical of canonical is itself)
 * and equal to the spec by knob_value_equal; error messages are terminated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "fix/knob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SPEC_MAX 600

static void fail(const char *what, const char *spec)
{
	fprintf(stderr, "fuzz-knobspec: %s: \"%s\"\n", what, spec);
	abort();
}

static void check_messages(const uint8_t *buf, int len, const char *spec)
{
	uint32_t seq = 7;
	int off = 0;

	while (off < len) {
		struct nlmsghdr h;

		if (len - off < (int)sizeof(h))
			fail("truncated message header", spec);
		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > (uint32_t)(len - off))
			fail("message length outside the buffer", spec);
		if (h.nlmsg_seq != seq++)
			fail("sequence numbers not consecutive", spec);
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	if (off != len)
		fail("messages do not add up to the length", spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t req[16384];
	char spec[SPEC_MAX + 1], canon[KNOB_VALUE_MAX], again[KNOB_VALUE_MAX], err[256];
	unsigned ntxq;
	int n, replace;

	if (size < 1)
		return 0;
	ntxq = data[0] % 9; /* 0..8 TX queues */
	replace = data[0] & 0x10;
	data++, size--;
	if (size > SPEC_MAX)
		size = SPEC_MAX;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strlen(spec) != size)
		return 0; /* embedded NUL: not a string a user can type */

	err[0] = 'x';
	n = knob_qdisc_requests(spec, 3, ntxq ? ntxq : 1, replace, 7, req, sizeof(req), err,
				sizeof(err));
	if (n > 0)
		check_messages(req, n, spec);
	else if (!memchr(err, '\0', sizeof(err)))
		fail("error message not terminated", spec);

	if (knob_qdisc_canonical(spec, canon, sizeof(canon), err, sizeof(err)) == 0) {
		if (knob_qdisc_canonical(canon, again, sizeof(again), err, sizeof(err)) != 0)
			fail("canonical spelling does not parse", spec);
		if (strcmp(canon, again))
			fail("canonical spelling is not a fixed point", spec);
		if (knob_value_equal(KNOB_ROOT_QDISC, spec, canon) != 1)
			fail("spec and its canonical spelling differ", spec);
	}
	return 0;
}
