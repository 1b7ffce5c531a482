/* SPDX-License-Identifier: MIT */
/*
 * run.h - the lab's event loop: the two tun devices, the emulator (emu.h) between
 * them, telemetry, until the caller says stop.
 *
 * Time is CLOCK_MONOTONIC in nanoseconds. Each wake-up reads each readable tun in a
 * batch (at most LAB_RUN_BATCH packets per fd), hands every packet to the emulator
 * stamped with its read time, and runs the emulator's events that are due; its
 * deliveries are written to the other tun at once, the frames of one TCP flow due
 * together merged into one write (gro.h). A write runs the receiving namespace's
 * input path, TCP included, so a delivery due during another one's write waits.
 * With `writer_threads`, the deliveries of each direction are handed to a thread of
 * their own instead (writer.h): a delivery then waits only behind its own
 * direction's writes, but every hand-off costs a thread wake-up, which on the VMs
 * we measured cost more than it saved (docs/design/lab-timing.md), so the loop
 * writes itself by default. A delivery's scheduling error is the time of its write
 * minus the time the model says the packet arrives. The summary splits it into its
 * sources: how late timed wake-ups were (wake_late) and how long each write() took
 * (tun_write).
 *
 * Only deliveries touch the world, so the loop wakes up only for them
 * (lab_emu_next_delivery_ns), for packets and for telemetry; every other event
 * (completions, DQL, frames reaching the switch) runs late, at its own time, in the
 * next lab_emu_advance, which the model cannot tell from running on time.
 *
 * Waiting: epoll_pwait2() with a nanosecond timeout up to the next delivery (a
 * timerfd in the epoll set on kernels without it, < 5.11), timer slack 1 ns. A
 * sleeping thread wakes tens of microseconds late on many machines (more in VMs),
 * so the loop sleeps until `margin` before a delivery and spins, polling the fds,
 * for the rest. The margin follows the wake-up lateness measured on this machine
 * over the last 128 timed-out sleeps, at most LAB_RUN_SPIN_MAX_NS: about its 99th
 * percentile while the loop uses less than half its CPU budget (few deliveries:
 * spinning is cheap), its 95th otherwise. Spinning costs CPU only while packets are
 * in flight; an idle link sleeps. The loop runs at the lowest real-time priority
 * (SCHED_FIFO 1) when allowed, so that the endpoints' processes do not make it wait
 * for a time slice. It never spins for more than LAB_RUN_SPIN_MAX_NS at a time, and
 * not at all during a telemetry interval that follows one in which the loop used
 * more than LAB_RUN_CPU_BUDGET of a CPU: the endpoints need CPU too, and the kernel
 * throttles a real-time task that takes 95%.
 *
 * Telemetry: every LAB_RUN_TELEMETRY_NS the emulator's state is sampled
 * (lab_emu_telemetry) and written through the telemetry writer, if any.
 *
 * Signals: the caller blocks the signals it wants and passes a signalfd; each one
 * read is given to on_signal, which returns true to end the loop (the command
 * exited, SIGINT...). The loop ends after the wake-up in which that happened.
 *
 * The loop is one thread (plus, with writer_threads, the two writers it starts and
 * joins); the stats are complete when lab_run_loop returns. Errors are -errno with a message;
 * nothing is printed.
 */
#ifndef DEBLOAT_LAB_RUN_H
#define DEBLOAT_LAB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>

#include "emu.h"
#include "profile.h"
#include "run-stats.h"

#define LAB_RUN_BATCH	     64
#define LAB_RUN_TELEMETRY_NS 10000000ull /* 10 ms */
#define LAB_RUN_SPIN_MAX_NS  100000ull	 /* never spin longer than this before an event */
#define LAB_RUN_CPU_BUDGET   0.90	 /* no spinning in a window after one above this */

struct lab_telemetry_writer;

struct lab_run_config {
	int board_tun, client_tun; /* non-blocking tun fds with vnet headers (tun.h) */
	int signal_fd;
	/* A signal read from signal_fd; true ends the loop. */
	bool (*on_signal)(const struct signalfd_siginfo *si, void *ctx);
	void *ctx;
	struct lab_telemetry_writer *telemetry; /* NULL: no telemetry file */
	const char *describe;			/* the profile's describe line, for telemetry */
	bool force_timerfd;  /* wait as on kernels without epoll_pwait2 (tests) */
	bool no_gro;	     /* one write per delivered packet, never merged (gro.h) */
	bool writer_threads; /* a writer thread per direction (writer.h) */
};

struct lab_run;

/* The emulator for profile p (copied). -EINVAL with a message (the emulator's), -ENOMEM. */
int lab_run_new(const struct lab_profile *p, struct lab_run **out, char *err, size_t errlen);
void lab_run_free(struct lab_run *r);

/*
 * Run until on_signal returns true. 0, or -errno when waiting itself failed (the
 * stats still cover the time run). Call once.
 */
int lab_run_loop(struct lab_run *r, const struct lab_run_config *c, char *err, size_t errlen);

/*
 * How well the loop must keep time for profile p: two full frames (mtu + Ethernet
 * header + LAB_WIRE_OVERHEAD) at the board's line rate, 246 us at 100 Mbit/s. A run
 * whose scheduling error p99 is above it delivered 1 packet in 100 more than two
 * frames late: its latency tails are the emulator's as much as the model's.
 */
uint64_t lab_run_error_bound_ns(const struct lab_profile *p);

/* What the loop measured; valid after lab_run_loop returned. */
const struct lab_run_stats *lab_run_stats(const struct lab_run *r);

#endif
