/* SPDX-License-Identifier: MIT */
/*
 * test-exporter-http.c - src/exporter/http.c's request and --listen parsers, and
 * src/exporter/textfile.c's atomic write and refusals, in a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exporter/http.h"
#include "exporter/textfile.h"
#include "harness.h"

static int parse(const char *s, struct http_request *r)
{
	return http_parse_request(s, strlen(s), r);
}

TEST(a_prometheus_scrape_request_is_a_get_of_metrics)
{
	const char *req = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:19911\r\n"
			  "Accept: text/plain;version=0.0.4\r\n\r\n";
	struct http_request r;

	CHECK_EQ(parse(req, &r), (int)strlen(req));
	CHECK_EQ(r.method, HTTP_GET);
	CHECK_STR(r.path, "/metrics");
}

TEST(head_query_strings_and_bare_newlines)
{
	struct http_request r;

	CHECK(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", &r) > 0);
	CHECK_EQ(r.method, HTTP_HEAD);
	CHECK_STR(r.path, "/metrics");
	CHECK(parse("POST /metrics HTTP/1.1\r\n\r\n", &r) > 0);
	CHECK_EQ(r.method, HTTP_OTHER);
}

TEST(an_incomplete_head_asks_for_more_and_touches_nothing)
{
	struct http_request r = {.method = HTTP_HEAD, .path = "/keep"};

	CHECK_EQ(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), 0);
	CHECK_EQ(parse("", &r), 0);
	CHECK_STR(r.path, "/keep");
	CHECK_EQ(r.method, HTTP_HEAD);
}

TEST(malformed_requests_are_einval)
{
	struct http_request r;

	CHECK_EQ(parse("GET /metrics\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET metrics HTTP/1.1\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET /metrics HTTP/2.0\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET  /metrics HTTP/1.1\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("G(T /metrics HTTP/1.1\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(http_parse_request("GET /a\0b HTTP/1.1\r\n\r\n", 22, &r), -EINVAL);
}

TEST(a_head_without_end_within_the_limit_is_e2big)
{
	char *big = malloc(HTTP_MAX_REQUEST + 1);
	struct http_request r;

	REQUIRE(big);
	memset(big, 'a', HTTP_MAX_REQUEST);
	memcpy(big, "GET /", 5);
	CHECK_EQ(http_parse_request(big, HTTP_MAX_REQUEST, &r), -E2BIG);
	CHECK_EQ(http_parse_request(big, HTTP_MAX_REQUEST - 1, &r), 0);
	free(big);
}

TEST(listen_addresses)
{
	struct sockaddr_storage ss;
	socklen_t len;

	CHECK_EQ(http_parse_listen("127.0.0.1:19911", &ss, &len), 0);
	CHECK_EQ(ss.ss_family, AF_INET);
	CHECK_EQ(ntohs(((struct sockaddr_in *)&ss)->sin_port), 19911);
	CHECK_EQ(http_parse_listen(":9", &ss, &len), 0);
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK_EQ(http_parse_listen("[::1]:65535", &ss, &len), 0);
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK_EQ(http_parse_listen("127.0.0.1", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("127.0.0.1:0", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("127.0.0.1:65536", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("127.0.0.1:+80", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("localhost:80", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("::1:80", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("[::1]80", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("[]:80", &ss, &len), -EINVAL);
	CHECK_EQ(http_parse_listen("300.1.1.1:80", &ss, &len), -EINVAL);
}

/* ---- textfile ---- */

static char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/debloat-textfile-XXXXXX");
	return mkdtemp(dir);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t entries(const char *dir)
{
	char cmd[128];
	FILE *p;
	size_t n = 0;
	int c;

	snprintf(cmd, sizeof(cmd), "ls -A %s", dir);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

TEST(textfile_replaces_the_file_whole_and_leaves_no_temporary)
{
	char path[PATH_MAX], *dir = tmpdir();
	struct stat st;

	REQUIRE(dir);
	snprintf(path, sizeof(path), "%s/" TEXTFILE_NAME, dir);
	CHECK_EQ(textfile_write(dir, "a 1\n", 4), 0);
	CHECK_STR(slurp(path), "a 1\n");
	CHECK_EQ(textfile_write(dir, "b 2\n", 4), 0);
	CHECK_STR(slurp(path), "b 2\n");
	REQUIRE_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 0777, 0644);
	CHECK_EQ(entries(dir), 1);
	unlink(path);
	rmdir(dir);
}

TEST(textfile_refuses_odd_targets_and_changes_nothing)
{
	char path[PATH_MAX], file[PATH_MAX], *dir = tmpdir();

	REQUIRE(dir);
	CHECK_EQ(textfile_write("/nonexistent-debloat-dir", "x\n", 2), -ENOENT);
	CHECK_EQ(textfile_check("/dev/null"), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/" TEXTFILE_NAME, dir);
	/* a symlink to a device node where the file would go */
	REQUIRE_EQ(symlink("/dev/null", path), 0);
	CHECK_EQ(textfile_write(dir, "x\n", 2), -EEXIST);
	CHECK_EQ(entries(dir), 1);
	unlink(path);
	/* a directory of that name */
	REQUIRE_EQ(mkdir(path, 0755), 0);
	CHECK_EQ(textfile_check(dir), -EEXIST);
	rmdir(path);
	/* a directory given as a symlink to one is fine: it is still a directory */
	snprintf(file, sizeof(file), "%s/link", dir);
	REQUIRE_EQ(symlink(dir, file), 0);
	CHECK_EQ(textfile_check(file), 0);
	unlink(file);
	rmdir(dir);
}
