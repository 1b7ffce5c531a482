/* SPDX-License-Identifier: MIT */
/*
 * test-fix-ready.c - src/fix/ready.c: a fix on trial says FIX_READY_WORD on the pipe
 * FIX_READY_ENV names and closes it; nothing without the variable or with a value
 * that is no descriptor from 3 up; -errno when the write fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fix/ready.h"
#include "harness.h"

static void set_fd(int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	setenv(FIX_READY_ENV, num, 1);
}

TEST(says_ready_and_closes)
{
	char buf[16] = {0};
	int p[2];

	REQUIRE(pipe2(p, O_NONBLOCK) == 0); /* a descriptor left open must not hang here */
	set_fd(p[1]);
	CHECK_EQ(fix_ready_tell(), 1);
	CHECK_EQ(read(p[0], buf, sizeof(buf) - 1), 6);
	CHECK_STR(buf, FIX_READY_WORD "\n");
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 0); /* closed: end of file */
	CHECK(fcntl(p[1], F_GETFD) < 0 && errno == EBADF);
	close(p[0]);
	unsetenv(FIX_READY_ENV);
}

TEST(nothing_without_a_descriptor)
{
	static const char *const bad[] = {"", "x", "2", "0", "-4", "3x", "99999999999"};
	int p[2];

	unsetenv(FIX_READY_ENV);
	CHECK_EQ(fix_ready_tell(), 0);
	REQUIRE(pipe(p) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(FIX_READY_ENV, bad[i], 1);
		CHECK_EQ(fix_ready_tell(), 0);
	}
	CHECK(fcntl(p[1], F_GETFD) >= 0); /* nothing was closed */
	close(p[0]);
	close(p[1]);
	unsetenv(FIX_READY_ENV);
}

TEST(write_errors_are_returned)
{
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	REQUIRE(pipe(p) == 0);
	close(p[0]); /* nobody reads */
	set_fd(p[1]);
	CHECK_EQ(fix_ready_tell(), -EPIPE);
	CHECK(fcntl(p[1], F_GETFD) < 0 && errno == EBADF);
	set_fd(p[1]); /* now closed */
	CHECK_EQ(fix_ready_tell(), -EBADF);
	unsetenv(FIX_READY_ENV);
}
