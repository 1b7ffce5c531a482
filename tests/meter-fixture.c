/* SPDX-License-Identifier: MIT */
/* meter-fixture.c - meter-fixture.h: the hand-built rrul result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meter-fixture.h"

static const char *const markings[] = {"BE", "BK", "CS5", "EF"};
static const unsigned char tos[] = {0x00, 0x20, 0xa0, 0xb8};

static double probe_value(unsigned k)
{
	double x = 0.1 + 0.2 * k;

	if (x < 2)
		return 10 + 0.5 * k; /* idle samples 0..9 */
	if (x >= 8)
		return 10 + 0.5 * (k - 30); /* idle samples 10..19 (k = 40..49) */
	if (x < 3 || x >= 7)
		return 1000;   /* ramp */
	return 100 + (k - 15); /* loaded (k = 15..34) */
}

int fixture_rrul(struct test_result *r)
{
	static const char *const probes[] = {"Ping (ms) UDP EF", "Ping (ms) UDP BK",
					     "Ping (ms) UDP BE", "Ping (ms) ICMP"};
	static const unsigned char probe_tos[] = {0xb8, 0x20, 0x00, 0x00};
	char name[64];
	struct series *s;

	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "rrul");
	snprintf(r->host, sizeof(r->host), "192.0.2.1");
	snprintf(r->local_host, sizeof(r->local_host), "fixture");
	snprintf(r->label, sizeof(r->label), "fixture run");
	r->ip_version = 4;
	r->length_s = 6;
	r->delay_s = 2;
	r->step_s = 0.2;
	r->t0 = FIXTURE_T0;
	snprintf(r->time_utc, sizeof(r->time_utc), "2023-11-14T22:13:20.000000Z");
	if (result_init(r, 51) < 0)
		return -ENOMEM;

	for (unsigned dir = 0; dir < 2; dir++) {
		for (unsigned m = 0; m < 4; m++) {
			snprintf(name, sizeof(name), "TCP %s %s", dir ? "download" : "upload",
				 markings[m]);
			s = result_add_series(r, name, "Mbits/s",
					      dir ? SERIES_DOWNLOAD : SERIES_UPLOAD, tos[m]);
			if (!s)
				return -ENOMEM;
			for (size_t i = 0; i < r->nsteps; i++)
				s->values[i] = i >= 11 && i <= 40 ? (dir ? 20 : 5.0 * (m + 1)) : 0;
		}
	}
	s = result_add_series(r, "TCP upload BE::tcp_rtt", "ms", SERIES_TCP_RTT, 0);
	if (!s)
		return -ENOMEM;
	for (size_t i = 11; i <= 40; i++)
		s->values[i] = 50 + (double)(i % 2);

	for (unsigned p = 0; p < 4; p++) {
		s = result_add_series(r, probes[p], "ms", SERIES_PROBE, probe_tos[p]);
		if (!s)
			return -ENOMEM;
		for (unsigned k = 0; k < 50; k++) {
			double x = 0.1 + 0.2 * k, v = probe_value(k);
			size_t step = (size_t)(x / 0.2) + 1; /* the step whose interval holds x */

			if (series_add_raw(s, FIXTURE_T0 + x, v, k) < 0)
				return -ENOMEM;
			if (step < r->nsteps)
				s->values[step] = v;
		}
		if (p == 1 && series_add_raw(s, FIXTURE_T0 + 5.05, NAN, 50) < 0)
			return -ENOMEM;
		if (p == 3) {
			s->sent = 50;
			s->received = 48;
			s->lost = 2;
		}
	}
	return 0;
}
