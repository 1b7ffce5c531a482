/* SPDX-License-Identifier: MIT */
/* test-say.c - failure messages into the caller's buffer (base/say.h). */
#include <errno.h>
#include <string.h>

#include "base/say.h"
#include "harness.h"

TEST(say_truncates)
{
	char buf[8];

	say(buf, sizeof(buf), "%s %d", "line", 12345);
	CHECK_STR(buf, "line 12");
	say(NULL, 0, "%s", "nothing to write into");
	memset(buf, 'x', sizeof(buf));
	say(buf, 0, "%s", "no room");
	CHECK_EQ(buf[0], 'x');
}

TEST(say_einval_says_and_fails)
{
	char buf[32];

	CHECK_EQ(say_einval(buf, sizeof(buf), "series \"%s\": bad tos", "a"), -EINVAL);
	CHECK_STR(buf, "series \"a\": bad tos");
	CHECK_EQ(say_einval(NULL, 0, "%d", 1), -EINVAL);
}
