/* SPDX-License-Identifier: MIT */
/* tests.c - the table of tests: flows and probe streams, named as flent names them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "meter/load-tests.h"

#define DEFAULT_STREAMS 4

const char *const test_names[] = {
    "rrul", "rrul_be", "tcp_upload", "tcp_download", "tcp_nup", "tcp_ndown", "ping", NULL,
};

static const struct {
	const char *name;
	uint8_t tos;
} markings[] = {{"BE", TOS_BE}, {"BK", TOS_BK}, {"CS5", TOS_CS5}, {"EF", TOS_EF}};

static void add_flow(struct test_spec *s, uint8_t direction, uint8_t tos, const char *name)
{
	struct test_flow *f = &s->flows[s->nflows++];

	f->direction = direction;
	f->tos = tos;
	snprintf(f->name, sizeof(f->name), "%s", name);
}

static void add_probe(struct test_spec *s, enum probe_kind kind, uint8_t tos, const char *name)
{
	struct test_probe *p = &s->probes[s->nprobes++];

	p->kind = kind;
	p->tos = tos;
	snprintf(p->name, sizeof(p->name), "Ping (ms) %s", name);
}

/* rrul and rrul_be: one upload and one download per marking (all CS0 for rrul_be). */
static void add_rrul(struct test_spec *s, int best_effort_only)
{
	static const char *const dirs[] = {"upload", "download"};
	char name[48];

	for (int d = 0; d < 2; d++)
		for (size_t m = 0; m < 4; m++) {
			if (best_effort_only)
				snprintf(name, sizeof(name), "TCP %s BE%zu", dirs[d], m + 1);
			else
				snprintf(name, sizeof(name), "TCP %s %s", dirs[d],
					 markings[m].name);
			add_flow(s, d ? PROTO_DOWNLOAD : PROTO_UPLOAD,
				 best_effort_only ? TOS_BE : markings[m].tos, name);
		}
}

int test_spec_get(const char *name, unsigned streams, struct test_spec *spec)
{
	struct test_spec s = {0};
	char flow[48];
	int dir;

	if (!streams)
		streams = DEFAULT_STREAMS;
	snprintf(s.name, sizeof(s.name), "%s", name);
	if (!strcmp(name, "rrul")) {
		add_rrul(&s, 0);
		add_probe(&s, PROBE_UDP, TOS_EF, "UDP EF");
		add_probe(&s, PROBE_UDP, TOS_BK, "UDP BK");
		add_probe(&s, PROBE_UDP, TOS_BE, "UDP BE");
		add_probe(&s, PROBE_ICMP, TOS_BE, "ICMP");
	} else if (!strcmp(name, "rrul_be")) {
		add_rrul(&s, 1);
		add_probe(&s, PROBE_UDP, TOS_BE, "UDP BE1");
		add_probe(&s, PROBE_UDP, TOS_BE, "UDP BE2");
		add_probe(&s, PROBE_UDP, TOS_BE, "UDP BE3");
		add_probe(&s, PROBE_ICMP, TOS_BE, "ICMP");
	} else if (!strcmp(name, "tcp_upload") || !strcmp(name, "tcp_download")) {
		dir = !strcmp(name, "tcp_download");
		add_flow(&s, dir ? PROTO_DOWNLOAD : PROTO_UPLOAD, TOS_BE,
			 dir ? "TCP download" : "TCP upload");
	} else if (!strcmp(name, "tcp_nup") || !strcmp(name, "tcp_ndown")) {
		if (streams > TEST_MAX_STREAMS)
			return -ERANGE;
		dir = !strcmp(name, "tcp_ndown");
		for (unsigned i = 1; i <= streams; i++) {
			snprintf(flow, sizeof(flow), "TCP %s::%u", dir ? "download" : "upload", i);
			add_flow(&s, dir ? PROTO_DOWNLOAD : PROTO_UPLOAD, TOS_BE, flow);
		}
	} else if (strcmp(name, "ping")) {
		return -ENOENT;
	}
	if (!s.nprobes) {
		add_probe(&s, PROBE_ICMP, TOS_BE, "ICMP");
		add_probe(&s, PROBE_UDP, TOS_BE, "UDP BE");
	}
	*spec = s;
	return 0;
}
