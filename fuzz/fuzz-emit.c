/* SPDX-License-Identifier: MIT */
/*
 * fuzz-emit.c - fix --emit on arbitrary snapshots: the bytes as a snapshot file, every
 * interface planned (as if named, so virtual links are planned too), the plan written
 * in each format. emit_plan must return 0 or an error with no files; on 0 every file
 * has a plain name and ends in a newline, and a networkd file holds only comments,
 * blank lines, [Section] lines and Key=value lines with a plain key: nothing from the
 * snapshot can make a line networkd, udev or a shell would read otherwise. Everything
 * is freed (LeakSanitizer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/emit.h"
#include "fix/plan.h"
#include "host/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *why, const char *text)
{
	fprintf(stderr, "fuzz-emit: %s\n%s\n", why, text ? text : "");
	abort();
}

static bool key_line(const char *l, size_t len)
{
	size_t i = 0;

	while (i < len && ((l[i] >= 'A' && l[i] <= 'Z') || (l[i] >= 'a' && l[i] <= 'z') ||
			   (l[i] >= '0' && l[i] <= '9')))
		i++;
	return i > 0 && i < len && l[i] == '=';
}

static void check_networkd(const struct emit_file *f)
{
	const char *t = f->text;

	while (*t) {
		const char *end = strchr(t, '\n');
		size_t len = (size_t)(end - t);

		if (len && t[0] != '#' && !(t[0] == '[' && t[len - 1] == ']') &&
		    !(strstr(f->name, ".sysctl.") && memchr(t, '=', len)) && !key_line(t, len))
			die("a networkd line that is neither comment, section nor key", f->text);
		t = end + 1;
	}
}

static void check(const struct plan *p, enum emit_format fmt)
{
	struct emit *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return;
	r = emit_plan(p, fmt, e);
	if (r < 0 && (e->nfiles || (r != -EINVAL && r != -E2BIG && r != -ENOMEM)))
		die("an error with files left, or an unexpected error", NULL);
	for (unsigned i = 0; i < e->nfiles && r == 0; i++) {
		const struct emit_file *f = &e->files[i];

		if (!f->name[0] || strchr(f->name, '/') || !f->text || !f->len ||
		    f->text[f->len - 1] != '\n' || strlen(f->text) != f->len)
			die("a file with a bad name or text", f->name);
		if (fmt == EMIT_NETWORKD)
			check_networkd(f);
	}
	emit_free(e);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_options opts = {0};
	struct host h = {0};
	struct plan p;
	char err[512], *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (snapshot_parse(buf, size, &h, err, sizeof(err)) < 0) {
		free(buf);
		return 0;
	}
	free(buf);
	plan_init(&p, &opts);
	if (plan_build(&p, &h, true) == 0)
		for (int f = EMIT_NETWORKD; f <= EMIT_NM; f++)
			check(&p, (enum emit_format)f);
	plan_free(&p);
	host_free(&h);
	return 0;
}
