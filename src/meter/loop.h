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
 * Timers live in an unsorted array: a server has a few per running test, and a scan
 * of a hundred deadlines per wake-up is cheaper than keeping a heap in order.
 * Single-threaded; nothing here is safe to call from another thread.
 */
#ifndef DEBLOAT_METER_LOOP_H
#define DEBLOAT_METER_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;

typedef void (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *ctx);
typedef void (*loop_timer_fn)(struct loop *l, uint64_t id, void *ctx);

struct loop *loop_new(void);
void loop_free(struct loop *l); /* does not close the fds */

/* events: EPOLLIN / EPOLLOUT (level-triggered). -errno. */
int loop_add(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *ctx);
int loop_mod(struct loop *l, int fd, uint32_t events);
/* Forget fd (call before close). Unknown fds are ignored. */
void loop_del(struct loop *l, int fd);

/* A timer firing once at `when` (CLOCK_MONOTONIC ns). Its id (> 0), or 0 on ENOMEM. */
uint64_t loop_timer_at(struct loop *l, uint64_t when, loop_timer_fn fn, void *ctx);
void loop_timer_del(struct loop *l, uint64_t id);

/*
 * Wait at most max_wait_ms (or until the next timer), dispatch what is ready and the
 * timers that are due. Number of callbacks run, or -errno (EINTR is not an error).
 */
int loop_once(struct loop *l, int max_wait_ms);

uint64_t loop_now_ns(void);

#endif
