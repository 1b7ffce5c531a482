/* SPDX-License-Identifier: MIT */
/*
 * fuzz-journal.c - the fix journal parser and the --persist file parser on arbitrary
 * bytes. Either parser must fail with a "FILE:LINE: what" message and nothing kept,
 * or succeed; a journal that parses must format and parse again to the same journal
 * (the writer and the reader agree on every field and every escape), and so must a
 * persisted setup rebuilt as a plan. Everything is freed (LeakSanitizer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/journal.h"
#include "fix/persist.h"
#include "fix/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_journal(const struct journal *a, const struct journal *b)
{
	if (a->n != b->n || a->created != b->created || a->pid != b->pid)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct journal_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->id != y->id || x->state != y->state ||
		    !journal_knob_same(&x->knob, &y->knob) || strcmp(x->before, y->before) ||
		    strcmp(x->after, y->after) || strcmp(x->note, y->note))
			return false;
	}
	return true;
}

/* A message that names the place: "f:LINE: " or "f: " (size limits). */
static void check_message(int r, const char *err)
{
	if (r < 0 && r != -ENOMEM && strncmp(err, "f:", 2))
		abort();
}

static void journal_case(const char *buf, size_t size)
{
	struct journal j, again;
	char err[512], *text;
	size_t len;
	int r;

	r = journal_parse(buf, size, "f", &j, err, sizeof(err));
	check_message(r, err);
	if (r < 0) {
		if (j.n || j.steps)
			abort();
		return;
	}
	if (journal_format(&j, &text, &len) == 0) {
		if (journal_parse(text, len, "f", &again, err, sizeof(err)) < 0 ||
		    !same_journal(&j, &again)) {
			fprintf(stderr, "journal round trip: %s\n%.*s\n", err, (int)len, text);
			abort();
		}
		journal_free(&again);
		free(text);
	}
	journal_free(&j);
}

static void persist_case(const char *buf, size_t size)
{
	struct persist ps, again;
	struct plan p;
	char err[512], *text;
	size_t len;
	int r, t;

	r = persist_parse(buf, size, "f", &ps, err, sizeof(err));
	check_message(r, err);
	if (r < 0) {
		if (ps.n || ps.sets)
			abort();
		return;
	}
	plan_init(&p, NULL);
	t = plan_add_target(&p, ps.ifname);
	for (size_t i = 0; i < ps.n && t >= 0; i++)
		if (plan_add_step(&p, ps.sets[i].knob.kind == KNOB_SYSCTL ? -1 : t,
				  &ps.sets[i].knob, ps.sets[i].value, false, "") < 0)
			abort();
	if (t >= 0 && persist_format(&p, t, &text, &len) == 0) {
		if (persist_parse(text, len, "f", &again, err, sizeof(err)) < 0 ||
		    again.n != ps.n || strcmp(again.ifname, ps.ifname)) {
			fprintf(stderr, "persist round trip: %s\n%.*s\n", err, (int)len, text);
			abort();
		}
		for (size_t i = 0; i < ps.n; i++)
			if (!journal_knob_same(&again.sets[i].knob, &ps.sets[i].knob) ||
			    strcmp(again.sets[i].value, ps.sets[i].value))
				abort();
		persist_free(&again);
		free(text);
	}
	plan_free(&p);
	persist_free(&ps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	journal_case((const char *)data, size);
	persist_case((const char *)data, size);
	return 0;
}
