/* SPDX-License-Identifier: MIT */
/*
 * cmd-snapshot.c - `debloat snapshot`: read the host as audit does and write it as one
 * JSON document (docs/snapshot.md), for `debloat audit --from FILE` here or elsewhere.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/json.h"
#include "base/outfile.h"
#include "host/host.h"
#include "host/snapshot.h"

static const char usage[] =
    "Usage: " PROG_NAME " snapshot [-o FILE] [-n NOTE] [IFACE...]\n"
    "\n"
    "Save everything audit reads (interfaces, qdisc trees, BQL, rings, offloads,\n"
    "sysctls, the qdisc kinds this kernel has) as one JSON document, to audit later\n"
    "or elsewhere with `" PROG_NAME " audit --from FILE`. Reads only.\n"
    "\n"
    "  -o, --output FILE  write FILE (replaced whole, never half written), not stdout\n"
    "  -n, --note TEXT    where this comes from (board, image), kept as \"source\"\n"
    "  -h, --help         show this help\n";

struct snapshot_args {
	const char *output, *note;
};

/* -1 to take the snapshot, else the exit status to return at once. */
static int parse_args(int argc, char *argv[], struct snapshot_args *a)
{
	const struct cli_option options[] = {
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"note", 'n', CLI_STR, CLI_TO(&a->note)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r = cli_parse_options("snapshot", usage, options, NULL, argc, argv);

	if (r >= 0)
		return r;
	if (a->note && strlen(a->note) >= sizeof(((struct host *)0)->source))
		return cli_usage_error("snapshot", usage, "the note is longer than %zu characters",
				       sizeof(((struct host *)0)->source) - 1);
	return -1;
}

static int write_file(const char *path, struct jval *doc)
{
	struct outfile o;
	int r = outfile_open(&o, path);

	if (r < 0)
		return r;
	return outfile_close(&o, json_write(o.f, doc));
}

int cmd_snapshot(int argc, char *argv[])
{
	struct snapshot_args a = {0};
	struct host host = {0};
	struct jval *doc = NULL;
	size_t bad = 0;
	int ret = 1, r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	r = host_read(&host, &host_default_paths, argv + optind, (size_t)(argc - optind), &bad);
	if (r < 0) {
		if (r == -ENODEV)
			cli_error("snapshot", "cannot find interface %s: %s", argv[optind + bad],
				  strerror(-r));
		else
			cli_error("snapshot", "cannot read the interfaces: %s", strerror(-r));
		goto cleanup;
	}
	snprintf(host.source, sizeof(host.source), "%s",
		 a.note ? a.note : "captured by " PROG_NAME " snapshot");
	r = snapshot_build(&host, &doc);
	if (r < 0) {
		cli_error("snapshot", "cannot build the document: %s", strerror(-r));
		goto cleanup;
	}
	r = a.output ? write_file(a.output, doc) : json_write(stdout, doc);
	if (r == 0 && !a.output && fflush(stdout) == EOF)
		r = -errno;
	if (r < 0) {
		cli_error("snapshot", "cannot write %s: %s", a.output ? a.output : "to stdout",
			  strerror(-r));
		goto cleanup;
	}
	ret = 0;
cleanup:
	json_free(doc);
	host_free(&host);
	return ret;
}
