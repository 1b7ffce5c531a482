/* SPDX-License-Identifier: MIT */
/* fallback.c - fallback.h: the kinds a refused qdisc value names that will not load. */
#include <string.h>

#include "fix/fallback.h"
#include "host/avail.h"

static void append(char *names, size_t len, const char *word)
{
	size_t used = strlen(names);

	if (used + (used ? 1 : 0) + strlen(word) + 1 > len)
		return;
	if (used)
		names[used++] = ' ';
	memcpy(names + used, word, strlen(word) + 1);
}

size_t fallback_mark(struct host *h, const struct host_paths *paths, const char *value, char *names,
		     size_t len)
{
	size_t marked = 0;

	if (len)
		names[0] = '\0';
	for (const char *w = value; *w;) {
		size_t n = strcspn(w, " \t");

		for (size_t k = 0; n && k < HOST_NQDISC_KINDS; k++) {
			struct qdisc_kind_avail *a = &h->qdisc_kinds[k];

			if (!a->kind || strlen(a->kind) != n || memcmp(a->kind, w, n) ||
			    a->avail == QDISC_AVAIL_NO ||
			    avail_loaded_or_builtin(paths, h->kernel_release, a->kind))
				continue;
			a->avail = QDISC_AVAIL_NO;
			if (len)
				append(names, len, a->kind);
			marked++;
		}
		w += n;
		w += strspn(w, " \t");
	}
	return marked;
}
