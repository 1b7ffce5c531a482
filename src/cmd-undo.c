/* SPDX-License-Identifier: MIT */
/* cmd-undo.c - `debloat undo`: put back every value `debloat fix` journaled, newest first. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/print.h"
#include "fix/apply.h"
#include "fix/journal.h"
#include "fix/knob-print.h"
#include "fix/persist.h"

static const char usage[] =
    "Usage: " PROG_NAME " undo [IFACE...] [--json] [--persist] [--state-dir DIR]\n"
    "           [--root DIR]\n"
    "\n"
    "Restore what `" PROG_NAME " fix` changed, from its journal: every knob goes back\n"
    "to the value it had before the first fix, sysctls first, and the journal is\n"
    "removed. With IFACE, only those interfaces (and the sysctls once no other\n"
    "interface is left). Also finishes the job after a fix that crashed or was\n"
    "killed. Needs root.\n"
    "\n"
    "  -j, --json            print one JSON document (keys: docs/json.md)\n"
    "  -p, --persist         also remove what `fix --persist` installed for them\n"
    "  -s, --state-dir DIR   where the journal lives (default " APPLY_STATE_DIR ")\n"
    "      --root DIR        remove --persist's files under DIR instead of /\n"
    "  -h, --help            show this help\n";

struct undo_args {
	bool json, persist;
	const char *state_dir, *root;
};

static int parse_args(int argc, char *argv[], struct undo_args *a)
{
	const struct cli_option options[] = {
	    {"json", 'j', CLI_FLAG, CLI_TO(&a->json)},
	    {"persist", 'p', CLI_FLAG, CLI_TO(&a->persist)},
	    {"state-dir", 's', CLI_STR, CLI_TO(&a->state_dir)},
	    {"root", 0, CLI_STR, CLI_TO(&a->root)},
	    CLI_OPTION_HELP,
	    {0},
	};

	return cli_parse_options("undo", usage, options, NULL, argc, argv);
}

static void print_item(struct printer *p, const struct undo_item *it)
{
	print_open_object(p, NULL);
	print_indent(p, 1);
	print_str(p, "result", undo_result_name(it->result), PRINT_BARE);
	knob_print(p, &it->step.knob, PRINT_BARE);
	print_text(p, ":");
	if (it->result == UNDO_RESTORED || it->result == UNDO_FAILED) {
		print_str(p, "current", it->current[0] ? it->current : "?", PRINT_BARE);
		print_text(p, "->");
	} else {
		print_opt_str(p, "current", it->current, PRINT_JSON_ONLY);
	}
	print_str(p, "before", it->step.before, PRINT_BARE);
	if (it->msg[0]) {
		print_text(p, "(");
		print_str(p, "message", it->msg, PRINT_BARE);
		print_text(p, ")");
	} else {
		print_null(p, "message", NULL, PRINT_JSON_ONLY);
	}
	if (it->step.note[0]) {
		print_text(p, "(note:");
		print_str(p, "note", it->step.note, PRINT_BARE);
		print_text(p, ")");
	}
	print_nl(p);
	print_close(p);
}

static int remove_persisted(const struct undo_args *a, char *const names[], size_t nnames,
			    struct printer *p)
{
	struct persist_files removed = {0};
	char err[4200];
	int r;

	r = persist_uninstall(a->root ? a->root : "/", names, nnames, &removed, err, sizeof(err));
	print_open_array(p, "persist_removed");
	for (unsigned i = 0; i < removed.n; i++) {
		print_indent(p, 0);
		print_text(p, "removed");
		print_str(p, NULL, removed.path[i], PRINT_BARE);
		print_nl(p);
	}
	print_close(p);
	if (r < 0)
		cli_error("undo", "cannot remove the persisted setup: %s",
			  err[0] ? err : strerror(-r));
	return r;
}

int cmd_undo(int argc, char *argv[])
{
	struct undo_args a = {0};
	struct apply_env env;
	struct journal j;
	struct undo_item *items = NULL;
	struct printer *p = NULL;
	char path[APPLY_PATH_MAX], err[1024];
	char *const *names;
	size_t nitems = 0, nnames, restored = 0;
	int ret = 1, r, lockfd = -1;

	journal_init(&j);
	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	names = argv + optind;
	nnames = (size_t)(argc - optind);
	if (geteuid() != 0) {
		cli_error("undo", "needs root");
		return 1;
	}
	apply_env_init(&env, a.state_dir);
	r = apply_state_path(&env, "journal", path, sizeof(path));
	/* No state directory: no fix ever ran or is running, nothing to lock or create. */
	if (!r && !(access(env.state_dir, F_OK) < 0 && errno == ENOENT))
		r = apply_lock(&env, false, &lockfd);
	if (r == -EBUSY) {
		cli_error("undo",
			  "another fix or undo is running on %s (a --try waiting for "
			  "confirmation?)",
			  env.state_dir);
		goto cleanup;
	}
	if (r < 0) {
		cli_error("undo", "cannot use the state directory %s: %s", env.state_dir,
			  strerror(-r));
		goto cleanup;
	}
	r = journal_read_file(path, &j, err, sizeof(err));
	if (r < 0 && r != -ENOENT) {
		cli_error("undo",
			  "cannot read the journal: %s; nothing was changed (the "
			  "journal is kept)",
			  err[0] ? err : strerror(-r));
		goto cleanup;
	}
	p = print_new(stdout, a.json ? PRINT_MODE_JSON : PRINT_MODE_TEXT);
	if (!p) {
		cli_error("undo", "%s", strerror(ENOMEM));
		goto cleanup;
	}
	print_str(p, "state_dir", env.state_dir, PRINT_JSON_ONLY);
	print_str(p, "journal", path, PRINT_JSON_ONLY);
	ret = 0;
	if (r == -ENOENT) {
		print_text(p, "nothing to undo: no journal in %s", env.state_dir);
		print_nl(p);
		print_open_array(p, "steps");
		print_close(p);
	} else {
		r = undo_run(&j, path, names, nnames, &env, &items, &nitems);
		print_open_array(p, "steps");
		for (size_t i = 0; i < nitems; i++) {
			print_item(p, &items[i]);
			restored += items[i].result == UNDO_RESTORED;
		}
		print_close(p);
		if (!nitems) {
			print_text(p, "nothing to undo for the interfaces named");
			print_nl(p);
		}
		if (r == -EIO) {
			fprintf(
			    stderr,
			    "%s: undo: some values could not be restored (see above); they stay "
			    "in the journal %s\n",
			    PROG_NAME, path);
			ret = 1;
		} else if (r < 0) {
			cli_error("undo", "cannot rewrite the journal %s: %s", path, strerror(-r));
			ret = 1;
		}
	}
	print_uint(p, "restored", restored, PRINT_JSON_ONLY);
	print_bool(p, "journal_removed", access(path, F_OK) != 0, PRINT_JSON_ONLY);
	if (!a.json && j.n == 0 && nitems && ret == 0) {
		print_text(p, "restored %zu value%s; the journal is removed", restored,
			   restored == 1 ? "" : "s");
		print_nl(p);
	}
	if (a.persist && remove_persisted(&a, names, nnames, p) < 0)
		ret = 1;
	if (cli_print_finish("undo", p, "cannot write the report") < 0)
		ret = 1;
cleanup:
	print_free(p);
	free(items);
	journal_free(&j);
	apply_unlock(lockfd);
	return ret;
}
