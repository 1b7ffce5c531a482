/* SPDX-License-Identifier: MIT */
/* cmd-audit.c - `debloat audit`: read the host, judge it, print the report. Read-only. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "audit/report.h"
#include "base/cli.h"
#include "base/print.h"
#include "fix/apply.h"
#include "fix/commands.h"
#include "fix/plan.h"
#include "host/host.h"
#include "host/snapshot.h"

static const char usage[] =
    "Usage: " PROG_NAME " audit [--json] [--from FILE] [IFACE...]\n"
    "\n"
    "Show each interface's queues (qdisc tree, txqueuelen, BQL), what in them can add\n"
    "delay under load and how much, what to do about it, and a grade on the\n"
    "DSLReports bufferbloat scale. Reads only; works without root for what needs\n"
    "none.\n"
    "\n"
    "  -j, --json        print one JSON document (keys: docs/json.md)\n"
    "  -f, --from FILE   audit a snapshot (`" PROG_NAME " snapshot`, docs/snapshot.md)\n"
    "                    instead of this host\n"
    "  -h, --help        show this help\n"
    "\n"
    "The grade is the DSLReports scale on the worst-case delay the egress path can\n"
    "add, the qdisc's queue plus the device's: A+ under 5 ms, A under 30, B 60,\n"
    "C 200, D 400, else F. A device queue of unknown size (URBs, a ring ethtool does\n"
    "not report) counts at the drivers table's usual size, or leaves the interface\n"
    "ungraded; never as empty. A FIFO under a shaper drains at the shaper's rate.\n"
    "The whole rule: docs/grades.md.\n";

struct audit_args {
	bool json;
	const char *from;
};

/* -1 to run the audit, else the exit status to return at once (help, usage error). */
static int parse_args(int argc, char *argv[], struct audit_args *a)
{
	const struct cli_option options[] = {
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {"from", 'f', CLI_STR, CLI_TO(&a->from), .needs = "a file"},
	    CLI_OPTION_HELP,
	    {0},
	};

	return cli_parse_options("audit", usage, options, NULL, argc, argv);
}

/* A snapshot's file and origin, ahead of the report: it is not this host, now.
 * (The report itself names the host and kernel, as for a live audit.) */
static void print_origin(struct printer *p, const char *file, const struct host *h)
{
	print_open_object(p, "snapshot");
	print_indent(p, 0);
	print_text(p, "from snapshot");
	print_str(p, "file", file, PRINT_BARE | PRINT_NOWRAP);
	print_bool(p, "constructed", h->constructed, PRINT_JSON_ONLY);
	if (h->constructed)
		print_text(p, "(constructed, not captured)");
	print_nl(p);
	if (h->source[0]) {
		print_indent(p, 1);
		print_text(p, "source:");
		print_str(p, "source", h->source, PRINT_BARE);
		print_nl(p);
	} else {
		print_null(p, "source", NULL, PRINT_JSON_ONLY);
	}
	print_indent(p, 0);
	print_nl(p);
	print_close(p);
}

/* The host from a snapshot, narrowed to the names given; the message is printed here. */
static int read_snapshot(const char *file, struct host *h, char *const names[], size_t nnames)
{
	char err[512];
	size_t bad = 0;
	int r;

	r = snapshot_read_file(file, h, err, sizeof(err));
	if (r < 0) {
		cli_error("audit", "cannot read snapshot %s: %s", file,
			  err[0] ? err : strerror(-r));
		return r;
	}
	r = snapshot_select(h, names, nnames, &bad);
	if (r == -ENODEV)
		cli_error("audit", "snapshot %s has no interface %s", file, names[bad]);
	else if (r < 0)
		cli_error("audit", "cannot read snapshot %s: %s", file, strerror(-r));
	return r;
}

/* This host's interfaces, the names given or all; the message is printed here. */
static int read_live(struct host *h, char *const names[], size_t nnames)
{
	size_t bad = 0;
	int r;

	r = host_read(h, &host_default_paths, names, nnames, &bad);
	if (r == -ENODEV)
		cli_error("audit", "cannot find interface %s: %s", names[bad], strerror(-r));
	else if (r < 0)
		cli_error("audit", "cannot read the interfaces: %s", strerror(-r));
	return r;
}

/* Every command of the steps with something to do that belong to target (-1: the host). */
static void print_commands(struct printer *p, const struct plan *pl, int target)
{
	char buf[8192];

	print_open_array(p, "commands");
	for (size_t i = 0; i < pl->nsteps; i++) {
		const struct plan_step *s = &pl->steps[i];
		const struct iface *ifc = s->target >= 0 ? pl->targets[s->target].ifc : NULL;
		unsigned ntxq = ifc && ifc->nbql ? (unsigned)ifc->nbql : ifc ? ifc->tx_queues : 0;

		if (s->target != target || s->status != STEP_PLANNED)
			continue;
		if (knob_commands(&s->knob, s->after, ntxq, buf, sizeof(buf)) < 0)
			continue;
		for (char *line = buf, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			*nl = '\0';
			print_indent(p, 2);
			print_str(p, NULL, line, PRINT_BARE | PRINT_COMMAND);
			print_nl(p);
		}
	}
	print_close(p);
}

/*
 * What `debloat fix` would do, as commands: one coherent set per interface (and the
 * host's sysctls), from the same plan fix makes, so audit's advice cannot contradict it.
 * Live, steps already at their value are left out; from a snapshot they cannot be told.
 */
static void print_fix(struct printer *p, const struct host *h, bool named)
{
	struct plan_options o = {.role = PLAN_ROLE_HOST};
	struct knob_env env = {.sysfs_root = "/sys", .proc_root = "/proc"};
	struct plan pl;
	size_t failed;

	plan_init(&pl, &o);
	if (plan_build(&pl, h, named) < 0) {
		plan_free(&pl);
		return;
	}
	if (!h->from_snapshot && apply_read_befores(&pl, &env, &failed) == 0)
		plan_settle(&pl);
	print_open_object(p, "fix");
	print_indent(p, 0);
	print_nl(p);
	print_text(p, "to fix it, `%s fix IFACE` does this (or type it, as root):", PROG_NAME);
	print_nl(p);
	print_open_array(p, "interfaces");
	for (size_t t = 0; t < pl.ntargets; t++) {
		const struct plan_target *tg = &pl.targets[t];

		print_open_object(p, NULL);
		print_indent(p, 1);
		print_str(p, "name", tg->name, PRINT_BARE);
		print_text(p, ":");
		if (tg->skipped || tg->refused) {
			print_str(p, "not_fixed", tg->refused_why, PRINT_BARE);
			print_nl(p);
			report_shaper(p, tg->shaped ? &tg->shaper : NULL, 2);
		} else {
			print_null(p, "not_fixed", NULL, PRINT_JSON_ONLY);
			if (!plan_count(&pl, STEP_PLANNED))
				print_text(p, "nothing to change");
			print_nl(p);
			report_shaper(p, tg->shaped ? &tg->shaper : NULL, 2);
			print_commands(p, &pl, (int)t);
		}
		print_close(p);
	}
	print_close(p);
	print_open_object(p, "host");
	print_indent(p, 1);
	print_text(p, "host-wide:");
	print_nl(p);
	print_commands(p, &pl, -1);
	print_close(p);
	print_close(p);
	plan_free(&pl);
}

int cmd_audit(int argc, char *argv[])
{
	struct host host = {0};
	struct printer *p = NULL;
	struct audit_args a = {0};
	int ret = 1, r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	r = a.from ? read_snapshot(a.from, &host, argv + optind, (size_t)(argc - optind))
		   : read_live(&host, argv + optind, (size_t)(argc - optind));
	if (r < 0)
		goto cleanup;
	p = print_new(stdout, a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error("audit", "cannot build the report: %s", strerror(ENOMEM));
		goto cleanup;
	}
	if (host.from_snapshot)
		print_origin(p, a.from, &host);
	report_audit(p, &host);
	print_fix(p, &host, argc - optind > 0);
	if (cli_print_finish("audit", p, "cannot write the report") < 0)
		goto cleanup;
	ret = 0;
cleanup:
	print_free(p);
	host_free(&host);
	return ret;
}
