/* SPDX-License-Identifier: MIT */
/*
 * loop.h - a small epoll event loop, in the shape of redis's ae.c: one callback per
 * file descriptor, and one-shot timers on CLOCK_MONOTONIC (nanoseconds).
 *
 * Callbacks may add and remove any fd or timer, including their own, from inside a
 * callback: an event already fetched for an fd that was removed (or closed and its
 * number reused) in the same batch is not delivered, because every registration
 * carries a generation number that the event must match.
 *
 * Timers live in a binary min-heap ordered by (deadline, creation order), so timers due
 * at the same time run in the order they were set. A server holds one per running test
 * and runs thousands of tests: adding, deleting (any timer, not only the next one) and
 * expiring cost O(log n), and the next deadline is read in O(1). A timer's id names a
 * slot and that slot's generation, so a stale id (a timer that already ran or was
 * deleted) never deletes the timer that reuses its slot.
 * Single-threaded; nothing here is safe to call from another thread.
 */
#ifndef DEBLOAT_BASE_LOOP_H
#define DEBLOAT_BASE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;

typedef void (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *ctx);
typedef void (*loop_timer_fn)(struct loop *l, uint64_t id, void *ctx);

/*
 * The time a loop runs on, in nanoseconds that never go back: CLOCK_MONOTONIC unless
 * its creator passes another. A test passes a simulated one (the real clock plus what
 * the test skipped ahead) so that timeouts of seconds run in a few milliseconds. The
 * loop reads it for its timers and its waits; code on the loop reads it through
 * loop_now(). A loop that waits in epoll when the clock skips ahead sees it within its
 * max_wait_ms.
 */
struct loop_clock {
	uint64_t (*now_ns)(void *ctx);
	void *ctx;
};

struct loop *loop_new(void); /* on CLOCK_MONOTONIC */
/* On *clock (copied), or CLOCK_MONOTONIC when clock is NULL. */
struct loop *loop_new_clock(const struct loop_clock *clock);
void loop_free(struct loop *l); /* does not close the fds */

/* The loop's time (its clock's now_ns). Timer deadlines are on this clock. */
uint64_t loop_now(const struct loop *l);

/* events: EPOLLIN / EPOLLOUT (level-triggered). -errno. */
int loop_add(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *ctx);
int loop_mod(struct loop *l, int fd, uint32_t events);
/* Forget fd (call before close). Unknown fds are ignored. */
void loop_del(struct loop *l, int fd);

/*
 * Make fd (registered, read-ready events) urgent: while a batch of other callbacks
 * runs, it is looked at every 50 us or so (one poll()) and its callback runs as soon as
 * it is readable, so that it never waits behind a whole batch of busy connections
 * (the latency test's probes beside the responsiveness test's HTTP). Its callback may
 * then run again for an event of the same batch when nothing is left to read: the fd
 * must be non-blocking. One fd at a time; loop_del forgets it. -ENOENT for an fd not
 * registered.
 */
int loop_set_urgent(struct loop *l, int fd);

/*
 * A point where a long piece of work (one callback walking thousands of records, or a
 * run of timers due together) lets the urgent fd in: its callback runs when it was
 * last looked at 50 us ago or more and it is readable. Not from the urgent fd's own
 * callback (then nothing runs). The number of callbacks run, 0 or 1.
 */
int loop_urgent_point(struct loop *l);

/* A timer firing once at `when` (loop_now's ns). Its id (> 0), or 0 on ENOMEM. */
uint64_t loop_timer_at(struct loop *l, uint64_t when, loop_timer_fn fn, void *ctx);
/* Forget a timer that has not run yet; ids of timers gone already are ignored. */
void loop_timer_del(struct loop *l, uint64_t id);
/* Timers set and not yet run or deleted. */
unsigned loop_timer_count(const struct loop *l);
/*
 * Run the timers due by `now` (deadline <= now), earliest first; timers they set for
 * `now` or earlier wait for the next call. The number run. loop_once calls this with
 * loop_now(); tests may call it with a time of their own.
 */
int loop_run_timers(struct loop *l, uint64_t now);

/*
 * Wait at most max_wait_ms (or until the next timer), dispatch what is ready and the
 * timers that are due. Number of callbacks run, or -errno (EINTR is not an error).
 */
int loop_once(struct loop *l, int max_wait_ms);

/* CLOCK_MONOTONIC in ns: the clock of loop_new()'s loops (use loop_now() on a loop). */
uint64_t loop_now_ns(void);

#endif
