/* SPDX-License-Identifier: MIT */
/* prom.c - prom.h: families collect their own sample lines; finish joins them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "exporter/prom.h"

struct strbuf {
	char *s;
	size_t len, cap;
};

struct family_lines {
	const struct prom_family *f;
	struct strbuf lines;
};

struct prom {
	struct family_lines fam[PROM_MAX_FAMILIES];
	size_t nfam;
	size_t total; /* bytes held, for PROM_MAX_BYTES */
	int err;
};

struct prom *prom_new(void)
{
	return calloc(1, sizeof(struct prom));
}

void prom_free(struct prom *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nfam; i++)
		free(w->fam[i].lines.s);
	free(w);
}

static void put(struct prom *w, struct strbuf *b, const char *s, size_t n)
{
	if (w->err)
		return;
	if (w->total + n > PROM_MAX_BYTES) {
		w->err = -EFBIG;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		char *p = array_reserve(b->s, &b->cap, 1, 256, b->len + n + 1, &w->err);

		if (!p)
			return;
		b->s = p;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	w->total += n;
}

static void puts_(struct prom *w, struct strbuf *b, const char *s)
{
	put(w, b, s, strlen(s));
}

/* label: also escape '"'; help: only '\\' and newline. */
static void put_escaped(struct prom *w, struct strbuf *b, const char *s, bool label)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc = *s == '\\'	       ? "\\\\"
				  : *s == '\n'	       ? "\\n"
				  : label && *s == '"' ? "\\\""
						       : NULL;

		if (!esc)
			continue;
		put(w, b, run, (size_t)(s - run));
		puts_(w, b, esc);
		run = s + 1;
	}
	put(w, b, run, (size_t)(s - run));
}

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && c >= '0' && c <= '9';
}

int prom_name_valid(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const char *s = name; *s; s++)
		if (!name_char(*s, s == name, true))
			return 0;
	return 1;
}

int prom_label_name_valid(const char *name)
{
	if (!name || !*name || !strncmp(name, "__", 2))
		return 0;
	for (const char *s = name; *s; s++)
		if (!name_char(*s, s == name, false))
			return 0;
	return 1;
}

static struct family_lines *family(struct prom *w, const struct prom_family *f)
{
	for (size_t i = 0; i < w->nfam; i++) {
		if (w->fam[i].f == f || !strcmp(w->fam[i].f->name, f->name)) {
			if (w->fam[i].f->type != f->type) {
				w->err = -EINVAL;
				return NULL;
			}
			return &w->fam[i];
		}
	}
	if (!prom_name_valid(f->name)) {
		w->err = -EINVAL;
		return NULL;
	}
	if (w->nfam == PROM_MAX_FAMILIES) {
		w->err = -E2BIG;
		return NULL;
	}
	w->fam[w->nfam] = (struct family_lines){.f = f};
	return &w->fam[w->nfam++];
}

static void add(struct prom *w, const struct prom_family *f, const struct prom_label *labels,
		size_t nlabels, const char *value)
{
	struct family_lines *fl;

	if (w->err)
		return;
	fl = family(w, f);
	if (!fl)
		return;
	puts_(w, &fl->lines, f->name);
	for (size_t i = 0; i < nlabels; i++) {
		if (!prom_label_name_valid(labels[i].name) || !labels[i].value) {
			w->err = -EINVAL;
			return;
		}
		puts_(w, &fl->lines, i ? "," : "{");
		puts_(w, &fl->lines, labels[i].name);
		puts_(w, &fl->lines, "=\"");
		put_escaped(w, &fl->lines, labels[i].value, true);
		puts_(w, &fl->lines, "\"");
	}
	if (nlabels)
		puts_(w, &fl->lines, "}");
	puts_(w, &fl->lines, " ");
	puts_(w, &fl->lines, value);
	puts_(w, &fl->lines, "\n");
}

void prom_add_u64(struct prom *w, const struct prom_family *f, const struct prom_label *labels,
		  size_t nlabels, uint64_t value)
{
	char v[24];

	snprintf(v, sizeof(v), "%" PRIu64, value);
	add(w, f, labels, nlabels, v);
}

void prom_add_double(struct prom *w, const struct prom_family *f, const struct prom_label *labels,
		     size_t nlabels, double value)
{
	char v[40];

	if (isnan(value))
		snprintf(v, sizeof(v), "NaN");
	else if (isinf(value))
		snprintf(v, sizeof(v), "%s", value > 0 ? "+Inf" : "-Inf");
	else {
		/* The shortest of 15 or 17 significant digits that reads back exactly. */
		snprintf(v, sizeof(v), "%.15g", value);
		if (strtod(v, NULL) != value)
			snprintf(v, sizeof(v), "%.17g", value);
	}
	add(w, f, labels, nlabels, v);
}

int prom_finish(struct prom *w, char **out, size_t *len)
{
	struct strbuf all = {0};

	w->total = 0; /* the joined text is bounded on its own */

	for (size_t i = 0; i < w->nfam && !w->err; i++) {
		const struct prom_family *f = w->fam[i].f;

		puts_(w, &all, "# HELP ");
		puts_(w, &all, f->name);
		puts_(w, &all, " ");
		put_escaped(w, &all, f->help ? f->help : "", false);
		puts_(w, &all, "\n# TYPE ");
		puts_(w, &all, f->name);
		puts_(w, &all, f->type == PROM_COUNTER ? " counter\n" : " gauge\n");
		put(w, &all, w->fam[i].lines.s ? w->fam[i].lines.s : "", w->fam[i].lines.len);
	}
	if (!w->err && !all.s)
		puts_(w, &all, ""); /* an empty exposition is a valid one */
	if (w->err) {
		free(all.s);
		return w->err;
	}
	*out = all.s;
	*len = all.len;
	return 0;
}
