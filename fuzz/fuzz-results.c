/* SPDX-License-Identifier: MIT */
/*
 * fuzz-results.c - the results reader (plot/run-file.h) on arbitrary bytes as our JSON or
 * a flent file (already inflated). A document that fails must say why and leave no
 * run; one that reads must draw every plot kind and print the comparison (text and
 * JSON) without crashing, and the SVG must stay under its size limit. Everything is
 * freed (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/compare-runs.h"
#include "plot/plot.h"
#include "plot/run-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void compare(const struct run *run, FILE *sink, enum print_mode mode)
{
	const char *files[] = {"fuzz.json"};
	struct printer *p = print_new(sink, mode);

	if (!p)
		return;
	compare_print(p, run, files, 1);
	print_finish(p);
	print_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct run run;
	char err[256];
	int r;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	memset(&run, 0, sizeof(run));
	err[0] = '\0';
	r = run_parse((const char *)data, size, "fuzz.json", &run, err, sizeof(err));
	if (r < 0) {
		if (!err[0] || run.r.nseries) {
			fprintf(stderr,
				"fuzz-results: failed (%d) without a reason or with a run\n", r);
			abort();
		}
		return 0;
	}
	for (int k = PLOT_ALL; k <= PLOT_COMPARE; k++) {
		struct plot_options o = {(enum plot_kind)k, NULL};
		char *svg = NULL;
		size_t len = 0;

		if (plot_render(&run, 1, &o, &svg, &len) == 0 && (!svg || strlen(svg) != len)) {
			fprintf(stderr, "fuzz-results: kind %d: a document of the wrong length\n",
				k);
			abort();
		}
		free(svg);
	}
	compare(&run, sink, PRINT_MODE_TEXT);
	compare(&run, sink, PRINT_MODE_JSON);
	run_free(&run);
	return 0;
}
