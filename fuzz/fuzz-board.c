/* SPDX-License-Identifier: MIT */
/*
 * fuzz-board.c - the lab's boards from arbitrary snapshots (lab/board.h): the bytes
 * as a snapshot, every interface made into a profile, then fix's plan for it applied
 * (--fixed). Each call returns 0 or a negative errno with a message; on 0 the profile
 * is usable (lab_profile_check) and survives lab_profile_format and a parse back;
 * on an error the profile passed in is untouched. Everything is freed (LeakSanitizer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/plan.h"
#include "host/snapshot.h"
#include "lab/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *why, const char *text)
{
	fprintf(stderr, "fuzz-board: %s\n%s\n", why, text ? text : "");
	abort();
}

/* A profile that loaded must be usable and read back equal. */
static void check_usable(const struct lab_profile *p)
{
	static char text[LAB_PROFILE_TEXT_MAX * 2];
	struct lab_profile back;
	char err[512];
	int len;

	if (lab_profile_check(p, err, sizeof(err)) < 0)
		die("a profile from a snapshot is not usable", err);
	len = lab_profile_format(p, text, sizeof(text));
	if (len < 0)
		die("a profile from a snapshot does not format", p->name);
	lab_profile_defaults(&back);
	if (lab_profile_parse(&back, text, (size_t)len, NULL, err, sizeof(err)) < 0)
		die("a profile from a snapshot does not parse back", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_options opts = {0};
	struct host h = {0};
	struct lab_profile *p = malloc(sizeof(*p)), *before = malloc(sizeof(*before));
	struct lab_board *b = malloc(sizeof(*b));
	char err[512], *buf = malloc(size ? size : 1);

	if (!buf || !p || !before || !b)
		goto out;
	memcpy(buf, data, size);
	if (snapshot_parse(buf, size, &h, err, sizeof(err)) < 0)
		goto out;
	for (size_t i = 0; i < h.n && i < 8; i++) {
		struct plan pl;
		int r;

		memset(p, 0xa5, sizeof(*p));
		memcpy(before, p, sizeof(*p));
		err[0] = '\0';
		r = lab_board_profile(&h, i, p, b, err, sizeof(err));
		if (r < 0) {
			if (!err[0] || memcmp(p, before, sizeof(*p)))
				die("an error without a message, or with the profile changed", err);
			continue;
		}
		check_usable(p);
		plan_init(&pl, &opts);
		if (plan_build(&pl, &h, true) == 0) {
			memcpy(before, p, sizeof(*p));
			err[0] = '\0';
			r = lab_board_apply_plan(&pl, p, b, err, sizeof(err));
			if (r < 0 && (!err[0] || memcmp(p, before, sizeof(*p))))
				die("a plan error without a message, or with the profile changed",
				    err);
			if (r == 0)
				check_usable(p);
		}
		plan_free(&pl);
	}
	err[0] = '\0';
	lab_board_pick(&h, NULL, err, sizeof(err));
out:
	host_free(&h);
	free(buf);
	free(p);
	free(before);
	free(b);
	return 0;
}
