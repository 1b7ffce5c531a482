/* SPDX-License-Identifier: MIT */
#include "prove/proof.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <debloat/units.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/json.h"
#include "fix/apply.h"
#include "fix/journal.h"
#include "fix/plan.h"
#include "host/host.h"
#include "host/iface.h"
#include "meter/egress.h"
#include "meter/engine.h"
#include "meter/flent.h"
#include "meter/proto.h"
#include "meter/result-print.h"
#include "meter/summary.h"

/* The trial's child, for a signal handler: put back before dying. */
static volatile pid_t proof_trial_pid;

bool proof_put_back_now(void)
{
	pid_t pid = proof_trial_pid;
	int status;

	if (pid <= 0)
		return false;
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return true;
}

static const char *const file_names[PROOF_NFILES] = {
    "before.json",   "before.flent.gz", "after.json",	   "after.flent.gz",   "fix.json",
    "fix.log",	     "compare.svg",	"prove.json",	   "capacity-up.json", "capacity-down.json",
    "alone-up.json", "alone-down.json", "after-retry.json"};

static int make_dir(struct proof *r)
{
	struct stat st;
	int n;

	if (r->a.out_dir) {
		n = snprintf(r->dir, sizeof(r->dir), "%s", r->a.out_dir);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		n = (int)strftime(r->dir, sizeof(r->dir), "debloat-prove-%Y%m%d-%H%M%S", &tm);
	}
	if (n <= 0 || (size_t)n >= sizeof(r->dir))
		return -ENAMETOOLONG;
	if (mkdir(r->dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (stat(r->dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	for (int i = 0; i < PROOF_NFILES; i++)
		snprintf(r->path[i], sizeof(r->path[i]), "%s/%s", r->dir, file_names[i]);
	return 0;
}

/* Does the journal hold a step of one of our interfaces? */
static bool journaled(struct proof *r)
{
	struct apply_env env;
	struct journal j;
	char path[APPLY_PATH_MAX], err[256];
	bool found = false;

	apply_env_init(&env, r->a.state_dir);
	if (apply_state_path(&env, "journal", path, sizeof(path)) < 0 ||
	    journal_read_file(path, &j, err, sizeof(err)) < 0)
		return false;
	for (size_t i = 0; i < j.n && !found; i++)
		for (size_t k = 0; k < r->host.n; k++)
			found |= !strcmp(j.steps[i].knob.ifname, r->host.ifaces[k].name);
	journal_free(&j);
	return found;
}

/* A sentence for the user, printf-like. */
static void say(const struct proof *r, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (!r->a.note)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	r->a.note(r->a.ctx, text);
}

struct progress_ctx {
	const struct proof *r;
	const char *label;
	struct prove_watch *watch;
};

/* Every step: the interface's counters, and the caller's progress. */
static void progress(void *ctx, const struct engine_progress *p)
{
	struct progress_ctx *c = ctx;

	watch_sample(c->watch);
	if (c->r->a.progress)
		c->r->a.progress(c->r->a.ctx, c->label, p);
}

/* One run of test into its files (flent: PROOF_NFILES for none). 0, or -errno with why
 * filled. */
static int measure_test(struct proof *r, const char *test, double length_s, double delay_s,
			const char *label, enum proof_file json, enum proof_file flent,
			struct prove_numbers *out, struct prove_watch *watch, char *why,
			size_t whylen)
{
	struct progress_ctx pc = {r, label, watch};
	struct engine_opts o = {.test = test,
				.host = r->a.server,
				.port = (uint16_t)r->a.port,
				.length_s = length_s,
				.delay_s = delay_s,
				.step_s = 0.2,
				.label = label,
				.cc = r->a.cc};
	struct test_result *res = calloc(1, sizeof(*res));
	struct engine_notes notes = {0};
	struct summary s;
	int ret;

	if (!res)
		return -ENOMEM;
	if (r->keylen)
		o.key = r->key, o.keylen = r->keylen;
	o.progress = progress;
	o.progress_ctx = &pc;
	watch_open(watch, r->ifc->name);
	say(r, "%s: %s for %.0f s against %s", label, test, length_s + 2 * delay_s, r->a.server);
	ret = engine_run(&o, res, &notes, why, whylen);
	watch_close(watch);
	if (r->a.progress)
		r->a.progress(r->a.ctx, label, NULL);
	for (size_t i = 0; i < notes.n; i++)
		say(r, "note: %s", notes.text[i]);
	if (res->nsteps && summary_compute(res, &s) == 0) {
		egress_info(r->a.server, &res->egress_info_json, &res->sysctls_json);
		if (result_write_json(r->path[json], res, &s) < 0 ||
		    (flent < PROOF_NFILES && flent_write(r->path[flent], res) < 0))
			say(r, "cannot write %s's files in %s", label, r->dir);
		prove_numbers_of(&s, res, out);
	} else if (ret == 0) {
		snprintf(why, whylen, "the test measured nothing");
		ret = -EIO;
	}
	result_free(res);
	free(res);
	return ret;
}

static int measure(struct proof *r, const char *label, enum proof_file json, enum proof_file flent,
		   struct prove_numbers *out, struct prove_watch *watch, char *why, size_t whylen)
{
	return measure_test(r, r->a.test, r->a.length_s, r->a.delay_s, label, json, flent, out,
			    watch, why, whylen);
}

/*
 * Each direction's capacity by a run that loads it alone, when the baseline loaded
 * both (a single-direction baseline is that run already). A run that fails leaves
 * the baseline's numbers for its direction, and says so. Four flows, as rrul's each
 * way: one reno flow alone halves its window at each loss and, behind a FIFO as short
 * as fix's fallback, leaves the link idle a while (0.83-0.85 of the capacity where
 * four flows got 0.92-0.94).
 */
static void measure_capacity(struct proof *r)
{
	static const struct {
		const char *test, *label;
		enum proof_file file;
	} runs[] = {
	    {"tcp_nup", "capacity up", PROOF_CAP_UP},
	    {"tcp_ndown", "capacity down", PROOF_CAP_DOWN},
	};
	double length = r->a.length_s < PROOF_CAPACITY_S ? r->a.length_s : PROOF_CAPACITY_S;
	struct prove_numbers *out[2] = {&r->cap_up, &r->cap_down};
	bool *have[2] = {&r->have_cap_up, &r->have_cap_down};
	struct prove_watch w;
	char why[256];

	if (isnan(r->before.up_mbps) || isnan(r->before.down_mbps))
		return;
	for (size_t i = 0; i < 2; i++) {
		if (measure_test(r, runs[i].test, length, PROOF_CAPACITY_DELAY_S, runs[i].label,
				 runs[i].file, PROOF_NFILES, out[i], &w, why, sizeof(why)) == 0)
			*have[i] = true;
		else
			say(r, "%s failed (%s): the baseline's rate stands for it", runs[i].label,
			    why);
	}
}

/* fix's arguments for the trial: IFACE... --json --try S [--shape R] [--role] [--state-dir]. */
static int fix_argv(struct proof *r, char **argv, size_t max, char *try_s, char *rate, char *down)
{
	size_t n = 0;

	for (size_t i = 0; i < r->host.n && n + 10 < max; i++)
		argv[n++] = r->host.ifaces[i].name;
	argv[n++] = "--json";
	argv[n++] = "--try";
	snprintf(try_s, 16, "%.0f", r->a.length_s + 2 * r->a.delay_s + ENGINE_GRACE_S + 60);
	argv[n++] = try_s;
	if (r->cap.shape_rate) {
		if (db_format_rate(r->cap.shape_rate, rate, 32) < 0)
			return -EINVAL;
		argv[n++] = "--shape";
		argv[n++] = rate;
	}
	if (r->cap.shape_down_rate) {
		if (db_format_rate(r->cap.shape_down_rate, down, 32) < 0)
			return -EINVAL;
		argv[n++] = "--ingress";
		argv[n++] = down;
	} else if (r->a.no_ingress) {
		argv[n++] = "--no-ingress";
	}
	if (r->a.role) {
		argv[n++] = "--role";
		argv[n++] = (char *)r->a.role;
	}
	if (r->a.state_dir) {
		argv[n++] = "--state-dir";
		argv[n++] = (char *)r->a.state_dir;
	}
	argv[n] = NULL;
	return 0;
}

/* fix's own words when it failed: its "error", else the last line of its log. */
static void fix_error(struct proof *r, char *buf, size_t len)
{
	const char *e = NULL;
	FILE *f;
	char line[512];

	if (r->fix && json_get_string(r->fix, "error", &e) == 0 && e) {
		snprintf(buf, len, "%s", e);
		return;
	}
	snprintf(buf, len, "see %s", r->path[PROOF_FIX_LOG]);
	f = fopen(r->path[PROOF_FIX_LOG], "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\r' && strlen(line) > 1) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line);
		}
	fclose(f);
}

static void read_fix(struct proof *r)
{
	struct json_error err;

	json_free(r->fix);
	r->fix = NULL;
	if (json_read_file(r->path[PROOF_FIX], 16 << 20, &r->fix, &err) < 0)
		r->fix = NULL;
}

static const char *fix_result(const struct proof *r)
{
	const char *s = NULL;

	return r->fix && json_get_string(r->fix, "result", &s) == 0 && s ? s : "";
}

/* ---- the proof ---- */

int proof_setup(struct proof *r)
{
	size_t bad = 0;
	char name[IF_NAMESIZE];
	int ret;

	if (!r->a.nifaces) {
		ret = egress_iface(r->a.server, name, sizeof(name));
		if (ret < 0) {
			snprintf(r->why, sizeof(r->why),
				 "cannot find the interface the route to %s uses: %s", r->a.server,
				 strerror(-ret));
			return ret;
		}
		r->route_iface = strdup(name);
		if (!r->route_iface)
			return -ENOMEM;
		r->a.ifaces[0] = r->route_iface;
		r->a.nifaces = 1;
	}
	ret = host_read(&r->host, &host_default_paths, r->a.ifaces, r->a.nifaces, &bad);
	if (ret < 0) {
		snprintf(r->why, sizeof(r->why), "cannot read interface %s: %s",
			 r->a.ifaces[ret == -ENODEV ? bad : 0], strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < r->host.n; i++)
		if (r->host.ifaces[i].loopback) {
			snprintf(r->why, sizeof(r->why), "%s is loopback: there is nothing to fix",
				 r->host.ifaces[i].name);
			return -EINVAL;
		}
	r->ifc = &r->host.ifaces[0];
	/* The state directory in use is in every hint: plain undo would find no journal. */
	snprintf(r->undo_cmd, sizeof(r->undo_cmd), "%s undo%s%s %s", PROG_NAME,
		 r->a.state_dir ? " --state-dir " : "", r->a.state_dir ? r->a.state_dir : "",
		 r->ifc->name);
	policy_iface(r->ifc, &r->host, &r->audit);
	ret = make_dir(r);
	if (ret < 0) {
		snprintf(r->why, sizeof(r->why), "cannot use %s as the output directory: %s",
			 r->dir, strerror(-ret));
		return ret;
	}
	if (r->a.keyfile) {
		ret = proto_key_read(r->a.keyfile, r->key, sizeof(r->key), &r->keylen);
		if (ret < 0) {
			snprintf(r->why, sizeof(r->why), "cannot read the key %s: %s", r->a.keyfile,
				 ret == -EINVAL ? "it is empty" : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Each direction alone with the change on, where the verdict wants it to tell a trade
 * of directions from a loss; as long as its capacity run. */
static void measure_alone(struct proof *r)
{
	static const struct {
		const char *test, *label;
		enum proof_file file;
	} runs[PROVE_NDIRS] = {
	    {"tcp_nup", "alone up", PROOF_ALONE_UP},
	    {"tcp_ndown", "alone down", PROOF_ALONE_DOWN},
	};
	double length = r->a.length_s < PROOF_CAPACITY_S ? r->a.length_s : PROOF_CAPACITY_S;
	struct prove_watch w;
	char why[256];

	for (size_t d = 0; d < PROVE_NDIRS; d++) {
		if (!r->verdict.dir[d].want_alone)
			continue;
		if (measure_test(r, runs[d].test, length, PROOF_CAPACITY_DELAY_S, runs[d].label,
				 runs[d].file, PROOF_NFILES, &r->alone[d], &w, why,
				 sizeof(why)) == 0)
			r->have_alone[d] = true;
		else
			say(r, "%s failed (%s): its fall counts as a loss", runs[d].label, why);
	}
}

/* The verdict on after, per direction, each alone where that is needed and allowed. */
static void judge(struct proof *r, const struct prove_numbers *after)
{
	struct prove_judge_in in = {
	    .before = &r->before,
	    .after = after,
	    .alone_before = {r->have_cap_up ? &r->cap_up : NULL,
			     r->have_cap_down ? &r->cap_down : NULL},
	    .changed = {r->cap.shape_rate != 0 || !r->cap.shape_down_rate,
			r->cap.shape_down_rate != 0},
	    .min_gain = r->a.min_gain,
	    .max_loss = r->a.max_loss,
	};

	prove_judge_directions(&in, &r->verdict);
	if (!r->verdict.want_alone || r->a.keep || r->a.undo)
		return;
	measure_alone(r);
	for (size_t d = 0; d < PROVE_NDIRS; d++)
		in.alone_after[d] = r->have_alone[d] ? &r->alone[d] : NULL;
	prove_judge_directions(&in, &r->verdict);
}

/* Put back both changes and try the kept direction's alone: 0 on trial, -1 failed (why
 * filled). */
static int retry_kept(struct proof *r)
{
	bool up = !strcmp(r->verdict.dir[PROVE_UP].outcome, "kept");
	char try_s[16], rate[32], down[32], err[512], *argv[PROOF_MAX_IFACES + 14];
	int ret;

	r->first = r->verdict;
	r->retried = true;
	ret = trial_put_back(&r->trial);
	proof_trial_pid = 0;
	if (ret < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "putting the %s's change back failed: run `%s`",
			 up ? "download" : "upload", r->undo_cmd);
		return -1;
	}
	if (up) {
		r->cap.shape_down_rate = 0;
		r->a.no_ingress = true;
	} else {
		r->cap.shape_rate = 0;
	}
	memset(r->have_alone, 0, sizeof(r->have_alone));
	say(r, "the %s's change alone on trial: %s", up ? "upload" : "download", r->verdict.why);
	if (fix_argv(r, argv, COUNT(argv), try_s, rate, down) < 0 ||
	    trial_start(&r->trial, r->a.state_dir, argv, r->path[PROOF_FIX],
			r->path[PROOF_FIX_LOG]) < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why),
			 "cannot run fix again for the %s alone; everything was put back",
			 up ? "upload" : "download");
		return -1;
	}
	proof_trial_pid = r->trial.pid;
	if (!r->trial.ready) {
		proof_trial_pid = 0;
		read_fix(r);
		fix_error(r, err, sizeof(err));
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why),
			 "fix did not apply the %s's change alone (%s); everything was put back",
			 up ? "upload" : "download", err);
		return -1;
	}
	return 0;
}

/* The second run and the decision, with the change on trial. */
static int judge_trial(struct proof *r)
{
	char why[256], err[512];
	int ret;

	ret = measure(r, "after", PROOF_AFTER, PROOF_AFTER_FLENT, &r->after, &r->watch_after, why,
		      sizeof(why));
	if (ret == 0) {
		r->have_after = true;
		judge(r, &r->after);
	}
	if (ret == 0 && r->verdict.partial && !r->a.keep && !r->a.undo) {
		if (retry_kept(r) < 0)
			return -1;
		ret = measure(r, "after, one direction", PROOF_RETRY, PROOF_NFILES, &r->after,
			      &r->watch_after, why, sizeof(why));
		if (ret == 0) {
			judge(r, &r->after);
			for (size_t d = 0; d < PROVE_NDIRS; d++)
				if (r->first.dir[d].changed && !r->verdict.dir[d].changed)
					r->verdict.dir[d] = r->first.dir[d];
		}
	}
	if (ret < 0) {
		ret = trial_put_back(&r->trial);
		proof_trial_pid = 0;
		read_fix(r);
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why),
			 "the second test failed (%s): the change was %s%s%s", why,
			 ret < 0 ? "not put back: run `" : "put back", ret < 0 ? r->undo_cmd : "",
			 ret < 0 ? "`" : "");
		return -1;
	}
	bool keep = r->a.keep || (!r->a.undo && r->verdict.kept);

	if (keep) {
		ret = trial_keep(&r->trial);
		proof_trial_pid = 0;
		read_fix(r);
		if (ret < 0) {
			fix_error(r, err, sizeof(err));
			r->outcome = "failed";
			snprintf(r->why, sizeof(r->why), "keeping the change failed (%s): %s",
				 strerror(-ret), err);
			return -1;
		}
		r->outcome = "kept";
		snprintf(r->why, sizeof(r->why), "%s%s%s%s", r->verdict.why,
			 r->retried ? "; alone it passed again, and the other was put back: " : "",
			 r->retried ? r->first.why : "",
			 r->a.keep && !r->verdict.kept ? " (kept anyway: --keep)" : "");
		return 0;
	}
	ret = trial_put_back(&r->trial);
	proof_trial_pid = 0;
	read_fix(r);
	r->outcome = "put-back";
	snprintf(r->why, sizeof(r->why), "%s%s%s%s%s%s%s", r->verdict.why,
		 r->retried ? " (tried alone, after both: " : "", r->retried ? r->first.why : "",
		 r->retried ? ")" : "",
		 r->a.undo && r->verdict.kept ? " (put back anyway: --undo)" : "",
		 ret < 0 ? "; putting it back failed: run `" : "; everything was put back",
		 ret < 0 ? r->undo_cmd : "");
	if (ret < 0)
		strncat(r->why, "`", sizeof(r->why) - strlen(r->why) - 1);
	return ret < 0 ? -1 : 1;
}

/* 0 kept or nothing to do, 1 put back, -1 failed (r->why says why). */
int proof_run(struct proof *r)
{
	char why[256], try_s[16], rate[32], down[32], err[512], *argv[PROOF_MAX_IFACES + 14];
	int ret;

	r->already = journaled(r);
	say(r, "%s (%s): a baseline, then fix on trial and a second run", r->ifc->name,
	    r->ifc->driver[0] ? r->ifc->driver : r->ifc->kind);
	say(r, "interrupted or killed, it puts everything back (else: %s)", r->undo_cmd);
	ret = measure(r, "before", PROOF_BEFORE, PROOF_BEFORE_FLENT, &r->before, &r->watch_before,
		      why, sizeof(why));
	if (ret < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why),
			 "the baseline test failed (%s): nothing was changed", why);
		return -1;
	}
	r->have_before = true;
	if (!r->already)
		measure_capacity(r);
	{
		struct prove_capacity_in in = {
		    .before = &r->before,
		    .up = r->have_cap_up ? &r->cap_up : NULL,
		    .down = r->have_cap_down ? &r->cap_down : NULL,
		    .link_mbps = r->ifc->speed_mbps,
		    .bql = r->audit.bql_in_use,
		    .given = r->already ? 0 : r->a.shape,
		    .ingress = r->a.no_ingress ? PROVE_INGRESS_OFF
			       : r->a.ingress  ? PROVE_INGRESS_FORCE
					       : PROVE_INGRESS_AUTO,
		    .egress_where = watch_where(&r->watch_before, r->ifc->mtu),
		};

		prove_capacity(&in, &r->cap);
	}
	{
		size_t n = strlen(r->cap.why);

		snprintf(r->cap.why + n, sizeof(r->cap.why) - n,
			 "; during the baseline the queue was %s (%s's own counters)",
			 watch_where(&r->watch_before, r->ifc->mtu), r->ifc->name);
	}
	if (r->already) {
		r->cap.shape_rate = 0;
		r->cap.shape_down_rate = 0;
		r->cap.source = "none";
		snprintf(r->cap.why, sizeof(r->cap.why),
			 "debloat's own change is in place (its journal): no new shaper below it");
		r->outcome = "already-fixed";
		if (prove_good(&r->before))
			snprintf(r->why, sizeof(r->why),
				 "debloat's change is in place and the state is good: induced "
				 "latency %.1f ms (grade %s); nothing left to fix",
				 r->before.induced_ms, r->before.grade[0] ? r->before.grade : "-");
		else
			snprintf(
			    r->why, sizeof(r->why),
			    "debloat's change is in place, but induced latency is still %.1f ms: "
			    "prove does not shape below its own change; the queue may be "
			    "elsewhere (the download's, upstream); `%s` and prove again to "
			    "start over",
			    r->before.induced_ms, r->undo_cmd);
		return 0;
	}
	if (fix_argv(r, argv, COUNT(argv), try_s, rate, down) < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "cannot spell the shaper's rate");
		return -1;
	}
	say(r, "fix on trial%s%s%s%s", r->cap.shape_rate ? ", shaping at " : "",
	    r->cap.shape_rate ? rate : "", r->cap.shape_down_rate ? ", the download at " : "",
	    r->cap.shape_down_rate ? down : "");
	ret = trial_start(&r->trial, r->a.state_dir, argv, r->path[PROOF_FIX],
			  r->path[PROOF_FIX_LOG]);
	proof_trial_pid = r->trial.pid;
	if (ret < 0) {
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "cannot run fix: %s; nothing was changed",
			 strerror(-ret));
		return -1;
	}
	if (!r->trial.ready) {
		proof_trial_pid = 0;
		read_fix(r);
		if (trial_exit_code(&r->trial) == 0 && !strcmp(fix_result(r), "already-fixed")) {
			r->outcome = "nothing-to-change";
			snprintf(r->why, sizeof(r->why),
				 "fix finds nothing to change on %s: the state measured is the "
				 "state it would leave",
				 r->ifc->name);
			return 0;
		}
		fix_error(r, err, sizeof(err));
		r->outcome = "failed";
		snprintf(r->why, sizeof(r->why), "fix did not apply (%s): nothing was changed",
			 err);
		return -1;
	}
	return judge_trial(r);
}

void proof_report(const struct proof *r, struct prove_report *rep)
{
	*rep = (struct prove_report){
	    .server = r->a.server,
	    .test = r->a.test,
	    .dir = r->dir,
	    .host = &r->host,
	    .mtu = r->ifc->mtu,
	    .before = r->have_before ? &r->before : NULL,
	    .after = r->have_after ? &r->after : NULL,
	    .watch_before = &r->watch_before,
	    .watch_after = &r->watch_after,
	    .cap = &r->cap,
	    .fix = r->fix,
	    .outcome = r->outcome,
	    .why = r->why,
	    .verdict = &r->verdict,
	    .undo_cmd = r->undo_cmd,
	    .min_gain = r->a.min_gain,
	    .max_loss = r->a.max_loss,
	};
}

void proof_free(struct proof *r)
{
	json_free(r->fix);
	r->fix = NULL;
	host_free(&r->host);
	free(r->route_iface);
	r->route_iface = NULL;
}
