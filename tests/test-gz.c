/* SPDX-License-Identifier: MIT */
/* test-gz.c - src/base/gz.c: round trips, atomic replacement, and what bad files do. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/gz.h"
#include "harness.h"

static char dir[64];

/* A fresh directory per test; files in it are removed by the next call's cleanup. */
static const char *path_in_dir(const char *name)
{
	static char path[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/test-gz-XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void clear_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[320];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (unlink(p) < 0)
			rmdir(p);
	}
	closedir(d);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : (long)st.st_size;
}

static void write_raw(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

TEST(round_trip_text_and_binary)
{
	static unsigned char data[300000];
	const char *p = path_in_dir("a.gz");
	void *buf = NULL;
	size_t len = 0;

	REQUIRE(p);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)((i * 2654435761u) >> 13); /* poorly compressible */
	REQUIRE_EQ(gz_write_file(p, data, sizeof(data)), 0);
	REQUIRE_EQ(gz_read_file(p, sizeof(data), &buf, &len), 0);
	CHECK_EQ(len, sizeof(data));
	CHECK(memcmp(buf, data, sizeof(data)) == 0);
	CHECK_EQ(((char *)buf)[len], '\0');
	free(buf);
	CHECK_EQ(count_entries(), 1); /* no temporary file left behind */
	clear_dir();
}

TEST(round_trip_empty)
{
	const char *p = path_in_dir("empty.gz");
	void *buf = NULL;
	size_t len = 99;

	REQUIRE_EQ(gz_write_file(p, "", 0), 0);
	REQUIRE_EQ(gz_read_file(p, 10, &buf, &len), 0);
	CHECK_EQ(len, 0);
	free(buf);
	clear_dir();
}

TEST(write_replaces_an_existing_file)
{
	const char *p = path_in_dir("snap.gz");
	void *buf = NULL;
	size_t len = 0;

	REQUIRE_EQ(gz_write_file(p, "old", 3), 0);
	REQUIRE_EQ(gz_write_file(p, "new contents", 12), 0);
	REQUIRE_EQ(gz_read_file(p, 100, &buf, &len), 0);
	CHECK_EQ(len, 12);
	CHECK(memcmp(buf, "new contents", 12) == 0);
	free(buf);
	CHECK_EQ(count_entries(), 1);
	clear_dir();
}

TEST(failed_write_leaves_target_and_no_temp_file)
{
	char target[160];

	/* The target is a directory: rename fails after the temp file was written. */
	snprintf(target, sizeof(target), "%s", path_in_dir("busy"));
	REQUIRE(mkdir(target, 0755) == 0);
	CHECK_EQ(gz_write_file(target, "x", 1), -EISDIR);
	CHECK_EQ(count_entries(), 1);
	struct stat st;
	CHECK(stat(target, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ(gz_write_file("/nonexistent-dir/x.gz", "x", 1), -ENOENT);
	clear_dir();
}

TEST(truncated_file_is_ebadmsg_and_outputs_untouched)
{
	static char text[20000];
	char p[160];
	void *buf = (void *)0x1;
	size_t len = 42;
	long size;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + (i * 7919) % 26);
	snprintf(p, sizeof(p), "%s", path_in_dir("t.gz"));
	REQUIRE_EQ(gz_write_file(p, text, sizeof(text)), 0);
	size = file_size(p);
	REQUIRE(size > 20);
	REQUIRE(truncate(p, size / 2) == 0);
	CHECK_EQ(gz_read_file(p, sizeof(text), &buf, &len), -EBADMSG);
	/* Missing only the 8-byte trailer (CRC and length) is truncated too. */
	REQUIRE_EQ(gz_write_file(p, text, sizeof(text)), 0);
	REQUIRE(truncate(p, size - 4) == 0);
	CHECK_EQ(gz_read_file(p, sizeof(text), &buf, &len), -EBADMSG);
	CHECK(buf == (void *)0x1);
	CHECK_EQ(len, 42);
	clear_dir();
}

TEST(corrupt_file_is_ebadmsg)
{
	static char text[5000];
	unsigned char raw[8192];
	char p[160];
	void *buf = NULL;
	size_t len = 0;
	long size;
	FILE *f;

	memset(text, 'q', sizeof(text));
	snprintf(p, sizeof(p), "%s", path_in_dir("c.gz"));
	REQUIRE_EQ(gz_write_file(p, text, sizeof(text)), 0);
	size = file_size(p);
	f = fopen(p, "r");
	REQUIRE(f && size > 0 && (size_t)size < sizeof(raw));
	REQUIRE(fread(raw, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	raw[size - 6] ^= 0xff; /* the CRC: the data inflates, the check fails */
	write_raw(p, raw, (size_t)size);
	CHECK_EQ(gz_read_file(p, sizeof(text), &buf, &len), -EBADMSG);
	write_raw(p, "plain text, not gzip\n", 21);
	CHECK_EQ(gz_read_file(p, 100, &buf, &len), -EBADMSG);
	write_raw(p, "", 0);
	CHECK_EQ(gz_read_file(p, 100, &buf, &len), -EBADMSG);
	CHECK(buf == NULL);
	CHECK_EQ(gz_read_file(path_in_dir("missing.gz"), 100, &buf, &len), -ENOENT);
	clear_dir();
}

TEST(size_cap_is_efbig_and_exact_fit_is_fine)
{
	static char text[100000];
	char p[160];
	void *buf = NULL;
	size_t len = 0;

	memset(text, 'z', sizeof(text)); /* 100 KB that compresses to ~100 bytes */
	snprintf(p, sizeof(p), "%s", path_in_dir("big.gz"));
	REQUIRE_EQ(gz_write_file(p, text, sizeof(text)), 0);
	CHECK_EQ(gz_read_file(p, sizeof(text) - 1, &buf, &len), -EFBIG);
	CHECK(buf == NULL);
	CHECK_EQ(gz_read_file(p, sizeof(text), &buf, &len), 0);
	CHECK_EQ(len, sizeof(text));
	free(buf);
	clear_dir();
}

TEST(concatenated_members_are_one_stream)
{
	char a[160], b[160];
	unsigned char both[512];
	size_t na, nb;
	void *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(a, sizeof(a), "%s", path_in_dir("a.gz"));
	snprintf(b, sizeof(b), "%s", path_in_dir("b.gz"));
	REQUIRE_EQ(gz_write_file(a, "hello ", 6), 0);
	REQUIRE_EQ(gz_write_file(b, "world", 5), 0);
	f = fopen(a, "r");
	REQUIRE(f);
	na = fread(both, 1, sizeof(both), f);
	fclose(f);
	f = fopen(b, "r");
	REQUIRE(f);
	nb = fread(both + na, 1, sizeof(both) - na, f);
	fclose(f);
	write_raw(a, both, na + nb);
	REQUIRE_EQ(gz_read_file(a, 100, &buf, &len), 0);
	CHECK_EQ(len, 11);
	CHECK_STR((char *)buf, "hello world");
	free(buf);
	/* Garbage after a member is not another member. */
	memcpy(both + na, "junk", 4);
	write_raw(a, both, na + 4);
	CHECK_EQ(gz_read_file(a, 100, &buf, &len), -EBADMSG);
	clear_dir();
	rmdir(dir);
}
