/* SPDX-License-Identifier: MIT */
/*
 * http/hthread.h - the responsiveness test's HTTP server (http/hserver.h) on a thread
 * of its own: its own event loop (base/loop.h), its listener's accepts, its
 * connections. `debloat server --rpm` runs it beside the loop that answers the latency
 * test's UDP probes.
 *
 * Why a thread (docs/design/rpm.md, "Beside the probes"): HTTP work, even
 * bounded per wake-up, makes the thread that does it a CPU consumer, and the kernel's
 * scheduler treats it as one: on a busy machine, a probe that arrives while that
 * thread waits for a CPU waits with it, for milliseconds. Apart, the probes' thread
 * stays a light sleeper that the scheduler runs as soon as a probe wakes it, and no
 * HTTP client can put work in front of a probe. The two share no state: the HTTP
 * server has its own listener, connections, limits and timers.
 *
 * Threads: everything of the hserver, its loop and the listener belongs to the thread
 * between hthread_start and hthread_stop; the caller touches none of them meanwhile.
 * The config's on_transfer runs on the thread: it must be safe to call beside the
 * caller's own work (the command's log lines lock stderr). The thread blocks every
 * signal, so signals go to the caller's thread.
 */
#ifndef DEBLOAT_HTTP_HTHREAD_H
#define DEBLOAT_HTTP_HTHREAD_H

#include "http/hserver.h"

struct hthread;

/*
 * Serve the non-blocking listening socket lfd (not owned: the caller closes it after
 * hthread_stop) with an hserver of config c on a new thread. 0, or -errno (hserver_new's,
 * -ENOMEM, pthread_create's).
 */
int hthread_start(int lfd, const struct hserver_config *c, struct hthread **out);
/* Stop the thread, wait for it, close its connections (no callbacks) and free. NULL: no-op. */
void hthread_stop(struct hthread *t);

#endif
