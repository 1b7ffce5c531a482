/* SPDX-License-Identifier: MIT */
/*
 * lab/session.h - one run of the lab: two network namespaces, "client" and "board",
 * joined by tun devices and the emulator (lab/run.h); `debloat server` on the board
 * side, a command (or a shell) on the client side; the emulator's summary when the
 * command exits; then nothing left behind.
 *
 * Order matters for tear-down: signals are blocked (and read from a signalfd) before
 * anything exists, the reaper (lab/netns.h) is forked before the first namespace, so
 * whatever happens from there on, even SIGKILL, ends with no namespace, tun device or
 * process left. The lab's own tear-down is the reaper's: stop the command and the
 * server gently, close the tun devices, close the reaper's pipe and wait for it.
 *
 * The command sees DEBLOAT_LAB_BOARD (LAB_BOARD_ADDR), DEBLOAT_LAB_BOARD6,
 * DEBLOAT_LAB_CLIENT, DEBLOAT_LAB_CLIENT6, DEBLOAT_LAB_BOARD_NS, DEBLOAT_LAB_CLIENT_NS,
 * DEBLOAT_LAB_PROFILE, DEBLOAT_LAB_CC and DEBLOAT_LAB_PORT (LAB_SERVER_PORT) in its
 * environment, and has the terminal when the lab had it.
 */
#ifndef DEBLOAT_LAB_SESSION_H
#define DEBLOAT_LAB_SESSION_H

#include <stdbool.h>

#include "lab/profile.h"

/* The board's `debloat server`, as a number and as the word its argv and the
 * command's environment take. */
#define LAB_SERVER_PORT_NUM 9911
#define LAB_SERVER_PORT	    "9911"

struct lab_session {
	const struct lab_profile *profile;
	const char *describe;	     /* what the profile models (lab_profile_describe), or "" */
	const char *telemetry;	     /* the emulator's state every 10 ms to this file, or NULL */
	const char *json_summary;    /* the summary as JSON to this file, or NULL */
	bool quiet;		     /* no progress line and no text summary on stderr */
	bool no_gro, writer_threads; /* lab_run_config's */
	char **command;		     /* argv of the client's command; NULL: $SHELL */
};

/*
 * What must hold before anything is created: root and /dev/net/tun. 0, or 1 with
 * the reason printed ("debloat: lab: needs root ...").
 */
int lab_session_check(void);

/*
 * Build the lab, run the command through it, print the summary (text on stderr
 * unless quiet; JSON to json_summary), tear everything down. Returns the exit status
 * `debloat lab` passes on: the command's, 128 + N when signal N ended it or the lab
 * (SIGINT, SIGTERM, SIGHUP), 126/127 when the command could not run, 1 when the lab
 * could not (the message printed says why).
 */
int lab_session_run(const struct lab_session *s);

#endif
