/* SPDX-License-Identifier: MIT */
/*
 * fuzz-snapshot.c - the snapshot reader on arbitrary bytes as the JSON file. A
 * document that fails must leave a message and no host; one that reads must audit
 * without crashing (text and JSON), and writing it out and reading that again must
 * give the same document: the reader and the writer agree on every field. Everything
 * is freed (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/report.h"
#include "base/print.h"
#include "host/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void audit(const struct host *h, FILE *sink, enum print_mode mode)
{
	struct printer *p = print_new(sink, mode);

	if (!p)
		return;
	report_audit(p, h);
	print_finish(p);
	print_free(p);
}

/* The host written out, as compact text (malloc'ed), or NULL when out of memory. */
static char *written(const struct host *h)
{
	struct jval *doc = NULL;
	const char *text;
	char *copy = NULL;
	size_t len;

	if (snapshot_build(h, &doc) < 0)
		return NULL;
	text = json_text(doc, &len);
	if (text)
		copy = strndup(text, len);
	json_free(doc);
	return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct host h = {0}, again = {0};
	char err[512], *buf, *first = NULL, *second = NULL;
	int r;

	if (!sink)
		sink = fopen("/dev/null", "w");
	buf = malloc(size ? size : 1);
	if (!buf || !sink) {
		free(buf);
		return 0;
	}
	memcpy(buf, data, size);
	err[0] = '\0';
	r = snapshot_parse(buf, size, &h, err, sizeof(err));
	free(buf);
	if (r < 0) {
		if (!err[0] || h.ifaces || h.n) {
			fprintf(stderr,
				"fuzz-snapshot: failed (%d) without a message or with a host\n", r);
			abort();
		}
		return 0;
	}
	audit(&h, sink, PRINT_MODE_TEXT);
	audit(&h, sink, PRINT_MODE_JSON);
	first = written(&h);
	if (first && snapshot_parse(first, strlen(first), &again, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz-snapshot: what it wrote does not read: %s\n%s\n", err, first);
		abort();
	}
	second = first ? written(&again) : NULL;
	if (first && second && strcmp(first, second)) {
		fprintf(stderr, "fuzz-snapshot: written twice, two documents:\n%s\n%s\n", first,
			second);
		abort();
	}
	free(first);
	free(second);
	host_free(&again);
	host_free(&h);
	return 0;
}
