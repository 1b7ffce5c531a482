/* SPDX-License-Identifier: MIT */
/* cmd-audit.c - `debloat audit`: read the host, judge it, print the report. Read-only. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "host/host.h"
#include "print.h"
#include "report.h"

static const char usage[] =
    "Usage: " PROG_NAME " audit [--json] [IFACE...]\n"
    "\n"
    "Show each interface's queues (qdisc tree, txqueuelen, BQL), what in them can add\n"
    "delay under load and how much, what to do about it, and a grade on the DSLReports\n"
    "bufferbloat scale. Reads only; works without root for what needs none.\n"
    "\n"
    "  -j, --json   print one JSON document (keys: docs/json.md)\n"
    "  -h, --help   show this help\n";

/* -1 to run the audit, else the exit status to return at once (help, usage error). */
static int parse_args(int argc, char *argv[], bool *json)
{
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	optind = 0; /* glibc: start over, whoever parsed before */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		if (c == 'j')
			*json = true;
		else if (c == 'h')
			return fputs(usage, stdout) == EOF ? 1 : 0;
		else
			return cli_usage_error("audit", usage, "unknown option \"%s\"",
					       cli_bad_option(argv));
	}
	return -1;
}

int cmd_audit(int argc, char *argv[])
{
	struct host host = {0};
	struct printer *p = NULL;
	size_t bad = 0;
	bool json = false;
	int ret = 1, r;

	r = parse_args(argc, argv, &json);
	if (r >= 0)
		return r;
	r = host_read(&host, &host_default_paths, argv + optind, (size_t)(argc - optind), &bad);
	if (r == -ENODEV) {
		fprintf(stderr, "%s: audit: cannot find interface %s: %s\n", PROG_NAME,
			argv[optind + bad], strerror(-r));
		goto cleanup;
	}
	if (r < 0) {
		fprintf(stderr, "%s: audit: cannot read the interfaces: %s\n", PROG_NAME,
			strerror(-r));
		goto cleanup;
	}
	p = print_new(stdout, json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		fprintf(stderr, "%s: audit: cannot build the report: %s\n", PROG_NAME,
			strerror(ENOMEM));
		goto cleanup;
	}
	report_audit(p, &host);
	r = print_finish(p);
	if (r < 0) {
		fprintf(stderr, "%s: audit: cannot write the report: %s\n", PROG_NAME,
			strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	print_free(p);
	host_free(&host);
	return ret;
}
