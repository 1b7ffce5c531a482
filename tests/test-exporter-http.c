/* SPDX-License-Identifier: MIT */
/*
 * test-exporter-http.c - src/exporter/http.c's request and --listen parsers, its
 * server under a slot-holding attack (a child process serving on loopback, clients
 * from 127.0.0.1 and 127.0.0.2), and src/exporter/textfile.c's atomic write and
 * refusals, in a temporary directory.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

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

/* Header lines go through base/http1head.h: "name: value", no folding, CRLF or LF. */
TEST(header_lines_are_name_colon_value)
{
	struct http_request r;

	CHECK(parse("GET /metrics HTTP/1.1\r\nHost: x\nAccept:\r\nX-Y:  z \r\n\r\n", &r) > 0);
	CHECK_STR(r.path, "/metrics");
	CHECK_EQ(parse("GET /metrics HTTP/1.1\r\nHost x\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET /metrics HTTP/1.1\r\n: x\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET /metrics HTTP/1.1\r\nA: b\r\n c\r\n\r\n", &r), -EINVAL);
	CHECK_EQ(parse("GET /metrics HTTP/1.1\rHost: x\r\n\r\n", &r), -EINVAL);
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

/* ---- the server under attack ---- */

static int serve_small(void *ctx, struct http_body *b)
{
	(void)ctx;
	b->data = strdup("up 1\n");
	b->len = 5;
	b->content_type = "text/plain";
	return b->data ? 0 : -ENOMEM;
}

/* http_serve in a child on 127.0.0.1, an ephemeral port: its pid, *port set. */
static pid_t serve_child(uint16_t *port)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *in = (void *)&ss;
	socklen_t len = sizeof(*in);
	int fd;
	pid_t pid;

	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (http_listen(&ss, len, &fd) < 0 || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	*port = ntohs(in->sin_port);
	pid = fork();
	if (pid == 0) {
		static volatile sig_atomic_t stop;
		struct http_server s = {
		    .fd = fd, .path = "/metrics", .serve = serve_small, .stop = &stop};

		alarm(30);
		_exit(http_serve(&s) < 0);
	}
	close(fd);
	return pid;
}

/* A connection from 127.0.0.N to the server, non-blocking once connected. */
static int connect_from(int n, uint16_t port)
{
	struct sockaddr_in from = {.sin_family = AF_INET}, to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	from.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + (uint32_t)n);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons(port);
	if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0 ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* A scrape from 127.0.0.N: whether it got its 200 within ms. */
static bool scrape(int n, uint16_t port, int ms)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	int64_t end = (int64_t)(mono_ns() / 1000000) + ms;
	char buf[512];
	size_t got = 0;
	int fd = connect_from(n, port);
	bool ok = false;

	if (fd < 0 || send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != sizeof(req) - 1)
		goto out;
	for (int64_t left; !ok && (left = end - (int64_t)(mono_ns() / 1000000)) > 0;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, (int)left) <= 0)
			break;
		r = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
		buf[got] = '\0';
		ok = strstr(buf, "\r\n\r\nup 1\n") && !strncmp(buf, "HTTP/1.1 200", 12);
	}
out:
	if (fd >= 0)
		close(fd);
	return ok;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* One address holds every slot and the backlog with heads it never finishes: scrapes
 * from another address and from the attacker's own still get through at once. */
TEST(a_scrape_succeeds_while_one_address_holds_every_slot)
{
	enum { HOLD = 80 };
	int att[HOLD], opened = 0;
	uint16_t port;
	pid_t pid = serve_child(&port);

	REQUIRE(pid > 0);
	for (int i = 0; i < HOLD; i++) {
		att[i] = connect_from(1, port);
		if (att[i] < 0)
			break;
		opened++;
		send(att[i], "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
	}
	CHECK_EQ(opened, HOLD);
	usleep(200 * 1000);
	CHECK(scrape(2, port, 1500));
	CHECK(scrape(1, port, 1500));
	for (int i = 0; i < opened; i++)
		close(att[i]);
	stop_child(pid);
}

/* A head never finished is closed at HTTP_HEAD_MS, not at the whole-response time. */
TEST(an_unfinished_head_is_closed_at_its_deadline)
{
	uint16_t port;
	pid_t pid = serve_child(&port);
	struct pollfd p;
	char buf[64];
	int fd;

	REQUIRE(pid > 0);
	fd = connect_from(1, port);
	REQUIRE(fd >= 0);
	send(fd, "GET /met", 8, MSG_NOSIGNAL);
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	CHECK(poll(&p, 1, HTTP_HEAD_MS + 1500) == 1 && recv(fd, buf, sizeof(buf), 0) == 0);
	close(fd);
	stop_child(pid);
}

/* Every byte of a response, from a request sent whole: until the server closes. */
static char *fetch(uint16_t port, const char *req, char *buf, size_t size)
{
	int64_t end = (int64_t)(mono_ns() / 1000000) + 2000;
	size_t got = 0;
	int fd = connect_from(1, port);

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req)) {
		for (int64_t left; (left = end - (int64_t)(mono_ns() / 1000000)) > 0;) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			ssize_t r;

			if (poll(&p, 1, (int)left) <= 0)
				break;
			r = recv(fd, buf + got, size - 1 - got, 0);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
	}
	buf[got] = '\0';
	close(fd);
	return buf;
}

/* The bytes on the wire, each answer whole, and the connection closed after it. */
TEST(the_answers_byte_for_byte)
{
	uint16_t port;
	pid_t pid = serve_child(&port);
	char buf[1024];

	REQUIRE(pid > 0);
	CHECK_STR(fetch(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf)),
		  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
		  "Connection: close\r\n\r\nup 1\n");
	CHECK_STR(fetch(port, "HEAD /metrics?x HTTP/1.0\n\n", buf, sizeof(buf)),
		  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
		  "Connection: close\r\n\r\n");
	CHECK_STR(fetch(port, "GET / HTTP/1.1\r\n\r\n", buf, sizeof(buf)),
		  "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 39\r\nConnection: close\r\n\r\n"
		  "not found: the metrics are at /metrics\n");
	CHECK_STR(fetch(port, "POST /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf)),
		  "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 18\r\nAllow: GET, HEAD\r\nConnection: close\r\n\r\n"
		  "only GET and HEAD\n");
	CHECK_STR(fetch(port, "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", buf, sizeof(buf)),
		  "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
		  "Content-Length: 18\r\nConnection: close\r\n\r\nmalformed request\n");
	stop_child(pid);
}

static volatile sig_atomic_t child_stop;

static void on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

static void tick_write(void *ctx)
{
	(void)!write(*(int *)ctx, "t", 1);
}

/*
 * SIGTERM stops the loop at once, whenever it comes (the child has no connection and
 * nothing else to wake it), and the tick runs at the start and then every tick_ms,
 * never sooner: a pipe gets one byte a tick, at most one per 100 ms of the child's
 * life and one more. (A loaded machine may run it late, never early: at least two.)
 */
TEST(sigterm_stops_it_and_the_tick_keeps_time)
{
	int pfd[2], status = -1, fd;
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *in = (void *)&ss;
	char ticks[64];
	uint64_t t0, life_ms;
	ssize_t n;
	pid_t pid;

	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	REQUIRE_EQ(pipe(pfd), 0);
	REQUIRE_EQ(http_listen(&ss, sizeof(*in), &fd), 0);
	t0 = mono_ns();
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct sigaction sa = {.sa_handler = on_term};
		struct http_server s = {.fd = fd,
					.path = "/metrics",
					.serve = serve_small,
					.tick = tick_write,
					.tick_ms = 100,
					.ctx = &pfd[1],
					.stop = &child_stop};

		sigaction(SIGTERM, &sa, NULL);
		alarm(30);
		_exit(http_serve(&s) < 0 ? 1 : 0);
	}
	close(fd);
	close(pfd[1]);
	usleep(550 * 1000);
	kill(pid, SIGTERM);
	for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(20 * 1000);
	life_ms = (mono_ns() - t0) / 1000000;
	if (!WIFEXITED(status))
		stop_child(pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	n = read(pfd[0], ticks, sizeof(ticks));
	/* at 0, 100, ... 500 ms: six when the machine is idle */
	CHECK(n >= 2 && (uint64_t)n <= life_ms / 100 + 1);
	close(pfd[0]);
}
