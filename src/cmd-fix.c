/* SPDX-License-Identifier: MIT */
/*
 * cmd-fix.c - `debloat fix`: plan what audit recommends, show it, apply it behind a
 * journal (src/fix/), optionally on trial (--try) and for every boot (--persist).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/report.h"
#include "base/array.h"
#include "base/clock.h"
#include "base/cli.h"
#include "base/print.h"
#include "fix/apply.h"
#include "fix/emit.h"
#include "fix/fallback.h"
#include "fix/journal.h"
#include "fix/knob-print.h"
#include "fix/persist.h"
#include "fix/plan.h"
#include "host/host.h"
#include "host/snapshot.h"

static const char usage[] =
    "Usage: " PROG_NAME " fix [IFACE...] [--all] [--dry-run] [--json] [--try SECONDS]\n"
    "           [--persist] [--force] [--role host|server] [--shape RATE]\n"
    "           [--ingress RATE | --no-ingress] [--state-dir DIR] [--root DIR]\n"
    "       " PROG_NAME " fix --from FILE --dry-run [--json] [--shape RATE]\n"
    "           [--ingress RATE | --no-ingress] [IFACE...]\n"
    "       " PROG_NAME " fix --emit networkd|udev|nm [--from FILE] [-o DIR] [--all]\n"
    "           [IFACE...]\n"
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
    "                        systemd unit bound to the device, an ifupdown hook\n"
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
    "  -h, --help            show this help\n";

#define EMIT_NONE -1

struct fix_args {
	bool all, dry_run, json, confirm, persist, apply_persisted;
	unsigned try_seconds;
	const char *state_dir, *root;
	const char *from; /* a snapshot to plan for: dry run only */
	int emit;	  /* enum emit_format, or EMIT_NONE */
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
		return cli_usage_error("fix", usage,
				       "--shape and --ingress are for the interfaces named, not --all");
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

struct fix_run {
	struct fix_args a;
	struct apply_env env;
	struct host host;
	struct plan plan;
	struct journal journal, before_run; /* before_run: for a --try rollback */
	bool journal_existed;
	int lockfd;
	char journal_path[APPLY_PATH_MAX];
	const char *result; /* "applied", "already-fixed", "dry-run", "failed", ... */
	char error[768];
	struct persist_files persisted;
	bool try_confirmed;
	bool named;		/* interfaces were named on the command line */
	char fell_back[96];	/* kinds the kernel would not load (fallback.h), or "" */
};

/* Plans again after the kernel refused a kind: at most once per kind it may refuse. */
#define FIX_MAX_FALLBACKS 4

__attribute__((format(printf, 2, 3))) static void fail(struct fix_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	cli_error("fix", "%s", r->error);
}

/* A plan from ROOT/etc/debloat/IFACE.conf, for the interface host_read found. */
static int plan_from_persisted(struct fix_run *r, const char *ifname)
{
	struct persist ps;
	char err[512];
	int ti, ret;

	ret = persist_read(r->a.root ? r->a.root : "/", ifname, &ps, err, sizeof(err));
	if (ret == -ENOENT) {
		fail(r, "nothing saved for %s: no %s/etc/debloat/%s.conf", ifname,
		     r->a.root ? r->a.root : "", ifname);
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot read the saved setup: %s", err[0] ? err : strerror(-ret));
		return ret;
	}
	ti = plan_add_target(&r->plan, ifname);
	ret = ti;
	if (ti >= 0) {
		struct plan_target *t = &r->plan.targets[ti];

		t->ifc = r->host.n ? &r->host.ifaces[0] : NULL;
		t->speed_mbps = t->ifc ? t->ifc->speed_mbps : 0;
		for (size_t i = 0; i < ps.n && ret >= 0; i++)
			ret = plan_add_step(&r->plan, ps.sets[i].knob.kind == KNOB_SYSCTL ? -1 : ti,
					    &ps.sets[i].knob, ps.sets[i].value,
					    plan_knob_optional(ps.sets[i].knob.kind),
					    "saved by debloat fix --persist");
	}
	persist_free(&ps);
	if (ret < 0)
		fail(r, "cannot build the plan: %s", strerror(-ret));
	return ret < 0 ? ret : 0;
}

/*
 * Test hook: DEBLOAT_FIX_ASSUME_QDISC="fq_codel cake" makes the plan believe this kernel
 * has those kinds, so tests can watch the kernel refuse one (nothing else changes).
 */
static void assume_available(struct host *h)
{
	const char *v = getenv("DEBLOAT_FIX_ASSUME_QDISC");
	char words[128], *save = NULL;

	if (!v || strlen(v) >= sizeof(words))
		return;
	memcpy(words, v, strlen(v) + 1);
	for (char *w = strtok_r(words, " ,", &save); w; w = strtok_r(NULL, " ,", &save))
		for (size_t i = 0; i < HOST_NQDISC_KINDS; i++)
			if (h->qdisc_kinds[i].kind && !strcmp(h->qdisc_kinds[i].kind, w))
				h->qdisc_kinds[i].avail = QDISC_AVAIL_YES;
}

/* A root-qdisc spec that shapes: someone chose a rate for it. */
static bool shaper_spec(const char *v)
{
	static const char *const shapers[] = {"htb ", "tbf ", "hfsc "};

	for (size_t i = 0; i < COUNT(shapers); i++)
		if (!strncmp(v, shapers[i], strlen(shapers[i])))
			return true;
	return !strncmp(v, "cake ", 5) && strstr(v, "bandwidth ");
}

/*
 * A shaper tree at a root that debloat's journal does not hold is the user's own (an
 * htb at their line's rate over their FIFO): replacing it loses their rate and queue,
 * so the target is refused, naming them, unless --force (undo then rebuilds it).
 */
static void refuse_user_shapers(struct fix_run *r)
{
	char path[APPLY_PATH_MAX], err[256];
	struct journal j = {0};
	bool have = apply_state_path(&r->env, "journal", path, sizeof(path)) == 0 &&
		    journal_read_file(path, &j, err, sizeof(err)) == 0;

	for (size_t i = 0; i < r->plan.nsteps; i++) {
		struct plan_step *s = &r->plan.steps[i];
		struct plan_target *t = s->target >= 0 ? &r->plan.targets[s->target] : NULL;

		if (!t || s->status != STEP_PLANNED || s->knob.kind != KNOB_ROOT_QDISC ||
		    !shaper_spec(s->before) || (have && journal_find(&j, &s->knob)))
			continue;
		if (r->a.opts.force) {
			snprintf(s->msg, sizeof(s->msg),
				 "replaces your own shaper \"%s\" (--force): undo rebuilds it",
				 s->before);
			continue;
		}
		t->refused = true;
		snprintf(t->refused_why, sizeof(t->refused_why),
			 "%s's root is a shaper debloat did not make (\"%s\"): replacing it "
			 "would lose its rate and its queue; --force replaces it (undo rebuilds "
			 "it)",
			 t->name, s->before);
	}
	if (have)
		journal_free(&j);
}

/* The plan for r->host (or from the persisted file of `ifname`), its befores read. */
static int make_plan(struct fix_run *r, const char *ifname)
{
	size_t failed = 0;
	char what[96];
	int ret;

	plan_init(&r->plan, &r->a.opts);
	if (r->a.apply_persisted)
		ret = plan_from_persisted(r, ifname);
	else if ((ret = plan_build(&r->plan, &r->host, r->named)) < 0)
		fail(r, "cannot build the plan: %s", strerror(-ret));
	if (ret < 0)
		return ret;
	ret = apply_read_befores(&r->plan, &r->env.knobs, &failed);
	if (ret < 0) {
		knob_describe(&r->plan.steps[failed].knob, what, sizeof(what));
		fail(r, "cannot read %s: %s", what, strerror(-ret));
		return ret;
	}
	plan_settle(&r->plan);
	if (!r->a.apply_persisted)
		refuse_user_shapers(r);
	return 0;
}

/*
 * The plan for a snapshot's host (the names given, else all): nothing is read from
 * this host, so every step's before is "unknown" and none is settled or refused here.
 */
static const struct iface *snapshot_iface(const struct host *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->ifaces[i].name, name))
			return &h->ifaces[i];
	return NULL;
}

/*
 * A step's "before" as the snapshot recorded it, in knob_read's spelling, or "unknown"
 * where the snapshot has no such value (a root qdisc's whole spec, a value it could not
 * read).
 */
static void snapshot_before(const struct host *h, const struct plan_step *s, char *buf,
			    size_t len)
{
	const struct iface *ifc = snapshot_iface(h, s->knob.ifname);
	const struct sysctl_entry *e;
	enum feature_state f = FEATURE_UNKNOWN;
	int64_t v = -1;

	snprintf(buf, len, "unknown");
	switch (s->knob.kind) {
	case KNOB_SYSCTL:
		e = host_sysctl(h, s->knob.name);
		if (e && !e->err)
			snprintf(buf, len, "%s", e->value);
		return;
	case KNOB_TXQUEUELEN:
		v = ifc ? (int64_t)ifc->txqueuelen : -1;
		break;
	case KNOB_GSO_MAX_SIZE:
		v = ifc && ifc->gso_max_size ? (int64_t)ifc->gso_max_size : -1;
		break;
	case KNOB_RING_TX:
		v = ifc ? ifc->ring_tx : -1;
		break;
	case KNOB_RING_RX:
		v = ifc ? ifc->ring_rx : -1;
		break;
	case KNOB_BQL_LIMIT_MAX:
		for (size_t i = 0; ifc && i < ifc->nbql; i++)
			if ((int)ifc->bql[i].queue == s->knob.queue && ifc->bql[i].present)
				v = ifc->bql[i].limit_max;
		break;
	case KNOB_OFFLOAD:
		if (!ifc)
			return;
		f = !strcmp(s->knob.name, "tx-tcp-segmentation")	   ? ifc->tso
		    : !strcmp(s->knob.name, "tx-generic-segmentation") ? ifc->gso
		    : !strcmp(s->knob.name, "rx-gro")		   ? ifc->gro
		    : !strcmp(s->knob.name, "rx-lro")		   ? ifc->lro
									   : FEATURE_UNKNOWN;
		if (f != FEATURE_UNKNOWN)
			snprintf(buf, len, "%s", f == FEATURE_ON ? "on" : "off");
		return;
	default:
		return;
	}
	if (v >= 0)
		snprintf(buf, len, "%lld", (long long)v);
}

static int plan_snapshot(struct fix_run *r, char *const names[], size_t nnames)
{
	char err[512];
	size_t bad = 0;
	int ret;

	ret = snapshot_read_file(r->a.from, &r->host, err, sizeof(err));
	if (ret < 0) {
		fail(r, "cannot read snapshot %s: %s", r->a.from, err[0] ? err : strerror(-ret));
		return ret;
	}
	ret = snapshot_select(&r->host, names, nnames, &bad);
	if (ret == -ENODEV)
		fail(r, "snapshot %s has no interface %s", r->a.from, names[bad]);
	else if (ret < 0)
		fail(r, "cannot read snapshot %s: %s", r->a.from, strerror(-ret));
	if (ret < 0)
		return ret;
	plan_init(&r->plan, &r->a.opts);
	ret = plan_build(&r->plan, &r->host, nnames > 0);
	if (ret < 0) {
		fail(r, "cannot build the plan: %s", strerror(-ret));
		return ret;
	}
	/* The snapshot's values as "before": a step already done there is left out. */
	for (size_t i = 0; i < r->plan.nsteps; i++) {
		struct plan_step *s = &r->plan.steps[i];
		const struct plan_target *t = s->target >= 0 ? &r->plan.targets[s->target] : NULL;

		snapshot_before(&r->host, s, s->before, sizeof(s->before));
		if (s->status == STEP_PLANNED && strcmp(s->before, "unknown") &&
		    plan_value_equal(&s->knob, s->before, s->after, t ? t->ifc : NULL))
			s->status = STEP_SAME;
	}
	return 0;
}

static int read_and_plan(struct fix_run *r, char *const names[], size_t nnames)
{
	size_t bad = 0;
	int ret;

	if (r->a.from)
		return plan_snapshot(r, names, nnames);
	ret = host_read(&r->host, &host_default_paths, names, nnames, &bad);
	if (ret == -ENODEV) {
		fail(r, "cannot find interface %s: %s", names[bad], strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot read the interfaces: %s", strerror(-ret));
		return ret;
	}
	assume_available(&r->host);
	r->named = nnames > 0;
	return make_plan(r, nnames ? names[0] : NULL);
}

static int load_journal(struct fix_run *r)
{
	char err[512];
	int ret;

	ret = apply_state_path(&r->env, "journal", r->journal_path, sizeof(r->journal_path));
	if (!ret)
		ret = apply_lock(&r->env, r->a.apply_persisted, &r->lockfd);
	if (ret == -EBUSY) {
		fail(r, "another fix or undo is running on %s (a --try waiting for confirmation?)",
		     r->env.state_dir);
		return ret;
	}
	if (ret < 0) {
		fail(r, "cannot use the state directory %s: %s; nothing was changed",
		     r->env.state_dir, strerror(-ret));
		return ret;
	}
	ret = journal_read_file(r->journal_path, &r->journal, err, sizeof(err));
	r->journal_existed = ret == 0;
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		fail(r, "cannot read the journal: %s; nothing was changed (the journal is kept)",
		     err[0] ? err : strerror(-ret));
	return ret;
}

static void failed_message(struct fix_run *r, size_t i, int err, int rollback_err)
{
	const struct plan_step *s = &r->plan.steps[i];
	char what[96];
	size_t undone = plan_count(&r->plan, STEP_ROLLED_BACK);

	knob_describe(&s->knob, what, sizeof(what));
	if (rollback_err)
		fail(r,
		     "cannot set %s to \"%s\": %s; rolling back failed (%s): run `%s undo` "
		     "(the journal %s has every value)",
		     what, s->after, s->msg[0] ? s->msg : strerror(-err), strerror(-rollback_err),
		     PROG_NAME, r->journal_path);
	else
		fail(r, "cannot set %s to \"%s\": %s; %s", what, s->after,
		     s->msg[0] ? s->msg : strerror(-err),
		     undone ? "the steps already applied were rolled back: nothing changed"
			    : "nothing was changed");
}

/* The countdown, on a terminal only: "debloat: fix: 287 s left" rewritten in place. */
static void countdown(unsigned left, void *arg)
{
	(void)arg;
	fprintf(stderr, "\r%s: fix: %u s left ", PROG_NAME, left);
	fflush(stderr);
}

/*
 * A program that runs `fix --try` and must know when the change is in place (prove)
 * passes a pipe's write end as DEBLOAT_FIX_READY_FD: once everything is applied and the
 * trial begins, "ready\n" is written to it and it is closed. A fix that ends without a
 * trial (already fixed, refused, failed) only closes it, at exit.
 */
static void tell_ready(void)
{
	const char *v = getenv("DEBLOAT_FIX_READY_FD");
	uint64_t fd;

	if (!v || !cli_parse_uint(v, 3, INT_MAX, &fd))
		return;
	if (write((int)fd, "ready\n", 6) != 6)
		cli_error("fix", "cannot tell DEBLOAT_FIX_READY_FD: %s", strerror(errno));
	close((int)fd);
}

static int try_wait(struct fix_run *r)
{
	struct sigaction sa = {.sa_handler = cli_on_signal}, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	uint64_t start = mono_ns();
	int ret;

	cli_error("fix",
		  "on trial for %u s: %srun `%s fix --confirm%s%s` from another shell to "
		  "keep it; otherwise it is undone",
		  r->a.try_seconds, isatty(STDIN_FILENO) ? "press a key here, or " : "", PROG_NAME,
		  r->a.state_dir ? " --state-dir " : "", r->a.state_dir ? r->a.state_dir : "");
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	tell_ready();
	ret =
	    apply_wait_confirm(&r->env, r->a.try_seconds, isatty(STDIN_FILENO) ? STDIN_FILENO : -1,
			       &cli_signal, isatty(STDERR_FILENO) ? countdown : NULL, NULL);
	if (isatty(STDERR_FILENO))
		fputc('\n', stderr);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (ret == 1) {
		r->try_confirmed = true;
		return 0;
	}
	ret = apply_rollback(&r->plan, &r->journal, &r->before_run, r->journal_existed, &r->env);
	if (ret < 0) {
		fail(r, "not confirmed, and undoing it failed: %s; run `%s undo%s%s`",
		     strerror(-ret), PROG_NAME, r->a.state_dir ? " --state-dir " : "",
		     r->a.state_dir ? r->a.state_dir : "");
		return ret;
	}
	/* Ended by a signal (prove ending its trial, a Ctrl-C): say so, not a timeout. */
	if (cli_signal)
		fail(r, "ended after %.0f s by %s, not confirmed: everything was put back",
		     (double)(mono_ns() - start) / 1e9, strsignal(cli_signal));
	else
		fail(r, "not confirmed within %u s: everything was put back", r->a.try_seconds);
	r->result = "rolled-back";
	return -ETIMEDOUT;
}

static int do_persist(struct fix_run *r)
{
	char exe[PATH_MAX], err[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret = 0;

	if (n < 0) {
		fail(r, "cannot find this program's path for the unit: %s", strerror(errno));
		return -errno;
	}
	exe[n] = '\0';
	for (size_t i = 0; i < r->plan.ntargets && !ret; i++) {
		if (r->plan.targets[i].skipped || r->plan.targets[i].refused)
			continue;
		ret = persist_install(r->a.root ? r->a.root : "/", &r->plan, (int)i, exe,
				      &r->persisted, err, sizeof(err));
		if (ret < 0)
			fail(r, "cannot persist the setup of %s: %s", r->plan.targets[i].name, err);
	}
	return ret;
}

/*
 * After the kernel refused step `failed` with ENOENT: when that step names qdisc kinds
 * the kernel could not load (fallback.h), count them as missing and plan again, the
 * same host less those kinds. 1: a new plan is ready; 0: nothing to fall back from;
 * -1: the new plan cannot be made (fail() said why).
 */
static int fall_back(struct fix_run *r, size_t failed)
{
	const struct plan_step *s = &r->plan.steps[failed];
	char names[64];

	if (s->knob.kind != KNOB_ROOT_QDISC &&
	    !(s->knob.kind == KNOB_SYSCTL && !strcmp(s->knob.name, "net.core.default_qdisc")))
		return 0;
	if (!fallback_mark(&r->host, &host_default_paths, s->after, names, sizeof(names)))
		return 0;
	cli_error("fix",
		  "this kernel lists %s but cannot load it (%s): everything was put back; "
		  "planning again without it",
		  names, s->msg[0] ? s->msg : strerror(-s->err));
	if (r->fell_back[0] && strlen(r->fell_back) + 1 < sizeof(r->fell_back))
		strcat(r->fell_back, " ");
	if (strlen(r->fell_back) + strlen(names) < sizeof(r->fell_back))
		strcat(r->fell_back, names);
	plan_free(&r->plan);
	return make_plan(r, NULL) < 0 ? -1 : 1;
}

static int apply(struct fix_run *r)
{
	size_t failed;
	int ret, rollback_err, fb = 0;

	if (load_journal(r) < 0)
		return -1;
	ret = journal_copy(&r->before_run, &r->journal);
	if (ret < 0) {
		fail(r, "%s", strerror(-ret));
		return ret;
	}
	for (unsigned tries = 0;; tries++) {
		ret = apply_plan(&r->plan, &r->journal, r->journal_existed, &r->env, &failed,
				 &rollback_err);
		if (ret != -ENOENT || failed == SIZE_MAX || rollback_err || r->a.apply_persisted ||
		    tries == FIX_MAX_FALLBACKS)
			break;
		fb = fall_back(r, failed);
		if (fb <= 0)
			break;
	}
	if (fb < 0)
		return -1;
	if (ret < 0 && failed == SIZE_MAX) {
		fail(r, "cannot write the journal %s: %s; nothing was changed", r->journal_path,
		     strerror(-ret));
		return ret;
	}
	if (ret < 0) {
		failed_message(r, failed, ret, rollback_err);
		return ret;
	}
	r->result = "applied";
	if (r->a.try_seconds) {
		fflush(stdout); /* the plan, before the question */
		ret = try_wait(r);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void print_outcome(struct printer *p, struct fix_run *r)
{
	size_t applied = plan_count(&r->plan, STEP_APPLIED);
	size_t refused = plan_count(&r->plan, STEP_REFUSED);

	print_indent(p, 0);
	print_str(p, "result", r->result, PRINT_JSON_ONLY);
	print_uint(p, "applied", applied, PRINT_JSON_ONLY);
	print_uint(p, "refused_steps", refused, PRINT_JSON_ONLY);
	print_str(p, "role", plan_role_name(r->a.opts.role), PRINT_JSON_ONLY);
	print_str(p, "state_dir", r->env.state_dir, PRINT_JSON_ONLY);
	if (r->fell_back[0]) {
		print_str(p, "fell_back_from", r->fell_back, PRINT_JSON_ONLY);
		print_text(p, "the kernel could not load %s: planned again without it", r->fell_back);
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
			   r->a.try_seconds ? " (confirmed)" : "");
		if (refused)
			print_text(p, "(%zu refused by the driver, left as they were)", refused);
		print_text(p, ", journal %s (`%s undo` restores it)", r->journal_path, PROG_NAME);
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
	if (r->a.try_seconds) {
		print_open_object(p, "try");
		print_uint(p, "seconds", r->a.try_seconds, PRINT_JSON_ONLY);
		print_bool(p, "confirmed", r->try_confirmed, PRINT_JSON_ONLY);
		print_close(p);
	}
	if (r->a.persist) {
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
static int emit_config(struct fix_run *r)
{
	const char *fmt = emit_format_name((enum emit_format)r->a.emit);
	struct emit *e = calloc(1, sizeof(*e));
	size_t bad = SIZE_MAX;
	int ret;

	if (!e) {
		fail(r, "%s", strerror(ENOMEM));
		return 1;
	}
	ret = emit_plan(&r->plan, (enum emit_format)r->a.emit, e);
	if (ret < 0) {
		fail(r, "cannot write the plan as %s: %s", fmt,
		     ret == -EINVAL ? "an interface name or a value the files cannot hold safely"
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
	if (r->a.output && strcmp(r->a.output, "-")) { /* "-": standard output, as elsewhere */
		ret = emit_write_dir(r->a.output, e, &bad);
		if (ret == -EEXIST)
			fail(r, "%s/%s exists: nothing was written (files are never replaced)",
			     r->a.output, e->files[bad].name);
		else if (ret < 0 && bad == SIZE_MAX)
			fail(r, "cannot write into %s: %s; nothing was written", r->a.output,
			     strerror(-ret));
		else if (ret < 0)
			fail(r, "cannot write %s/%s: %s; nothing was written", r->a.output,
			     e->files[bad].name, strerror(-ret));
		for (unsigned i = 0; i < e->nfiles && !ret; i++)
			printf("wrote %s/%s\n", r->a.output, e->files[i].name);
	} else {
		for (unsigned i = 0; i < e->nfiles; i++)
			printf("%s==> %s <==\n%s", i ? "\n" : "", e->files[i].name,
			       e->files[i].text);
	}
	if (!ret && (fflush(stdout) == EOF || ferror(stdout))) {
		fail(r, "cannot write to standard output: %s", strerror(errno));
		ret = -EIO;
	}
	emit_free(e);
	free(e);
	return ret < 0 ? 1 : 0;
}

static int confirm(struct fix_run *r)
{
	char err[512];
	int ret;

	ret = apply_state_path(&r->env, "journal", r->journal_path, sizeof(r->journal_path));
	if (!ret)
		ret = journal_read_file(r->journal_path, &r->journal, err, sizeof(err));
	if (ret < 0 || r->journal.pid <= 0 ||
	    (kill((pid_t)r->journal.pid, 0) < 0 && errno == ESRCH)) {
		cli_error("fix", "no fix is waiting for confirmation in %s", r->env.state_dir);
		return 1;
	}
	ret = apply_confirm(&r->env);
	if (ret < 0) {
		cli_error("fix", "cannot confirm in %s: %s", r->env.state_dir, strerror(-ret));
		return 1;
	}
	printf("confirmed: the fix waiting as pid %ld is kept\n", r->journal.pid);
	return 0;
}

int cmd_fix(int argc, char *argv[])
{
	struct fix_run *r = calloc(1, sizeof(*r));
	struct printer *p = NULL;
	int ret = 1, pr;

	if (!r) {
		cli_error("fix", "%s", strerror(ENOMEM));
		return 1;
	}
	r->lockfd = -1;
	pr = parse_args(argc, argv, &r->a);
	if (pr >= 0) {
		ret = pr;
		goto cleanup;
	}
	apply_env_init(&r->env, r->a.state_dir);
	if (r->a.confirm) {
		ret = confirm(r);
		goto cleanup;
	}
	if (!r->a.dry_run && geteuid() != 0) {
		cli_error("fix", "needs root");
		goto cleanup;
	}
	if (read_and_plan(r, argv + optind, (size_t)(argc - optind)) < 0)
		goto cleanup;
	if (r->a.emit != EMIT_NONE) {
		if (plan_refused(&r->plan)) {
			for (size_t i = 0; i < r->plan.ntargets; i++)
				if (r->plan.targets[i].refused)
					fail(r, "%s", r->plan.targets[i].refused_why);
			goto cleanup;
		}
		ret = emit_config(r);
		goto cleanup;
	}
	p = print_new(stdout, r->a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error("fix", "%s", strerror(ENOMEM));
		goto cleanup;
	}
	print_bool(p, "dry_run", r->a.dry_run, PRINT_JSON_ONLY);
	if (r->a.from) {
		print_text(p, "planned for snapshot");
		print_str(p, "from", r->a.from, PRINT_BARE | PRINT_NOWRAP);
		print_text(p, "(this host is neither read nor changed)");
		print_nl(p);
	} else {
		print_null(p, "from", NULL, PRINT_JSON_ONLY);
	}
	if (!r->a.json)
		print_plan(p, &r->plan, false);
	r->result = "dry-run";
	if (plan_refused(&r->plan)) {
		r->result = "refused";
		for (size_t i = 0; i < r->plan.ntargets; i++)
			if (r->plan.targets[i].refused)
				fail(r, "%s", r->plan.targets[i].refused_why);
	} else if (!r->a.dry_run && !plan_count(&r->plan, STEP_PLANNED)) {
		r->result = "already-fixed";
		ret = r->a.persist && do_persist(r) < 0 ? 1 : 0;
	} else if (!r->a.dry_run) {
		r->result = "failed";
		if (apply(r) == 0)
			ret = r->a.persist && do_persist(r) < 0 ? 1 : 0;
	} else {
		ret = 0;
	}
	if (r->a.json)
		print_plan(p, &r->plan, true);
	print_outcome(p, r);
	if (cli_print_finish("fix", p, "cannot write the report") < 0)
		ret = 1;
cleanup:
	print_free(p);
	apply_unlock(r->lockfd);
	journal_free(&r->journal);
	journal_free(&r->before_run);
	plan_free(&r->plan);
	host_free(&r->host);
	free(r);
	return ret;
}
