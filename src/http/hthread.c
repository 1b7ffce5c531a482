/* SPDX-License-Identifier: MIT */
/* hthread.c - the HTTP server on a thread of its own (hthread.h). */
#include "hthread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/loop.h"

#define ACCEPT_BATCH 64

struct hthread {
	struct loop *loop;
	struct hserver *h;
	int lfd;
	int wake_fd;	/* an eventfd: hthread_stop's knock */
	int reserve_fd; /* spent to shed a connection when out of descriptors */
	atomic_bool stopping;
	bool started;
	pthread_t thread;
};

static void on_accept(struct loop *l, int lfd, uint32_t events, void *ctx)
{
	struct hthread *t = ctx;

	(void)l, (void)events;
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd =
		    accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 &&
		    (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
			/* out of descriptors: take the connection with the reserve one and drop
			 * it, rather than leave it in the backlog to wake us again at once */
			if (t->reserve_fd < 0)
				return;
			close(t->reserve_fd);
			fd = accept(lfd, NULL, NULL);
			if (fd >= 0)
				close(fd);
			t->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (fd < 0)
			return; /* EAGAIN, or the peer gave up: try later */
		hserver_accept(t->h, fd, &peer);
	}
}

static void on_wake(struct loop *l, int fd, uint32_t events, void *ctx)
{
	uint64_t v;

	(void)l, (void)events, (void)ctx;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: another wake-up read it; the flag is what counts */
	}
}

static void *hthread_main(void *arg)
{
	struct hthread *t = arg;

	while (!atomic_load(&t->stopping))
		if (loop_once(t->loop, 1000) < 0)
			break; /* epoll failed (EBADF, EINVAL): nothing to wait on any more */
	return NULL;
}

static void hthread_free(struct hthread *t)
{
	hserver_free(t->h);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	if (t->reserve_fd >= 0)
		close(t->reserve_fd);
	loop_free(t->loop);
	free(t);
}

int hthread_start(int lfd, const struct hserver_config *c, struct hthread **out)
{
	struct hthread *t = calloc(1, sizeof(*t));
	sigset_t all, old;
	int r;

	if (!t)
		return -ENOMEM;
	t->lfd = lfd;
	t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	t->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	t->loop = loop_new();
	if (t->wake_fd < 0 || !t->loop) {
		r = t->wake_fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	if ((r = hserver_new(t->loop, c, &t->h)) < 0 ||
	    (r = loop_add(t->loop, lfd, EPOLLIN, on_accept, t)) < 0 ||
	    (r = loop_add(t->loop, t->wake_fd, EPOLLIN, on_wake, t)) < 0)
		goto fail;
	/* the thread is born with every signal blocked: they stay the caller's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&t->thread, NULL, hthread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		goto fail;
	pthread_setname_np(t->thread, "debloat-http"); /* cosmetic: ps, perf */
	t->started = true;
	*out = t;
	return 0;
fail:
	hthread_free(t);
	return r;
}

void hthread_stop(struct hthread *t)
{
	uint64_t one = 1;

	if (!t)
		return;
	if (t->started) {
		atomic_store(&t->stopping, true);
		if (write(t->wake_fd, &one, sizeof(one)) < 0) {
			/* the counter is full: the thread has a knock to read already */
		}
		pthread_join(t->thread, NULL);
	}
	loop_del(t->loop, t->lfd);
	hthread_free(t);
}
