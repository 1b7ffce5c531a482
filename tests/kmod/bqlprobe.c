/* bqlprobe - the load and the sampler of the driver-module check (tests/kmod/kmod-check.sh).
 *
 *   bqlprobe sink PORT SECONDS          accept TCP connections on PORT and discard
 *                                       what they send, for at most SECONDS
 *   bqlprobe run IFACE HOST PORT SECONDS CHUNK INTERVAL_US
 *                                       send to HOST:PORT in writes of CHUNK bytes
 *                                       (large writes make GSO skbs, the driver's TSO
 *                                       path) for SECONDS, while the parent samples
 *                                       IFACE's tx-0 byte_queue_limits every
 *                                       INTERVAL_US microseconds
 *
 * run prints one line, "samples N nonzero N inflight_max B limit_min B limit_max B
 * sent_bytes B", and a second, "after inflight B limit B", read once the load has
 * stopped and the queue had 500 ms to drain. A shell cannot sample fast enough: the
 * emulated NIC completes most transmits at once, so bytes are in flight only for
 * microseconds at a time. Built static for the guest, native for the host's sink.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The number in a sysfs file, read through an fd kept open (pread from 0). */
static long read_num(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static int sink(int port, int seconds)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	static char buf[1 << 16];
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	alarm(seconds);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4)) {
		perror("bqlprobe: sink");
		return 1;
	}
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		while (read(c, buf, sizeof(buf)) > 0)
			;
		close(c);
	}
}

static int load(const char *host, int port, int seconds, size_t chunk)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	char *buf = calloc(1, chunk);
	double end = now_s() + seconds;
	long long sent = 0;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (!buf || s < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
	    connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("bqlprobe: load");
		return 1;
	}
	while (now_s() < end) {
		ssize_t n = write(s, buf, chunk);

		if (n < 0 && errno != EINTR) {
			perror("bqlprobe: write");
			return 1;
		}
		if (n > 0)
			sent += n;
	}
	close(s);
	printf("load sent_bytes %lld\n", sent);
	return 0;
}

static int run(const char *iface, const char *host, int port, int seconds, size_t chunk,
	       long interval_us)
{
	char path[256];
	int fd_inflight, fd_limit, st;
	long samples = 0, nonzero = 0, inflight_max = 0, limit_min = -1, limit_max = -1;
	struct timespec gap = {.tv_sec = 0, .tv_nsec = interval_us * 1000};
	pid_t child;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-0/byte_queue_limits/inflight",
		 iface);
	fd_inflight = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-0/byte_queue_limits/limit",
		 iface);
	fd_limit = open(path, O_RDONLY);
	if (fd_inflight < 0 || fd_limit < 0) {
		fprintf(stderr, "bqlprobe: %s has no byte_queue_limits: %s\n", iface,
			strerror(errno));
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(load(host, port, seconds, chunk));
	while (waitpid(child, &st, WNOHANG) == 0) {
		long in = read_num(fd_inflight), lim = read_num(fd_limit);

		samples++;
		if (in > 0)
			nonzero++;
		if (in > inflight_max)
			inflight_max = in;
		if (limit_min < 0 || lim < limit_min)
			limit_min = lim;
		if (lim > limit_max)
			limit_max = lim;
		nanosleep(&gap, NULL);
	}
	printf("samples %ld nonzero %ld inflight_max %ld limit_min %ld limit_max %ld\n", samples,
	       nonzero, inflight_max, limit_min, limit_max);
	usleep(500000);
	printf("after inflight %ld limit %ld\n", read_num(fd_inflight), read_num(fd_limit));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 4 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]), atoi(argv[3]));
	if (argc == 8 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]),
			   strtoul(argv[6], NULL, 10), atol(argv[7]));
	fprintf(
	    stderr,
	    "usage: bqlprobe sink PORT SECONDS | run IFACE HOST PORT SECONDS CHUNK INTERVAL_US\n");
	return 2;
}
