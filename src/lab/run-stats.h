/* SPDX-License-Identifier: MIT */
/*
 * lab/run-stats.h - what one lab run counted (run.h fills it, telemetry.h writes it):
 * a header of its own so the telemetry writer needs no more of the run than this.
 */
#ifndef DEBLOAT_LAB_RUN_STATS_H
#define DEBLOAT_LAB_RUN_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "emu.h"

/* One direction of the run, named by where its packets go (emu.h's enum lab_dir). */
struct lab_dir_stats {
	uint64_t read_pkts, read_bytes; /* read from the sending tun (vnet header included) */
	uint64_t delivered_pkts, delivered_bytes; /* written to the receiving tun (the same) */
	uint64_t write_drops;  /* packets in writes refused with EAGAIN or ENOBUFS */
	uint64_t write_errors; /* packets in writes refused otherwise */
	uint64_t writes;       /* write() calls: fewer than packets where GRO merged them */
};

struct lab_run_stats {
	uint64_t duration_ns;
	struct lab_dir_stats dir[2]; /* [LAB_BOARD_TX]: board -> client; [LAB_CLIENT_TX] */
	uint64_t input_errors;	     /* packets the emulator could not parse */
	struct lab_dist sched_error; /* every delivery's write time minus its due time */
	/* Where that error comes from: */
	struct lab_dist wake_late; /* a timed wake-up for an event: woken minus asked */
	struct lab_dist tun_write; /* the time a delivery's write() took (the receiver's
				      kernel runs its input path in it) */
	uint64_t spin_margin_ns;   /* the margin in use at the end */
	bool realtime;		   /* the loop ran at real-time priority (SCHED_FIFO 1) */
	bool writer_threads;	   /* a thread per direction wrote the deliveries */
	uint64_t spin_off_windows; /* telemetry intervals without spinning (CPU budget) */
	double cpu_s;		   /* user + system CPU of this process during the loop */
	uint64_t telemetry_samples;
	int telemetry_error;	    /* the first -errno writing telemetry (then it stops) */
	struct lab_emu_summary emu; /* at the end of the loop */
};

#endif
