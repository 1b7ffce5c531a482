/* SPDX-License-Identifier: MIT */
/* test-cc.c - src/meter/cc.c: congestion control names, the kernel's lists, and what a
 * server may set for a client. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "meter/cc.h"

TEST(names)
{
	CHECK(cc_name_ok("cubic"));
	CHECK(cc_name_ok("bbr"));
	CHECK(cc_name_ok("ws_tcp-2"));
	CHECK(cc_name_ok("fifteen_chars_x"));
	CHECK(!cc_name_ok("sixteen_chars_xx"));
	CHECK(!cc_name_ok(""));
	CHECK(!cc_name_ok("../x"));
	CHECK(!cc_name_ok("a b"));
	CHECK(!cc_name_ok("a,b"));
}

TEST(list_words_whole_only)
{
	CHECK(cc_list_has("reno bbr cubic", "bbr"));
	CHECK(cc_list_has("reno bbr cubic", "cubic"));
	CHECK(cc_list_has("reno\tbbr\n", "bbr"));
	CHECK(cc_list_has("bbr,cubic", "cubic"));
	CHECK(!cc_list_has("reno bbr cubic", "bb"));
	CHECK(!cc_list_has("reno bbr cubic", "cubicx"));
	CHECK(!cc_list_has("reno bbr2", "bbr"));
	CHECK(!cc_list_has("", "reno"));
	CHECK(!cc_list_has(NULL, "reno"));
	CHECK(!cc_list_has("reno  ", ""));
}

TEST(server_allows_the_kernel_list_and_registered_extras_only)
{
	const char *allowed = "reno cubic", *available = "reno cubic bbr";

	CHECK_EQ(cc_server_allows("cubic", allowed, available, NULL), 0);
	/* Registered but not allowed: an unprivileged socket could not pick it either. */
	CHECK_EQ(cc_server_allows("bbr", allowed, available, NULL), -EPERM);
	/* Not even registered: setting it as root would load tcp_nosuch. */
	CHECK_EQ(cc_server_allows("nosuch", allowed, available, NULL), -EPERM);
	/* The operator widens the list, but only to what is loaded already. */
	CHECK_EQ(cc_server_allows("bbr", allowed, available, "bbr,nosuch"), 0);
	CHECK_EQ(cc_server_allows("nosuch", allowed, available, "bbr,nosuch"), -ENOENT);
	CHECK_EQ(cc_server_allows("dctcp", allowed, available, "bbr,nosuch"), -EPERM);
	/* Lists that could not be read are empty. */
	CHECK_EQ(cc_server_allows("reno", "", "", NULL), -EPERM);
	CHECK_EQ(cc_server_allows("bbr", "", "", "bbr"), -ENOENT);
	CHECK_EQ(cc_server_allows("../../x", "../../x", "../../x", "../../x"), -EPERM);
}

TEST(list_read)
{
	char path[] = "/tmp/test-cc-XXXXXX", buf[64], small[4];
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	CHECK(write(fd, "reno bbr\n", 9) == 9);
	close(fd);
	CHECK_EQ(cc_list_read(path, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "reno bbr");
	CHECK_EQ(cc_list_read(path, small, sizeof(small)), -EMSGSIZE);
	CHECK_STR(small, "");
	unlink(path);
	CHECK_EQ(cc_list_read(path, buf, sizeof(buf)), -ENOENT);
	CHECK_STR(buf, "");
}
