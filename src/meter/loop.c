/* SPDX-License-Identifier: MIT */
/* loop.c - the epoll loop of loop.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "loop.h"

#define LOOP_BATCH 256

struct loop_fd {
	loop_fd_fn fn; /* NULL: not registered */
	void *ctx;
	uint32_t gen;
};

struct loop_timer {
	uint64_t id, when;
	loop_timer_fn fn;
	void *ctx;
};

struct loop {
	int epfd;
	struct loop_fd *fds; /* indexed by fd */
	int nfds;
	uint32_t gen;
	struct loop_timer *timers;
	size_t ntimers, timers_cap;
	uint64_t next_id;
};

uint64_t loop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	close(l->epfd);
	free(l->fds);
	free(l->timers);
	free(l);
}

static int grow_fds(struct loop *l, int fd)
{
	int n = l->nfds ? l->nfds : 64;
	struct loop_fd *p;

	while (n <= fd)
		n *= 2;
	p = realloc(l->fds, (size_t)n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + l->nfds, 0, (size_t)(n - l->nfds) * sizeof(*p));
	l->fds = p;
	l->nfds = n;
	return 0;
}

static int ctl(struct loop *l, int op, int fd, uint32_t events)
{
	struct epoll_event ev = {.events = events};

	ev.data.u64 = (uint64_t)l->fds[fd].gen << 32 | (uint32_t)fd;
	return epoll_ctl(l->epfd, op, fd, &ev) < 0 ? -errno : 0;
}

int loop_add(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *ctx)
{
	int r;

	if (fd < 0 || !fn)
		return -EINVAL;
	if (fd >= l->nfds && (r = grow_fds(l, fd)) < 0)
		return r;
	if (l->fds[fd].fn)
		return -EEXIST;
	l->fds[fd] = (struct loop_fd){.fn = fn, .ctx = ctx, .gen = ++l->gen};
	r = ctl(l, EPOLL_CTL_ADD, fd, events);
	if (r < 0)
		l->fds[fd].fn = NULL;
	return r;
}

int loop_mod(struct loop *l, int fd, uint32_t events)
{
	if (fd < 0 || fd >= l->nfds || !l->fds[fd].fn)
		return -ENOENT;
	return ctl(l, EPOLL_CTL_MOD, fd, events);
}

void loop_del(struct loop *l, int fd)
{
	if (fd < 0 || fd >= l->nfds || !l->fds[fd].fn)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->fds[fd].fn = NULL;
	l->fds[fd].gen = 0;
}

uint64_t loop_timer_at(struct loop *l, uint64_t when, loop_timer_fn fn, void *ctx)
{
	if (l->ntimers == l->timers_cap) {
		int err;
		struct loop_timer *t =
			array_grow(l->timers, &l->timers_cap, sizeof(*t), 16, SIZE_MAX, &err);

		if (!t)
			return 0;
		l->timers = t;
	}
	l->timers[l->ntimers++] = (struct loop_timer){++l->next_id, when, fn, ctx};
	return l->next_id;
}

void loop_timer_del(struct loop *l, uint64_t id)
{
	for (size_t i = 0; i < l->ntimers; i++)
		if (l->timers[i].id == id) {
			l->timers[i] = l->timers[--l->ntimers];
			return;
		}
}

/* The earliest due timer removed from the array into *t; false when none is due. */
static bool pop_due(struct loop *l, uint64_t now, struct loop_timer *t)
{
	size_t best = l->ntimers;

	for (size_t i = 0; i < l->ntimers; i++)
		if (l->timers[i].when <= now &&
		    (best == l->ntimers || l->timers[i].when < l->timers[best].when))
			best = i;
	if (best == l->ntimers)
		return false;
	*t = l->timers[best];
	l->timers[best] = l->timers[--l->ntimers];
	return true;
}

int loop_once(struct loop *l, int max_wait_ms)
{
	struct epoll_event ev[LOOP_BATCH];
	uint64_t now = loop_now_ns(), due = UINT64_MAX, limit;
	struct loop_timer t;
	int n, ran = 0, wait = max_wait_ms;

	for (size_t i = 0; i < l->ntimers; i++)
		if (l->timers[i].when < due)
			due = l->timers[i].when;
	if (due != UINT64_MAX) {
		/* Round up: waking a little late beats spinning on a sub-millisecond rest. */
		uint64_t ms = due > now ? (due - now + 999999) / 1000000 : 0;

		if (wait < 0 || ms < (uint64_t)wait)
			wait = (int)ms;
	}
	n = epoll_wait(l->epfd, ev, LOOP_BATCH, wait);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		int fd = (int)(uint32_t)ev[i].data.u64;
		uint32_t gen = (uint32_t)(ev[i].data.u64 >> 32);

		if (fd >= l->nfds || !l->fds[fd].fn || l->fds[fd].gen != gen)
			continue;
		l->fds[fd].fn(l, fd, ev[i].events, l->fds[fd].ctx);
		ran++;
	}
	/* Only timers due by now: one that re-arms itself for "now" runs next time. */
	limit = loop_now_ns();
	while (pop_due(l, limit, &t)) {
		t.fn(l, t.id, t.ctx);
		ran++;
	}
	return ran;
}
