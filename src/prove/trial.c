/* SPDX-License-Identifier: MIT */
#include "prove/trial.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "fix/apply.h"
#include "fix/ready.h"

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* Wait up to seconds for the child to end. 0, -ETIMEDOUT, -errno. */
static int wait_end(struct trial *t, double seconds)
{
	double until = now_s() + seconds;

	while (t->pid > 0) {
		pid_t r = waitpid(t->pid, &t->status, WNOHANG);

		if (r == t->pid) {
			t->pid = 0;
			break;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now_s() >= until)
			return -ETIMEDOUT;
		usleep(50000);
	}
	return 0;
}

static void kill_and_reap(struct trial *t)
{
	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	while (waitpid(t->pid, &t->status, 0) < 0 && errno == EINTR)
		;
	t->pid = 0;
}

/* In the child: never returns. */
static void run_child(int ready_w, pid_t parent, char *const argv[], const char *out,
		      const char *log)
{
	char fdnum[16], **args;
	size_t n = 0;
	int fd, in, err;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(126);
	/* No terminal: a key pressed for prove must not confirm the trial. */
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	err = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (in < 0 || fd < 0 || err < 0 || dup2(in, STDIN_FILENO) < 0 ||
	    dup2(fd, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
		_exit(126);
	snprintf(fdnum, sizeof(fdnum), "%d", ready_w);
	if (setenv(FIX_READY_ENV, fdnum, 1) < 0)
		_exit(126);
	while (argv[n])
		n++;
	args = calloc(n + 3, sizeof(*args));
	if (!args)
		_exit(126);
	args[0] = "debloat";
	args[1] = "fix";
	memcpy(args + 2, argv, n * sizeof(*args));
	execv("/proc/self/exe", args);
	_exit(127);
}

int trial_start(struct trial *t, const char *state_dir, char *const argv[], const char *out,
		const char *log)
{
	struct pollfd pfd;
	char buf[16];
	int pipefd[2];
	pid_t parent = getpid();
	double until;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	t->state_dir = state_dir;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		int e = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		t->pid = 0;
		return -e;
	}
	if (t->pid == 0) {
		close(pipefd[0]);
		/* The write end must survive exec: clear its close-on-exec flag. */
		if (fcntl(pipefd[1], F_SETFD, 0) < 0)
			_exit(126);
		run_child(pipefd[1], parent, argv, out, log);
	}
	close(pipefd[1]);
	pfd = (struct pollfd){.fd = pipefd[0], .events = POLLIN};
	until = now_s() + TRIAL_READY_S;
	for (;;) {
		int left = (int)((until - now_s()) * 1000), r;

		if (left <= 0) {
			close(pipefd[0]);
			kill(t->pid, SIGTERM);
			if (wait_end(t, TRIAL_END_S) < 0)
				kill_and_reap(t);
			return -ETIMEDOUT;
		}
		r = poll(&pfd, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(pipefd[0]);
			trial_put_back(t);
			return -e;
		}
		if (r == 0)
			continue;
		n = read(pipefd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	close(pipefd[0]);
	if (n > 0 && !strncmp(buf, FIX_READY_WORD, strlen(FIX_READY_WORD))) {
		t->ready = true;
		return 0;
	}
	/* EOF: fix ended without a trial. */
	return wait_end(t, TRIAL_END_S) < 0 ? (kill_and_reap(t), -ETIMEDOUT) : 0;
}

int trial_keep(struct trial *t)
{
	struct apply_env env;
	int r;

	if (t->pid <= 0)
		return -ECHILD;
	apply_env_init(&env, t->state_dir);
	r = apply_confirm(&env);
	if (r < 0)
		return r;
	r = wait_end(t, TRIAL_END_S);
	if (r < 0) {
		kill_and_reap(t);
		return r;
	}
	return trial_exit_code(t) == 0 ? 0 : -ECANCELED;
}

int trial_put_back(struct trial *t)
{
	int r;

	if (t->pid <= 0)
		return 0;
	kill(t->pid, SIGTERM);
	r = wait_end(t, TRIAL_END_S);
	if (r < 0)
		kill_and_reap(t);
	return r;
}

int trial_exit_code(const struct trial *t)
{
	if (t->pid > 0 || !WIFEXITED(t->status))
		return -1;
	return WEXITSTATUS(t->status);
}
