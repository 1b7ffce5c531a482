/* SPDX-License-Identifier: MIT */
/* test-fsutil.c - src/base/fsutil.c and src/base/say.c: mkdir -p, a whole write, a message. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/say.h"
#include "harness.h"

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

TEST(mkdir_p_makes_parents_and_accepts_existing)
{
	char top[] = "/tmp/test-fsutil-XXXXXX", path[PATH_MAX], file[PATH_MAX];
	int fd;

	REQUIRE(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	CHECK_EQ(mkdir_p(path), 0);
	CHECK(is_dir(path));
	CHECK_EQ(mkdir_p(path), 0); /* already there */
	snprintf(path, sizeof(path), "%s/a/b/c/", top);
	CHECK_EQ(mkdir_p(path), 0); /* a trailing slash */
	/* a file in the way */
	snprintf(file, sizeof(file), "%s/f", top);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	REQUIRE(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/f/g", top);
	CHECK_EQ(mkdir_p(path), -ENOTDIR);
	CHECK_EQ(mkdir_p(""), -ENOENT);
	unlink(file);
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a/b", top);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/a", top);
	rmdir(path);
	rmdir(top);
}

TEST(mkdir_p_rejects_a_path_too_long)
{
	static char path[PATH_MAX + 8];

	memset(path, 'a', sizeof(path) - 1);
	CHECK_EQ(mkdir_p(path), -ENAMETOOLONG);
}

TEST(write_all_writes_everything_or_says_why)
{
	static char big[256 * 1024];
	int fds[2];
	FILE *tmp = tmpfile();
	struct stat st;

	REQUIRE(tmp);
	memset(big, 'x', sizeof(big));
	CHECK_EQ(write_all(fileno(tmp), big, sizeof(big)), 0);
	CHECK(fstat(fileno(tmp), &st) == 0 && st.st_size == (off_t)sizeof(big));
	fclose(tmp);
	REQUIRE(pipe(fds) == 0);
	close(fds[1]);
	CHECK_EQ(write_all(fds[0], "x", 1), -EBADF); /* the read end */
	close(fds[0]);
}

TEST(say_formats_and_truncates)
{
	char buf[8] = "unset";

	say(buf, sizeof(buf), "%s %d", "abc", 12345);
	CHECK_STR(buf, "abc 123");
	say(NULL, 0, "%s", "nothing");
	say(buf, 0, "%s", "nothing");
	CHECK_STR(buf, "abc 123");
}

TEST(say_einval_says_and_fails)
{
	char buf[32];

	CHECK_EQ(say_einval(buf, sizeof(buf), "series \"%s\": bad tos", "a"), -EINVAL);
	CHECK_STR(buf, "series \"a\": bad tos");
	CHECK_EQ(say_einval(NULL, 0, "%d", 1), -EINVAL);
}

TEST(read_file_capped_reads_whole_files_within_the_cap)
{
	char top[] = "/tmp/test-fsutil-XXXXXX", path[PATH_MAX], link[PATH_MAX], fifo[PATH_MAX];
	char *buf = (char *)1;
	size_t len = 7;
	int fd;

	REQUIRE(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/f", top);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0);
	REQUIRE_EQ(write_all(fd, "0123456789", 10), 0);
	close(fd);

	REQUIRE_EQ(read_file_capped(path, 10, READ_REGULAR, &buf, &len), 0);
	CHECK_EQ(len, 10);
	CHECK_STR(buf, "0123456789"); /* NUL-terminated */
	free(buf);

	buf = (char *)1, len = 7;
	CHECK_EQ(read_file_capped(path, 9, 0, &buf, &len), -EFBIG);
	CHECK_EQ(read_file_capped(top, 100, 0, &buf, &len), -EISDIR);
	CHECK_EQ(read_file_capped("/nonexistent/x", 100, 0, &buf, &len), -ENOENT);
	snprintf(link, sizeof(link), "%s/l", top);
	REQUIRE_EQ(symlink(path, link), 0);
	CHECK_EQ(read_file_capped(link, 100, READ_NOFOLLOW, &buf, &len), -ELOOP);
	snprintf(fifo, sizeof(fifo), "%s/p", top);
	REQUIRE_EQ(mkfifo(fifo, 0600), 0);
	CHECK_EQ(read_file_capped(fifo, 100, READ_REGULAR, &buf, &len), -EINVAL); /* no wait */
	CHECK(buf == (char *)1 && len == 7); /* untouched on failure */

	/* not a regular file, no stat size, longer than the first buffer: /proc */
	REQUIRE_EQ(read_file_capped("/proc/self/maps", 1 << 24, 0, &buf, &len), 0);
	CHECK(len > 0 && strlen(buf) == len);
	free(buf);

	unlink(fifo);
	unlink(link);
	unlink(path);
	rmdir(top);
}
