/* SPDX-License-Identifier: MIT */
/* loop.c - the epoll loop of loop.h. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"
#include "loop.h"

#define LOOP_BATCH 256
/* How often, within a batch of callbacks, the urgent fd is looked at: a poll() of one fd
 * costs ~1 us, so at most ~2 % of a busy loop's time. */
#define URGENT_EVERY_NS 50000

struct loop_fd {
	loop_fd_fn fn; /* NULL: not registered */
	void *ctx;
	uint32_t gen;
};

/* A timer slot. Free slots chain through next_free; a slot's gen changes on every use. */
struct loop_timer {
	uint64_t when, seq; /* the heap's order: deadline, then creation */
	loop_timer_fn fn;
	void *ctx;
	uint32_t gen;
	uint32_t pos; /* index in the heap, or POS_PENDING / POS_FREE */
	uint32_t next_free;
};

#define POS_PENDING UINT32_MAX /* set while timers run: enters the heap after */
#define POS_FREE    (UINT32_MAX - 1)
#define NO_SLOT	    UINT32_MAX
#define MAX_TIMERS  (UINT32_MAX / 4) /* ids keep the slot in 32 bits */

struct loop {
	int epfd;
	struct loop_fd *fds; /* indexed by fd */
	int nfds;
	uint32_t gen;
	/* Timers: slots (grown by doubling, never shrunk) and three index arrays of the
	 * same capacity: the heap, the timers set while timers run, and the free chain. */
	struct loop_timer *slots;
	size_t nslots, slots_cap;
	uint32_t *heap, *pending;
	uint32_t nheap, npending, free_slot;
	uint64_t next_seq;
	bool running;	    /* inside loop_run_timers */
	int urgent_fd;	    /* loop_set_urgent's, or -1 */
	bool in_urgent;	    /* inside its callback */
	uint64_t urgent_ns; /* when it was last looked at (loop_now_ns) */
	struct loop_clock clock;
};

uint64_t loop_now_ns(void)
{
	return mono_ns();
}

static uint64_t monotonic(void *ctx)
{
	(void)ctx;
	return mono_ns();
}

uint64_t loop_now(const struct loop *l)
{
	return l->clock.now_ns(l->clock.ctx);
}

struct loop *loop_new(void)
{
	return loop_new_clock(NULL);
}

struct loop *loop_new_clock(const struct loop_clock *clock)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->clock = clock && clock->now_ns ? *clock : (struct loop_clock){.now_ns = monotonic};
	l->free_slot = NO_SLOT;
	l->urgent_fd = -1;
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
	free(l->slots);
	free(l->heap);
	free(l->pending);
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
	if (fd == l->urgent_fd)
		l->urgent_fd = -1;
}

int loop_set_urgent(struct loop *l, int fd)
{
	if (fd < 0 || fd >= l->nfds || !l->fds[fd].fn)
		return -ENOENT;
	l->urgent_fd = fd;
	return 0;
}

/* The urgent fd's turn, when it is readable. The callbacks run. */
static int run_urgent(struct loop *l)
{
	struct pollfd p = {.fd = l->urgent_fd, .events = POLLIN};
	int fd = l->urgent_fd;

	if (fd < 0 || poll(&p, 1, 0) != 1 || !(p.revents & (POLLIN | POLLERR | POLLHUP)))
		return 0;
	l->in_urgent = true;
	l->fds[fd].fn(l, fd, EPOLLIN, l->fds[fd].ctx);
	l->in_urgent = false;
	return 1;
}

int loop_urgent_point(struct loop *l)
{
	uint64_t now;

	if (l->urgent_fd < 0 || l->in_urgent)
		return 0;
	now = loop_now_ns();
	if (now - l->urgent_ns < URGENT_EVERY_NS)
		return 0;
	l->urgent_ns = now;
	return run_urgent(l);
}

static bool timer_before(const struct loop *l, uint32_t a, uint32_t b)
{
	const struct loop_timer *x = &l->slots[a], *y = &l->slots[b];

	return x->when < y->when || (x->when == y->when && x->seq < y->seq);
}

static void heap_set(struct loop *l, uint32_t i, uint32_t slot)
{
	l->heap[i] = slot;
	l->slots[slot].pos = i;
}

static void sift_up(struct loop *l, uint32_t i)
{
	uint32_t slot = l->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!timer_before(l, slot, l->heap[parent]))
			break;
		heap_set(l, i, l->heap[parent]);
		i = parent;
	}
	heap_set(l, i, slot);
}

static void sift_down(struct loop *l, uint32_t i)
{
	uint32_t slot = l->heap[i];

	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= l->nheap)
			break;
		if (child + 1 < l->nheap && timer_before(l, l->heap[child + 1], l->heap[child]))
			child++;
		if (!timer_before(l, l->heap[child], slot))
			break;
		heap_set(l, i, l->heap[child]);
		i = child;
	}
	heap_set(l, i, slot);
}

static void heap_push(struct loop *l, uint32_t slot)
{
	l->heap[l->nheap] = slot;
	sift_up(l, l->nheap++);
}

/* Take the entry at heap index i out, keeping the order. */
static void heap_remove(struct loop *l, uint32_t i)
{
	uint32_t last = l->heap[--l->nheap];

	if (i == l->nheap)
		return;
	heap_set(l, i, last);
	if (i > 0 && timer_before(l, last, l->heap[(i - 1) / 2]))
		sift_up(l, i);
	else
		sift_down(l, i);
}

static void slot_free(struct loop *l, uint32_t slot)
{
	l->slots[slot].pos = POS_FREE;
	l->slots[slot].fn = NULL;
	l->slots[slot].next_free = l->free_slot;
	l->free_slot = slot;
}

/* Double the slots and the index arrays together. -ENOMEM or -E2BIG. */
static int grow_timers(struct loop *l)
{
	size_t cap = l->slots_cap;
	int err = 0;
	struct loop_timer *s = array_grow(l->slots, &cap, sizeof(*s), 16, MAX_TIMERS, &err);
	uint32_t *h, *p;

	if (!s)
		return err;
	l->slots = s;
	h = realloc(l->heap, cap * sizeof(*h));
	if (h)
		l->heap = h;
	p = h ? realloc(l->pending, cap * sizeof(*p)) : NULL;
	if (p)
		l->pending = p;
	if (!p)
		return -ENOMEM; /* the slots grew but slots_cap did not: still consistent */
	l->slots_cap = cap;
	return 0;
}

uint64_t loop_timer_at(struct loop *l, uint64_t when, loop_timer_fn fn, void *ctx)
{
	struct loop_timer *t;
	uint32_t slot;

	if (l->free_slot != NO_SLOT) {
		slot = l->free_slot;
		l->free_slot = l->slots[slot].next_free;
	} else {
		if (l->nslots == l->slots_cap && grow_timers(l) < 0)
			return 0;
		slot = (uint32_t)l->nslots++;
		l->slots[slot].gen = 0;
	}
	t = &l->slots[slot];
	if (++t->gen == 0)
		t->gen = 1;
	t->when = when;
	t->seq = l->next_seq++;
	t->fn = fn;
	t->ctx = ctx;
	if (l->running) {
		t->pos = POS_PENDING;
		l->pending[l->npending++] = slot;
	} else {
		heap_push(l, slot);
	}
	return (uint64_t)t->gen << 32 | (slot + 1);
}

void loop_timer_del(struct loop *l, uint64_t id)
{
	uint32_t slot = (uint32_t)id - 1, gen = (uint32_t)(id >> 32);
	struct loop_timer *t;

	if ((uint32_t)id == 0 || slot >= l->nslots)
		return;
	t = &l->slots[slot];
	if (t->gen != gen || t->pos == POS_FREE)
		return;
	if (t->pos == POS_PENDING) {
		/* Only timers set inside a timer callback: a short list. */
		for (uint32_t i = 0; i < l->npending; i++)
			if (l->pending[i] == slot) {
				l->pending[i] = l->pending[--l->npending];
				break;
			}
	} else {
		heap_remove(l, t->pos);
	}
	slot_free(l, slot);
}

unsigned loop_timer_count(const struct loop *l)
{
	return l->nheap + l->npending;
}

int loop_run_timers(struct loop *l, uint64_t now)
{
	int ran = 0;

	l->running = true;
	while (l->nheap && l->slots[l->heap[0]].when <= now) {
		uint32_t slot = l->heap[0];
		struct loop_timer t = l->slots[slot];
		uint64_t id = (uint64_t)t.gen << 32 | (slot + 1);

		heap_remove(l, 0);
		slot_free(l, slot);
		t.fn(l, id, t.ctx);
		ran++;
		/* thousands of tests' timers due at once: the urgent fd between them too */
		ran += loop_urgent_point(l);
	}
	l->running = false;
	for (uint32_t i = 0; i < l->npending; i++)
		heap_push(l, l->pending[i]);
	l->npending = 0;
	return ran;
}

int loop_once(struct loop *l, int max_wait_ms)
{
	struct epoll_event ev[LOOP_BATCH];
	/* now is the loop's clock (the timers'); real0 the monotonic one, which paces the
	 * urgent fd's checks in real time whatever clock the loop runs on. */
	uint64_t now = loop_now(l), due = l->nheap ? l->slots[l->heap[0]].when : UINT64_MAX;
	int n, ran = 0, wait = max_wait_ms;

	if (due != UINT64_MAX) {
		/* Round up: waking a little late beats spinning on a sub-millisecond rest. */
		uint64_t ms = due > now ? (due - now + 999999) / 1000000 : 0;

		if (wait < 0 || ms < (uint64_t)wait)
			wait = (int)ms;
	}
	n = epoll_wait(l->epfd, ev, LOOP_BATCH, wait);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	/* The wait was a look at the urgent fd too. */
	l->urgent_ns = loop_now_ns();
	for (int i = 0; i < n; i++) {
		int fd = (int)(uint32_t)ev[i].data.u64;
		uint32_t gen = (uint32_t)(ev[i].data.u64 >> 32);

		if (fd >= l->nfds || !l->fds[fd].fn || l->fds[fd].gen != gen)
			continue;
		if (fd == l->urgent_fd) {
			l->in_urgent = true;
			l->fds[fd].fn(l, fd, ev[i].events, l->fds[fd].ctx);
			l->in_urgent = false;
			l->urgent_ns = loop_now_ns();
			ran++;
			continue;
		}
		l->fds[fd].fn(l, fd, ev[i].events, l->fds[fd].ctx);
		ran++;
		/* a batch of other callbacks: the urgent fd waits at most URGENT_EVERY_NS
		 * and one callback, not the whole batch */
		if (i + 1 < n)
			ran += loop_urgent_point(l);
	}
	/* Only timers due by now: one that re-arms itself for "now" runs next time. */
	return ran + loop_run_timers(l, loop_now(l));
}
