/* SPDX-License-Identifier: MIT */
/* result.c - result.h: the storage of one test's series. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "meter/result.h"

/* Raw samples grow by doubling from this; a 70 s test at 0.2 s holds 350 per probe. */
#define RAW_INITIAL_CAP 64

int result_init(struct test_result *r, size_t nsteps)
{
	/* The series arrays are allocated as series are added; keep nsteps for them. */
	r->nsteps = nsteps;
	r->nseries = 0;
	r->own_upload_mbps = r->own_download_mbps = NAN;
	return 0;
}

struct series *result_add_series(struct test_result *r, const char *name, const char *unit,
				 enum series_kind kind, uint8_t tos)
{
	struct series *s;

	if (r->nseries >= RESULT_MAX_SERIES)
		return NULL;
	s = &r->series[r->nseries];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->unit, sizeof(s->unit), "%s", unit);
	s->kind = kind;
	s->tos = tos;
	/* calloc(0) may return NULL; keep one slot so NULL always means out of memory. */
	s->values = calloc(r->nsteps ? r->nsteps : 1, sizeof(*s->values));
	if (!s->values)
		return NULL;
	for (size_t i = 0; i < r->nsteps; i++)
		s->values[i] = NAN;
	r->nseries++;
	return s;
}

int series_add_raw(struct series *s, double t, double val, uint32_t seq)
{
	if (s->nraw == s->raw_cap) {
		int err;
		struct raw_sample *raw =
		    array_grow(s->raw, &s->raw_cap, sizeof(*raw), RAW_INITIAL_CAP, SIZE_MAX, &err);

		if (!raw)
			return -ENOMEM;
		s->raw = raw;
	}
	s->raw[s->nraw++] = (struct raw_sample){.t = t, .val = val, .seq = seq};
	return 0;
}

int result_add_owd(struct test_result *r, double t, double up_ms, double down_ms)
{
	if (r->nowd == r->owd_cap) {
		size_t cap = r->owd_cap ? 2 * r->owd_cap : 256;
		struct owd_sample *n = realloc(r->owd, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->owd = n;
		r->owd_cap = cap;
	}
	r->owd[r->nowd++] = (struct owd_sample){t, up_ms, down_ms};
	return 0;
}

struct series *result_find_series(struct test_result *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (!strcmp(r->series[i].name, name))
			return &r->series[i];
	return NULL;
}

void result_free(struct test_result *r)
{
	for (size_t i = 0; i < r->nseries; i++) {
		free(r->series[i].values);
		free(r->series[i].raw);
		r->series[i].values = NULL;
		r->series[i].raw = NULL;
		r->series[i].nraw = r->series[i].raw_cap = 0;
	}
	r->nseries = 0;
	free(r->owd);
	r->owd = NULL;
	r->nowd = r->owd_cap = 0;
	free(r->egress_info_json);
	free(r->sysctls_json);
	r->egress_info_json = NULL;
	r->sysctls_json = NULL;
}
