/* SPDX-License-Identifier: MIT */
/* lab/session.c - one run of the lab, built, run and torn down (lab/session.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cli.h"
#include "base/print.h"
#include "lab/netns.h"
#include "lab/run.h"
#include "lab/session.h"
#include "lab/telemetry.h"
#include "lab/tun.h"

/* What the loop's signal callback and the tear-down share. */
struct lab_state {
	pid_t cmd_pid, server_pid;
	int cmd_status; /* wait status, valid when cmd_done */
	bool cmd_done;
	bool server_died;
	int signal;    /* the SIGINT/SIGTERM/SIGHUP that stopped the lab, or 0 */
	bool gave_tty; /* the command's group has the terminal */
};

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
		if (lab_netns_tcp_probe(board_ns, LAB_BOARD_ADDR, LAB_SERVER_PORT_NUM, 100) == 0)
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

static int write_summary(const struct lab_session *s, FILE *json, const struct lab_summary *sum)
{
	struct printer *p;
	int r = 0;

	if (!s->quiet) {
		p = print_new(stderr, PRINT_MODE_TEXT);
		if (p) {
			lab_summary_print(p, sum);
			print_finish(p);
			print_free(p);
		}
	}
	if (json) {
		p = print_new(json, PRINT_MODE_JSON);
		if (!p)
			return -ENOMEM;
		lab_summary_print(p, sum);
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
	struct lab_spawn sp = {.nsfd = w->board_ns,
			       .path = "/proc/self/exe",
			       .argv = argv,
			       .sigmask = mask,
			       .own_pgrp = true,
			       .null_stdio = true};
	int r;

	snprintf(cc, sizeof(cc), "%s", p->cc);
	if (!cc[0])
		argv[6] = NULL;
	r = lab_spawn(&sp, &st->server_pid);
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

static int start_command(const struct lab_session *s, struct lab_world *w, const sigset_t *mask,
			 struct lab_state *st)
{
	char env[9][160];
	char *envp[10];
	char *shell_argv[2];
	const struct lab_profile *p = s->profile;
	char *const *argv = s->command;
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
	struct lab_spawn sp = {.nsfd = w->client_ns,
			       .argv = argv,
			       .env = envp,
			       .sigmask = mask,
			       .own_pgrp = true,
			       .foreground = st->gave_tty};

	r = lab_spawn(&sp, &st->cmd_pid);
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
static int lab_report(const struct lab_session *s, struct lab_world *w, struct lab_state *st,
		      const struct lab_run *run, struct lab_telemetry_writer *tw, FILE *json)
{
	const struct lab_profile *p = s->profile;
	struct lab_summary sum = {.profile = p->name,
				  .describe = s->describe,
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
		cli_error("lab", "cannot write %s: %s", s->telemetry, strerror(-r));
	if (st->server_died && !s->quiet)
		cli_error("lab", "note: the server in %s exited early", w->board_name);
	ret = st->signal ? 128 + st->signal : status_code(st->cmd_status);
	sum.exit_status = st->signal ? -1 : ret;
	sum.tun_queue_drops[LAB_BOARD_TX] = tun_queue_drops(w->board_ns);
	sum.tun_queue_drops[LAB_CLIENT_TX] = tun_queue_drops(w->client_ns);
	r = write_summary(s, json, &sum);
	if (r < 0) {
		cli_error("lab", "cannot write %s: %s", s->json_summary, strerror(-r));
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
int lab_session_check(void)
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

int lab_session_run(const struct lab_session *s)
{
	struct lab_world w = {.client_ns = -1,
			      .board_ns = -1,
			      .client_tun = -1,
			      .board_tun = -1,
			      .reaper = {.fd = -1}};
	struct lab_state st = {0};
	struct lab_run_config rc;
	const struct lab_profile *p = s->profile;
	struct lab_run *run = NULL;
	struct lab_telemetry_writer *tw = NULL;
	FILE *json = NULL;
	sigset_t old;
	const char *names[2] = {w.client_name, w.board_name};
	char err[512];
	int sfd = -1, ret = 1, r;

	if (lab_run_new(p, &run, err, sizeof(err)) < 0) {
		cli_error("lab", "cannot build the emulator: %s", err);
		return 1;
	}
	if (s->telemetry && (r = lab_telemetry_open(
				 s->telemetry, lab_telemetry_format_of(s->telemetry), &tw)) < 0) {
		cli_error("lab", "cannot write %s: %s", s->telemetry, strerror(-r));
		goto out;
	}
	if (s->json_summary && !(json = fopen(s->json_summary, "we"))) {
		cli_error("lab", "cannot write %s: %s", s->json_summary, strerror(errno));
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
	if (world_build(&w, p, s->quiet) || (ret = start_server(&w, p, &old, sfd, &st)))
		goto teardown;
	if (!s->quiet)
		cli_note("lab", "%s up: client %s <-> board %s (%s)", p->name, LAB_CLIENT_ADDR,
			 LAB_BOARD_ADDR, s->describe);
	ret = start_command(s, &w, &old, &st);
	if (ret)
		goto teardown;
	rc = (struct lab_run_config){.board_tun = w.board_tun,
				     .client_tun = w.client_tun,
				     .signal_fd = sfd,
				     .on_signal = on_signal,
				     .ctx = &st,
				     .telemetry = tw,
				     .describe = s->describe,
				     .no_gro = s->no_gro,
				     .writer_threads = s->writer_threads};
	if (lab_run_loop(run, &rc, err, sizeof(err)) < 0)
		cli_error("lab", "%s", err);
	ret = lab_report(s, &w, &st, run, tw, json);
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
