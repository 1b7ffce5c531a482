/* SPDX-License-Identifier: MIT */
/*
 * cmd-lab.c - `debloat lab`: an emulated board link between two network namespaces,
 * "client" and "board", with `debloat server` on the board side and a command (or a
 * shell) on the client side; the emulator's summary at exit. `lab profiles` lists
 * the built-in profiles, `lab show` prints the effective one, `lab compare` and
 * `lab seed` are in lab/compare.c.
 *
 * Order matters for tear-down: signals are blocked (and read from a signalfd) before
 * anything exists, the reaper (lab/netns.h) is forked before the first namespace, so
 * whatever happens from there on, even SIGKILL, ends with no namespace, tun device or
 * process left. The lab's own tear-down is the reaper's: stop the command and the
 * server gently, close the tun devices, close the reaper's pipe and wait for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cli.h"
#include "lab/board.h"
#include "lab/compare.h"
#include "lab/netns.h"
#include "lab/profile.h"
#include "lab/run.h"
#include "lab/telemetry.h"
#include "lab/tun.h"
#include "meter/cc.h"
#include "base/print.h"
#include "debloat/units.h"

#define LAB_SERVER_PORT "9911"
#define LAB_MAX_SETS	64

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
    "                         listed); --shape RATE and --role ROLE as fix's\n"
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

/* What the loop's signal callback and the tear-down share. */
struct lab_state {
	pid_t cmd_pid, server_pid;
	int cmd_status; /* wait status, valid when cmd_done */
	bool cmd_done;
	bool server_died;
	int signal;    /* the SIGINT/SIGTERM/SIGHUP that stopped the lab, or 0 */
	bool gave_tty; /* the command's group has the terminal */
};

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char *argv[], struct lab_args *a, bool show)
{
	static const struct option options[] = {
	    {"profile", required_argument, NULL, 'p'},
	    {"set", required_argument, NULL, 's'},
	    {"telemetry", required_argument, NULL, 't'},
	    {"json-summary", required_argument, NULL, 'J'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"no-gro", no_argument, NULL, 'G'},
	    {"writer-threads", no_argument, NULL, 'W'},
	    {"snapshot", required_argument, NULL, 'S'},
	    {"iface", required_argument, NULL, 'i'},
	    {"fixed", no_argument, NULL, 'F'},
	    {"shape", required_argument, NULL, 'R'},
	    {"role", required_argument, NULL, 'r'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *cmd = show ? "lab show" : "lab";
	int c, role;

	optind = 0;
	opterr = 0;
	/* "+": stop at the first operand, which begins COMMAND even without "--". */
	while ((c = getopt_long(argc, argv, "+p:s:t:J:qhS:i:Fj", options, NULL)) != -1) {
		if (c == 'p') {
			a->profile = optarg;
		} else if (c == 'S') {
			a->snapshot = optarg;
		} else if (c == 'i') {
			a->iface = optarg;
		} else if (c == 'F') {
			a->fixed = true;
		} else if (c == 'j' && show) {
			a->json = true;
		} else if (c == 'R') {
			if (plan_parse_rate(optarg, &a->opts.shape_rate) < 0)
				return cli_usage_error(cmd, usage,
						       "--shape takes a rate from 64kbit to 100gbit "
						       "(e.g. 80mbit), not \"%s\"",
						       optarg);
		} else if (c == 'r') {
			role = plan_role_from_name(optarg);
			if (role < 0)
				return cli_usage_error(cmd, usage,
						       "--role takes host or server, not \"%s\"",
						       optarg);
			a->opts.role = (enum plan_role)role;
		} else if (c == 's') {
			if (a->nsets == LAB_MAX_SETS)
				return cli_usage_error(cmd, usage, "more than %d --set options",
						       LAB_MAX_SETS);
			a->sets[a->nsets++] = optarg;
		} else if (c == 't' && !show) {
			a->telemetry = optarg;
		} else if (c == 'J' && !show) {
			a->json_summary = optarg;
		} else if (c == 'q' && !show) {
			a->quiet = true;
		} else if (c == 'G' && !show) {
			a->no_gro = true;
		} else if (c == 'W' && !show) {
			a->writer_threads = true;
		} else if (c == 'h') {
			return fputs(usage, stdout) == EOF ? 1 : 0;
		} else if (cli_lacks_value(c, "pstJSiRr")) {
			return cli_usage_error(cmd, usage, "option \"%s\" needs a value",
					       argv[optind - 1]);
		} else {
			return cli_usage_error(cmd, usage, "unknown option \"%s\"",
					       cli_bad_option(argv));
		}
	}
	if (a->snapshot && a->profile)
		return cli_usage_error(cmd, usage, "--profile and --snapshot are two ways to "
						   "say the same thing: give one");
	if (!a->snapshot && (a->iface || a->fixed || a->opts.shape_rate || a->opts.role))
		return cli_usage_error(cmd, usage,
				       "--iface, --fixed, --shape and --role need --snapshot");
	if (a->snapshot && (a->opts.shape_rate || a->opts.role) && !a->fixed)
		return cli_usage_error(cmd, usage, "--shape and --role shape the plan: add --fixed");
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

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return fputs(usage, stdout) == EOF ? 1 : 0;
	if (argc > 1)
		return cli_usage_error("lab profiles", usage, "unexpected argument \"%s\"",
				       argv[1]);
	for (const struct lab_builtin_profile *b = lab_builtin_profiles; b->name; b++) {
		if (lab_profile_load(&p, b->name, err, sizeof(err)) < 0) {
			cli_error("lab", "built-in profile %s: %s", b->name, err);
			return 1;
		}
		if (lab_profile_describe(&p, describe, sizeof(describe)) < 0)
			describe[0] = '\0';
		printf("%-18s %s\n%-18s models: %s\n", b->name, p.description, "", describe);
	}
	return fflush(stdout) == EOF ? 1 : 0;
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

		sscanf(strstr(p->qdisc, " child ") ? strstr(p->qdisc, " child ") : "", " child %31s",
		       child);
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

/*
 * What --snapshot read and what --fixed applied: text as "# " lines after the
 * profile (so the output still reads back as a profile), JSON as keys.
 */
static void show_board(struct printer *pr, const struct lab_args *a, const struct lab_board *b)
{
	print_str(pr, "snapshot", a->snapshot, PRINT_JSON_ONLY);
	print_str(pr, "iface", b->ifname, PRINT_JSON_ONLY);
	print_str(pr, "driver", b->driver, PRINT_JSON_ONLY);
	if (b->base[0])
		print_str(pr, "driver_profile", b->base, PRINT_JSON_ONLY);
	else
		print_null(pr, "driver_profile", NULL, PRINT_JSON_ONLY);
	print_bool(pr, "fixed", a->fixed, PRINT_JSON_ONLY);
	print_text(pr, "# from snapshot %s, interface %s (%s)", a->snapshot, b->ifname,
		   b->driver[0] ? b->driver : "no driver");
	print_nl(pr);
	print_open_array(pr, "notes");
	for (unsigned i = 0; i < b->nnotes; i++) {
		print_text(pr, "#   ");
		print_str(pr, NULL, b->notes[i], PRINT_BARE | PRINT_NOWRAP);
		print_nl(pr);
	}
	print_close(pr);
	if (!a->fixed)
		return;
	print_text(pr, "# fix's plan for it (fix --from %s --dry-run):", a->snapshot);
	print_nl(pr);
	print_open_array(pr, "plan");
	for (unsigned i = 0; i < b->nsteps; i++) {
		const struct lab_board_step *st = &b->steps[i];

		print_open_object(pr, NULL);
		print_text(pr, "#   %s -> %s: ", st->knob, st->value);
		print_str(pr, "knob", st->knob, PRINT_JSON_ONLY);
		print_str(pr, "value", st->value, PRINT_JSON_ONLY);
		print_bool(pr, "applied", st->applied, PRINT_JSON_ONLY);
		print_str(pr, "lab", st->lab, PRINT_BARE | PRINT_NOWRAP);
		print_close(pr);
		print_nl(pr);
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

/* `lab boards`: the boards of the 2014 thread, each from its built-in snapshot. */
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
	print_text(pr, "%-19s %-16s %-8s %-7s %-18s %-4s %-9s %s", "NAME", "BOARD", "DRIVER",
		   "RATE", "CEILING", "BQL", "QDISC", "PROFILE");
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
		print_text(pr, "%-19s %-16s %-8s %-7s %-18s %-4s %-9s %s", e->snapshot, e->board,
			   b.driver, rate, ceil, p.bql ? "yes" : "no", kind, e->profile);
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
		print_text(pr, "%-19s %s; snapshot boards/%s.json", "", e->os, e->snapshot);
		print_nl(pr);
	}
	print_close(pr);
	r = print_finish(pr);
	print_free(pr);
	return r < 0 || fflush(stdout) == EOF ? 1 : 0;
}

static int status_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static bool reap(pid_t *pid, int *status)
{
	int st;

	if (*pid <= 0 || waitpid(*pid, &st, WNOHANG) != *pid)
		return false;
	*pid = 0;
	if (status)
		*status = st;
	return true;
}

static bool on_signal(const struct signalfd_siginfo *si, void *ctx)
{
	struct lab_state *st = ctx;

	if (si->ssi_signo != SIGCHLD) {
		st->signal = (int)si->ssi_signo;
		return true;
	}
	if (reap(&st->server_pid, NULL))
		st->server_died = true;
	if (reap(&st->cmd_pid, &st->cmd_status))
		st->cmd_done = true;
	return st->cmd_done;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Signals that arrived while not in the loop; true when one says stop. */
static bool poll_signals(int sfd, struct lab_state *st, int timeout_ms)
{
	struct pollfd pfd = {.fd = sfd, .events = POLLIN};
	struct signalfd_siginfo si;
	bool stop = false;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return false;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		stop |= on_signal(&si, st);
	return stop;
}

/* Wait until the board's server accepts connections; 0, or the reason it will not. */
static int wait_server(int board_ns, int sfd, struct lab_state *st)
{
	uint64_t deadline = mono_ms() + 5000;

	while (mono_ms() < deadline) {
		if (lab_netns_tcp_probe(board_ns, LAB_BOARD_ADDR, 9911, 100) == 0)
			return 0;
		if (poll_signals(sfd, st, 5) && st->signal)
			return -EINTR;
		if (st->server_died)
			return -ECHILD;
	}
	return -ETIMEDOUT;
}

/* Signal a process (group), wait up to ms for it, then SIGKILL it. */
static void stop_child(pid_t *pid, int *status, bool group, int sig, unsigned ms)
{
	uint64_t deadline = mono_ms() + ms;
	struct timespec tick = {0, 2000000};

	if (*pid <= 0)
		return;
	kill(group ? -*pid : *pid, sig);
	while (!reap(pid, status)) {
		if (mono_ms() >= deadline) {
			kill(group ? -*pid : *pid, SIGKILL);
			while (*pid > 0 && waitpid(*pid, status, 0) < 0 && errno == EINTR)
				;
			*pid = 0;
			return;
		}
		nanosleep(&tick, NULL);
	}
}

/* Take the terminal back from the command's process group. */
static void reclaim_tty(struct lab_state *st)
{
	sigset_t ttou, old;

	if (!st->gave_tty)
		return;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
	st->gave_tty = false;
}

static int write_summary(const struct lab_args *a, FILE *json, const struct lab_summary *s)
{
	struct printer *p;
	int r = 0;

	if (!a->quiet) {
		p = print_new(stderr, PRINT_MODE_TEXT);
		if (p) {
			lab_summary_print(p, s);
			print_finish(p);
			print_free(p);
		}
	}
	if (json) {
		p = print_new(json, PRINT_MODE_JSON);
		if (!p)
			return -ENOMEM;
		lab_summary_print(p, s);
		r = print_finish(p);
		print_free(p);
		if (fclose(json) != 0 && !r)
			r = -errno;
	}
	return r;
}

/* Everything that exists while the lab runs, for one tear-down path. */
struct lab_world {
	struct lab_reaper reaper;
	char client_name[LAB_NETNS_NAME_MAX], board_name[LAB_NETNS_NAME_MAX];
	int client_ns, board_ns;
	int client_tun, board_tun;
};

static void world_close(struct lab_world *w)
{
	int *fds[] = {&w->client_tun, &w->board_tun, &w->client_ns, &w->board_ns};

	for (size_t i = 0; i < COUNT(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	/* The reaper kills what is left in the namespaces and removes them. */
	if (lab_reaper_finish(&w->reaper, 5000) < 0)
		cli_error("lab", "the reaper (pid %ld) is still removing %s and %s",
			  (long)w->reaper.pid, w->client_name, w->board_name);
}

/* Namespaces, tun devices, addresses. 0, or 1 with the message printed. */
static int world_build(struct lab_world *w, const struct lab_profile *p, bool quiet)
{
	const struct lab_link_addrs client = {LAB_CLIENT_ADDR, LAB_BOARD_ADDR, LAB_CLIENT_ADDR6,
					      LAB_BOARD_ADDR6};
	const struct lab_link_addrs board = {LAB_BOARD_ADDR, LAB_CLIENT_ADDR, LAB_BOARD_ADDR6,
					     LAB_CLIENT_ADDR6};
	char err[256];
	int r;

	w->client_ns = lab_netns_add(w->client_name, err, sizeof(err));
	if (w->client_ns < 0)
		goto fail;
	w->board_ns = lab_netns_add(w->board_name, err, sizeof(err));
	if (w->board_ns < 0)
		goto fail;
	/* The client always takes super-packets; the board only when its TCP has GSO. */
	w->client_tun = lab_tun_open(w->client_ns, LAB_TUN_NAME, true, err, sizeof(err));
	if (w->client_tun < 0)
		goto fail;
	w->board_tun = lab_tun_open(w->board_ns, LAB_TUN_NAME, p->gso, err, sizeof(err));
	if (w->board_tun < 0)
		goto fail;
	if (lab_netns_configure(w->client_ns, LAB_TUN_NAME, p->mtu, &client, err, sizeof(err)) <
		0 ||
	    lab_netns_configure(w->board_ns, LAB_TUN_NAME, p->mtu, &board, err, sizeof(err)) < 0)
		goto fail;
	if (p->cc[0]) {
		r = lab_netns_sysctl(w->client_ns, "net/ipv4/tcp_congestion_control", p->cc);
		if (r == 0)
			r = lab_netns_sysctl(w->board_ns, "net/ipv4/tcp_congestion_control", p->cc);
		if (r < 0 && !quiet)
			cli_error("lab",
				  "note: %s cannot be the namespaces' default congestion "
				  "control (%s%s); set it per socket: DEBLOAT_LAB_CC, "
				  "`" PROG_NAME " test --cc %s`, `iperf3 -C %s`",
				  p->cc, strerror(-r),
				  r == -EPERM ? ": not in the host's tcp_allowed_congestion_control"
					      : "",
				  p->cc, p->cc);
	}
	return 0;
fail:
	cli_error("lab", "%s", err);
	return 1;
}

static int start_server(struct lab_world *w, const struct lab_profile *p, const sigset_t *mask,
			int sfd, struct lab_state *st)
{
	/* Clients run the profile's cc (--cc), which the host need not allow to
	 * unprivileged sockets: the lab's own server may set it for them. */
	char cc[sizeof(p->cc)];
	char *argv[] = {PROG_NAME,    "server", "-p", LAB_SERVER_PORT, "-D", "86400",
			"--allow-cc", cc,	NULL};
	struct lab_spawn s = {.nsfd = w->board_ns,
			      .path = "/proc/self/exe",
			      .argv = argv,
			      .sigmask = mask,
			      .own_pgrp = true,
			      .null_stdio = true};
	int r;

	snprintf(cc, sizeof(cc), "%s", p->cc);
	if (!cc[0])
		argv[6] = NULL;
	r = lab_spawn(&s, &st->server_pid);
	if (r < 0) {
		cli_error("lab", "cannot start the server in %s: %s", w->board_name, strerror(-r));
		return 1;
	}
	r = wait_server(w->board_ns, sfd, st);
	if (r == -EINTR)
		return 128 + st->signal;
	if (r < 0) {
		cli_error("lab", "the server in %s %s", w->board_name,
			  r == -ECHILD ? "exited at once"
				       : "does not accept connections after 5 s");
		return 1;
	}
	return 0;
}

static int start_command(const struct lab_args *a, const struct lab_profile *p, struct lab_world *w,
			 const sigset_t *mask, struct lab_state *st)
{
	char env[9][160];
	char *envp[10];
	char *shell_argv[2];
	char *const *argv = a->command;
	const char *shell = getenv("SHELL");
	int r;

	snprintf(env[0], sizeof(env[0]), "DEBLOAT_LAB_BOARD=%s", LAB_BOARD_ADDR);
	snprintf(env[1], sizeof(env[1]), "DEBLOAT_LAB_BOARD6=%s", LAB_BOARD_ADDR6);
	snprintf(env[2], sizeof(env[2]), "DEBLOAT_LAB_CLIENT=%s", LAB_CLIENT_ADDR);
	snprintf(env[3], sizeof(env[3]), "DEBLOAT_LAB_CLIENT6=%s", LAB_CLIENT_ADDR6);
	snprintf(env[4], sizeof(env[4]), "DEBLOAT_LAB_BOARD_NS=%s", w->board_name);
	snprintf(env[5], sizeof(env[5]), "DEBLOAT_LAB_CLIENT_NS=%s", w->client_name);
	snprintf(env[6], sizeof(env[6]), "DEBLOAT_LAB_PROFILE=%s", p->name);
	snprintf(env[7], sizeof(env[7]), "DEBLOAT_LAB_CC=%s", p->cc);
	snprintf(env[8], sizeof(env[8]), "DEBLOAT_LAB_PORT=%s", LAB_SERVER_PORT);
	for (int i = 0; i < 9; i++)
		envp[i] = env[i];
	envp[9] = NULL;
	if (!argv) {
		shell_argv[0] = (char *)(shell && *shell ? shell : "/bin/sh");
		shell_argv[1] = NULL;
		argv = shell_argv;
	}
	/* Like a shell's job: the command gets the terminal when we have it. */
	st->gave_tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	struct lab_spawn s = {.nsfd = w->client_ns,
			      .argv = argv,
			      .env = envp,
			      .sigmask = mask,
			      .own_pgrp = true,
			      .foreground = st->gave_tty};

	r = lab_spawn(&s, &st->cmd_pid);
	if (r < 0) {
		reclaim_tty(st);
		cli_error("lab", "cannot run \"%s\": %s", argv[0], strerror(-r));
		return r == -ENOENT ? 127 : 126;
	}
	return 0;
}

/* Packets a namespace's kernel dropped at its tun because we fell behind; -1 unknown. */
static int64_t tun_queue_drops(int nsfd)
{
	uint64_t v;

	return lab_netns_tx_dropped(nsfd, LAB_TUN_NAME, &v) < 0 ? -1 : (int64_t)v;
}

/*
 * After the loop: stop the command (with the signal that stopped the lab, if one
 * did) and the server, finish the telemetry, print the summary. The exit status.
 */
static int lab_report(const struct lab_args *a, const struct lab_profile *p, const char *describe,
		      struct lab_world *w, struct lab_state *st, const struct lab_run *run,
		      struct lab_telemetry_writer *tw, FILE *json)
{
	struct lab_summary sum = {.profile = p->name,
				  .describe = describe,
				  .run = lab_run_stats(run),
				  .bql = p->bql,
				  .error_bound_ns = lab_run_error_bound_ns(p),
				  .rate_mbps = (double)p->rate_bps * 8 / 1e6};
	int ret, r;

	stop_child(&st->cmd_pid, &st->cmd_status, true, st->signal ? st->signal : SIGTERM, 2000);
	stop_child(&st->server_pid, NULL, true, SIGTERM, 1000);
	reclaim_tty(st);
	r = lab_telemetry_close(tw);
	if (r < 0)
		cli_error("lab", "cannot write %s: %s", a->telemetry, strerror(-r));
	if (st->server_died && !a->quiet)
		cli_error("lab", "note: the server in %s exited early", w->board_name);
	ret = st->signal ? 128 + st->signal : status_code(st->cmd_status);
	sum.exit_status = st->signal ? -1 : ret;
	sum.tun_queue_drops[LAB_BOARD_TX] = tun_queue_drops(w->board_ns);
	sum.tun_queue_drops[LAB_CLIENT_TX] = tun_queue_drops(w->client_ns);
	r = write_summary(a, json, &sum);
	if (r < 0) {
		cli_error("lab", "cannot write %s: %s", a->json_summary, strerror(-r));
		if (!ret)
			ret = 1;
	}
	return ret;
}

/* Block the signals the loop reads (from the returned signalfd); -1 on failure. */
static int block_signals(sigset_t *old)
{
	sigset_t block;
	int sfd;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, old);
	/* A parent that ignored SIGINT (a script's `&`) must not make us unstoppable. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		cli_error("lab", "signalfd: %s", strerror(errno));
	return sfd;
}

/* What must hold before anything is created. 0, or the exit status. */
static int lab_check(void)
{
	if (geteuid() != 0) {
		cli_error("lab", "needs root (network namespaces and tun devices)");
		return 1;
	}
	if (access("/dev/net/tun", F_OK) < 0) {
		cli_error("lab", "no /dev/net/tun: this kernel has no tun driver loaded "
				 "(modprobe tun)");
		return 1;
	}
	return 0;
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
		fprintf(stderr, "lab: %s: %s\n", a->snapshot, b->notes[i]);
	for (unsigned i = 0; i < b->nsteps; i++)
		if (!b->steps[i].applied)
			fprintf(stderr, "lab: fix's step %s -> %s: %s\n", b->steps[i].knob,
				b->steps[i].value, b->steps[i].lab);
}

static int lab_main(const struct lab_args *a)
{
	struct lab_world w = {.client_ns = -1,
			      .board_ns = -1,
			      .client_tun = -1,
			      .board_tun = -1,
			      .reaper = {.fd = -1}};
	struct lab_state st = {0};
	struct lab_run_config rc;
	struct lab_profile p;
	struct lab_board board;
	struct lab_run *run = NULL;
	struct lab_telemetry_writer *tw = NULL;
	FILE *json = NULL;
	sigset_t old;
	const char *names[2] = {w.client_name, w.board_name};
	char describe[512], err[512];
	int sfd = -1, ret, r;

	ret = load_profile(a, &p, &board);
	if (ret || (ret = check_cc(&p)) || (ret = lab_check()))
		return ret;
	if (a->snapshot && !a->quiet)
		board_notes(a, &board);
	if (lab_profile_describe(&p, describe, sizeof(describe)) < 0)
		describe[0] = '\0';
	ret = 1;
	if (lab_run_new(&p, &run, err, sizeof(err)) < 0) {
		cli_error("lab", "cannot build the emulator: %s", err);
		return 1;
	}
	if (a->telemetry && (r = lab_telemetry_open(
				 a->telemetry, lab_telemetry_format_of(a->telemetry), &tw)) < 0) {
		cli_error("lab", "cannot write %s: %s", a->telemetry, strerror(-r));
		goto out;
	}
	if (a->json_summary && !(json = fopen(a->json_summary, "we"))) {
		cli_error("lab", "cannot write %s: %s", a->json_summary, strerror(errno));
		goto out;
	}
	/* From here on every way out goes through world_close(). */
	sfd = block_signals(&old);
	if (sfd < 0)
		goto restore;
	lab_netns_name(w.client_name, sizeof(w.client_name), getpid(), "client");
	lab_netns_name(w.board_name, sizeof(w.board_name), getpid(), "board");
	r = lab_reaper_start(names, 2, &w.reaper);
	if (r < 0) {
		cli_error("lab", "cannot start the reaper: %s", strerror(-r));
		goto restore;
	}
	if (world_build(&w, &p, a->quiet) || (ret = start_server(&w, &p, &old, sfd, &st)))
		goto teardown;
	if (!a->quiet)
		fprintf(stderr, "lab: %s up: client %s <-> board %s (%s)\n", p.name,
			LAB_CLIENT_ADDR, LAB_BOARD_ADDR, describe);
	ret = start_command(a, &p, &w, &old, &st);
	if (ret)
		goto teardown;
	rc = (struct lab_run_config){.board_tun = w.board_tun,
				     .client_tun = w.client_tun,
				     .signal_fd = sfd,
				     .on_signal = on_signal,
				     .ctx = &st,
				     .telemetry = tw,
				     .describe = describe,
				     .no_gro = a->no_gro,
				     .writer_threads = a->writer_threads};
	if (lab_run_loop(run, &rc, err, sizeof(err)) < 0)
		cli_error("lab", "%s", err);
	ret = lab_report(a, &p, describe, &w, &st, run, tw, json);
	tw = NULL;
	json = NULL;
teardown:
	stop_child(&st.cmd_pid, &st.cmd_status, true, SIGTERM, 2000);
	stop_child(&st.server_pid, NULL, true, SIGTERM, 1000);
	reclaim_tty(&st);
	world_close(&w);
restore:
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	if (json)
		fclose(json);
	lab_telemetry_close(tw);
	lab_run_free(run);
	return ret;
}

int cmd_lab(int argc, char *argv[])
{
	struct lab_args a = {0};
	int r;

	if (argc > 1 && !strcmp(argv[1], "profiles"))
		return lab_profiles(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "show"))
		return lab_show(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "boards"))
		return lab_boards_list(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "compare") || !strcmp(argv[1], "seed")))
		return cmd_lab_compare(argc - 1, argv + 1, !strcmp(argv[1], "seed"));
	r = parse_args(argc, argv, &a, false);
	if (r >= 0)
		return r;
	return lab_main(&a);
}
