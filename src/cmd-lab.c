/* SPDX-License-Identifier: MIT */
/*
 * cmd-lab.c - `debloat lab`: an emulated board link between two network namespaces,
 * "client" and "board", with `debloat server` on the board side and a command (or a
 * shell) on the client side; the emulator's summary at exit. This file reads the
 * options and the profile; lab/session.c builds, runs and tears down the lab.
 * `lab profiles` lists the built-in profiles, `lab show` prints the effective one,
 * `lab boards` the boards; `lab compare` and `lab seed` are cmd-lab-compare.c.
 */
#include <errno.h>
#include <getopt.h> /* optind */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/print.h"
#include "debloat/units.h"
#include "lab/board.h"
#include "lab/netns.h"
#include "lab/profile.h"
#include "lab/session.h"
#include "meter/cc.h"

#define LAB_MAX_SETS 64

static const char usage[] =
    "Usage: " PROG_NAME " lab [--profile P | --snapshot FILE [--iface NAME] [--fixed]]\n"
    "                   [--set KEY=VALUE]... [--telemetry FILE]\n"
    "                   [--json-summary FILE] [--no-gro] [--writer-threads] [-q]\n"
    "                   [-- COMMAND [ARG...]]\n"
    "       " PROG_NAME " lab profiles\n"
    "       " PROG_NAME " lab boards [--json]\n"
    "       " PROG_NAME " lab show [--profile P | --snapshot FILE [--iface NAME] [--fixed]]\n"
    "                   [--set KEY=VALUE]... [--json]\n"
    "       " PROG_NAME " lab compare [OPTIONS] PROFILE...\n"
    "       " PROG_NAME " lab seed [OPTIONS]\n"
    "\n"
    "Emulate a board's link between two network namespaces, \"client\" and \"board\",\n"
    "joined by tun devices and a userspace model of the board's transmit path (qdisc,\n"
    "GSO/TSO, TX ring, BQL, completions, wire, switch). Runs `" PROG_NAME " server` on\n"
    "the board side and COMMAND (default: $SHELL) on the client side, with\n"
    "DEBLOAT_LAB_BOARD (" LAB_BOARD_ADDR "), DEBLOAT_LAB_BOARD_NS and friends in its\n"
    "environment; prints the emulator's summary when it exits, removes everything,\n"
    "and exits with its status. Needs root.\n"
    "\n"
    "  -p, --profile P        a built-in profile (lab profiles) or a file (default\n"
    "                         bbb-stock)\n"
    "  -S, --snapshot FILE    build the board from a snapshot (`" PROG_NAME " snapshot`)\n"
    "                         or a built-in board's (lab boards): its rate, qdisc,\n"
    "                         txqueuelen, ring, BQL, GSO and ceiling; the driver's\n"
    "                         behaviour from the built-in profile of its driver\n"
    "  -i, --iface NAME       the snapshot's interface (default: its one physical\n"
    "                         interface with a driver)\n"
    "  -F, --fixed            apply the plan `" PROG_NAME " fix --from FILE --dry-run`\n"
    "                         makes for the snapshot (steps the lab cannot model are\n"
    "                         listed); --shape RATE, --ingress RATE, --no-ingress and\n"
    "                         --role ROLE as fix's (--ingress: the download's shaper,\n"
    "                         the lab's ingress)\n"
    "  -s, --set KEY=VALUE    override one setting of the profile (lab show lists)\n"
    "  -j, --json             lab show: the profile and the plan's steps as JSON\n"
    "  -t, --telemetry FILE   write the emulator's state every 10 ms: CSV when FILE\n"
    "                         ends in .csv, else JSON (keys: docs/json.md)\n"
    "  -J, --json-summary FILE  also write the summary as JSON\n"
    "      --no-gro           write every delivered frame on its own (by default the\n"
    "                         frames of a TCP flow due at the same moment are merged\n"
    "                         into one write, as the receiver's GRO would)\n"
    "      --writer-threads   a thread per direction writes the deliveries, so that a\n"
    "                         slow write delays neither the other direction nor the\n"
    "                         model (by default the emulator's loop writes them: a\n"
    "                         thread's wake-up costs more on the machines measured)\n"
    "  -q, --quiet            no progress line and no text summary\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: COMMAND's (128 + N when a signal N ended it or the lab), 1 the lab\n"
    "could not run, 2 bad options or a bad profile.\n";

struct lab_args {
	const char *cmd; /* "lab" or "lab show", for messages */
	const char *profile;
	const char *snapshot, *iface;
	bool fixed, json;
	struct plan_options opts;
	const char *sets[LAB_MAX_SETS];
	unsigned nsets;
	const char *telemetry, *json_summary;
	bool quiet;
	bool no_gro, writer_threads;
	char **command; /* NULL: a shell */
};

static int take_shape(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct lab_args *)ctx)->opts.shape_rate);
}

static int take_ingress(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct lab_args *)ctx)->opts.ingress_rate);
}

static int take_role(void *ctx, const char *value)
{
	int role = plan_role_from_name(value);

	if (role < 0)
		return -1;
	((struct lab_args *)ctx)->opts.role = (enum plan_role)role;
	return 0;
}

/* `lab --json`: what it would be is lab show's, or the summary's file. */
static int refuse_json(void *ctx, const char *value)
{
	return -1;
}

static int take_set(void *ctx, const char *value)
{
	struct lab_args *a = ctx;

	if (a->nsets == LAB_MAX_SETS)
		return cli_usage_error(a->cmd, usage, "more than %d --set options", LAB_MAX_SETS);
	a->sets[a->nsets++] = value;
	return 0;
}

/* The options lab and lab show share: which board, and how it is set. */
#define LAB_BOARD_ROWS(a)                                                                          \
	{"profile", 'p', CLI_STR, CLI_TO(&(a)->profile)},                                          \
	    {"set", 's', CLI_CALL, .call = take_set, .value = true},                               \
	    {"snapshot", 'S', CLI_STR, CLI_TO(&(a)->snapshot)},                                    \
	    {"iface", 'i', CLI_STR, CLI_TO(&(a)->iface)},                                          \
	    {"fixed", 'F', CLI_FLAG, CLI_TO(&(a)->fixed)},                                         \
	    {"shape",                                                                              \
	     0,                                                                                    \
	     CLI_CALL,                                                                             \
	     .call = take_shape,                                                                   \
	     .value = true,                                                                        \
	     .bad = "--shape takes a rate from 64kbit to 100gbit (e.g. 80mbit), not \"%s\""},      \
	    {"ingress",                                                                            \
	     0,                                                                                    \
	     CLI_CALL,                                                                             \
	     .call = take_ingress,                                                                 \
	     .value = true,                                                                        \
	     .bad = "--ingress takes a rate from 64kbit to 100gbit (e.g. 50mbit), not \"%s\""},    \
	    {"no-ingress", 0, CLI_FLAG, CLI_TO(&(a)->opts.no_ingress)},                            \
	    {"role",	    0,                                                                     \
	     CLI_CALL,	    .call = take_role,                                                     \
	     .value = true, .bad = "--role takes host or server, not \"%s\""},                     \
	    CLI_OPTION_HELP

/* Options that change fix's plan, and so mean something only with --fixed. */
static bool plan_shaped_by_options(const struct plan_options *o)
{
	return o->shape_rate || o->ingress_rate || o->no_ingress || o->role;
}

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char *argv[], struct lab_args *a, bool show)
{
	const struct cli_option lab_options[] = {
	    LAB_BOARD_ROWS(a),
	    {"telemetry", 't', CLI_STR, CLI_TO(&a->telemetry)},
	    {"json-summary", 'J', CLI_STR, CLI_TO(&a->json_summary)},
	    {"quiet", 'q', CLI_FLAG, CLI_TO(&a->quiet)},
	    {"no-gro", 0, CLI_FLAG, CLI_TO(&a->no_gro)},
	    {"writer-threads", 0, CLI_FLAG, CLI_TO(&a->writer_threads)},
	    {"json", 'j', CLI_CALL, .call = refuse_json,
	     .bad = "--json is lab show's; for the run's summary as JSON: --json-summary FILE"},
	    {0},
	};
	const struct cli_option show_options[] = {
	    LAB_BOARD_ROWS(a),
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {0},
	};
	const char *cmd = a->cmd = show ? "lab show" : "lab";
	int r =
	    cli_parse_leading_options(cmd, usage, show ? show_options : lab_options, a, argc, argv);

	if (r >= 0)
		return r;
	if (a->snapshot && a->profile)
		return cli_usage_error(cmd, usage,
				       "--profile and --snapshot are two ways to "
				       "say the same thing: give one");
	if (!a->snapshot && (a->iface || a->fixed || plan_shaped_by_options(&a->opts)))
		return cli_usage_error(cmd, usage,
				       "--iface, --fixed, --shape, --ingress, --no-ingress and "
				       "--role need --snapshot");
	if (a->snapshot && plan_shaped_by_options(&a->opts) && !a->fixed)
		return cli_usage_error(cmd, usage,
				       "--shape, --ingress, --no-ingress and --role "
				       "shape the plan: add --fixed");
	if (optind < argc) {
		if (show)
			return cli_usage_error(cmd, usage, "unexpected argument \"%s\"",
					       argv[optind]);
		a->command = argv + optind;
	}
	return -1;
}

/* The profile asked for, with the --set overrides; the board read from --snapshot
 * into *b (may be NULL). Exit status 2 (or 1) on error. */
static int load_profile(const struct lab_args *a, struct lab_profile *p, struct lab_board *b)
{
	struct lab_board scratch;
	char err[512];
	int r;

	err[0] = '\0';
	if (a->snapshot) {
		r = lab_board_load(a->snapshot, a->iface, a->fixed, &a->opts, p, b ? b : &scratch,
				   err, sizeof(err));
		if (r < 0) {
			/* A snapshot that cannot be read or modelled is bad input. */
			cli_error("lab", "%s", err[0] ? err : strerror(-r));
			return r == -ENOMEM ? 1 : EXIT_USAGE;
		}
	} else {
		r = lab_profile_load(p, a->profile ? a->profile : "bbb-stock", err, sizeof(err));
		if (r < 0) {
			cli_error("lab", "%s", err[0] ? err : strerror(-r));
			return r == -ENOENT || r == -EINVAL ? EXIT_USAGE : 1;
		}
	}
	if (lab_profile_set_words(p, a->sets, a->nsets, err, sizeof(err)) < 0) {
		cli_error("lab", "%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

static int lab_profiles(int argc, char *argv[])
{
	struct lab_profile p;
	char describe[512], err[256];
	struct printer *pr;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return fputs(usage, stdout) == EOF ? 1 : 0;
	if (argc > 1)
		return cli_usage_error("lab profiles", usage, "unexpected argument \"%s\"",
				       argv[1]);
	pr = print_new(stdout, PRINT_MODE_TEXT);
	if (!pr)
		return 1;
	/* The name, then what it is and what it models, wrapped at 80 columns. */
	for (const struct lab_builtin_profile *b = lab_builtin_profiles; b->name; b++) {
		if (lab_profile_load(&p, b->name, err, sizeof(err)) < 0) {
			print_free(pr);
			cli_error("lab", "built-in profile %s: %s", b->name, err);
			return 1;
		}
		if (lab_profile_describe(&p, describe, sizeof(describe)) < 0)
			describe[0] = '\0';
		print_indent(pr, 0);
		print_text(pr, "%s", b->name);
		print_nl(pr);
		print_indent(pr, 1);
		print_text(pr, "%s", p.description);
		print_nl(pr);
		print_text(pr, "models: %s", describe);
		print_nl(pr);
	}
	ret = cli_print_finish("lab", pr, "the profiles");
	print_free(pr);
	return ret < 0 ? 1 : 0;
}

/* The shaper's rate of a "shaper rate R ..." spec, bytes/s; 0 when not a shaper. */
static uint64_t shaper_rate(const char *spec)
{
	char rate[32];
	uint64_t v;

	if (sscanf(spec, "shaper rate %31s", rate) != 1 || db_parse_rate(rate, &v) < 0)
		return 0;
	return v;
}

/* The profile's figures the plan sets, in raw units (docs/json.md: lab show). */
static void show_profile_json(struct printer *pr, const struct lab_profile *p)
{
	char kind[32];
	uint64_t sr = shaper_rate(p->qdisc);

	sscanf(p->qdisc, "%31s", kind);
	print_str(pr, "profile", p->name, PRINT_JSON_ONLY);
	print_uint(pr, "rate_bps", p->rate_bps * 8, PRINT_JSON_ONLY);
	print_str(pr, "qdisc", p->qdisc, PRINT_JSON_ONLY);
	print_str(pr, "qdisc_kind", kind, PRINT_JSON_ONLY);
	if (sr) {
		char child[32] = "";

		sscanf(strstr(p->qdisc, " child ") ? strstr(p->qdisc, " child ") : "",
		       " child %31s", child);
		print_uint(pr, "shaper_rate_bps", sr * 8, PRINT_JSON_ONLY);
		print_str(pr, "shaper_child_kind", child[0] ? child : "fq_codel", PRINT_JSON_ONLY);
	} else {
		print_null(pr, "shaper_rate_bps", NULL, PRINT_JSON_ONLY);
		print_null(pr, "shaper_child_kind", NULL, PRINT_JSON_ONLY);
	}
	if (strcmp(p->ingress, "off") && p->ingress[0]) {
		print_str(pr, "ingress", p->ingress, PRINT_JSON_ONLY);
		if (shaper_rate(p->ingress))
			print_uint(pr, "ingress_rate_bps", shaper_rate(p->ingress) * 8,
				   PRINT_JSON_ONLY);
		else
			print_null(pr, "ingress_rate_bps", NULL, PRINT_JSON_ONLY);
	} else {
		print_null(pr, "ingress", NULL, PRINT_JSON_ONLY);
		print_null(pr, "ingress_rate_bps", NULL, PRINT_JSON_ONLY);
	}
	print_uint(pr, "txqueuelen", p->txqueuelen, PRINT_JSON_ONLY);
	print_uint(pr, "ring", p->ring, PRINT_JSON_ONLY);
	print_bool(pr, "bql", p->bql, PRINT_JSON_ONLY);
	print_uint(pr, "bql_limit_max_bytes", p->bql_limit_max, PRINT_JSON_ONLY);
	print_bool(pr, "gso", p->gso, PRINT_JSON_ONLY);
	print_bool(pr, "tso", p->tso, PRINT_JSON_ONLY);
	if (p->ceiling_bps)
		print_uint(pr, "ceiling_bps", p->ceiling_bps * 8, PRINT_JSON_ONLY);
	else
		print_null(pr, "ceiling_bps", NULL, PRINT_JSON_ONLY);
	print_bool(pr, "ceiling_shared", p->ceiling_shared, PRINT_JSON_ONLY);
}

/* text as "#" lines of at most 80 columns, broken between words: the first indented
 * by indent after the "#", the rest by two more. */
static void comment(struct printer *pr, int indent, const char *text)
{
	const char *s = text;
	int pad = indent;

	while (*s) {
		size_t room = (size_t)(79 - pad), n = strlen(s), cut = n;

		if (n > room) {
			cut = 0;
			for (size_t i = 1; i <= room; i++)
				if (s[i] == ' ')
					cut = i;
			if (!cut) /* one word longer than the line: whole, to its end */
				cut = strcspn(s, " ");
		}
		print_text(pr, "#%*s%.*s", pad, "", (int)cut, s);
		print_nl(pr);
		s += cut;
		while (*s == ' ')
			s++;
		pad = indent + 2;
	}
}

/*
 * What --snapshot read and what --fixed applied: text as "# " lines after the
 * profile (so the output still reads back as a profile), JSON as keys.
 */
static void show_board(struct printer *pr, const struct lab_args *a, const struct lab_board *b)
{
	char line[4200];

	print_str(pr, "snapshot", a->snapshot, PRINT_JSON_ONLY);
	print_str(pr, "iface", b->ifname, PRINT_JSON_ONLY);
	print_str(pr, "driver", b->driver, PRINT_JSON_ONLY);
	if (b->base[0])
		print_str(pr, "driver_profile", b->base, PRINT_JSON_ONLY);
	else
		print_null(pr, "driver_profile", NULL, PRINT_JSON_ONLY);
	print_bool(pr, "fixed", a->fixed, PRINT_JSON_ONLY);
	snprintf(line, sizeof(line), "from snapshot %s, interface %s (%s)", a->snapshot, b->ifname,
		 b->driver[0] ? b->driver : "no driver");
	comment(pr, 1, line);
	print_open_array(pr, "notes");
	for (unsigned i = 0; i < b->nnotes; i++) {
		comment(pr, 3, b->notes[i]);
		print_str(pr, NULL, b->notes[i], PRINT_JSON_ONLY);
	}
	print_close(pr);
	if (!a->fixed)
		return;
	snprintf(line, sizeof(line), "fix's plan for it (fix --from %s --dry-run):", a->snapshot);
	comment(pr, 1, line);
	print_open_array(pr, "plan");
	for (unsigned i = 0; i < b->nsteps; i++) {
		const struct lab_board_step *st = &b->steps[i];

		snprintf(line, sizeof(line), "%s -> %s: %s", st->knob, st->value, st->lab);
		print_open_object(pr, NULL);
		comment(pr, 3, line);
		print_str(pr, "knob", st->knob, PRINT_JSON_ONLY);
		print_str(pr, "value", st->value, PRINT_JSON_ONLY);
		print_bool(pr, "applied", st->applied, PRINT_JSON_ONLY);
		print_str(pr, "lab", st->lab, PRINT_JSON_ONLY);
		print_close(pr);
	}
	print_close(pr);
}

static int lab_show(int argc, char *argv[])
{
	struct lab_args a = {0};
	struct lab_profile p;
	struct lab_board b;
	struct printer *pr;
	char buf[LAB_PROFILE_TEXT_MAX * 2];
	int r = parse_args(argc, argv, &a, true);

	if (r >= 0)
		return r;
	r = load_profile(&a, &p, &b);
	if (r)
		return r;
	if (lab_profile_format(&p, buf, sizeof(buf)) < 0) {
		cli_error("lab", "show: the profile does not fit the buffer");
		return 1;
	}
	/* The profile as it reads back; print_text's lines are shorter than a profile. */
	if (!a.json)
		fputs(buf, stdout);
	pr = print_new(stdout, a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!pr)
		return 1;
	print_set_width(pr, 0);
	show_profile_json(pr, &p);
	print_str(pr, "settings", buf, PRINT_JSON_ONLY);
	if (a.snapshot)
		show_board(pr, &a, &b);
	r = print_finish(pr);
	print_free(pr);
	return r < 0 || fflush(stdout) == EOF ? 1 : 0;
}

/* `lab boards`: the boards of the 2014 thread, each from its built-in snapshot; 76
 * columns, the board's name, OS, snapshot and BQL variant on two lines under it. */
#define BOARDS_ROW "%-19s %-8s %-7s %-14s %-3s %-10s %s"
static int lab_boards_list(int argc, char *argv[])
{
	static const struct plan_options opts = {0};
	bool json = false;
	struct printer *pr;
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return fputs(usage, stdout) == EOF ? 1 : 0;
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = true;
		else
			return cli_usage_error("lab boards", usage, "unexpected argument \"%s\"",
					       argv[i]);
	}
	pr = print_new(stdout, json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!pr)
		return 1;
	print_set_width(pr, 0);
	print_open_array(pr, "boards");
	print_text(pr, BOARDS_ROW, "NAME", "DRIVER", "RATE", "CEILING", "BQL", "QDISC", "PROFILE");
	print_nl(pr);
	for (const struct lab_board_entry *e = lab_boards; e->snapshot; e++) {
		struct lab_profile p;
		struct lab_board b;
		char err[512], rate[24], ceil[32], kind[32];

		r = lab_board_load(e->snapshot, NULL, false, &opts, &p, &b, err, sizeof(err));
		if (r < 0) {
			print_free(pr);
			cli_error("lab", "boards: %s", err);
			return 1;
		}
		db_format_rate(p.rate_bps, rate, sizeof(rate));
		if (p.ceiling_bps) {
			db_format_rate(p.ceiling_bps, ceil, sizeof(ceil));
			if (p.ceiling_shared)
				strncat(ceil, " shared", sizeof(ceil) - strlen(ceil) - 1);
		} else {
			snprintf(ceil, sizeof(ceil), "-");
		}
		sscanf(p.qdisc, "%31s", kind);
		print_open_object(pr, NULL);
		print_text(pr, BOARDS_ROW, e->snapshot, b.driver, rate, ceil, p.bql ? "yes" : "no",
			   kind, e->profile);
		print_str(pr, "name", e->snapshot, PRINT_JSON_ONLY);
		print_str(pr, "board", e->board, PRINT_JSON_ONLY);
		print_str(pr, "os", e->os, PRINT_JSON_ONLY);
		print_str(pr, "driver", b.driver, PRINT_JSON_ONLY);
		print_uint(pr, "rate_bps", p.rate_bps * 8, PRINT_JSON_ONLY);
		if (p.ceiling_bps)
			print_uint(pr, "ceiling_bps", p.ceiling_bps * 8, PRINT_JSON_ONLY);
		else
			print_null(pr, "ceiling_bps", NULL, PRINT_JSON_ONLY);
		print_bool(pr, "ceiling_shared", p.ceiling_shared, PRINT_JSON_ONLY);
		print_bool(pr, "bql", p.bql, PRINT_JSON_ONLY);
		print_str(pr, "qdisc", p.qdisc, PRINT_JSON_ONLY);
		print_str(pr, "qdisc_kind", kind, PRINT_JSON_ONLY);
		print_str(pr, "profile", e->profile, PRINT_JSON_ONLY);
		if (e->bql_profile || e->bql_set)
			print_str(pr, "bql_variant", e->bql_profile ? e->bql_profile : e->bql_set,
				  PRINT_JSON_ONLY);
		else
			print_null(pr, "bql_variant", NULL, PRINT_JSON_ONLY);
		print_str(pr, "snapshot", e->snapshot, PRINT_JSON_ONLY);
		print_close(pr);
		print_nl(pr);
		print_text(pr, "  %s, %s", e->board, e->os);
		print_nl(pr);
		print_text(pr, "  snapshot boards/%s.json%s%s%s", e->snapshot,
			   e->bql_profile || e->bql_set ? "; with BQL: " : "",
			   e->bql_set ? "--set " : "",
			   e->bql_profile ? e->bql_profile
			   : e->bql_set	  ? e->bql_set
					  : "");
		print_nl(pr);
	}
	print_close(pr);
	r = print_finish(pr);
	print_free(pr);
	return r < 0 || fflush(stdout) == EOF ? 1 : 0;
}

/*
 * Before anything starts: a congestion control this host does not have would only
 * show as every flow failing. Loading its module is fine here (the operator asked for
 * it); -EPERM only means not allowed for unprivileged sockets, and the lab is root.
 */
static int check_cc(const struct lab_profile *p)
{
	int r = p->cc[0] ? cc_usable(p->cc) : 0;

	if (r < 0 && r != -EPERM)
		return cli_usage_error("lab", usage,
				       "this host cannot use congestion control \"%s\": %s "
				       "(see sysctl net.ipv4.tcp_available_congestion_control)",
				       p->cc, r == -ENOENT ? "no such algorithm" : strerror(-r));
	return 0;
}

/* Before a run from --snapshot: how it was read, and the plan's steps not modelled. */
static void board_notes(const struct lab_args *a, const struct lab_board *b)
{
	for (unsigned i = 0; i < b->nnotes; i++)
		cli_note("lab", "%s: %s", a->snapshot, b->notes[i]);
	for (unsigned i = 0; i < b->nsteps; i++)
		if (!b->steps[i].applied)
			cli_note("lab", "fix's step %s -> %s: %s", b->steps[i].knob,
				 b->steps[i].value, b->steps[i].lab);
}

static int lab_main(const struct lab_args *a)
{
	struct lab_profile p;
	struct lab_board board;
	char describe[512];
	int ret;

	ret = load_profile(a, &p, &board);
	if (ret || (ret = check_cc(&p)) || (ret = lab_session_check()))
		return ret;
	if (a->snapshot && !a->quiet)
		board_notes(a, &board);
	if (lab_profile_describe(&p, describe, sizeof(describe)) < 0)
		describe[0] = '\0';
	return lab_session_run(&(struct lab_session){.profile = &p,
						     .describe = describe,
						     .telemetry = a->telemetry,
						     .json_summary = a->json_summary,
						     .quiet = a->quiet,
						     .no_gro = a->no_gro,
						     .writer_threads = a->writer_threads,
						     .command = a->command});
}

/* `debloat lab WORD ...`; without one of these words, the lab itself. */
static const struct {
	const char *word;
	int (*function)(int argc, char *argv[]); /* argv[0] is the word */
} lab_subcommands[] = {
    {"profiles", lab_profiles},	  {"show", lab_show},	  {"boards", lab_boards_list},
    {"compare", cmd_lab_compare}, {"seed", cmd_lab_seed},
};

int cmd_lab(int argc, char *argv[])
{
	struct lab_args a = {0};
	int r;

	for (size_t i = 0; argc > 1 && i < COUNT(lab_subcommands); i++)
		if (!strcmp(argv[1], lab_subcommands[i].word))
			return lab_subcommands[i].function(argc - 1, argv + 1);
	r = parse_args(argc, argv, &a, false);
	if (r >= 0)
		return r;
	return lab_main(&a);
}
