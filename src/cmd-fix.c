/* SPDX-License-Identifier: MIT */
/*
 * cmd-fix.c - `debloat fix`: plan what audit recommends, show it, apply it behind a
 * journal, optionally on trial (--try) and for every boot (--persist). This file
 * parses the options and prints; the run itself is fix/fix-run.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/report.h"
#include "base/cli.h"
#include "base/print.h"
#include "fix/driver.h"
#include "fix/emit.h"
#include "fix/fix-run.h"
#include "fix/knob-print.h"
#include "fix/ready.h"

static const char usage[] =
    "Usage: " PROG_NAME " fix [IFACE...] [--all] [--dry-run] [--json] [--try SECONDS]\n"
    "           [--persist] [--force] [--role host|server] [--shape RATE]\n"
    "           [--ingress RATE | --no-ingress] [--state-dir DIR] [--root DIR]\n"
    "       " PROG_NAME " fix --from FILE --dry-run [--json] [--shape RATE]\n"
    "           [--ingress RATE | --no-ingress] [IFACE...]\n"
    "       " PROG_NAME " fix --emit networkd|udev|nm [--from FILE] [-o DIR] [--all]\n"
    "           [IFACE...]\n"
    "       " PROG_NAME " fix --driver IFACE [--peer ADDR] [--dry-run] [--json]\n"
    "           [--try SECONDS] [--persist] [--force] [--state-dir DIR]\n"
    "       " PROG_NAME " fix --confirm [--state-dir DIR]\n"
    "       " PROG_NAME " fix --apply-persisted IFACE [--json] [--state-dir DIR]\n"
    "           [--root DIR]\n"
    "\n"
    "Apply what `" PROG_NAME " audit` recommends to the named interfaces: the root\n"
    "qdisc (fq_codel, fq for servers, a shaper where the driver has no BQL, or the\n"
    "best this kernel has), txqueuelen, BQL limit_max, TX/RX rings, offloads and\n"
    "sysctls. Prints the plan (each knob, before -> after, why), then applies it,\n"
    "journaled so that `" PROG_NAME " undo` restores exactly what was there. Needs root.\n"
    "\n"
    "  -a, --all             every physical interface (no loopback, no virtual link)\n"
    "  -n, --dry-run         print the plan and change nothing\n"
    "      --from FILE       plan for a snapshot (`" PROG_NAME " snapshot`) instead of\n"
    "                        this host; with --dry-run only (all its interfaces\n"
    "                        unless named)\n"
    "  -j, --json            print one JSON document (keys: docs/json.md)\n"
    "  -e, --emit FORMAT     print the plan as configuration instead (a dry run):\n"
    "                        networkd (.link, .network drop-in, sysctl.d), udev\n"
    "                        (BQL rules) or nm (nmcli commands); what the format\n"
    "                        cannot say is a comment in the file and a warning\n"
    "  -o, --output DIR      with --emit: one file per unit into DIR, all or none;\n"
    "                        a file that exists is never replaced\n"
    "  -t, --try SECONDS     undo it all after SECONDS unless confirmed (a key on\n"
    "                        this terminal, or `" PROG_NAME " fix --confirm` from\n"
    "                        another shell)\n"
    "      --confirm         confirm the `--try` run that is waiting\n"
    "  -p, --persist         also apply it at boot: /etc/debloat/IFACE.conf, a\n"
    "                        systemd unit bound to the device, an ifupdown hook;\n"
    "                        with --driver, a depmod.d override so that modprobe\n"
    "                        loads ours at boot (undo removes it)\n"
    "  -f, --force           replace a root qdisc undo cannot rebuild (undo then\n"
    "                        restores the kernel's default) or a user's own shaper\n"
    "  -r, --role ROLE       host (default: fq_codel) or server (fq, for pacing)\n"
    "      --shape RATE      shape every named interface at RATE (tc's spelling:\n"
    "                        80mbit), virtual links too: for a bottleneck beyond\n"
    "                        this host\n"
    "      --ingress RATE    shape each named interface's download at RATE, through\n"
    "                        an ifb device its ingress is redirected to (as\n"
    "                        sqm-scripts); without it, done at the shaper's rate\n"
    "                        where transmit and receive share the NIC's ceiling\n"
    "      --no-ingress      never shape the download (not even on a shared ceiling)\n"
    "  -s, --state-dir DIR   where the journal lives (default " APPLY_STATE_DIR ")\n"
    "      --root DIR        write --persist's files under DIR instead of /\n"
    "      --apply-persisted apply the setup --persist saved for IFACE (at boot)\n"
    "      --driver          replace IFACE's driver module by ours with BQL, built\n"
    "                        and installed from kmod/ (`make -C kmod install`);\n"
    "                        IFACE loses its link for a moment; the kernel's module\n"
    "                        is put back unless the link and the peer come back\n"
    "      --peer ADDR       with --driver: who must answer a ping through IFACE\n"
    "                        after the swap (default: IFACE's gateway)\n"
    "  -h, --help            show this help\n";

#define EMIT_NONE -1

struct fix_args {
	bool all, dry_run, json, confirm, persist, apply_persisted, driver;
	const char *peer; /* --driver's --peer */
	unsigned try_seconds;
	const char *state_dir, *root;
	const char *from;   /* a snapshot to plan for: dry run only */
	int emit;	    /* enum emit_format, or EMIT_NONE */
	const char *output; /* --emit's directory, or NULL: standard output */
	struct plan_options opts;
};

static int take_role(void *ctx, const char *value)
{
	struct fix_args *a = ctx;
	int role = plan_role_from_name(value);

	if (role < 0)
		return role;
	a->opts.role = (enum plan_role)role;
	return 0;
}

static int take_emit(void *ctx, const char *value)
{
	struct fix_args *a = ctx;

	a->emit = emit_format_from_name(value);
	a->dry_run = true; /* nothing is applied */
	return a->emit < 0 ? -1 : 0;
}

static int take_shape(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct fix_args *)ctx)->opts.shape_rate);
}

static int take_ingress(void *ctx, const char *value)
{
	return plan_parse_rate(value, &((struct fix_args *)ctx)->opts.ingress_rate);
}

static bool peer_address_ok(const char *s)
{
	unsigned char bin[16];

	return inet_pton(AF_INET, s, bin) == 1 || inet_pton(AF_INET6, s, bin) == 1;
}

static int parse_args(int argc, char *argv[], struct fix_args *a)
{
	const struct cli_option options[] = {
	    {"all", 'a', CLI_FLAG, CLI_TO(&a->all)},
	    {"dry-run", 'n', CLI_FLAG, CLI_TO(&a->dry_run)},
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {"try", 't', CLI_UINT, CLI_TO(&a->try_seconds), .min = 1, .max = 86400,
	     .bad = "--try takes seconds from 1 to 86400, not \"%s\""},
	    {"confirm", 0, CLI_FLAG, CLI_TO(&a->confirm)},
	    {"persist", 'p', CLI_FLAG, CLI_TO(&a->persist)},
	    {"force", 'f', CLI_FLAG, CLI_TO(&a->opts.force)},
	    {"role", 'r', CLI_CALL, .call = take_role, .value = true,
	     .bad = "--role is host or server, not \"%s\""},
	    {"state-dir", 's', CLI_STR, CLI_TO(&a->state_dir)},
	    {"root", 0, CLI_STR, CLI_TO(&a->root)},
	    {"apply-persisted", 0, CLI_FLAG, CLI_TO(&a->apply_persisted)},
	    {"shape", 0, CLI_CALL, .call = take_shape, .value = true,
	     .bad = "--shape takes a rate from 64kbit to 100gbit (\"80mbit\"), not \"%s\""},
	    {"ingress", 0, CLI_CALL, .call = take_ingress, .value = true,
	     .bad = "--ingress takes a rate from 64kbit to 100gbit (\"80mbit\"), not \"%s\""},
	    {"no-ingress", 0, CLI_FLAG, CLI_TO(&a->opts.no_ingress)},
	    {"from", 0, CLI_STR, CLI_TO(&a->from)},
	    {"emit", 'e', CLI_CALL, .call = take_emit, .value = true,
	     .bad = "--emit takes networkd, udev or nm, not \"%s\""},
	    {"output", 'o', CLI_STR, CLI_TO(&a->output)},
	    {"driver", 0, CLI_FLAG, CLI_TO(&a->driver)},
	    {"peer", 0, CLI_STR, CLI_TO(&a->peer)},
	    CLI_OPTION_HELP,
	    {0},
	};
	int r;

	a->emit = EMIT_NONE;
	r = cli_parse_options("fix", usage, options, a, argc, argv);
	if (r >= 0)
		return r;
	if (a->opts.no_ingress && a->opts.ingress_rate)
		return cli_usage_error("fix", usage, "--ingress RATE or --no-ingress, not both");
	if (a->output && a->emit == EMIT_NONE)
		return cli_usage_error("fix", usage, "--output is for --emit's files");
	if (a->emit != EMIT_NONE &&
	    (a->json || a->try_seconds || a->persist || a->confirm || a->apply_persisted))
		return cli_usage_error(
		    "fix", usage,
		    "--emit writes configuration and applies nothing: no --json, "
		    "--try, --persist, --confirm or --apply-persisted with it");
	if (a->from && (a->confirm || a->apply_persisted))
		return cli_usage_error(
		    "fix", usage, "--from plans for a snapshot: no --confirm or --apply-persisted");
	if (a->from && !a->dry_run)
		return cli_usage_error(
		    "fix", usage,
		    "--from plans for a snapshot, not this host: nothing there can "
		    "be applied, so give --dry-run");
	if (a->confirm)
		return optind < argc ? cli_usage_error("fix", usage, "--confirm takes no interface")
				     : -1;
	if (a->peer && !a->driver)
		return cli_usage_error("fix", usage, "--peer is for --driver");
	if (a->peer && !peer_address_ok(a->peer))
		return cli_usage_error("fix", usage,
				       "--peer takes an IPv4 or IPv6 address, not \"%s\"", a->peer);
	if (a->driver && (a->all || a->from || a->emit != EMIT_NONE || a->apply_persisted ||
			  a->root || a->opts.shape_rate || a->opts.ingress_rate ||
			  a->opts.no_ingress || a->opts.role != PLAN_ROLE_HOST))
		return cli_usage_error(
		    "fix", usage,
		    "--driver swaps one interface's driver and nothing else: no --all, --from, "
		    "--emit, --apply-persisted, --root, --shape, --ingress or --role with it "
		    "(--persist keeps ours at boot with a depmod.d override)");
	if (a->driver && argc - optind != 1)
		return cli_usage_error("fix", usage, "--driver takes one interface");
	if (a->apply_persisted && argc - optind != 1)
		return cli_usage_error("fix", usage, "--apply-persisted takes one interface");
	if (a->all && optind < argc)
		return cli_usage_error("fix", usage, "name interfaces or give --all, not both");
	if (!a->all && optind == argc && !a->from)
		return cli_usage_error("fix", usage, "name an interface, or give --all");
	if (a->apply_persisted &&
	    (a->opts.shape_rate || a->opts.ingress_rate || a->opts.no_ingress))
		return cli_usage_error("fix", usage,
				       "--apply-persisted applies what was saved: no --shape, "
				       "--ingress or --no-ingress");
	if (a->all && (a->opts.shape_rate || a->opts.ingress_rate))
		return cli_usage_error(
		    "fix", usage, "--shape and --ingress are for the interfaces named, not --all");
	if (a->dry_run && (a->try_seconds || a->persist))
		return cli_usage_error("fix", usage,
				       "--dry-run changes nothing: no --try or --persist with it");
	return -1;
}

/* ---- printing ---- */

/* The step's number in this run (what DEBLOAT_FIX_CRASH_AFTER counts), 0 if none. */
static unsigned run_number(const struct plan *pl, size_t i)
{
	unsigned n = 0;

	if (pl->steps[i].status == STEP_SAME || pl->steps[i].status == STEP_UNSUPPORTED)
		return 0;
	for (size_t j = 0; j <= i; j++)
		n += pl->steps[j].status != STEP_SAME && pl->steps[j].status != STEP_UNSUPPORTED;
	return n;
}

static void print_step(struct printer *p, const struct plan *pl, size_t i, bool final)
{
	const struct plan_step *s = &pl->steps[i];
	unsigned n = run_number(pl, i);
	bool quiet = s->status == STEP_SAME; /* omitted from the text: nothing to do */
	unsigned text = quiet ? PRINT_JSON_ONLY : 0;

	print_open_object(p, NULL);
	if (!quiet)
		print_indent(p, 1);
	if (n)
		print_uint(p, "step", n, PRINT_BARE);
	else
		print_null(p, "step", NULL, PRINT_JSON_ONLY);
	knob_print(p, &s->knob, PRINT_BARE | text);
	if (!quiet)
		print_text(p, ":");
	print_str(p, "before", s->before, PRINT_BARE | text);
	if (!quiet)
		print_text(p, "->");
	print_str(p, "after", s->after, PRINT_BARE | text);
	if (final || (s->status != STEP_PLANNED && !quiet))
		print_str(p, "status", plan_status_name(s->status),
			  s->status == STEP_PLANNED || s->status == STEP_APPLIED ? PRINT_JSON_ONLY
										 : text);
	else
		print_str(p, "status", plan_status_name(s->status), PRINT_JSON_ONLY);
	if (!quiet)
		print_nl(p);
	if (!quiet)
		print_indent(p, 2);
	if (s->why[0] && !quiet)
		print_text(p, "why:");
	print_str(p, "why", s->why, PRINT_BARE | text);
	if (!quiet)
		print_nl(p);
	if (s->msg[0]) {
		if (!quiet)
			print_text(p, "note:");
		print_str(p, "message", s->msg, PRINT_BARE | text);
		if (!quiet)
			print_nl(p);
	} else {
		print_null(p, "message", NULL, PRINT_JSON_ONLY);
	}
	print_close(p);
}

static void print_notes(struct printer *p, const char (*notes)[PLAN_NOTE_MAX], unsigned n)
{
	print_open_array(p, "notes");
	for (unsigned i = 0; i < n; i++) {
		print_indent(p, 1);
		print_text(p, "note:");
		print_str(p, NULL, notes[i], PRINT_BARE);
		print_nl(p);
	}
	print_close(p);
}

static void print_tristate(struct printer *p, const char *key, enum tristate t)
{
	if (t == TRI_UNKNOWN)
		print_null(p, key, "unknown", PRINT_BARE);
	else
		print_bool(p, key, t == TRI_YES, PRINT_BARE);
}

static void print_target(struct printer *p, const struct plan *pl, size_t ti, bool final)
{
	const struct plan_target *t = &pl->targets[ti];
	size_t shown = 0;

	print_open_object(p, NULL);
	print_indent(p, 0);
	print_str(p, "name", t->name, PRINT_BARE);
	print_text(p, ":");
	if (t->speed_mbps)
		print_uint(p, "speed_mbps", t->speed_mbps, UNIT_MBPS);
	else
		print_null(p, "speed_mbps", "speed unknown", UNIT_MBPS | PRINT_BARE);
	if (t->ifc) {
		print_text(p, ", BQL in use:");
		print_tristate(p, "bql_in_use", t->bql_in_use);
	}
	print_bool(p, "skipped", t->skipped, PRINT_JSON_ONLY);
	print_bool(p, "forced", t->forced, PRINT_JSON_ONLY);
	print_nl(p);
	if (t->skipped || t->refused) {
		print_indent(p, 1);
		print_text(p, t->skipped ? "skipped:" : "refused:");
		print_str(p, "refused", t->refused_why, PRINT_BARE);
		print_nl(p);
	} else {
		print_null(p, "refused", NULL, PRINT_JSON_ONLY);
	}
	report_shaper(p, t->shaped ? &t->shaper : NULL, 1);
	print_notes(p, t->notes, t->nnotes);
	print_open_array(p, "steps");
	for (size_t i = 0; i < pl->nsteps; i++) {
		if (pl->steps[i].target != (int)ti)
			continue;
		print_step(p, pl, i, final);
		shown += pl->steps[i].status != STEP_SAME;
	}
	print_close(p);
	if (!shown && !t->skipped && !t->refused) {
		print_indent(p, 1);
		print_text(p, "nothing to change: already fixed");
		print_nl(p);
	}
	print_close(p);
}

static void print_plan(struct printer *p, const struct plan *pl, bool final)
{
	bool any_host = false;

	print_open_array(p, "interfaces");
	for (size_t i = 0; i < pl->ntargets; i++)
		print_target(p, pl, i, final);
	print_close(p);
	for (size_t i = 0; i < pl->nsteps; i++)
		any_host |= pl->steps[i].target < 0 && pl->steps[i].status != STEP_SAME;
	if (any_host || pl->nnotes) {
		print_indent(p, 0);
		print_text(p, "host-wide:");
		print_nl(p);
	}
	print_open_object(p, "host");
	print_notes(p, pl->notes, pl->nnotes);
	print_open_array(p, "steps");
	for (size_t i = 0; i < pl->nsteps; i++)
		if (pl->steps[i].target < 0)
			print_step(p, pl, i, final);
	print_close(p);
	print_close(p);
}

/* ---- doing it ---- */

/* The command's side of a run: what was asked, and the run below it (fix/fix-run.h). */
struct fix_cmd {
	struct fix_args a;
	struct fix_run run;
};

/* What the run noted on the way (once), then why it failed when ret says it did. */
static void say_run(struct fix_run *r, int ret)
{
	for (unsigned i = 0; i < r->nnotes; i++)
		cli_error("fix", "%s", r->notes[i]);
	r->nnotes = 0;
	if (ret < 0 && r->error[0])
		cli_error("fix", "%s", r->error);
}

/* The countdown, on a terminal only: "debloat: fix: 287 s left" rewritten in place. */
static void countdown(unsigned left, void *arg)
{
	(void)arg;
	fprintf(stderr, "\r%s: fix: %u s left ", PROG_NAME, left);
	fflush(stderr);
}

/*
 * --try after the run was applied: say how to keep it, tell a waiting program (prove)
 * that the trial begins (fix/ready.h), wait, and take it all back unless confirmed.
 */
static int try_wait(struct fix_cmd *c)
{
	struct fix_run *r = &c->run;
	struct sigaction sa = {.sa_handler = cli_on_signal}, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	int ret;

	cli_error("fix",
		  "on trial for %u s: %srun `%s fix --confirm%s%s` from another shell to "
		  "keep it; otherwise it is undone",
		  c->a.try_seconds, isatty(STDIN_FILENO) ? "press a key here, or " : "", PROG_NAME,
		  c->a.state_dir ? " --state-dir " : "", c->a.state_dir ? c->a.state_dir : "");
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	ret = fix_ready_tell();
	if (ret < 0)
		cli_error("fix", "cannot tell %s: %s", FIX_READY_ENV, strerror(-ret));
	ret = fix_run_trial_wait(r, isatty(STDIN_FILENO) ? STDIN_FILENO : -1, &cli_signal,
				 isatty(STDERR_FILENO) ? countdown : NULL, NULL);
	if (isatty(STDERR_FILENO))
		fputc('\n', stderr);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (ret == 1)
		return 0;
	ret = fix_run_trial_undo(r);
	say_run(r, ret);
	return ret;
}

/* Before a driver swap: what it costs, said before it happens. */
static void say_driver_cut(const struct fix_run *r)
{
	for (size_t i = 0; i < r->plan.nsteps; i++) {
		const struct plan_step *s = &r->plan.steps[i];
		const char *peer = strstr(s->after, " peer ");

		if (s->knob.kind != KNOB_DRIVER || s->status != STEP_PLANNED)
			continue;
		cli_error("fix",
			  "swapping the driver of %s: unloading it cuts %s's traffic for a few "
			  "seconds; unless the link is back within %d s and %s answers within %d "
			  "s, the kernel's own module is put back",
			  s->knob.ifname, s->knob.ifname, DRIVER_LINK_MS / 1000,
			  peer ? peer + 6 : "the peer", DRIVER_PEER_MS / 1000);
		fflush(stderr);
	}
}

/* Apply the plan, then the trial: 0, or -errno once the why was said. */
static int apply(struct fix_cmd *c)
{
	int ret;

	say_driver_cut(&c->run);
	ret = fix_run_apply(&c->run);

	say_run(&c->run, ret);
	if (ret < 0)
		return ret;
	if (c->a.try_seconds) {
		fflush(stdout); /* the plan, before the question */
		ret = try_wait(c);
	}
	return ret;
}

static int persist(struct fix_cmd *c)
{
	int ret = fix_run_persist(&c->run);

	say_run(&c->run, ret);
	return ret;
}

static void print_outcome(struct printer *p, struct fix_cmd *c)
{
	const struct fix_run *r = &c->run;
	size_t applied = plan_count(&r->plan, STEP_APPLIED);
	size_t refused = plan_count(&r->plan, STEP_REFUSED);

	print_indent(p, 0);
	print_str(p, "result", r->result, PRINT_JSON_ONLY);
	print_uint(p, "applied", applied, PRINT_JSON_ONLY);
	print_uint(p, "refused_steps", refused, PRINT_JSON_ONLY);
	print_str(p, "role", plan_role_name(c->a.opts.role), PRINT_JSON_ONLY);
	print_str(p, "state_dir", r->env.state_dir, PRINT_JSON_ONLY);
	if (r->fell_back[0]) {
		print_str(p, "fell_back_from", r->fell_back, PRINT_JSON_ONLY);
		print_text(p, "the kernel could not load %s: planned again without it",
			   r->fell_back);
		print_nl(p);
	} else {
		print_null(p, "fell_back_from", NULL, PRINT_JSON_ONLY);
	}
	if (!strcmp(r->result, "dry-run")) {
		print_text(p, "dry run: nothing was changed");
		print_nl(p);
	} else if (!strcmp(r->result, "already-fixed")) {
		print_text(p, "already fixed: nothing to change");
		print_nl(p);
	} else if (!strcmp(r->result, "applied")) {
		print_text(p, "applied %zu step%s%s", applied, applied == 1 ? "" : "s",
			   c->a.try_seconds ? " (confirmed)" : "");
		if (refused)
			print_text(p, "(%zu refused by the driver, left as they were)", refused);
		print_text(p, ", journal %s (`%s undo` restores it)", r->journal_path, PROG_NAME);
		print_nl(p);
	}
	/* A new driver made a new device, with the kernel's defaults: the rest of the fix
	 * is planned for it now (text only: JSON has the step). */
	for (size_t i = 0; i < r->plan.nsteps && !strcmp(r->result, "applied"); i++) {
		if (r->plan.steps[i].knob.kind != KNOB_DRIVER ||
		    r->plan.steps[i].status != STEP_APPLIED)
			continue;
		print_text(p,
			   "%s is a new device with the kernel's defaults: `%s fix %s` plans "
			   "its queue now that BQL is in use",
			   r->plan.steps[i].knob.ifname, PROG_NAME, r->plan.steps[i].knob.ifname);
		print_nl(p);
	}
	if (r->journal_path[0] && access(r->journal_path, F_OK) == 0)
		print_str(p, "journal", r->journal_path, PRINT_JSON_ONLY);
	else
		print_null(p, "journal", NULL, PRINT_JSON_ONLY);
	/* What did not go as planned, step by step (JSON has every step's status). */
	for (size_t i = 0; i < r->plan.nsteps && !print_is_json(p); i++) {
		const struct plan_step *s = &r->plan.steps[i];
		char what[96];

		if (s->status != STEP_REFUSED && s->status != STEP_FAILED &&
		    !(s->status == STEP_ROLLED_BACK && strcmp(r->result, "rolled-back")))
			continue;
		knob_describe(&s->knob, what, sizeof(what));
		print_indent(p, 1);
		print_text(p, "%s: step %u, %s%s%s", plan_status_name(s->status),
			   run_number(&r->plan, i), what, s->msg[0] ? ": " : "", s->msg);
		print_nl(p);
	}
	if (r->error[0])
		print_str(p, "error", r->error, PRINT_JSON_ONLY);
	else
		print_null(p, "error", NULL, PRINT_JSON_ONLY);
	if (c->a.try_seconds) {
		print_open_object(p, "try");
		print_uint(p, "seconds", c->a.try_seconds, PRINT_JSON_ONLY);
		print_bool(p, "confirmed", r->try_confirmed, PRINT_JSON_ONLY);
		print_close(p);
	}
	if (c->a.persist && !c->a.driver) {
		print_open_array(p, "persisted");
		for (unsigned i = 0; i < r->persisted.n; i++) {
			print_text(p, "persisted:");
			print_str(p, NULL, r->persisted.path[i], PRINT_BARE);
			print_nl(p);
		}
		print_close(p);
	}
}

/* --emit: the plan as configuration, on standard output (a header per file) or into
 * --output's directory (fix/emit.h). Warnings name each step the format cannot carry. */
static int emit_config(struct fix_cmd *c)
{
	const struct fix_run *r = &c->run;
	const char *fmt = emit_format_name((enum emit_format)c->a.emit);
	struct emit *e = calloc(1, sizeof(*e));
	size_t bad = SIZE_MAX;
	int ret;

	if (!e) {
		cli_error("fix", "%s", strerror(ENOMEM));
		return 1;
	}
	ret = emit_plan(&r->plan, (enum emit_format)c->a.emit, e);
	if (ret < 0) {
		cli_error("fix", "cannot write the plan as %s: %s", fmt,
			  ret == -EINVAL
			      ? "an interface name or a value the files cannot hold safely"
			      : strerror(-ret));
		free(e);
		return 1;
	}
	for (unsigned i = 0; i < e->nwarnings; i++)
		cli_error("fix", "warning: %s", e->warnings[i]);
	if (e->lost_warnings)
		cli_error("fix", "warning: and %u more like these", e->lost_warnings);
	if (!e->nfiles)
		cli_error("fix", "nothing to write as %s: the plan has no interface", fmt);
	ret = 0;
	if (c->a.output && strcmp(c->a.output, "-")) { /* "-": standard output, as elsewhere */
		ret = emit_write_dir(c->a.output, e, &bad);
		if (ret == -EEXIST)
			cli_error("fix",
				  "%s/%s exists: nothing was written (files are never replaced)",
				  c->a.output, e->files[bad].name);
		else if (ret < 0 && bad == SIZE_MAX)
			cli_error("fix", "cannot write into %s: %s; nothing was written",
				  c->a.output, strerror(-ret));
		else if (ret < 0)
			cli_error("fix", "cannot write %s/%s: %s; nothing was written", c->a.output,
				  e->files[bad].name, strerror(-ret));
		for (unsigned i = 0; i < e->nfiles && !ret; i++)
			printf("wrote %s/%s\n", c->a.output, e->files[i].name);
	} else {
		for (unsigned i = 0; i < e->nfiles; i++)
			printf("%s==> %s <==\n%s", i ? "\n" : "", e->files[i].name,
			       e->files[i].text);
	}
	if (!ret && (fflush(stdout) == EOF || ferror(stdout))) {
		cli_error("fix", "cannot write to standard output: %s", strerror(errno));
		ret = -EIO;
	}
	emit_free(e);
	free(e);
	return ret < 0 ? 1 : 0;
}

static int confirm(struct fix_cmd *c)
{
	long pid;
	int ret = fix_run_confirm(&c->run.env, &pid);

	if (ret == -ESRCH) {
		cli_error("fix", "no fix is waiting for confirmation in %s", c->run.env.state_dir);
		return 1;
	}
	if (ret < 0) {
		cli_error("fix", "cannot confirm in %s: %s", c->run.env.state_dir, strerror(-ret));
		return 1;
	}
	printf("confirmed: the fix waiting as pid %ld is kept\n", pid);
	return 0;
}

/* Every refused target's reason, on standard error; the last one is the run's error. */
static void say_refused(struct fix_run *r)
{
	for (size_t i = 0; i < r->plan.ntargets; i++)
		if (r->plan.targets[i].refused) {
			snprintf(r->error, sizeof(r->error), "%s", r->plan.targets[i].refused_why);
			cli_error("fix", "%s", r->error);
		}
}

int cmd_fix(int argc, char *argv[])
{
	struct fix_cmd *c = calloc(1, sizeof(*c));
	struct fix_run *r;
	struct printer *p = NULL;
	int ret = 1, pr;

	if (!c) {
		cli_error("fix", "%s", strerror(ENOMEM));
		return 1;
	}
	r = &c->run;
	r->lockfd = -1;
	pr = parse_args(argc, argv, &c->a);
	if (pr >= 0) {
		ret = pr;
		goto cleanup;
	}
	fix_run_init(r, &(struct fix_run_options){
			    .plan = c->a.opts,
			    .state_dir = c->a.state_dir,
			    .root = c->a.root,
			    .from = c->a.from,
			    .try_seconds = c->a.try_seconds,
			    .apply_persisted = c->a.apply_persisted,
			    .driver = c->a.driver,
			    .peer = c->a.peer,
			    .ssh_connection = getenv("SSH_CONNECTION"),
			    .driver_persist = c->a.driver && c->a.persist,
			});
	if (c->a.confirm) {
		ret = confirm(c);
		goto cleanup;
	}
	if (!c->a.dry_run && geteuid() != 0) {
		cli_error("fix", "needs root");
		goto cleanup;
	}
	if (fix_run_plan(r, argv + optind, (size_t)(argc - optind)) < 0) {
		say_run(r, -1);
		goto cleanup;
	}
	if (c->a.emit != EMIT_NONE) {
		if (plan_refused(&r->plan)) {
			say_refused(r);
			goto cleanup;
		}
		ret = emit_config(c);
		goto cleanup;
	}
	p = print_new(stdout, c->a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error("fix", "%s", strerror(ENOMEM));
		goto cleanup;
	}
	print_bool(p, "dry_run", c->a.dry_run, PRINT_JSON_ONLY);
	if (c->a.from) {
		print_text(p, "planned for snapshot");
		print_str(p, "from", c->a.from, PRINT_BARE | PRINT_NOWRAP);
		print_text(p, "(this host is neither read nor changed)");
		print_nl(p);
	} else {
		print_null(p, "from", NULL, PRINT_JSON_ONLY);
	}
	if (!c->a.json)
		print_plan(p, &r->plan, false);
	r->result = "dry-run";
	if (plan_refused(&r->plan)) {
		r->result = "refused";
		say_refused(r);
	} else if (!c->a.dry_run && !plan_count(&r->plan, STEP_PLANNED)) {
		r->result = "already-fixed";
		ret = c->a.persist && !c->a.driver && persist(c) < 0 ? 1 : 0;
	} else if (!c->a.dry_run) {
		if (apply(c) == 0)
			ret = c->a.persist && !c->a.driver && persist(c) < 0 ? 1 : 0;
	} else {
		ret = 0;
	}
	if (c->a.json)
		print_plan(p, &r->plan, true);
	print_outcome(p, c);
	if (cli_print_finish("fix", p, "cannot write the report") < 0)
		ret = 1;
cleanup:
	print_free(p);
	fix_run_free(r);
	free(c);
	return ret;
}
