/* SPDX-License-Identifier: MIT */
/*
 * ready.h - the handshake of a fix on trial with the program that started it.
 *
 * A program that runs `debloat fix --try` and must know when the change is in place
 * (prove) makes a pipe and passes its write end's number in the environment variable
 * FIX_READY_ENV. Once everything is applied and the trial begins, fix writes
 * FIX_READY_WORD and a newline to it and closes it. A fix that ends without a trial
 * (already fixed, refused, failed) only closes it, at exit: the reader sees end of
 * file, and then the exit status says why.
 */
#ifndef DEBLOAT_FIX_READY_H
#define DEBLOAT_FIX_READY_H

#define FIX_READY_ENV  "DEBLOAT_FIX_READY_FD"
#define FIX_READY_WORD "ready"

/*
 * In fix, as the trial begins: say FIX_READY_WORD on the descriptor FIX_READY_ENV
 * names (a number from 3 up; anything else is ignored) and close it. 1 told, 0 no
 * such variable, -errno when the write failed (the descriptor is closed all the same).
 */
int fix_ready_tell(void);

#endif
